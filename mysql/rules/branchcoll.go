package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"reflect"
	"strings"
)

// branchCollations implements RULE-58: a string expression is typed in
// the collation of its values, so ORDER BY, GROUP BY, DISTINCT and
// comparisons of `COALESCE(nick, name)` or `CONCAT(first, last)` follow
// the columns' case-insensitive collation. IF, CASE and COALESCE take the
// aggregation of their string arguments (an explicit COLLATE over a
// column over a literal), as MySQL does. go-mysql-server typed them TEXT
// in its default binary collation: 'a' and 'A' grouped apart, sorted
// apart, and CASE ... = 'A' was false for 'a'.
//
// The planner has already typed the references to a select-list alias
// (ORDER BY x, an outer query's column) with the old type; they are
// re-typed by the alias's name (go-mysql-server leaves alias ids 0 here).
func branchCollations(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	done := map[sql.Expression]bool{} // already wrapped (a plan analyzed again)
	retyped := map[string]sql.Type{}  // by alias name, lower case
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if c, ok := e.(*collated); ok && reflect.TypeOf(c.child).Comparable() {
			done[c.child] = true
		}
		return true
	})
	n, same, err := transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *expression.Alias:
			if c, ok := x.Child.(*collated); ok {
				retyped[strings.ToLower(x.Name())] = c.typ
			}
			return e, transform.SameTree, nil
		case *collated, *expression.GetField, *expression.Literal:
			return e, transform.SameTree, nil
		}
		if !types.IsText(e.Type()) || !reflect.TypeOf(e).Comparable() || done[e] {
			return e, transform.SameTree, nil
		}
		tc, ok := e.Type().(sql.TypeWithCollation)
		if !ok {
			return e, transform.SameTree, nil
		}
		coll, coer, ok := resultCollation(ctx, e)
		if !ok || coll == tc.Collation() || coll == sql.Collation_binary {
			return e, transform.SameTree, nil
		}
		typ, err := tc.WithNewCollation(coll)
		if err != nil {
			return e, transform.SameTree, nil
		}
		return &collated{over: over{e}, typ: typ, coll: coll, coer: coer}, transform.NewTree, nil
	})
	// A derived table's columns take their types from its query: the
	// outer query's references were typed before the query was retyped.
	transform.Inspect(n, func(n sql.Node) bool {
		if sa, ok := n.(*plan.SubqueryAlias); ok {
			for _, c := range sa.Child.Schema() {
				if types.IsText(c.Type) {
					retyped[strings.ToLower(sa.Name())+"."+strings.ToLower(c.Name)] = c.Type
				}
			}
		}
		return true
	})
	if err != nil || len(retyped) == 0 {
		return n, same, err
	}
	n, same2, err := transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		gf, ok := e.(*expression.GetField)
		if !ok || !types.IsText(gf.Type()) {
			return e, transform.SameTree, nil
		}
		key := strings.ToLower(gf.Name()) // a reference to an alias has no table
		if gf.Table() != "" {
			key = strings.ToLower(gf.Table()) + "." + key
		}
		typ, ok := retyped[key]
		if !ok || gf.Type() == typ || !types.IsText(typ) || sameCollation(gf.Type(), typ) {
			return e, transform.SameTree, nil
		}
		ngf := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), typ, gf.Database(), gf.Table(), gf.Name(), gf.IsNullable()).
			WithQuotedNames(sql.GlobalSchemaFormatter, gf.IsQuotedIdentifier())
		return ngf.WithId(gf.Id()).(sql.Expression), transform.NewTree, nil
	})
	return n, same && same2, err
}

// resultCollation is the collation and coercibility of string expression
// e's values: for IF, CASE and COALESCE the aggregation of their string
// arguments' (go-mysql-server reports IF's first branch, CASE's type);
// for others what they report (CONCAT, LOWER, ...: go-mysql-server
// computes it but types them in its default collation).
func resultCollation(ctx *sql.Context, e sql.Expression) (sql.CollationID, byte, bool) {
	var args []sql.Expression
	switch x := e.(type) {
	case *function.If:
		if ch := x.Children(); len(ch) == 3 {
			args = ch[1:] // not the condition
		}
	case *function.Coalesce:
		args = x.Children()
	case *expression.Case:
		for _, b := range x.Branches {
			args = append(args, b.Value)
		}
		if x.Else != nil {
			args = append(args, x.Else)
		}
	case sql.FunctionExpression:
		if !collatedFunctions[x.FunctionName()] {
			return 0, 0, false
		}
		cc, ok := e.(sql.CollationCoercible)
		if !ok {
			return 0, 0, false
		}
		c, k := cc.CollationCoercibility(ctx)
		return c, k, true
	default:
		return 0, 0, false
	}
	coll, coer := sql.Collation_Unspecified, byte(7)
	for _, a := range args {
		if !types.IsText(a.Type()) {
			continue // numbers and NULL take the others' collation
		}
		c, k := sql.GetCoercibility(ctx, a)
		if coll == sql.Collation_Unspecified {
			coll, coer = c, k
			continue
		}
		coll, coer = sql.ResolveCoercibility(coll, coer, c, k)
	}
	return coll, coer, coll != sql.Collation_Unspecified
}

// collatedFunctions are the string functions whose values keep their
// arguments' collation (go-mysql-server's names).
var collatedFunctions = map[string]bool{
	"concat": true, "concat_ws": true, "lower": true, "upper": true, "lcase": true, "ucase": true,
	"substring": true, "substr": true, "mid": true, "left": true, "right": true, "trim": true,
	"ltrim": true, "rtrim": true, "replace": true, "lpad": true, "rpad": true, "reverse": true,
	"ifnull": true, "nullif": true, "substring_index": true, "repeat": true, "insert": true,
}

func sameCollation(a, b sql.Type) bool {
	ca, ok1 := a.(sql.TypeWithCollation)
	cb, ok2 := b.(sql.TypeWithCollation)
	return ok1 && ok2 && ca.Collation() == cb.Collation()
}

// collated is a string expression with the collation RULE-58 gives it.
type collated struct {
	over
	typ  sql.Type
	coll sql.CollationID
	coer byte
}

var _ sql.CollationCoercible = (*collated)(nil)

func (c *collated) Type() sql.Type { return c.typ }

func (c *collated) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return c.coll, c.coer
}

func (c *collated) Eval(ctx *sql.Context, row sql.Row) (any, error) { return c.child.Eval(ctx, row) }

func (c *collated) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	nc := *c
	nc.child = children[0]
	return &nc, nil
}
