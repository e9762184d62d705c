package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// warningsInOrder implements RULE-35: SHOW WARNINGS lists a statement's
// conditions in the order they were raised (row 1 before row 3), as MySQL
// and MariaDB do; go-mysql-server listed them newest first. LIMIT applies
// to the ordered list (it is a node above this one).
func warningsInOrder(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		sw, ok := n.(plan.ShowWarnings)
		if !ok || len(sw) < 2 {
			return n, transform.SameTree, nil
		}
		out := make(plan.ShowWarnings, len(sw))
		for i, w := range sw {
			out[len(sw)-1-i] = w
		}
		return out, transform.NewTree, nil
	})
}
