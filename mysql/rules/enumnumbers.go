package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// enumNumbers implements RULE-61: an ENUM or SET operand of arithmetic
// is its number (the member's index, the set's bits), a signed
// integer, so `e + 0` is an integer and `e - 5` may be negative, as in
// MySQL; a BIT operand is an unsigned integer (b'1...1' of BIT(64) is
// 18446744073709551615). go-mysql-server gave ENUM/SET the right value
// typed DOUBLE (a client decoded 2.0, not 2), and BIT signed values
// clamped at 2^63-1.
func enumNumbers(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		a, ok := e.(*expression.Arithmetic)
		if !ok {
			return e, transform.SameTree, nil
		}
		l, r := a.LeftChild, a.RightChild
		changed := false
		for _, side := range []*sql.Expression{&l, &r} {
			switch t := (*side).Type(); {
			case types.IsEnum(t) || types.IsSet(t):
				*side, changed = expression.NewConvert(*side, expression.ConvertToSigned), true
			case types.IsBit(t):
				*side, changed = expression.NewConvert(*side, expression.ConvertToUnsigned), true
			}
		}
		if !changed {
			return e, transform.SameTree, nil
		}
		ne, err := a.WithChildren(l, r)
		if err != nil {
			return e, transform.SameTree, nil
		}
		return ne, transform.NewTree, nil
	})
}
