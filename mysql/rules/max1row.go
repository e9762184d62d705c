package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// max1Row clears the at-most-one-row flag go-mysql-server sets for a whole
// query when one table access is a unique full-key lookup, unless that
// access is the whole query (RULE-2).
func max1Row(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags == nil || !qFlags.IsSet(sql.QFlagMax1Row) {
		return n, transform.SameTree, nil
	}
	if IsExplain(ctx.Query()) {
		// EXPLAIN's plan is analyzed apart from its rows: its result
		// has one row per plan line whatever the plan.
		qFlags.Unset(sql.QFlagMax1Row)
		return n, transform.SameTree, nil
	}
	tables, other := 0, false
	transform.Inspect(n, func(n sql.Node) bool {
		switch n.(type) {
		case *plan.ResolvedTable, *plan.IndexedTableAccess:
			tables++
		case *plan.SetOp, *plan.DescribeQuery, *plan.Describe, *plan.Window, *plan.JoinNode, *plan.RecursiveCte:
			other = true
		}
		return true
	})
	if tables != 1 || other {
		qFlags.Unset(sql.QFlagMax1Row)
	}
	return n, transform.SameTree, nil
}

// IsExplain reports whether query is an EXPLAIN / DESCRIBE / DESC of a
// statement.
func IsExplain(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	for _, w := range []string{"explain ", "describe ", "desc "} {
		if len(q) > len(w) && strings.EqualFold(q[:len(w)], w) {
			return true
		}
	}
	return false
}
