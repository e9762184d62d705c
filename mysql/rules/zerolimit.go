package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// zeroLimits implements RULE-40: a query part under LIMIT 0 (written, or
// from sql_select_limit = 0) returns no rows without being run, as
// MySQL's optimizer answers "Zero limit". go-mysql-server ran it under a
// limit that never asked for a row, and an aggregation that had read
// nothing then panicked when it was closed (`SELECT SUM(a) FROM t LIMIT
// 0`). SQL_CALC_FOUND_ROWS keeps the query (FOUND_ROWS() counts its rows).
func zeroLimits(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		var limit sql.Expression
		switch l := n.(type) {
		case *plan.Limit:
			if l.CalcFoundRows {
				return n, transform.SameTree, nil
			}
			limit = l.Limit
		case *plan.TopN:
			if l.CalcFoundRows {
				return n, transform.SameTree, nil
			}
			limit = l.Limit
		default:
			return n, transform.SameTree, nil
		}
		lit, ok := limit.(*expression.Literal)
		if !ok {
			return n, transform.SameTree, nil
		}
		if v, err := lit.Eval(ctx, nil); err != nil || !isZero(v) {
			return n, transform.SameTree, nil
		}
		return plan.NewEmptyTableWithSchema(n.Schema()), transform.NewTree, nil
	})
}

func isZero(v any) bool {
	switch x := v.(type) {
	case int8:
		return x == 0
	case int16:
		return x == 0
	case int32:
		return x == 0
	case int64:
		return x == 0
	case int:
		return x == 0
	case uint8:
		return x == 0
	case uint16:
		return x == 0
	case uint32:
		return x == 0
	case uint64:
		return x == 0
	}
	return false
}
