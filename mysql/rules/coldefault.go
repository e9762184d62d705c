package rules

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// FUNC-3 DEFAULT(col) as an expression is the column's default value:
// go-mysql-server's planner panicked on it. The server rewrites the call
// to strata_fn_default(col); this rule replaces it by the column's default
// expression (built from the catalog's text by go-mysql-server's own
// planner, evaluated per row so CURRENT_TIMESTAMP is the statement's
// time) converted to the column's type. A column without a default is
// NULL if nullable, else MySQL's 1364. A default that reads other columns
// ((a + 1)) is 1235.

// ColumnDefaultFunction is the name the server rewrites DEFAULT( to.
const ColumnDefaultFunction = "strata_fn_default"

type defaultMarker struct{ col sql.Expression }

var _ sql.FunctionExpression = (*defaultMarker)(nil)

func defaultFunction() sql.Function {
	return sql.Function1{Name: ColumnDefaultFunction, Fn: func(e sql.Expression) sql.Expression {
		return &defaultMarker{col: e}
	}}
}

func (d *defaultMarker) FunctionName() string       { return ColumnDefaultFunction }
func (d *defaultMarker) Description() string        { return "DEFAULT(col) (internal)" }
func (d *defaultMarker) Resolved() bool             { return d.col.Resolved() }
func (d *defaultMarker) String() string             { return fmt.Sprintf("DEFAULT(%s)", d.col) }
func (d *defaultMarker) Type() sql.Type             { return d.col.Type() }
func (d *defaultMarker) IsNullable() bool           { return true }
func (d *defaultMarker) Children() []sql.Expression { return []sql.Expression{d.col} }
func (d *defaultMarker) Eval(*sql.Context, sql.Row) (any, error) {
	return nil, errDefaultOf(d.col)
}
func (d *defaultMarker) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	return &defaultMarker{col: children[0]}, nil
}

func errDefaultOf(e sql.Expression) error {
	return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of Strata doesn't yet support 'DEFAULT(%s)'", e)
}

// columnDefaults is FUNC-3's analyzer rule.
func columnDefaults(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same, err := dupKeyDefaults(n)
	if err != nil {
		return nil, same, err
	}
	n, same2, err := defaultFunctions(ctx, a, n)
	return n, same && same2, err
}

// dupKeyDefaults gives `ON DUPLICATE KEY UPDATE c = DEFAULT` the column's
// default value (FUNC-3): go-mysql-server left the DEFAULT placeholder
// there, and evaluating it panicked ("default column is a placeholder
// node, but Eval was called"; found by FuzzSQL).
func dupKeyDefaults(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ins, ok := n.(*plan.InsertInto)
		if !ok || len(ins.OnDupExprs) == 0 {
			return n, transform.SameTree, nil
		}
		sch := ins.Destination.Schema()
		var exprs []sql.Expression
		for i, e := range ins.OnDupExprs {
			sf, ok := e.(*expression.SetField)
			if !ok {
				continue
			}
			r := sf.RightChild
			if w, ok := r.(*expression.Wrapper); ok {
				r = w.Unwrap()
			}
			if _, ok := r.(*expression.DefaultColumn); !ok {
				continue
			}
			gf, ok := sf.LeftChild.(*expression.GetField)
			if !ok {
				continue
			}
			var def sql.Expression = expression.NewLiteral(nil, gf.Type())
			if j := sch.IndexOfColName(gf.Name()); j >= 0 && sch[j].Default != nil {
				def = sch[j].Default
			}
			if exprs == nil {
				exprs = append([]sql.Expression{}, ins.OnDupExprs...)
			}
			exprs[i] = expression.NewSetField(sf.LeftChild, def)
		}
		if exprs == nil {
			return n, transform.SameTree, nil
		}
		ni := *ins
		ni.OnDupExprs = exprs
		return &ni, transform.NewTree, nil
	})
}

// defaultFunctions resolves DEFAULT(col) markers (FUNC-3).
func defaultFunctions(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	found := false
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if _, ok := e.(*defaultMarker); ok {
			found = true
		}
		return !found
	})
	if !found {
		return n, transform.SameTree, nil
	}
	schemas := map[string]sql.Schema{} // table name or alias -> schema
	transform.Inspect(n, func(n sql.Node) bool {
		switch n := n.(type) {
		case *plan.TableAlias:
			schemas[strings.ToLower(n.Name())] = n.Child.Schema()
		case sql.TableNode:
			schemas[strings.ToLower(n.UnderlyingTable().Name())] = n.UnderlyingTable().Schema()
		}
		return true
	})
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		d, ok := e.(*defaultMarker)
		if !ok {
			return e, transform.SameTree, nil
		}
		gf, ok := d.col.(*expression.GetField)
		if !ok {
			return nil, transform.SameTree, errDefaultOf(d.col)
		}
		sch, ok := schemas[strings.ToLower(gf.Table())]
		if !ok {
			return nil, transform.SameTree, errDefaultOf(d.col)
		}
		o := sch.IndexOfColName(gf.Name())
		if o < 0 {
			return nil, transform.SameTree, errDefaultOf(d.col)
		}
		col := sch[o]
		if col.Default == nil || col.Default.Expr == nil {
			if col.Nullable {
				return expression.NewLiteral(nil, col.Type), transform.NewTree, nil
			}
			return nil, transform.SameTree, mysql.NewSQLError(1364, "HY000", "Field '%s' doesn't have a default value", col.Name)
		}
		def := col.Default.Expr
		if u, ok := def.(*sql.UnresolvedColumnDefault); ok {
			node, _, err := planbuilder.Parse(ctx, a.Catalog, "SELECT "+u.ExprString)
			if err != nil {
				return nil, transform.SameTree, errDefaultOf(d.col)
			}
			p, ok := node.(*plan.Project)
			if !ok || len(p.Projections) != 1 {
				return nil, transform.SameTree, errDefaultOf(d.col)
			}
			def = p.Projections[0]
			if al, ok := def.(*expression.Alias); ok {
				def = al.Child
			}
		}
		readsColumns := false
		transform.InspectExpr(def, func(e sql.Expression) bool {
			_, readsColumns = e.(*expression.GetField)
			return readsColumns
		})
		if readsColumns {
			return nil, transform.SameTree, errDefaultOf(d.col)
		}
		return &columnDefault{def: def, col: col}, transform.NewTree, nil
	})
}

// columnDefault is a column's default value, of the column's type.
type columnDefault struct {
	def sql.Expression
	col *sql.Column
}

var _ sql.Expression = (*columnDefault)(nil)

func (c *columnDefault) Resolved() bool             { return true }
func (c *columnDefault) String() string             { return fmt.Sprintf("DEFAULT(%s)", c.col.Name) }
func (c *columnDefault) Type() sql.Type             { return c.col.Type }
func (c *columnDefault) IsNullable() bool           { return c.col.Nullable }
func (c *columnDefault) Children() []sql.Expression { return nil }
func (c *columnDefault) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 0)
	}
	return c, nil
}
func (c *columnDefault) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.def.Eval(ctx, nil)
	if err != nil || v == nil {
		return v, err
	}
	out, _, err := c.col.Type.Convert(ctx, v)
	return out, err
}
