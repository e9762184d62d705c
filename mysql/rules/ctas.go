package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-27 CREATE TABLE IF NOT EXISTS t ... SELECT of a table that exists
// does nothing but leave Note 1050, as MySQL 8 documents ("nothing is
// inserted into the destination table"); go-mysql-server inserted the
// SELECT's rows into the existing table and panicked when their columns
// did not match its own. Without a SELECT too: CREATE TABLE IF NOT EXISTS
// of a table that exists leaves Note 1050 (go-mysql-server: none).
func existingCreateSelect(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	ct, ok := n.(*plan.CreateTable)
	if ok && ct.Select() != nil {
		selectedComments(ct)
		selectedNulls(ct)
	}
	if !ok || !ct.IfNotExists() || ct.Temporary() {
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

// selectedComments gives a column of CREATE TABLE ... SELECT that is a
// column of a table in the query that column's comment, as MySQL and
// MariaDB copy it (RULE-27); go-mysql-server's planner kept the default
// only. The columns are the planner's, fresh for this statement.
func selectedComments(ct *plan.CreateTable) {
	comments := map[[2]string]string{}
	transform.Inspect(ct.Select(), func(n sql.Node) bool {
		switch n.(type) {
		case *plan.ResolvedTable, *plan.TableAlias:
			for _, c := range n.Schema() {
				if c.Comment != "" {
					comments[[2]string{strings.ToLower(c.Source), strings.ToLower(c.Name)}] = c.Comment
				}
			}
		}
		return true
	})
	if len(comments) == 0 {
		return
	}
	proj, cols := selectedColumns(ct)
	for i, e := range proj {
		if a, ok := e.(*expression.Alias); ok {
			e = a.Child
		}
		gf, ok := e.(*expression.GetField)
		if !ok {
			continue
		}
		if cm, ok := comments[[2]string{strings.ToLower(gf.Table()), strings.ToLower(gf.Name())}]; ok && cols[i].Comment == "" {
			cols[i].Comment = cm
		}
	}
}

// selectedColumns pairs CREATE TABLE ... SELECT's columns with the
// expressions of the query's top projection (none when they do not pair):
// the planner's columns are the query's, in its order.
func selectedColumns(ct *plan.CreateTable) ([]sql.Expression, sql.Schema) {
	var proj *plan.Project
	transform.Inspect(ct.Select(), func(n sql.Node) bool {
		if p, ok := n.(*plan.Project); ok && proj == nil {
			proj = p
		}
		return proj == nil
	})
	cols := ct.PkSchema().Schema
	if proj == nil || len(proj.Projections) != len(cols) {
		return nil, nil
	}
	return proj.Projections, cols
}

// selectedNulls makes a column of CREATE TABLE ... SELECT nullable when
// its expression may be NULL (RULE-27): go-mysql-server declared NOT NULL
// the columns of `1 IN (2, NULL)`, `ROUND(10, NULL)`, `MAX(COALESCE(c))`,
// whose NULL rows then failed with 1048. An expression may be NULL when a
// NULL literal, a nullable column or a subquery is among its operands
// (COALESCE and IFNULL: all of them), as MariaDB derives it.
func selectedNulls(ct *plan.CreateTable) {
	proj, cols := selectedColumns(ct)
	for i, e := range proj {
		if !cols[i].Nullable && mayBeNull(e) {
			cols[i].Nullable = true
		}
	}
}

// mayBeNull reports whether e may evaluate to NULL (selectedNulls).
func mayBeNull(e sql.Expression) bool {
	switch x := e.(type) {
	case *expression.Literal:
		return x.Value() == nil
	case *expression.GetField:
		return x.IsNullable()
	case *plan.Subquery:
		return true
	case sql.FunctionExpression:
		if name := strings.ToLower(x.FunctionName()); name == "coalesce" || name == "ifnull" {
			for _, c := range e.Children() {
				if !mayBeNull(c) {
					return false
				}
			}
			return true
		}
	}
	if e.IsNullable() {
		return true
	}
	for _, c := range e.Children() {
		if mayBeNull(c) {
			return true
		}
	}
	return false
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
