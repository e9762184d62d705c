package rules

import (
	"io"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"

	"strata/memgov"
)

// MaterializeLimit bounds the bytes RULE-19 keeps in memory for one
// statement's source rows; past it the statement fails with 1114, as
// MySQL does when an internal temporary table is full.
var MaterializeLimit atomic.Int64

func init() { MaterializeLimit.Store(256 << 20) }

// selfInsert makes INSERT ... SELECT whose SELECT reads the table it
// inserts into read all of its rows before the first insert (RULE-19):
// the SELECT sees the table as it was when the statement began, not the
// rows the statement adds (which made `INSERT INTO t SELECT ... FROM t A,
// t B` insert too many rows, or never end).
func selfInsert(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ii, ok := n.(*plan.InsertInto)
		if !ok || ii.Source == nil {
			return n, transform.SameTree, nil
		}
		if _, done := ii.Source.(*materialized); done {
			return n, transform.SameTree, nil
		}
		db, name, ok := firstTable(ii.Destination)
		if !ok || !readsTable(ii.Source, db, name) {
			return n, transform.SameTree, nil
		}
		return ii.WithSource(&materialized{UnaryNode: plan.UnaryNode{Child: ii.Source}}), transform.NewTree, nil
	})
}

type databased interface{ Database() string }

func tableID(t sql.Table) (db, name string) {
	if d, ok := t.(databased); ok {
		db = d.Database()
	}
	return strings.ToLower(db), strings.ToLower(t.Name())
}

// firstTable is the table a node tree reads or writes first.
func firstTable(n sql.Node) (db, name string, ok bool) {
	transform.InspectUp(n, func(n sql.Node) bool {
		if tn, is := n.(sql.TableNode); is {
			db, name = tableID(tn.UnderlyingTable())
			ok = true
		}
		return ok
	})
	return db, name, ok
}

// readsTable reports whether n, or a subquery in its expressions, reads
// table db.name.
func readsTable(n sql.Node, db, name string) bool {
	if transform.InspectUp(n, func(n sql.Node) bool {
		tn, is := n.(sql.TableNode)
		if !is {
			return false
		}
		d, t := tableID(tn.UnderlyingTable())
		return t == name && (d == db || d == "" || db == "")
	}) {
		return true
	}
	found := false
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if sq, is := e.(*plan.Subquery); is && readsTable(sq.Query, db, name) {
			found = true
		}
		return !found
	})
	return found
}

// materialized reads all of its child's rows before it returns the first.
type materialized struct {
	plan.UnaryNode
}

var _ sql.ExecSourceRel = (*materialized)(nil)

func (m *materialized) String() string { return "Materialized(" + m.Child.String() + ")" }
func (m *materialized) IsReadOnly() bool {
	return m.Child.IsReadOnly()
}
func (m *materialized) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(m, len(children), 1)
	}
	return &materialized{UnaryNode: plan.UnaryNode{Child: children[0]}}, nil
}

func (m *materialized) RowIter(ctx *sql.Context, r sql.Row) (sql.RowIter, error) {
	it, err := Exec.Build(ctx, m.Child, r)
	if err != nil {
		return nil, err
	}
	defer it.Close(ctx)
	// Rows are kept in chunks of a fixed size: one slice doubled as it
	// grew allocated its new half all at once (192 MiB at 8M rows), past
	// the budget between two checks.
	var chunks [][]sql.Row
	var n int
	var size int64
	for {
		row, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if n >= memgov.MinRows && n%64 == 0 && memgov.Check() != nil { // RULE-22
			return nil, ErrOutOfMemory()
		}
		size += rowSize(row)
		if limit := MaterializeLimit.Load(); size > limit {
			return nil, mysql.NewSQLError(mysql.ERRecordFileFull, "HY000",
				"The table '#sql-insert-select' is full (the rows INSERT ... SELECT reads from its own table exceed %d bytes)", limit)
		}
		if n%materializeChunk == 0 {
			chunks = append(chunks, make([]sql.Row, 0, materializeChunk))
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], row)
		n++
	}
	return &chunkedRows{chunks: chunks}, nil
}

const materializeChunk = 1024

// chunkedRows hands out materialized's rows in order.
type chunkedRows struct {
	chunks [][]sql.Row
	i      int
}

func (c *chunkedRows) Next(*sql.Context) (sql.Row, error) {
	for len(c.chunks) > 0 {
		if c.i < len(c.chunks[0]) {
			c.i++
			return c.chunks[0][c.i-1], nil
		}
		c.chunks[0] = nil // read rows become garbage as the insert goes
		c.chunks, c.i = c.chunks[1:], 0
	}
	return nil, io.EOF
}

func (c *chunkedRows) Close(*sql.Context) error {
	c.chunks = nil
	return nil
}

// rowSize approximates a row's memory.
func rowSize(r sql.Row) int64 {
	n := int64(24 + 16*len(r))
	for _, v := range r {
		switch v := v.(type) {
		case string:
			n += int64(len(v))
		case []byte:
			n += int64(len(v))
		case nil:
		default:
			n += 16
		}
	}
	return n
}

// selfUpdate extends RULE-19 to UPDATE and DELETE whose rows, or whose
// new values, come from reading their own table again (a subquery or a
// join over the target): every (old, new) row pair is computed before the
// first change, so the statement sees the table as it began, as MariaDB
// does. go-mysql-server evaluated each row's subquery after the earlier
// rows had changed (UPDATE t SET v = v + 10 WHERE v < (SELECT AVG(v) FROM
// t) moved the average as it went).
func selfUpdate(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		var child sql.Node
		switch n := n.(type) {
		case *plan.Update:
			if uj, ok := n.Child.(*plan.UpdateJoin); ok {
				return updateJoinFirstMatch(n, uj)
			}
			if _, ok := n.Child.(*plan.UpdateSource); !ok {
				return n, transform.SameTree, nil
			}
			child = n.Child
		case *plan.DeleteFrom:
			if n.HasExplicitTargets() {
				return n, transform.SameTree, nil
			}
			child = n.Child
		default:
			return n, transform.SameTree, nil
		}
		if _, done := child.(*materialized); done || hasTriggers(child) {
			return n, transform.SameTree, nil
		}
		db, name, ok := firstTable(child)
		if !ok || tableReads(child, db, name) < 2 {
			return n, transform.SameTree, nil
		}
		nn, err := n.WithChildren(&materialized{UnaryNode: plan.UnaryNode{Child: child}})
		return nn, transform.NewTree, err
	})
}

// updateJoinFirstMatch materializes the join under a multi-table UPDATE
// (UPDATE a JOIN b ... SET ...) over inner joins, so that each target row
// is changed once, by its first match in the join as the statement found
// the tables, as in MariaDB. go-mysql-server skips a target row's later
// matches by the hash of its old values, but its join read the rows this
// statement had already changed: with two matches, `SET a.v = a.v + b.v`
// added both, and `SET a.v = b.v` kept the last. An outer join keeps
// go-mysql-server's iterator (it looks for the join node under the update
// to tell a missing row from a NULL one), and so does a statement with
// triggers.
func updateJoinFirstMatch(u *plan.Update, uj *plan.UpdateJoin) (sql.Node, transform.TreeIdentity, error) {
	us, ok := uj.Child.(*plan.UpdateSource)
	if !ok {
		return u, transform.SameTree, nil
	}
	if _, done := us.Child.(*materialized); done || hasTriggers(us.Child) || hasOuterJoin(us.Child) {
		return u, transform.SameTree, nil
	}
	nus, err := us.WithChildren(&materialized{UnaryNode: plan.UnaryNode{Child: us.Child}})
	if err != nil {
		return nil, transform.SameTree, err
	}
	nuj, err := uj.WithChildren(nus)
	if err != nil {
		return nil, transform.SameTree, err
	}
	nu, err := u.WithChildren(nuj)
	return nu, transform.NewTree, err
}

func hasOuterJoin(n sql.Node) bool {
	return transform.InspectUp(n, func(n sql.Node) bool {
		j, ok := n.(*plan.JoinNode)
		return ok && (j.JoinType().IsLeftOuter() || j.JoinType().IsRightOuter() || j.JoinType().IsFullOuter())
	})
}

func hasTriggers(n sql.Node) bool {
	return transform.InspectUp(n, func(n sql.Node) bool {
		_, ok := n.(*plan.TriggerExecutor)
		return ok
	})
}

// tableReads counts the reads of table db.name in n and in its subqueries.
func tableReads(n sql.Node, db, name string) int {
	count := 0
	transform.Inspect(n, func(n sql.Node) bool {
		if tn, is := n.(sql.TableNode); is {
			if d, t := tableID(tn.UnderlyingTable()); t == name && (d == db || d == "" || db == "") {
				count++
			}
		}
		return true
	})
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if sq, is := e.(*plan.Subquery); is {
			count += tableReads(sq.Query, db, name)
		}
		return true
	})
	return count
}
