package rules

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-88 An anti-join matches a row of its right side only where its
// condition is TRUE: `NOT EXISTS (SELECT ... WHERE b.k = a.k)` keeps the
// rows of a whose k is NULL, and a NULL in b.k matches nothing.
// go-mysql-server's anti-joins (and the left joins it plans for them,
// "ExcludeNulls") dropped the left row when the condition was NULL, NOT
// IN's semantics: a NULL key on either side made NOT EXISTS lose rows (a
// single NULL in the subquery's column lost every row of a nested-loop
// plan). Every anti-join in strata's plans comes from NOT EXISTS (RULE-8
// keeps NOT IN out of them), so their conditions are made TRUE-or-FALSE
// (matchOnly). A merge anti-join, whose first condition drives the merge,
// becomes a nested-loop one (planner PL-8 does not choose merge anti-joins
// for queries; go-mysql-server's coster still may for UPDATE and DELETE,
// PL-7).
func notExistsNulls(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		j, ok := n.(*plan.JoinNode)
		if !ok || !j.Op.IsExcludeNulls() || j.Filter == nil {
			return n, transform.SameTree, nil
		}
		if _, done := j.Filter.(*matchOnly); done {
			return n, transform.SameTree, nil
		}
		nj := *j
		nj.Filter = &matchOnly{expression.UnaryExpression{Child: j.Filter}}
		if j.Op.IsMerge() {
			nj.Op = plan.JoinTypeAnti
		}
		return &nj, transform.NewTree, nil
	})
}

// matchOnly is its condition as a WHERE reads it: TRUE, or FALSE for
// FALSE and NULL (RULE-88).
type matchOnly struct {
	expression.UnaryExpression
}

var _ sql.Expression = (*matchOnly)(nil)

func (m *matchOnly) Type() sql.Type   { return types.Boolean }
func (m *matchOnly) IsNullable() bool { return false }
func (m *matchOnly) String() string   { return fmt.Sprintf("(%s) IS TRUE", m.Child) }

func (m *matchOnly) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(m, len(children), 1)
	}
	return &matchOnly{expression.UnaryExpression{Child: children[0]}}, nil
}

func (m *matchOnly) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := m.Child.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	return sql.IsTrue(v), nil
}
