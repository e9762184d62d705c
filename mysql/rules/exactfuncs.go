package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// exactFunctions implements RULE-47 and RULE-48: GREATEST/LEAST over
// exact numbers, and TIMESTAMPDIFF, computed as MySQL computes them.
func exactFunctions(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *function.Greatest:
			if ex, ok := newExactExtremum(x, x.Args, true); ok {
				return ex, transform.NewTree, nil
			}
		case *function.Least:
			if ex, ok := newExactExtremum(x, x.Args, false); ok {
				return ex, transform.NewTree, nil
			}
		case *function.TimestampDiff:
			return &timestampDiff{x}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// exactExtremum is GREATEST (greatest true) or LEAST of integers and
// DECIMALs (RULE-47), compared exactly as MySQL documents: all integers
// compare as integers (BIGINT, BIGINT UNSIGNED when all are unsigned,
// DECIMAL(20,0) when BIGINT UNSIGNED meets signed values),
// integers and DECIMALs as DECIMAL. go-mysql-server compared through
// float64 (wrong past 2^53), failed on BIGINT UNSIGNED values past 2^63
// and on any DECIMAL ('unsupported type for greatest/least argument:
// decimal.Decimal': GREATEST(1, 2.5)), and typed a DECIMAL mix as BIGINT.
// Floats, strings and temporal values stay go-mysql-server's.
type exactExtremum struct {
	orig     sql.Expression
	args     []sql.Expression
	greatest bool
	typ      sql.Type
}

func newExactExtremum(orig sql.Expression, args []sql.Expression, greatest bool) (*exactExtremum, bool) {
	allUnsigned, anyDecimal, anyBigUnsigned := true, false, false
	intDigitsMax, scaleMax := 0, 0
	for _, a := range args {
		t := a.Type()
		switch {
		case types.IsInteger(t):
			if !types.IsUnsigned(t) {
				allUnsigned = false
			}
			anyBigUnsigned = anyBigUnsigned || t.Equals(types.Uint64)
			intDigitsMax = max(intDigitsMax, intDigits(t))
		case types.IsDecimal(t):
			anyDecimal, allUnsigned = true, false
			dt := t.(sql.DecimalType)
			intDigitsMax = max(intDigitsMax, int(dt.Precision())-int(dt.Scale()))
			scaleMax = max(scaleMax, int(dt.Scale()))
		default:
			return nil, false
		}
	}
	var typ sql.Type
	if anyBigUnsigned && !allUnsigned {
		// BIGINT UNSIGNED beside signed values: DECIMAL(20,0) holds both.
		anyDecimal = true
	}
	switch {
	case anyDecimal:
		scale := min(scaleMax, types.DecimalTypeMaxScale)
		prec := min(intDigitsMax+scale, types.DecimalTypeMaxPrecision)
		dt, err := types.CreateDecimalType(uint8(prec), uint8(scale))
		if err != nil {
			return nil, false
		}
		typ = dt
	case allUnsigned:
		typ = types.Uint64
	default:
		typ = types.Int64
	}
	return &exactExtremum{orig: orig, args: args, greatest: greatest, typ: typ}, true
}

func (x *exactExtremum) Resolved() bool             { return x.orig.Resolved() }
func (x *exactExtremum) String() string             { return x.orig.String() }
func (x *exactExtremum) Type() sql.Type             { return x.typ }
func (x *exactExtremum) IsNullable() bool           { return x.orig.IsNullable() }
func (x *exactExtremum) Children() []sql.Expression { return x.args }
func (x *exactExtremum) FunctionName() string       { return x.orig.(sql.FunctionExpression).FunctionName() }
func (x *exactExtremum) Description() string        { return x.orig.(sql.FunctionExpression).Description() }
func (x *exactExtremum) DebugString() string {
	return fmt.Sprintf("exact(%s)", sql.DebugString(x.orig))
}
func (x *exactExtremum) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (x *exactExtremum) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	orig, err := x.orig.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	nx := *x
	nx.orig, nx.args = orig, children
	return &nx, nil
}

func (x *exactExtremum) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	var best decimal.Decimal
	for i, a := range x.args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		d, ok := decimalOf(v)
		if !ok {
			return x.orig.Eval(ctx, row)
		}
		if c := d.Cmp(best); i == 0 || (x.greatest && c > 0) || (!x.greatest && c < 0) {
			best = d
		}
	}
	switch x.typ {
	case types.Uint64:
		return best.BigInt().Uint64(), nil
	case types.Int64:
		return best.IntPart(), nil
	}
	// The result's scale is the type's (LEAST(1, 2.5) is 1.0): a computed
	// DECIMAL prints with its value's exponent.
	return best.Round(int32(x.typ.(sql.DecimalType).Scale())), nil
}

// timestampDiff is TIMESTAMPDIFF as MySQL computes it (RULE-48): MONTH,
// QUARTER and YEAR count whole months by the calendar (the day and time of
// day of the later value must reach the earlier one's), the other units
// whole units of the exact difference. go-mysql-server counted a month as
// 30 days and a year as 365 (TIMESTAMPDIFF(MONTH, '2000-01-01',
// '2024-01-01') was 292, YEAR from '2000-02-29' to '2024-02-28' 24), and
// measured in time.Duration, which overflows past 292 years.
type timestampDiff struct{ *function.TimestampDiff }

func (t *timestampDiff) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(t.TimestampDiff, children, func(td *function.TimestampDiff) sql.Expression { return &timestampDiff{td} })
}

func (t *timestampDiff) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	ch := t.Children()
	if len(ch) != 3 {
		return t.TimestampDiff.Eval(ctx, row)
	}
	var vals [3]any
	for i, c := range ch {
		v, err := c.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if v == nil {
			if i == 0 {
				return t.TimestampDiff.Eval(ctx, row) // its error for a NULL unit
			}
			return nil, nil
		}
		vals[i] = v
	}
	unit, ok := vals[0].(string)
	if !ok {
		return t.TimestampDiff.Eval(ctx, row)
	}
	unit = strings.TrimPrefix(strings.ToLower(unit), "sql_tsi_")
	var tm [2]time.Time
	for i := range tm {
		v, _, err := types.DatetimeMaxPrecision.Convert(ctx, vals[i+1])
		if err != nil {
			return t.TimestampDiff.Eval(ctx, row) // go-mysql-server's answer to a bad value
		}
		tm[i] = v.(time.Time)
	}
	begin, end, sign := tm[0], tm[1], int64(1)
	if end.Before(begin) {
		begin, end, sign = end, begin, -1
	}
	micros := (end.Unix()-begin.Unix())*1_000_000 + int64(end.Nanosecond()/1000-begin.Nanosecond()/1000)
	var res int64
	switch unit {
	case "microsecond":
		res = micros
	case "second":
		res = micros / 1_000_000
	case "minute":
		res = micros / 60_000_000
	case "hour":
		res = micros / 3_600_000_000
	case "day":
		res = micros / 86_400_000_000
	case "week":
		res = micros / (7 * 86_400_000_000)
	case "month", "quarter", "year":
		months := int64(end.Year()-begin.Year())*12 + int64(end.Month()-begin.Month())
		if end.Day() < begin.Day() || (end.Day() == begin.Day() && timeOfDay(end) < timeOfDay(begin)) {
			months--
		}
		switch unit {
		case "month":
			res = months
		case "quarter":
			res = months / 3
		default:
			res = months / 12
		}
	default:
		return t.TimestampDiff.Eval(ctx, row)
	}
	return sign * res, nil
}

func timeOfDay(t time.Time) time.Duration {
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute +
		time.Duration(t.Second())*time.Second + time.Duration(t.Nanosecond()/1000)*time.Microsecond
}
