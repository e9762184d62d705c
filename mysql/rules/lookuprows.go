package rules

import (
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
