package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// RULE-74 A LIMIT above a projection of a sort keeps only its first rows
// while sorting (a top-N heap, go-mysql-server's TopN), as a LIMIT right
// above a sort already does: go-mysql-server's rule looks through no node
// between them, and `SELECT a, b FROM (...) t ORDER BY b DESC LIMIT 5`
// sorted every row of t (30% of such a query over 50,000 groups). A
// projection neither adds nor drops rows, so the first rows are the same.
// Not under SQL_CALC_FOUND_ROWS (the sort must count every row).
func topNThroughProjections(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		l, ok := n.(*plan.Limit)
		if !ok || l.CalcFoundRows {
			return n, transform.SameTree, nil
		}
		p, ok := l.Child.(*plan.Project)
		if !ok {
			return n, transform.SameTree, nil
		}
		s, ok := p.Child.(*plan.Sort)
		if !ok {
			return n, transform.SameTree, nil
		}
		np, err := p.WithChildren(plan.NewTopN(s.SortFields, l.Limit, s.Child))
		if err != nil {
			return nil, transform.SameTree, err
		}
		nl, err := l.WithChildren(np)
		return nl, transform.NewTree, err
	})
}
