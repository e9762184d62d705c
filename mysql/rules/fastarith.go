package rules

import (
	"strata/mysql/decimals"

	"math"
	"math/bits"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// RULE-76 +, - and * with a DECIMAL result whose operands are integers and
// DECIMALs compute on int64 digits while they fit, giving the decimal
// go-mysql-server's operator gives (the exact sum, difference or product
// at the operands' combined exponent); any other value, an overflow, or
// an expression with a division somewhere (its final rounding looks at
// the whole tree) is go-mysql-server's. It converted both operands to
// big-integer decimals and checked their bounds for every row (23% of a
// join summing qty * price).
func fastArithmetic(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ex, ok := n.(sql.Expressioner)
		if !ok {
			return n, transform.SameTree, nil
		}
		exprs := ex.Expressions()
		var out []sql.Expression
		for i, e := range exprs {
			if hasDivision(e) {
				continue
			}
			ne, same, err := transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				if a, ok := e.(*expression.Arithmetic); ok && exactOperands(a) {
					return &fastArith{Arithmetic: a}, transform.NewTree, nil
				}
				return e, transform.SameTree, nil
			})
			if err != nil {
				return nil, transform.SameTree, err
			}
			if !same {
				if out == nil {
					out = append([]sql.Expression{}, exprs...)
				}
				out[i] = ne
			}
		}
		if out == nil {
			return n, transform.SameTree, nil
		}
		nn, err := ex.WithExpressions(out...)
		return nn, transform.NewTree, err
	})
}

func hasDivision(e sql.Expression) bool {
	found := false
	sql.Inspect(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *expression.Div, *expression.IntDiv, *expression.Mod:
			found = true
		case *expression.Arithmetic:
			if x.Op != "+" && x.Op != "-" && x.Op != "*" {
				found = true
			}
		}
		return !found
	})
	return found
}

func exactOperands(a *expression.Arithmetic) bool {
	if a.Op != "+" && a.Op != "-" && a.Op != "*" || !types.IsDecimal(a.Type()) {
		return false
	}
	for _, c := range []sql.Expression{a.LeftChild, a.RightChild} {
		if t := c.Type(); !types.IsInteger(t) && !types.IsDecimal(t) {
			return false
		}
	}
	return true
}

type fastArith struct {
	*expression.Arithmetic
}

func (f *fastArith) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	ne, err := f.Arithmetic.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if a, ok := ne.(*expression.Arithmetic); ok && exactOperands(a) {
		return &fastArith{Arithmetic: a}, nil
	}
	return ne, nil
}

func (f *fastArith) Eval(ctx *sql.Context, row sql.Row) (interface{}, error) {
	m, e, null, ok, err := f.exactDigits(ctx, row)
	switch {
	case err != nil || null:
		return nil, err
	case ok:
		return decimal.New(m, e), nil
	}
	return f.Arithmetic.Eval(ctx, row)
}

// exactDigits is f's value as m x 10^e when the operands' digits fit and
// nothing overflows (ok), or NULL (null); otherwise Eval's general path
// gives it. RULE-79's comparisons read it without making a DECIMAL.
func (f *fastArith) exactDigits(ctx *sql.Context, row sql.Row) (m int64, e int32, null, ok bool, err error) {
	l, err := f.LeftChild.Eval(ctx, row)
	if err != nil {
		return 0, 0, false, false, err
	}
	r, err := f.RightChild.Eval(ctx, row)
	if err != nil {
		return 0, 0, false, false, err
	}
	if l == nil || r == nil {
		return 0, 0, true, false, nil
	}
	lm, le, lok := digits(l)
	rm, re, rok := digits(r)
	if lok && rok {
		m, e, ok = exactOp(f.Op, lm, le, rm, re)
	}
	return m, e, false, ok, nil
}

// digits is v as m x 10^e with m an int64, if it is an integer or a
// DECIMAL whose digits fit.
func digits(v interface{}) (int64, int32, bool) {
	switch n := v.(type) {
	case int8:
		return int64(n), 0, true
	case int16:
		return int64(n), 0, true
	case int32:
		return int64(n), 0, true
	case int64:
		return n, 0, true
	case uint8:
		return int64(n), 0, true
	case uint16:
		return int64(n), 0, true
	case uint32:
		return int64(n), 0, true
	case uint64:
		if n <= math.MaxInt64 {
			return int64(n), 0, true
		}
	case decimal.Decimal:
		return decimals.Digits(n) // no copy of the coefficient (decimals DEC-1)
	}
	return 0, 0, false
}

// exactOp is a op b on digits and exponents, if nothing overflows int64.
func exactOp(op string, a int64, ae int32, b int64, be int32) (int64, int32, bool) {
	if op == "*" {
		m, ok := mul64(a, b)
		return m, ae + be, ok
	}
	// + and -: both at the smaller exponent
	for ae > be {
		var ok bool
		if a, ok = mul64(a, 10); !ok {
			return 0, 0, false
		}
		ae--
	}
	for be > ae {
		var ok bool
		if b, ok = mul64(b, 10); !ok {
			return 0, 0, false
		}
		be--
	}
	if op == "-" {
		if b == math.MinInt64 {
			return 0, 0, false
		}
		b = -b
	}
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, 0, false
	}
	return s, ae, true
}

func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = uint64(-a)
	}
	if b < 0 {
		ub = uint64(-b)
	}
	if a == math.MinInt64 || b == math.MinInt64 {
		return 0, false
	}
	hi, lo := bits.Mul64(ua, ub)
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}
