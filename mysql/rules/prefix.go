package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// keepPrefixSorts wraps go-mysql-server's replaceIdxSort so that it does
// not run on a plan reading through an index with prefix lengths
// (RULE-18): such an index orders rows by their cut values only.
func keepPrefixSorts(apply analyzer.RuleFunc) analyzer.RuleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		if readsPrefixIndex(n) {
			return n, transform.SameTree, nil
		}
		return apply(ctx, a, n, scope, sel, qf)
	}
}

func readsPrefixIndex(n sql.Node) bool {
	return transform.InspectUp(n, func(n sql.Node) bool {
		ita, ok := n.(*plan.IndexedTableAccess)
		return ok && ita.Index() != nil && len(ita.Index().PrefixLengths()) > 0
	})
}

// primaryPrefix refuses a prefix length on a PRIMARY KEY part (RULE-18):
// go-mysql-server drops it and would make the whole column the key, so
// values sharing the prefix would no longer conflict.
func primaryPrefix(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	var cols []sql.IndexColumn
	switch n := n.(type) {
	case *plan.CreateTable:
		for _, d := range n.Indexes() {
			if d.IsPrimary() {
				cols = d.Columns
			}
		}
	case *plan.AlterPK:
		cols = n.Columns
	}
	for _, c := range cols {
		if c.Length > 0 {
			return nil, transform.SameTree, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
				"This version of Strata doesn't yet support 'a prefix length on a PRIMARY KEY part (%s(%d))'", c.Name, c.Length)
		}
	}
	return n, transform.SameTree, nil
}
