package rules

import (
	"fmt"
	"math"
	"math/big"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// checkedIntegers replaces +, - and * of two integer operands by exact
// integer arithmetic that fails with 1690 when the result leaves BIGINT
// (or BIGINT UNSIGNED when an operand is unsigned), as MySQL does
// (RULE-5). go-mysql-server wraps around.
func checkedIntegers(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		a, ok := e.(*expression.Arithmetic)
		if !ok || (a.Op != "+" && a.Op != "-" && a.Op != "*") {
			return e, transform.SameTree, nil
		}
		lt, rt := a.LeftChild.Type(), a.RightChild.Type()
		if !types.IsInteger(lt) || !types.IsInteger(rt) {
			return e, transform.SameTree, nil
		}
		return &intArith{op: a.Op, l: a.LeftChild, r: a.RightChild, orig: a,
			unsigned: types.IsUnsigned(lt) || types.IsUnsigned(rt), text: a.String()}, transform.NewTree, nil
	})
}

// intArith is l op r over integers, exact, within BIGINT [UNSIGNED].
type intArith struct {
	op       string
	l, r     sql.Expression
	unsigned bool
	text     string
	orig     *expression.Arithmetic // for operands that turn out not to be integers
}

var _ sql.Expression = (*intArith)(nil)

var (
	minInt64  = big.NewInt(math.MinInt64)
	maxInt64  = big.NewInt(math.MaxInt64)
	maxUint64 = new(big.Int).SetUint64(math.MaxUint64)
)

func (a *intArith) Resolved() bool             { return a.l.Resolved() && a.r.Resolved() }
func (a *intArith) String() string             { return a.text }
func (a *intArith) DebugString() string        { return fmt.Sprintf("intArith(%s)", a.text) }
func (a *intArith) IsNullable() bool           { return a.l.IsNullable() || a.r.IsNullable() }
func (a *intArith) Children() []sql.Expression { return []sql.Expression{a.l, a.r} }

func (a *intArith) Type() sql.Type {
	if a.unsigned {
		return types.Uint64
	}
	return types.Int64
}

func (a *intArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 2)
	}
	na := *a
	na.l, na.r = children[0], children[1]
	orig, err := a.orig.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	na.orig = orig.(*expression.Arithmetic)
	return &na, nil
}

func (a *intArith) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := a.l.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := a.r.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	if !a.unsigned {
		if x, ok := lv.(int64); ok {
			if y, ok := rv.(int64); ok {
				if r, ok := smallArith(a.op, x, y); ok {
					return r, nil
				}
			}
		}
	}
	x, ok1 := bigOf(lv)
	y, ok2 := bigOf(rv)
	if !ok1 || !ok2 {
		return a.orig.Eval(ctx, row) // an operand typed integer gave another kind of value
	}
	switch a.op {
	case "+":
		x.Add(x, y)
	case "-":
		x.Sub(x, y)
	default:
		x.Mul(x, y)
	}
	if a.unsigned {
		if x.Sign() < 0 || x.Cmp(maxUint64) > 0 {
			return nil, mysql.NewSQLError(1690, "22003", "BIGINT UNSIGNED value is out of range in '%s'", a.text)
		}
		return x.Uint64(), nil
	}
	if x.Cmp(minInt64) < 0 || x.Cmp(maxInt64) > 0 {
		return nil, mysql.NewSQLError(1690, "22003", "BIGINT value is out of range in '%s'", a.text)
	}
	return x.Int64(), nil
}

// smallArith is x op y when it obviously fits an int64 (no allocation).
func smallArith(op string, x, y int64) (int64, bool) {
	switch op {
	case "+":
		// Overflow only when both have one sign and the sum has the other.
		r := x + y
		return r, (x >= 0) != (y >= 0) || (r >= 0) == (x >= 0)
	case "-":
		// Overflow only when the signs differ and the result has y's.
		r := x - y
		return r, (x >= 0) == (y >= 0) || (r >= 0) == (x >= 0)
	default:
		const lim = 1 << 31
		return x * y, x > -lim && x < lim && y > -lim && y < lim
	}
}

func bigOf(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case int8:
		return big.NewInt(int64(x)), true
	case int16:
		return big.NewInt(int64(x)), true
	case int32:
		return big.NewInt(int64(x)), true
	case int64:
		return big.NewInt(x), true
	case int:
		return big.NewInt(int64(x)), true
	case uint8:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint16:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint32:
		return new(big.Int).SetUint64(uint64(x)), true
	case uint64:
		return new(big.Int).SetUint64(x), true
	case uint:
		return new(big.Int).SetUint64(uint64(x)), true
	case bool:
		if x {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	}
	return nil, false
}
