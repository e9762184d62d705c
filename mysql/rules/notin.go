package rules

import (
	"fmt"

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
			not, ok := e.(*expression.Not)
			if !ok {
				continue
			}
			if in, ok := not.Child.(*plan.InSubquery); ok {
				if _, ok := in.RightChild.(*plan.Subquery); ok {
					conj[i], changed = &notInSubquery{not: not}, true
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

// notInSubquery is NOT (x IN (subquery)), opaque to the unnesting rule.
type notInSubquery struct{ not sql.Expression }

var _ sql.Expression = (*notInSubquery)(nil)

func (n *notInSubquery) Resolved() bool             { return n.not.Resolved() }
func (n *notInSubquery) String() string             { return n.not.String() }
func (n *notInSubquery) DebugString() string        { return fmt.Sprintf("notIn(%s)", sql.DebugString(n.not)) }
func (n *notInSubquery) Type() sql.Type             { return n.not.Type() }
func (n *notInSubquery) IsNullable() bool           { return true }
func (n *notInSubquery) Children() []sql.Expression { return []sql.Expression{n.not} }
func (n *notInSubquery) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return n.not.Eval(ctx, row)
}

func (n *notInSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 1)
	}
	return &notInSubquery{not: children[0]}, nil
}
