package rules

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// FUNC-2 `@v := expr` inside an expression (MySQL's assignment operator,
// which go-mysql-server's parser lacks) is rewritten by the server to
// strata_assign(@v, (expr)): it evaluates expr, stores the value in the
// session's user variable v and returns it, row by row where the
// expression is evaluated per row (SELECT @n := @n + 1 ... numbers rows).

const assignName = "strata_assign"

type assign struct {
	v     *expression.UserVar
	value sql.Expression
}

var _ sql.FunctionExpression = (*assign)(nil)

func assignFunction() sql.Function {
	return sql.Function2{Name: assignName, Fn: func(v, value sql.Expression) sql.Expression {
		uv, _ := v.(*expression.UserVar)
		return &assign{v: uv, value: value}
	}}
}

func (a *assign) FunctionName() string { return assignName }
func (a *assign) Description() string  { return "assignment to a user variable (internal)" }
func (a *assign) Resolved() bool       { return a.value.Resolved() }
func (a *assign) String() string {
	if a.v == nil {
		return fmt.Sprintf("%s(?, %s)", assignName, a.value)
	}
	return fmt.Sprintf("@%s := %s", a.v.Name, a.value)
}
func (a *assign) Type() sql.Type             { return a.value.Type() }
func (a *assign) IsNullable() bool           { return true }
func (a *assign) Children() []sql.Expression { return []sql.Expression{a.value} }
func (a *assign) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 1)
	}
	return &assign{v: a.v, value: children[0]}, nil
}

func (a *assign) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if a.v == nil {
		return nil, fmt.Errorf("strata_assign: the first argument must be a user variable")
	}
	v, err := a.value.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if err := ctx.SetUserVariable(ctx, a.v.Name, v, a.value.Type()); err != nil {
		return nil, err
	}
	return v, nil
}

// assignedVariableTypes gives a user variable read in a statement that
// also assigns it (FUNC-2) the assigned expression's type when it had no
// value when the statement was planned: go-mysql-server types a user
// variable by its value at planning, and a column of the NULL type is
// sent as NULL whatever its rows hold (SELECT @s := v * 2, @s).
func assignedVariableTypes(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	var assigned map[string]sql.Type
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if a, ok := e.(*assign); ok && a.v != nil {
			if assigned == nil {
				assigned = map[string]sql.Type{}
			}
			assigned[strings.ToLower(a.v.Name)] = a.value.Type()
		}
		return true
	})
	if assigned == nil {
		return n, transform.SameTree, nil
	}
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		uv, ok := e.(*expression.UserVar)
		if !ok || uv.Type() != nil && uv.Type() != types.Null {
			return e, transform.SameTree, nil
		}
		t, ok := assigned[strings.ToLower(uv.Name)]
		if !ok || t == nil || t == types.Null {
			return e, transform.SameTree, nil
		}
		return expression.NewUserVarWithType(uv.Name, t), transform.NewTree, nil
	})
}
