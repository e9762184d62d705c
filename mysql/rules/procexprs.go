package rules

import (
	"reflect"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// procedureExpressions is RULE-66: in the statements of a stored procedure
// (and so of a stored function, routines FN-1), the expressions
// go-mysql-server's interpreter does not look into for variables are
// rewritten into equivalents it does: x IS [NOT] NULL/TRUE/FALSE, x [NOT]
// BETWEEN a AND b, CASE, EXISTS (subquery), unary minus and !. Its interpreter left a
// parameter or local variable inside them unresolved ("Unknown column
// 'x'" for IF x IS NULL THEN). A SELECT's unaliased columns are named as
// written (namedColumns).
func procedureExpressions(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	c, ok := n.(*plan.Call)
	if !ok {
		return n, transform.SameTree, nil
	}
	for i := range c.Ops {
		if c.Ops[i].PrimaryData != nil {
			rewriteExprs(reflect.ValueOf(&c.Ops[i].PrimaryData).Elem())
			namedColumns(c.Ops[i].PrimaryData)
		}
	}
	if c.Procedure != nil {
		for _, op := range c.Procedure.Ops {
			if op != nil && op.PrimaryData != nil {
				rewriteExprs(reflect.ValueOf(&op.PrimaryData).Elem())
				namedColumns(op.PrimaryData)
			}
		}
	}
	return n, transform.SameTree, nil
}

var exprType = reflect.TypeOf((*ast.Expr)(nil)).Elem()

// namedColumns gives a SELECT's bare column references their name as an
// alias: the interpreter puts a variable's value in place of a reference
// to it, and the result column was then named after the value (SELECT r
// in a procedure called with 42 answered a column "42").
func namedColumns(stmt ast.Statement) {
	sel, ok := stmt.(*ast.Select)
	if !ok {
		return
	}
	for _, se := range sel.SelectExprs {
		ae, ok := se.(*ast.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			continue
		}
		if cn, ok := ae.Expr.(*ast.ColName); ok {
			ae.As = ast.NewColIdent(cn.Name.String())
		} else if ae.InputExpression != "" {
			ae.As = ast.NewColIdent(ae.InputExpression) // as written: x+1
		}
	}
}

// rewriteExprs walks v (settable), replacing each expression of a form
// RULE-66 rewrites, children first.
func rewriteExprs(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		inner := v.Elem()
		if inner.Kind() == reflect.Ptr && !inner.IsNil() {
			rewriteExprs(inner)
		}
		if v.Type() == exprType || v.Type().Implements(exprType) || exprType.AssignableTo(v.Type()) {
			if e, ok := v.Interface().(ast.Expr); ok && v.CanSet() {
				if r := interpretable(e); r != nil && reflect.TypeOf(r).AssignableTo(v.Type()) {
					v.Set(reflect.ValueOf(r))
				}
			}
		}
	case reflect.Ptr:
		if !v.IsNil() {
			rewriteExprs(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				rewriteExprs(f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			rewriteExprs(v.Index(i))
		}
	}
}

func astCall(name string, args ...ast.Expr) ast.Expr {
	exprs := make(ast.SelectExprs, len(args))
	for i, a := range args {
		exprs[i] = &ast.AliasedExpr{Expr: a}
	}
	return &ast.FuncExpr{Name: ast.NewColIdent(name), Exprs: exprs}
}

func intLit(s string) ast.Expr { return ast.NewIntVal([]byte(s)) }

// interpretable is e in a form the interpreter reads, or nil when e needs
// no rewrite.
func interpretable(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.IsExpr:
		truth := astCall("if", x.Expr, intLit("1"), intLit("0"))                                                          // TRUE: not NULL and not 0
		falsity := astCall("if", astCall("isnull", x.Expr), intLit("0"), astCall("if", x.Expr, intLit("0"), intLit("1"))) // FALSE: not NULL and 0
		switch x.Operator {
		case ast.IsNullStr:
			return astCall("isnull", x.Expr)
		case ast.IsNotNullStr:
			return &ast.NotExpr{Expr: astCall("isnull", x.Expr)}
		case ast.IsTrueStr:
			return truth
		case ast.IsNotTrueStr:
			return &ast.NotExpr{Expr: truth}
		case ast.IsFalseStr:
			return falsity
		case ast.IsNotFalseStr:
			return &ast.NotExpr{Expr: falsity}
		}
	case *ast.RangeCond:
		if x.Operator == ast.BetweenStr {
			return &ast.ParenExpr{Expr: &ast.AndExpr{
				Left:  &ast.ComparisonExpr{Operator: ast.GreaterEqualStr, Left: x.Left, Right: x.From},
				Right: &ast.ComparisonExpr{Operator: ast.LessEqualStr, Left: x.Left, Right: x.To}}}
		}
		if x.Operator == ast.NotBetweenStr {
			return &ast.ParenExpr{Expr: &ast.OrExpr{
				Left:  &ast.ComparisonExpr{Operator: ast.LessThanStr, Left: x.Left, Right: x.From},
				Right: &ast.ComparisonExpr{Operator: ast.GreaterThanStr, Left: x.Left, Right: x.To}}}
		}
	case *ast.UnaryExpr:
		switch x.Operator {
		case ast.UMinusStr:
			return &ast.ParenExpr{Expr: &ast.BinaryExpr{Operator: ast.MinusStr, Left: intLit("0"), Right: x.Expr}}
		case ast.BangStr:
			return &ast.NotExpr{Expr: x.Expr}
		}
	case *ast.ExistsExpr:
		// EXISTS (SELECT ... FROM ... WHERE ...) as the scalar subquery
		// IFNULL((SELECT 1 FROM ... WHERE ... LIMIT 1), 0), which the
		// interpreter looks into (and which stays correlated).
		sel, ok := x.Subquery.Select.(*ast.Select)
		if !ok || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Into != nil {
			return nil
		}
		sel.SelectExprs = ast.SelectExprs{&ast.AliasedExpr{Expr: intLit("1")}}
		sel.OrderBy = nil
		sel.Limit = &ast.Limit{Rowcount: intLit("1")}
		return astCall("ifnull", &ast.Subquery{Select: sel}, intLit("0"))
	case *ast.CaseExpr:
		var out ast.Expr = &ast.NullVal{}
		if x.Else != nil {
			out = x.Else
		}
		for i := len(x.Whens) - 1; i >= 0; i-- {
			cond := x.Whens[i].Cond
			if x.Expr != nil {
				cond = &ast.ComparisonExpr{Operator: ast.EqualStr, Left: x.Expr, Right: cond}
			}
			out = astCall("if", cond, x.Whens[i].Val, out)
		}
		return out
	}
	return nil
}
