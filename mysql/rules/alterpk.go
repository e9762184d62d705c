package rules

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// RULE-24 ALTER TABLE ... ADD PRIMARY KEY / DROP PRIMARY KEY is one table
// rewrite (sql.RewritableTable), and DROP PRIMARY KEY, ADD PRIMARY KEY
// (...) in one statement is a single rewrite from the old key to the new:
// when it fails (a duplicate, a NULL) the table is as it was, as in
// MySQL. go-mysql-server runs the two clauses as two rewrites, so a
// failing ADD left the table without a key; and its ADD returned on a
// NULL key value without abandoning the rewrite, which left the table's
// DDL lock held.

func primaryKeyChanges(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.AlterPK:
			return newAlterPK(n, n.Action == plan.PrimaryKeyAction_Drop), transform.NewTree, nil
		case *plan.Block:
			kids := n.Children()
			var out []sql.Node
			changed := false
			for i := 0; i < len(kids); i++ {
				if d, ok := kids[i].(*alterPK); ok && d.drop && d.columns == nil && i+1 < len(kids) {
					if c, ok := kids[i+1].(*alterPK); ok && !c.drop && c.table == d.table && c.db.Name() == d.db.Name() {
						out = append(out, &alterPK{db: c.db, table: c.table, drop: true, columns: c.columns})
						i++
						changed = true
						continue
					}
				}
				out = append(out, kids[i])
			}
			if !changed {
				return n, transform.SameTree, nil
			}
			nb, err := n.WithChildren(out...)
			return nb, transform.NewTree, err
		}
		return n, transform.SameTree, nil
	})
}

// errInvalidNull is MySQL 8's answer to a NULL in a new primary key.
var errInvalidNull = mysql.NewSQLError(mysql.ERInvalidUseOfNull, "22004", "Invalid use of NULL value")

func newAlterPK(n *plan.AlterPK, drop bool) *alterPK {
	a := &alterPK{db: n.Database(), table: tableName(n.Table), drop: drop}
	if !drop {
		a.columns = n.Columns
	}
	return a
}

func tableName(n sql.Node) string {
	if nm, ok := n.(sql.Nameable); ok {
		return nm.Name()
	}
	return n.String()
}

// alterPK drops the table's primary key (drop), adds one over columns,
// or both in one rewrite.
type alterPK struct {
	db      sql.Database
	table   string
	drop    bool
	columns []sql.IndexColumn
}

var _ sql.ExecSourceRel = (*alterPK)(nil)

func (a *alterPK) Resolved() bool       { return true }
func (a *alterPK) IsReadOnly() bool     { return false }
func (a *alterPK) Schema() sql.Schema   { return types.OkResultSchema }
func (a *alterPK) Children() []sql.Node { return nil }
func (a *alterPK) String() string {
	s := "AlterPrimaryKey(" + a.table
	if a.drop {
		s += " drop"
	}
	for _, c := range a.columns {
		s += " " + c.Name
	}
	return s + ")"
}
func (a *alterPK) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 0)
	}
	return a, nil
}

func (a *alterPK) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	t, ok, err := a.db.GetTableInsensitive(ctx, a.table)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, sql.ErrTableNotFound.New(a.table)
	}
	rwt, ok := t.(sql.RewritableTable)
	if !ok {
		return nil, plan.ErrNotPrimaryKeyAlterable.New(a.table)
	}
	old := rwt.Schema()
	has := plan.HasPrimaryKeys(rwt)
	if a.drop && !has {
		return nil, sql.ErrCantDropFieldOrKey.New("PRIMARY")
	}
	if !a.drop && has {
		return nil, sql.ErrMultiplePrimaryKeysDefined.New()
	}
	sch := old.Copy()
	for _, c := range sch {
		c.PrimaryKey = false
	}
	ords := make([]int, len(a.columns))
	for i, c := range a.columns {
		o := sch.IndexOfColName(c.Name)
		if o < 0 {
			return nil, sql.ErrKeyColumnDoesNotExist.New(c.Name)
		}
		ords[i] = o
		sch[o].PrimaryKey = true
		sch[o].Nullable = false
	}
	newSch := sql.NewPrimaryKeySchema(sch, ords...)
	oldSch := sql.SchemaToPrimaryKeySchema(rwt, old)
	var idx []sql.IndexColumn
	if len(a.columns) > 0 {
		idx = a.columns
	}
	ins, err := rwt.RewriteInserter(ctx, oldSch, newSch, nil, nil, idx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (sql.RowIter, error) {
		_ = ins.DiscardChanges(ctx, err)
		_ = ins.Close(ctx)
		return nil, err
	}
	parts, err := rwt.Partitions(ctx)
	if err != nil {
		return fail(err)
	}
	it := sql.NewTableRowIter(ctx, rwt, parts)
	defer it.Close(ctx)
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		for _, o := range ords {
			if r[o] == nil {
				return fail(errInvalidNull)
			}
		}
		if err := ins.Insert(ctx, r); err != nil {
			return fail(err)
		}
	}
	if err := ins.Close(ctx); err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(sql.NewRow(types.NewOkResult(0))), nil
}
