package rules

import (
	"math"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// RULE-90 Two integer expressions compared (=, <=>, <, <=, >, >=; one of
// them a literal, or any two), and a DATE or DATETIME column with a literal of its own type
// (RULE-89 gives a string literal that type where exact), compare the
// values directly: go-mysql-server's comparison finds the compare type,
// converts both operands and unwraps them for every row (13% of
// `WHERE customer_id > 0 AND total > 0`). Integers compare exactly, the
// signs and ranges of both sides considered (an UNSIGNED value above
// BIGINT's range against a negative literal), as MySQL compares them; any
// value that is not a Go integer (or time) goes to the comparison it
// replaces, which it prints as. NULL is NULL.

// fastScalarCompare returns e's RULE-90 form, or nil.
func fastScalarCompare(e sql.Expression) sql.Expression {
	op, ok := comparisonOp(e)
	if !ok {
		return nil
	}
	l, r, _ := comparedOperands(e)
	if types.IsInteger(l.Type()) && types.IsInteger(r.Type()) {
		return fastIntCompare(e, op, l, r)
	}
	if op == "<=>" {
		return nil
	}
	flip := false
	if _, ok := r.(*expression.Literal); !ok {
		l, r, flip = r, l, true
	}
	lit, ok := r.(*expression.Literal)
	if !ok || lit.Value() == nil {
		return nil
	}
	if _, ok := l.(*expression.Literal); ok {
		return nil
	}
	lt := l.Type()
	if _, isCol := l.(*expression.GetField); !isCol {
		return nil
	}
	switch lt.Type() {
	case sqltypes.Datetime, sqltypes.Date:
	default:
		return nil
	}
	t, ok := lit.Value().(time.Time)
	if !ok || !types.TypesEqual(lt, lit.Type()) {
		return nil
	}
	return &timeCompare{Expression: e, op: op, val: l, flip: flip, lit: t}
}

// fastIntCompare is RULE-90 for two integer operands: against a
// non-NULL literal, or any two (<=> included: signed against unsigned
// BIGINT went through float64, 9223372036854775807 = 9223372036854775808
// was true).
func fastIntCompare(e sql.Expression, op string, l, r sql.Expression) sql.Expression {
	if op != "<=>" {
		flip := false
		if _, ok := r.(*expression.Literal); !ok {
			l, r, flip = r, l, true
		}
		if lit, ok := r.(*expression.Literal); ok && lit.Value() != nil {
			if _, both := l.(*expression.Literal); !both {
				if neg, mag, ok := intParts(lit.Value()); ok {
					return &intCompare{Expression: e, op: op, val: l, flip: flip, neg: neg, mag: mag}
				}
				return nil
			}
		}
		if flip {
			l, r = r, l
		}
	}
	return &intPair{Expression: e, op: op, l: l, r: r}
}

// intPair is a RULE-90 comparison of two integer expressions.
type intPair struct {
	sql.Expression // the comparison
	op             string
	l, r           sql.Expression
}

func (c *intPair) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	a, err := c.l.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	b, err := c.r.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if a == nil || b == nil {
		if c.op == "<=>" {
			return a == nil && b == nil, nil
		}
		return nil, nil
	}
	an, am, aok := intParts(a)
	bn, bm, bok := intParts(b)
	if !aok || !bok {
		return c.Expression.Eval(ctx, row)
	}
	r := cmpIntParts(an, am, bn, bm)
	if c.op == "<=>" {
		return r == 0, nil
	}
	return answer(c.op, r), nil
}

func (c *intPair) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(c.Expression.WithChildren(children...))
}

// intParts splits a Go integer into its sign and magnitude.
func intParts(v any) (neg bool, mag uint64, ok bool) {
	var i int64
	switch n := v.(type) {
	case int8:
		i = int64(n)
	case int16:
		i = int64(n)
	case int32:
		i = int64(n)
	case int64:
		i = n
	case int:
		i = int64(n)
	case uint8:
		return false, uint64(n), true
	case uint16:
		return false, uint64(n), true
	case uint32:
		return false, uint64(n), true
	case uint64:
		return false, n, true
	case uint:
		return false, uint64(n), true
	default:
		return false, 0, false
	}
	if i < 0 {
		if i == math.MinInt64 {
			return true, 1 << 63, true
		}
		return true, uint64(-i), true
	}
	return false, uint64(i), true
}

// cmpIntParts orders a against b, each a sign and a magnitude.
func cmpIntParts(an bool, am uint64, bn bool, bm uint64) int {
	switch {
	case an != bn:
		if an {
			return -1
		}
		return 1
	case am == bm:
		return 0
	case (am < bm) != an: // both negative: the larger magnitude is less
		return -1
	}
	return 1
}

// intCompare is a RULE-90 comparison of an integer expression with an
// integer literal.
type intCompare struct {
	sql.Expression // the comparison
	op             string
	val            sql.Expression
	flip           bool // the literal is the left operand
	neg            bool
	mag            uint64
}

func (c *intCompare) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.val.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	neg, mag, ok := intParts(v)
	if !ok {
		return c.Expression.Eval(ctx, row)
	}
	r := cmpIntParts(neg, mag, c.neg, c.mag)
	if c.flip {
		r = -r
	}
	return answer(c.op, r), nil
}

func (c *intCompare) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(c.Expression.WithChildren(children...))
}

// timeCompare is a RULE-90 comparison of a DATE or DATETIME column with a
// literal of the column's type.
type timeCompare struct {
	sql.Expression // the comparison
	op             string
	val            sql.Expression
	flip           bool
	lit            time.Time
}

func (c *timeCompare) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.val.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	t, ok := v.(time.Time)
	if !ok {
		return c.Expression.Eval(ctx, row)
	}
	r := t.Compare(c.lit)
	if c.flip {
		r = -r
	}
	return answer(c.op, r), nil
}

func (c *timeCompare) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(c.Expression.WithChildren(children...))
}
