package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-27 CREATE TABLE IF NOT EXISTS t ... SELECT of a table that exists
// does nothing but leave Note 1050, as MySQL 8 documents ("nothing is
// inserted into the destination table"); go-mysql-server inserted the
// SELECT's rows into the existing table and panicked when their columns
// did not match its own.
func existingCreateSelect(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	ct, ok := n.(*plan.CreateTable)
	if !ok || !ct.IfNotExists() || ct.Select() == nil || ct.Temporary() {
		return n, transform.SameTree, nil
	}
	db := ct.Database()
	if db == nil {
		return n, transform.SameTree, nil
	}
	if _, exists, err := db.GetTableInsensitive(ctx, ct.Name()); err != nil || !exists {
		return n, transform.SameTree, err
	}
	return &tableExistsNote{name: ct.Name()}, transform.NewTree, nil
}

// tableExistsNote answers OK with Note 1050.
type tableExistsNote struct{ name string }

var _ sql.ExecSourceRel = (*tableExistsNote)(nil)

func (t *tableExistsNote) Resolved() bool       { return true }
func (t *tableExistsNote) IsReadOnly() bool     { return false }
func (t *tableExistsNote) Schema() sql.Schema   { return types.OkResultSchema }
func (t *tableExistsNote) Children() []sql.Node { return nil }
func (t *tableExistsNote) String() string       { return "TableExists(" + t.name + ")" }
func (t *tableExistsNote) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 0)
	}
	return t, nil
}
func (t *tableExistsNote) RowIter(ctx *sql.Context, _ sql.Row) (sql.RowIter, error) {
	ctx.Session.Warn(&sql.Warning{Level: "Note", Code: 1050, Message: "Table '" + t.name + "' already exists"})
	return sql.RowsToRowIter(sql.NewRow(types.NewOkResult(0))), nil
}
