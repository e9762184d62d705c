package rules

import (
	"math"
	"math/big"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// fittedInteger implements RULE-46: a value going into an integer column
// (INSERT, UPDATE) is read as MySQL reads it where go-mysql-server's
// conversion goes wrong (or answers in its own words):
//   - a DECIMAL or floating-point value (a literal beyond BIGINT
//     UNSIGNED, or with a fraction, or a numeric string) into an UNSIGNED
//     integer column is rounded half away from zero exactly and checked
//     against the column type's range; go-mysql-server went through
//     float64, storing 12345678901234567168 for 12345678901234567891.4
//     and 9223372036854775808 for 18446744073709551614.6, took a value
//     beyond 2^64-1 as in range, and wrapped smaller types around
//     silently (300.5 into TINYINT UNSIGNED stored 45, 5000000000.5 into
//     INT UNSIGNED 705032705). A DECIMAL or floating-point value into a
//     signed integer column is checked the same way (go-mysql-server's
//     error named the value, not the column and row). Out of range is
//     error 1264 in strict mode without IGNORE, else the bound with
//     Warning 1264.
//   - the empty string (or blanks) is error 1366 in strict mode without
//     IGNORE, else 0 with Warning 1366; go-mysql-server stored 0 silently.
type fittedInteger struct {
	over
	col      string
	unsigned bool     // an UNSIGNED integer column
	min, max *big.Int // the column type's range
	fail     bool     // strict mode, no IGNORE
	rows     *rowCounter
}

func (f *fittedInteger) Type() sql.Type { return f.child.Type() }

func (f *fittedInteger) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	nf := *f
	nf.child = children[0]
	return &nf, nil
}

var bigUint64Max = new(big.Int).SetUint64(^uint64(0))

func (f *fittedInteger) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n := f.rows.next(ctx)
	v, err := f.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	var d decimal.Decimal
	switch x := v.(type) {
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint:
		if f.within(x) {
			return v, nil // go-mysql-server converts it
		}
		d, _ = decimalOf(x)
	case string, []byte:
		s := strings.TrimSpace(stringOf(x))
		if s == "" {
			if f.fail {
				return nil, mysql.NewSQLError(1366, "HY000", "Incorrect integer value: '%s' for column '%s' at row %d", stringOf(x), f.col, n)
			}
			ctx.Warn(1366, "Incorrect integer value: '%s' for column '%s' at row %d", stringOf(x), f.col, n)
			return 0, nil
		}
		if !f.unsigned {
			return v, nil
		}
		p, err := decimal.NewFromString(s)
		if err != nil {
			return v, nil // left to go-mysql-server (numeric prefixes, RULE-29)
		}
		d = p
	case decimal.Decimal, float64, float32:
		var ok bool
		if d, ok = decimalOf(x); !ok {
			return v, nil // NaN, ±Inf: go-mysql-server's
		}
	default:
		return v, nil
	}
	r := d.Round(0).BigInt()
	if r.Cmp(f.min) < 0 || r.Cmp(f.max) > 0 {
		if f.fail {
			return nil, mysql.NewSQLError(1264, "22003", "Out of range value for column '%s' at row %d", f.col, n)
		}
		ctx.Warn(1264, "Out of range value for column '%s' at row %d", f.col, n)
		if r.Cmp(f.min) < 0 {
			r = f.min
		} else {
			r = f.max
		}
	}
	if f.unsigned {
		return r.Uint64(), nil
	}
	return r.Int64(), nil
}

// within: the integer v is in the column type's range.
func (f *fittedInteger) within(v any) bool {
	switch x := v.(type) {
	case int8, int16, int32, int64, int:
		i := toInt64(x)
		return (f.min.IsInt64() && i >= f.min.Int64()) && (!f.max.IsInt64() || i <= f.max.Int64())
	default:
		u := toUint64(x)
		return !f.max.IsUint64() || u <= f.max.Uint64()
	}
}

// toInt64 is a signed integer of any width as an int64.
func toInt64(v any) int64 {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int:
		return int64(x)
	}
	return v.(int64)
}

// integerRange is the range of integer type t; ok is false for other
// types.
func integerRange(t sql.Type) (min, max *big.Int, ok bool) {
	switch {
	case t.Equals(types.Uint8):
		return big.NewInt(0), big.NewInt(math.MaxUint8), true
	case t.Equals(types.Uint16):
		return big.NewInt(0), big.NewInt(math.MaxUint16), true
	case t.Equals(types.Uint24):
		return big.NewInt(0), big.NewInt(1<<24 - 1), true
	case t.Equals(types.Uint32):
		return big.NewInt(0), big.NewInt(math.MaxUint32), true
	case t.Equals(types.Uint64):
		return big.NewInt(0), bigUint64Max, true
	case t.Equals(types.Int8):
		return big.NewInt(math.MinInt8), big.NewInt(math.MaxInt8), true
	case t.Equals(types.Int16):
		return big.NewInt(math.MinInt16), big.NewInt(math.MaxInt16), true
	case t.Equals(types.Int24):
		return big.NewInt(-1 << 23), big.NewInt(1<<23 - 1), true
	case t.Equals(types.Int32):
		return big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32), true
	case t.Equals(types.Int64):
		return big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64), true
	}
	return nil, nil, false
}
