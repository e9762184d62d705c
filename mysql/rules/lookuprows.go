package rules

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// RULE-86 An index lookup (plan.IndexedTableAccess, under its table alias
// or not) whose table gives its rows for a lookup in one step (backend
// Table.LookupRows) is run through it: go-mysql-server built a partition
// iterator, a table iterator and two tracing wrappers around the backend's
// rows, for every outer row of a lookup join (a fifth of
// exists-returned's CPU with the lookup itself). Same lookup (the node's
// own GetLookup of the outer row), same rows; a table with virtual
// columns, or another kind of table, goes through go-mysql-server.
type lookupRower interface {
	LookupRows(ctx *sql.Context, lookup sql.IndexLookup) (sql.RowIter, error)
}

// lookupRows is RULE-86's iterator for ita under the outer row; nil, nil
// when go-mysql-server must build it.
func lookupRows(ctx *sql.Context, ita *plan.IndexedTableAccess, row sql.Row) (sql.RowIter, error) {
	lr, ok := ita.Table.(lookupRower)
	if !ok {
		return nil, nil
	}
	if _, virtual := plan.FindVirtualColumnTable(ita.Table); virtual {
		return nil, nil
	}
	lookup, err := ita.GetLookup(ctx, row)
	if err != nil {
		return nil, err
	}
	return lr.LookupRows(ctx, lookup)
}

// RULE-87 A hash join's probe of its built table (plan.HashLookup, after
// go-mysql-server built the table on the first probe) hands out the
// table's rows as they are: go-mysql-server copied every matched row
// (sql.RowsToRowIter: a fifth of best-sellers' CPU in memmove), though its
// only consumers, the join iterators, copy the rows they combine and
// never write to them. Same key (the node's own GetHashKey of the probe
// row), same rows, same choice for joins that must see a NULL from a
// non-empty table.
func hashedRows(ctx *sql.Context, n *plan.HashLookup, row sql.Row) (sql.RowIter, error) {
	n.Mutex.Lock()
	defer n.Mutex.Unlock()
	if n.Lookup == nil {
		return nil, nil // the first probe: go-mysql-server builds the table
	}
	key, err := n.GetHashKey(ctx, n.LeftProbeKey, row)
	if err != nil {
		return nil, err
	}
	rows := (*n.Lookup)[key]
	if len(rows) == 0 && n.JoinType.IsExcludeNulls() {
		// As go-mysql-server: any non-empty bucket, so the join can tell
		// an empty table from a miss.
		for _, r := range *n.Lookup {
			if len(r) > 0 {
				rows = r
				break
			}
		}
	}
	return &sharedRows{rows: rows}, nil
}

// sharedRows hands out rows without copying them (RULE-87).
type sharedRows struct {
	rows []sql.Row
	i    int
}

func (s *sharedRows) Next(*sql.Context) (sql.Row, error) {
	if s.i >= len(s.rows) {
		return nil, io.EOF
	}
	s.i++
	return s.rows[s.i-1], nil
}

func (s *sharedRows) Close(*sql.Context) error { return nil }
