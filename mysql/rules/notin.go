package rules

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// keepNotIn hides `x NOT IN (subquery)` in a filter from go-mysql-server's
// unnesting (RULE-8): it turns the predicate into an anti-join, which
// keeps a row whose x is NULL, or when the subquery yields a NULL, where
// NOT IN is NULL and the row must go. Evaluated as an expression, NOT IN
// has SQL's three-valued result. It runs before the unnesting rule.
func keepNotIn(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		conj := expression.SplitConjunction(f.Expression)
		changed := false
		for i, e := range conj {
			if in, ok := e.(*plan.InSubquery); ok {
				if keepInSubquery(f, in) { // RULE-28
					conj[i], changed = &opaqueSubquery{not: e}, true
				}
				continue
			}
			if c, ok := e.(expression.Comparer); ok && (isSubquery(c.Right()) || isSubquery(c.Left())) {
				// RULE-28: x op (scalar subquery) as a semi-join dropped the
				// check that the subquery returns at most one row (1242).
				conj[i], changed = &opaqueSubquery{not: e}, true
				continue
			}
			not, ok := e.(*expression.Not)
			if !ok {
				continue
			}
			if in, ok := not.Child.(*plan.InSubquery); ok {
				if _, ok := in.RightChild.(*plan.Subquery); ok {
					conj[i], changed = &opaqueSubquery{not: not}, true
				}
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		nf, err := f.WithExpressions(expression.JoinAnd(conj...))
		if err != nil {
			return nil, transform.SameTree, err
		}
		return nf, transform.NewTree, nil
	})
}

func isSubquery(e sql.Expression) bool {
	_, ok := e.(*plan.Subquery)
	return ok
}

// keepInSubquery reports whether `x IN (subquery)` in filter f must stay
// an expression (RULE-28): go-mysql-server's unnesting into a semi-join
// panicked when x reads a column of an enclosing query ("vertex not
// found"), when the join it makes has more than 64 tables ("cannot
// insert 64 into bitSet"), and when the subquery's WHERE is always false
// (its plan an empty table: "vertex not found" again); MySQL answers all.
func keepInSubquery(f *plan.Filter, in *plan.InSubquery) bool {
	sq, ok := in.RightChild.(*plan.Subquery)
	if !ok {
		return false
	}
	if joinLeaves(f.Child)+subqueryLeaves(sq.Query) > maxJoinTables || readsNothing(sq.Query) {
		return true
	}
	if _, ok := in.LeftChild.(expression.Tuple); ok {
		return true // RULE-45: the semi-join matched NULL elements
	}
	outer := false
	local := f.Child.Schema()
	transform.InspectExpr(in.LeftChild, func(e sql.Expression) bool {
		if gf, ok := e.(*expression.GetField); ok && !providesColumn(local, gf) {
			outer = true
		}
		return outer
	})
	return outer
}

// providesColumn reports whether schema has gf's column.
func providesColumn(schema sql.Schema, gf *expression.GetField) bool {
	for _, c := range schema {
		if strings.EqualFold(c.Name, gf.Name()) && (gf.Table() == "" || strings.EqualFold(c.Source, gf.Table())) {
			return true
		}
	}
	return false
}

// readsNothing reports whether a plan holds an empty table, what the
// filter simplification makes of an always-false WHERE.
func readsNothing(n sql.Node) bool {
	return transform.InspectUp(n, func(n sql.Node) bool {
		_, ok := n.(*plan.EmptyTable)
		return ok
	})
}

// subqueryLeaves counts the relations a subquery's plan reads.
func subqueryLeaves(n sql.Node) int {
	count := 0
	transform.Inspect(n, func(n sql.Node) bool {
		switch n.(type) {
		case *plan.JoinNode:
			return true
		case sql.TableNode, *plan.SubqueryAlias:
			count++
			return false
		}
		return true
	})
	return count
}

// opaqueSubquery is NOT (x IN (subquery)), or x IN (subquery) that must
// not become a semi-join, opaque to the unnesting rule.
type opaqueSubquery struct{ not sql.Expression }

var _ sql.Expression = (*opaqueSubquery)(nil)

func (n *opaqueSubquery) Resolved() bool { return n.not.Resolved() }
func (n *opaqueSubquery) String() string { return n.not.String() }
func (n *opaqueSubquery) DebugString() string {
	return fmt.Sprintf("notIn(%s)", sql.DebugString(n.not))
}
func (n *opaqueSubquery) Type() sql.Type             { return n.not.Type() }
func (n *opaqueSubquery) IsNullable() bool           { return true }
func (n *opaqueSubquery) Children() []sql.Expression { return []sql.Expression{n.not} }
func (n *opaqueSubquery) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return n.not.Eval(ctx, row)
}

func (n *opaqueSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 1)
	}
	return &opaqueSubquery{not: children[0]}, nil
}
