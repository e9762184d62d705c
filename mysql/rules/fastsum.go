package rules

import (
	"strata/mysql/decimals"

	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// RULE-75 SUM of an integer or DECIMAL expression (RULE-3's exact sums)
// adds into an int64 while every value is an integer, or a DECIMAL of the
// same exponent whose digits fit, and the total does not overflow; any
// other value (and the int64 total before it) goes to go-mysql-server's
// decimal sum, which also gives the result. The values and their
// exponent are the same as go-mysql-server's: it added every value as a
// big-integer decimal (its allocation and big.Int arithmetic were 25-30%
// of a GROUP BY summing a DECIMAL column over 250,000 rows).
type fastSum struct {
	*aggregation.Sum
	intChild sql.Expression // the integer argument before its DECIMAL conversion, or nil
}

// newFastSum wraps sum; its integer argument is found under the DECIMAL
// conversion RULE-3 gives it.
func newFastSum(sum *aggregation.Sum) *fastSum {
	f := &fastSum{Sum: sum}
	child := sum.Child
	if r, ok := child.(*roundedDecimal); ok { // RULE-29's form of the conversion
		child = r.Convert
	}
	if c, ok := child.(*expression.Convert); ok && types.IsDecimal(c.Type()) &&
		types.IsInteger(c.Child.Type()) && c.Child.Type() != types.Uint64 {
		f.intChild = c.Child
	}
	return f
}

// WithChildren and WithId keep the wrapper (other rules rebuild the
// expressions under it).
func (s *fastSum) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	ne, err := s.Sum.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if sum, ok := ne.(*aggregation.Sum); ok {
		return newFastSum(sum), nil
	}
	return ne, nil
}

func (s *fastSum) WithId(id sql.ColumnId) sql.IdExpression {
	if sum, ok := s.Sum.WithId(id).(*aggregation.Sum); ok {
		return newFastSum(sum)
	}
	return s.Sum.WithId(id)
}

func (s *fastSum) NewBuffer() (sql.AggregationBuffer, error) {
	child, err := transform.Clone(s.Child)
	if err != nil {
		return nil, err
	}
	b := &fastSumBuffer{expr: child, slow: aggregation.NewSumBuffer(child)}
	if s.intChild != nil {
		if b.intExpr, err = transform.Clone(s.intChild); err != nil {
			return nil, err
		}
	}
	return b, nil
}

type slowSum interface {
	sql.AggregationBuffer
	PerformSum(ctx *sql.Context, v interface{})
}

type fastSumBuffer struct {
	expr, intExpr sql.Expression
	acc           int64
	exp           int32
	used          bool // acc holds values (exp is theirs)
	slow          slowSum
	slowUsed      bool
}

func (b *fastSumBuffer) Update(ctx *sql.Context, row sql.Row) error {
	if b.intExpr != nil {
		v, err := b.intExpr.Eval(ctx, row)
		if err != nil {
			return err
		}
		if v == nil {
			return nil
		}
		x, exp, ok := digits(v) // RULE-76's reading of an integer
		if !ok || exp != 0 {
			return b.slowUpdate(ctx, row)
		}
		if b.add(x, 0) {
			return nil
		}
		return b.slowUpdate(ctx, row)
	}
	v, err := b.expr.Eval(ctx, row)
	if err != nil {
		return err
	}
	if v == nil {
		return nil
	}
	if d, ok := v.(decimal.Decimal); ok {
		if m, exp, ok := decimals.Digits(d); ok && b.add(m, exp) { // decimals DEC-1
			return nil
		}
	}
	b.flush(ctx)
	b.slowUsed = true
	b.slow.PerformSum(ctx, v)
	return nil
}

// add adds x x 10^exp to the int64 total, if it can.
func (b *fastSumBuffer) add(x int64, exp int32) bool {
	if b.used && exp != b.exp {
		return false
	}
	if (x > 0 && b.acc > math.MaxInt64-x) || (x < 0 && b.acc < math.MinInt64-x) {
		return false
	}
	b.acc += x
	b.exp, b.used = exp, true
	return true
}

// slowUpdate hands the row to go-mysql-server's sum, after the int64 total.
func (b *fastSumBuffer) slowUpdate(ctx *sql.Context, row sql.Row) error {
	b.flush(ctx)
	b.slowUsed = true
	return b.slow.Update(ctx, row)
}

func (b *fastSumBuffer) flush(ctx *sql.Context) {
	if b.used {
		b.slow.PerformSum(ctx, decimal.New(b.acc, b.exp))
		b.slowUsed = true
		b.acc, b.used = 0, false
	}
}

func (b *fastSumBuffer) Eval(ctx *sql.Context) (interface{}, error) {
	if !b.slowUsed {
		if !b.used {
			return nil, nil
		}
		return decimal.New(b.acc, b.exp), nil
	}
	b.flush(ctx)
	return b.slow.Eval(ctx)
}

func (b *fastSumBuffer) Dispose() { b.slow.Dispose() }
