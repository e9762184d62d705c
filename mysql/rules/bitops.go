package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

// bitOperations implements RULE-51: &, |, ^, << and >> of numbers work on
// 64-bit unsigned integers and return BIGINT UNSIGNED, as MySQL does
// (a negative operand is its two's complement): go-mysql-server computed
// in int64 and clamped, so 1 << 63 was 9223372036854775807 (MySQL
// 9223372036854775808) and -1 | 0 was 9223372036854775807 (MySQL
// 18446744073709551615), and typed the results signed. Binary-string and
// other non-numeric operands stay go-mysql-server's.
func bitOperations(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		b, ok := e.(*expression.BitOp)
		if !ok {
			return e, transform.SameTree, nil
		}
		switch strings.ToLower(b.Op) {
		case sqlparser.BitAndStr, sqlparser.BitOrStr, sqlparser.BitXorStr, sqlparser.ShiftLeftStr, sqlparser.ShiftRightStr:
		default:
			return e, transform.SameTree, nil
		}
		if !numericOperand(b.LeftChild.Type()) || !numericOperand(b.RightChild.Type()) {
			return e, transform.SameTree, nil
		}
		return &unsignedBitOp{b}, transform.NewTree, nil
	})
}

func numericOperand(t sql.Type) bool {
	return types.IsInteger(t) || types.IsFloat(t) || types.IsDecimal(t) || types.IsBit(t) || t == types.Null
}

type unsignedBitOp struct{ *expression.BitOp }

func (u *unsignedBitOp) Type() sql.Type { return types.Uint64 }
func (u *unsignedBitOp) DebugString() string {
	return fmt.Sprintf("unsigned(%s)", u.BitOp.DebugString())
}

func (u *unsignedBitOp) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(u.BitOp, children, func(b *expression.BitOp) sql.Expression { return &unsignedBitOp{b} })
}

func (u *unsignedBitOp) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	l, err := u.LeftChild.Eval(ctx, row)
	if err != nil || l == nil {
		return nil, err
	}
	r, err := u.RightChild.Eval(ctx, row)
	if err != nil || r == nil {
		return nil, err
	}
	a, ok1 := asUint64(l)
	b, ok2 := asUint64(r)
	if !ok1 || !ok2 {
		v, err := u.BitOp.Eval(ctx, row)
		if err != nil || v == nil {
			return v, err
		}
		out, _, err := types.Uint64.Convert(ctx, v)
		return out, err
	}
	switch strings.ToLower(u.Op) {
	case sqlparser.BitAndStr:
		return a & b, nil
	case sqlparser.BitOrStr:
		return a | b, nil
	case sqlparser.BitXorStr:
		return a ^ b, nil
	case sqlparser.ShiftLeftStr:
		if b >= 64 {
			return uint64(0), nil
		}
		return a << b, nil
	default: // >>
		if b >= 64 {
			return uint64(0), nil
		}
		return a >> b, nil
	}
}

var decUint64Max = decimal.RequireFromString("18446744073709551615")

// asUint64 is MySQL's 64-bit unsigned reading of a number for bit
// operations: integers as their two's complement bits, fractions rounded,
// values beyond the range clamped.
func asUint64(v any) (uint64, bool) {
	switch x := v.(type) {
	case int8:
		return uint64(int64(x)), true
	case int16:
		return uint64(int64(x)), true
	case int32:
		return uint64(int64(x)), true
	case int64:
		return uint64(x), true
	case int:
		return uint64(int64(x)), true
	case uint8, uint16, uint32, uint64, uint:
		return toUint64(x), true
	case float32:
		return floatBits(float64(x)), true
	case float64:
		return floatBits(x), true
	case decimal.Decimal:
		r := x.Round(0)
		switch {
		case r.GreaterThan(decUint64Max):
			return math.MaxUint64, true
		case r.Sign() < 0:
			if r.LessThan(decimal.NewFromInt(math.MinInt64)) {
				return uint64(1) << 63, true
			}
			return uint64(r.IntPart()), true
		}
		return r.BigInt().Uint64(), true
	}
	return 0, false
}

func floatBits(f float64) uint64 {
	f = math.Round(f)
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 18446744073709551615.0:
		return math.MaxUint64
	case f <= math.MinInt64:
		return uint64(1) << 63
	case f < 0:
		return uint64(int64(f))
	}
	return uint64(f)
}
