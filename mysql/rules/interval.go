package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// intervalArithmetic evaluates `d + INTERVAL n unit` and `d - INTERVAL n
// unit` of a DATE d as DATE_ADD / DATE_SUB (RULE-15), which type the result as MySQL
// does (a DATE stays a DATE for day-or-larger units); go-mysql-server's
// arithmetic made every such result a DATETIME.
func intervalArithmetic(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		a, ok := e.(*expression.Arithmetic)
		if !ok || (a.Op != "+" && a.Op != "-") {
			return e, transform.SameTree, nil
		}
		date, interval := a.LeftChild, a.RightChild
		if iv, ok := date.(*expression.Interval); ok && a.Op == "+" {
			date, interval = interval, iv
		}
		if _, ok := interval.(*expression.Interval); !ok || date.Type() != types.Date {
			return e, transform.SameTree, nil
		}
		var ne sql.Expression
		var err error
		if a.Op == "+" {
			ne, err = function.NewDateAdd(date, interval)
		} else {
			ne, err = function.NewDateSub(date, interval)
		}
		if err != nil {
			return e, transform.SameTree, nil
		}
		return ne, transform.NewTree, nil
	})
}
