package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// outerAggregates implements RULE-70: an aggregate inside a subquery whose
// argument reads only the outer query's columns (`SELECT (SELECT
// COUNT(DISTINCT t1.b) FROM t2) FROM t1 GROUP BY t1.a`, `... WHERE s.x <=
// MAX(t1.b)`) is, in SQL, an aggregate of the outer query, computed over
// the outer group. go-mysql-server plans it as an aggregate of the
// subquery over one outer row, which failed while running with 1105
// "unable to find field with index ..."; the statement is refused with
// 1235 before it runs. A subquery's aggregate over its own columns, outer
// columns beside its own inside one aggregate, and subqueries of queries
// that do not group are unaffected.
func outerAggregates(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if groupedOuterAggregate(n) {
		return nil, transform.SameTree, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
			"This version of Strata doesn't yet support 'an aggregate of an outer query's column inside a subquery'")
	}
	return n, transform.SameTree, nil
}

// groupedOuterAggregate reports whether a grouped query in n (a GroupBy
// and the nodes above it that read its rows: HAVING, the select list, ORDER
// BY) holds a subquery with an aggregate over only its outer columns.
// Elsewhere (`WHERE (SELECT COUNT(c))`, no outer grouping) MariaDB and
// go-mysql-server both aggregate over the one outer row.
func groupedOuterAggregate(n sql.Node) bool {
	var visit func(n sql.Node) (grouped, found bool)
	visit = func(n sql.Node) (grouped, found bool) {
		for _, c := range n.Children() {
			g, f := visit(c)
			if f {
				return true, true
			}
			grouped = grouped || g
		}
		if _, ok := n.(*plan.GroupBy); ok {
			grouped = true
		}
		if !grouped {
			return false, false
		}
		if e, ok := n.(sql.Expressioner); ok {
			for _, x := range e.Expressions() {
				if subqueryOuterAggregate(x) {
					return true, true
				}
			}
		}
		return true, false
	}
	_, found := visit(n)
	return found
}

// subqueryOuterAggregate reports whether e holds a subquery with an
// aggregate that reads only the subquery's outer columns.
func subqueryOuterAggregate(e sql.Expression) bool {
	found := false
	sql.Inspect(e, func(e sql.Expression) bool {
		sq, ok := e.(*plan.Subquery)
		if !ok || found {
			return !found
		}
		if outer := sq.Correlated(); !outer.Empty() {
			transform.InspectExpressions(sq.Query, func(e sql.Expression) bool {
				if _, ok := e.(sql.Aggregation); ok && readsOnly(e, outer) {
					found = true
				}
				return !found
			})
		}
		return false
	})
	return found
}

// readsOnly reports whether e reads columns and all of them are in cols.
func readsOnly(e sql.Expression, cols sql.ColSet) bool {
	reads, outside := false, false
	sql.Inspect(e, func(e sql.Expression) bool {
		if gf, ok := e.(*expression.GetField); ok {
			reads = true
			if !cols.Contains(gf.Id()) {
				outside = true
			}
		}
		return !outside
	})
	return reads && !outside
}
