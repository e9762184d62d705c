package rules

import (
	"math/big"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// fittedInteger implements RULE-46: a value going into an integer column
// (INSERT, UPDATE) is read as MySQL reads it where go-mysql-server's
// conversion goes wrong:
//   - a DECIMAL (a literal beyond BIGINT UNSIGNED, or with a fraction, or
//     a numeric string) into BIGINT UNSIGNED is rounded half away from
//     zero exactly; go-mysql-server went through float64, storing
//     12345678901234567168 for 12345678901234567891.4 and
//     9223372036854775808 for 18446744073709551614.6, and took a value
//     beyond 2^64-1 as in range. Out of range is error 1264 in strict mode
//     without IGNORE, else the bound with Warning 1264.
//   - the empty string (or blanks) is error 1366 in strict mode without
//     IGNORE, else 0 with Warning 1366; go-mysql-server stored 0 silently.
type fittedInteger struct {
	over
	col      string
	unsigned bool // BIGINT UNSIGNED
	fail     bool // strict mode, no IGNORE
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
	case decimal.Decimal:
		if !f.unsigned {
			return v, nil
		}
		d = x
	default:
		return v, nil
	}
	r := d.Round(0).BigInt()
	if r.Sign() < 0 || r.Cmp(bigUint64Max) > 0 {
		if f.fail {
			return nil, mysql.NewSQLError(1264, "22003", "Out of range value for column '%s' at row %d", f.col, n)
		}
		ctx.Warn(1264, "Out of range value for column '%s' at row %d", f.col, n)
		if r.Sign() < 0 {
			return uint64(0), nil
		}
		return ^uint64(0), nil
	}
	return r.Uint64(), nil
}

// integerColumn reports whether t is an integer type, and whether it is
// BIGINT UNSIGNED.
func integerColumn(t sql.Type) (integer, bigUnsigned bool) {
	if !types.IsInteger(t) {
		return false, false
	}
	return true, t.Equals(types.Uint64)
}
