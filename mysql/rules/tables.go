package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// maxJoinTables is MySQL's limit on the tables of one join.
const maxJoinTables = 61

// tooManyTables fails a statement that joins more than 61 tables with
// MySQL's 1116 (RULE-13), before go-mysql-server's join planner, which
// panicked on a 64-table join.
func tooManyTables(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	var err error
	transform.Inspect(n, func(n sql.Node) bool {
		if err != nil {
			return false
		}
		if j, ok := n.(*plan.JoinNode); ok {
			if count := joinLeaves(j); count > maxJoinTables {
				err = mysql.NewSQLError(1116, "HY000", "Too many tables; MySQL can only use %d tables in a join", maxJoinTables)
			}
			return false
		}
		return true
	})
	return n, transform.SameTree, err
}

// joinLeaves counts the relations under a tree of joins.
func joinLeaves(n sql.Node) int {
	if j, ok := n.(*plan.JoinNode); ok {
		return joinLeaves(j.Left()) + joinLeaves(j.Right())
	}
	return 1
}
