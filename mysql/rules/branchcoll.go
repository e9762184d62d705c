package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// branchCollations implements RULE-58: a string expression sorted,
// grouped or counted distinct (ORDER BY, GROUP BY, COUNT(DISTINCT)) is
// compared in the collation of its values, so `ORDER BY COALESCE(nick,
// name)` or `GROUP BY CONCAT(first, last)` follow the columns'
// case-insensitive collation. IF, CASE and COALESCE take the aggregation
// of their string arguments (an explicit COLLATE over a column over a
// literal), as MySQL does. go-mysql-server typed them TEXT in its default
// binary collation: 'a' and 'A' grouped apart and sorted apart, and CASE
// ... = 'A' was false for 'a' (comparisons already read the collation
// these expressions report; sorting and grouping read their type).
//
// A reference to a select-list alias (ORDER BY x) or to a derived table's
// column is re-typed from the expression it names. The select list's own
// types stay as go-mysql-server made them: it has typed the sides of a
// UNION alike and checks them after this rule.
func branchCollations(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same, err := collatedComparisons(ctx, n)
	if err != nil || !hasOrdering(n) {
		return n, same, err
	}
	named := map[string]sql.Expression{} // alias name, or derived table "t.col", lower case
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if a, ok := e.(*expression.Alias); ok {
			named[strings.ToLower(a.Name())] = a.Child
		}
		return true
	})
	transform.Inspect(n, func(n sql.Node) bool {
		sa, ok := n.(*plan.SubqueryAlias)
		if !ok {
			return true
		}
		var projs []sql.Expression
		transform.Inspect(sa.Child, func(n sql.Node) bool {
			if projs != nil {
				return false
			}
			if p, ok := n.(sql.Projector); ok {
				projs = p.ProjectedExprs()
				return false
			}
			return true
		})
		sch := sa.Child.Schema()
		for i, e := range projs {
			if i >= len(sch) {
				break
			}
			if a, ok := e.(*expression.Alias); ok {
				e = a.Child
			}
			named[strings.ToLower(sa.Name())+"."+strings.ToLower(sch[i].Name)] = e
		}
		return true
	})
	fix := func(e sql.Expression) (sql.Expression, bool) {
		return collatedExpr(ctx, e, named)
	}
	n, same2, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.Sort:
			fields, changed := fixFields(x.SortFields, fix)
			if !changed {
				return n, transform.SameTree, nil
			}
			return plan.NewSort(fields, x.Child), transform.NewTree, nil
		case *plan.TopN:
			fields, changed := fixFields(x.Fields, fix)
			if !changed {
				return n, transform.SameTree, nil
			}
			t := plan.NewTopN(fields, x.Limit, x.Child)
			t.CalcFoundRows = x.CalcFoundRows
			return t, transform.NewTree, nil
		case *plan.GroupBy:
			changed := false
			grouping := make([]sql.Expression, len(x.GroupByExprs))
			for i, e := range x.GroupByExprs {
				grouping[i] = e
				if a, ok := e.(*expression.Alias); ok {
					if ne, ok := fix(a.Child); ok {
						if na, err := a.WithChildren(ne); err == nil {
							grouping[i], changed = na, true
						}
					}
				} else if ne, ok := fix(e); ok {
					grouping[i], changed = ne, true
				}
			}
			selected := make([]sql.Expression, len(x.SelectedExprs))
			for i, e := range x.SelectedExprs {
				ne, same, _ := transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
					if _, ok := e.(*aggregation.CountDistinct); !ok {
						return e, transform.SameTree, nil
					}
					return fixChildren(e, fix)
				})
				selected[i] = ne
				changed = changed || !bool(same)
			}
			if !changed {
				return n, transform.SameTree, nil
			}
			return plan.NewGroupBy(selected, grouping, x.Child), transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
	return n, same && same2, err
}

// collatedComparisons gives the operands of comparisons (and of
// COLLATION()) that are CASE or COALESCE their values' collation: go-mysql-server's comparisons read
// the collation an operand reports, and those two report their type's
// (IF and the string functions report their arguments').
func collatedComparisons(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch e.(type) {
		case expression.Comparer, *function.Collation:
		default:
			return e, transform.SameTree, nil
		}
		if len(e.Children()) > 2 {
			return e, transform.SameTree, nil
		}
		return fixChildren(e, func(o sql.Expression) (sql.Expression, bool) {
			switch o.(type) {
			case *expression.Case, *function.Coalesce:
				return collatedExpr(ctx, o, nil)
			}
			return o, false
		})
	})
}

// fixChildren is e with each child fix changes changed (the same e when
// fix changes none).
func fixChildren(e sql.Expression, fix func(sql.Expression) (sql.Expression, bool)) (sql.Expression, transform.TreeIdentity, error) {
	ch := e.Children()
	nc := make([]sql.Expression, len(ch))
	changed := false
	for i, c := range ch {
		nc[i] = c
		if f, ok := fix(c); ok {
			nc[i], changed = f, true
		}
	}
	if !changed {
		return e, transform.SameTree, nil
	}
	ne, err := e.WithChildren(nc...)
	if err != nil {
		return e, transform.SameTree, nil
	}
	return ne, transform.NewTree, nil
}

// hasOrdering reports whether n sorts or groups anything.
func hasOrdering(n sql.Node) bool {
	found := false
	transform.Inspect(n, func(n sql.Node) bool {
		switch n.(type) {
		case *plan.Sort, *plan.TopN, *plan.GroupBy:
			found = true
		}
		return !found
	})
	return found
}

func fixFields(fields sql.SortFields, fix func(sql.Expression) (sql.Expression, bool)) (sql.SortFields, bool) {
	out := make(sql.SortFields, len(fields))
	changed := false
	for i, f := range fields {
		out[i] = f
		if ne, ok := fix(f.Column); ok {
			out[i].Column, changed = ne, true
		}
	}
	return out, changed
}

// collatedExpr is e typed in the collation of its values when that is not
// its type's (a string function, IF/CASE/COALESCE, or a reference to one
// through a select-list alias or a derived table's column); false when e
// stays as it is.
func collatedExpr(ctx *sql.Context, e sql.Expression, named map[string]sql.Expression) (sql.Expression, bool) {
	if _, done := e.(*collated); done || !types.IsText(e.Type()) {
		return e, false
	}
	tc, ok := e.Type().(sql.TypeWithCollation)
	if !ok {
		return e, false
	}
	src := e
	if gf, ok := e.(*expression.GetField); ok {
		key := strings.ToLower(gf.Name())
		if gf.Table() != "" {
			key = strings.ToLower(gf.Table()) + "." + key
		}
		if src, ok = named[key]; !ok {
			return e, false
		}
	}
	coll, coer, ok := resultCollation(ctx, src)
	if !ok || coll == tc.Collation() || coll == sql.Collation_binary {
		return e, false
	}
	typ, err := tc.WithNewCollation(coll)
	if err != nil {
		return e, false
	}
	if gf, ok := e.(*expression.GetField); ok {
		return retypedField(gf, typ, gf.IsNullable()), true
	}
	return &collated{over: over{e}, typ: typ, coll: coll, coer: coer}, true
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
