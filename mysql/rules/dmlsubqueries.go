package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// dmlSubqueries implements RULE-63: a single-table UPDATE or DELETE whose
// expressions hold a correlated subquery (WHERE EXISTS (SELECT ... WHERE
// s.x = t.x), SET c = (SELECT ... WHERE s.x = t.x)) is refused with
// MySQL's "not supported yet" (1235). go-mysql-server v0.20 gives
// single-table UPDATE and DELETE a short batch list without the rules
// that prepare subqueries: an uncorrelated subquery still runs (RULE-19's
// selfUpdate reads it first), a correlated one failed with "attempted to
// evaluate uninitialized subquery". Running the full batches on such a
// statement (tried) assigned the subquery's column indexes inconsistently
// (errors, and a wrong row set for a subquery over the changed table), so
// the statement is refused, not run. The server then runs a text query
// as the equal multi-table statement (server SRV-DMLJOIN), whose analysis
// prepares the subquery; with ORDER BY or LIMIT, and prepared, the 1235
// stands (docs/ARCHITECTURE.md known limits).
func dmlSubqueries(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch x := n.(type) {
	case *plan.Update:
		if !x.HasSingleRel || x.IsJoin {
			return n, transform.SameTree, nil
		}
	case *plan.DeleteFrom:
		if x.HasExplicitTargets() || !x.RefsSingleRel {
			return n, transform.SameTree, nil
		}
	default:
		return n, transform.SameTree, nil
	}
	correlated := false
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		if sq, ok := e.(*plan.Subquery); ok && !sq.Correlated().Empty() {
			correlated = true
		}
		return !correlated
	})
	if correlated {
		return nil, transform.SameTree, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
			"This version of Strata doesn't yet support 'a correlated subquery in a single-table UPDATE or DELETE'")
	}
	return n, transform.SameTree, nil
}
