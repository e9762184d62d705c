package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// rowComparisons implements RULE-43: a comparison of rows, (a, b) op
// (x, y) and (a, b) IN ((x, y), ...), is what MySQL defines it to be:
// (a = x) AND (b = y); (a < x) OR (a = x AND b < y), and so on; an IN
// list the OR of its equalities. So a NULL in a row makes the result
// NULL where no element decides it: (1, NULL) = (1, 2) is NULL, (1,
// NULL) < (2, 0) is 1. go-mysql-server compared rows as values (0 for
// (1, NULL) IN ((1, 1)), which NOT turned into 1) and failed with "value
// not nil" on a NULL literal in a row. The rule runs after index
// selection, so a row IN list still picks index ranges.
func rowComparisons(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		var l, r sql.Expression
		switch c := e.(type) {
		case *expression.InTuple:
			l, r = c.Left(), c.Right()
		case *expression.HashInTuple:
			l, r = c.Left(), c.Right()
		case *expression.Equals, *expression.NullSafeEquals, *expression.LessThan, *expression.LessThanOrEqual,
			*expression.GreaterThan, *expression.GreaterThanOrEqual:
			cmp := c.(expression.Comparer)
			l, r = cmp.Left(), cmp.Right()
		default:
			return e, transform.SameTree, nil
		}
		lt, ok := l.(expression.Tuple)
		if !ok || len(lt) < 2 {
			return e, transform.SameTree, nil
		}
		switch e.(type) {
		case *expression.InTuple, *expression.HashInTuple:
			list, ok := r.(expression.Tuple)
			if !ok {
				return e, transform.SameTree, nil
			}
			var any sql.Expression
			for _, item := range list {
				it, ok := item.(expression.Tuple)
				if !ok || len(it) != len(lt) {
					return e, transform.SameTree, nil
				}
				eq := rowExpand(lt, it, equals)
				if any == nil {
					any = eq
				} else {
					any = expression.NewOr(any, eq)
				}
			}
			if any == nil {
				return e, transform.SameTree, nil
			}
			return any, transform.NewTree, nil
		}
		rt, ok := r.(expression.Tuple)
		if !ok || len(rt) != len(lt) {
			return e, transform.SameTree, nil
		}
		switch e.(type) {
		case *expression.Equals:
			return rowExpand(lt, rt, equals), transform.NewTree, nil
		case *expression.NullSafeEquals:
			return rowExpand(lt, rt, func(a, b sql.Expression) sql.Expression { return expression.NewNullSafeEquals(a, b) }), transform.NewTree, nil
		case *expression.LessThan:
			return rowOrder(lt, rt, func(a, b sql.Expression) sql.Expression { return expression.NewLessThan(a, b) }), transform.NewTree, nil
		case *expression.LessThanOrEqual:
			return rowOrder(lt, rt, func(a, b sql.Expression) sql.Expression { return expression.NewLessThanOrEqual(a, b) }), transform.NewTree, nil
		case *expression.GreaterThan:
			return rowOrder(lt, rt, func(a, b sql.Expression) sql.Expression { return expression.NewGreaterThan(a, b) }), transform.NewTree, nil
		case *expression.GreaterThanOrEqual:
			return rowOrder(lt, rt, func(a, b sql.Expression) sql.Expression { return expression.NewGreaterThanOrEqual(a, b) }), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

func equals(a, b sql.Expression) sql.Expression { return expression.NewEquals(a, b) }

// rowExpand is the AND of eq(l[i], r[i]).
func rowExpand(l, r expression.Tuple, eq func(a, b sql.Expression) sql.Expression) sql.Expression {
	var all sql.Expression
	for i := range l {
		c := eq(l[i], r[i])
		if all == nil {
			all = c
		} else {
			all = expression.NewAnd(all, c)
		}
	}
	return all
}

// rowOrder is MySQL's lexicographic row order: op(l1, r1) OR (l1 = r1 AND
// rowOrder(rest)), the last pair compared with op itself.
func rowOrder(l, r expression.Tuple, op func(a, b sql.Expression) sql.Expression) sql.Expression {
	if len(l) == 1 {
		return op(l[0], r[0])
	}
	strict := op(l[0], r[0])
	if _, inclusive := strict.(*expression.LessThanOrEqual); inclusive {
		strict = expression.NewLessThan(l[0], r[0])
	} else if _, inclusive := strict.(*expression.GreaterThanOrEqual); inclusive {
		strict = expression.NewGreaterThan(l[0], r[0])
	}
	return expression.NewOr(strict, expression.NewAnd(expression.NewEquals(l[0], r[0]), rowOrder(l[1:], r[1:], op)))
}
