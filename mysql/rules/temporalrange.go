package rules

import (
	"regexp"
	"strconv"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// fittedTemporal implements RULE-54: in strict mode (without IGNORE), a
// value going into a TIME column beyond ±838:59:59 and a zero date into a
// DATE, DATETIME or TIMESTAMP column under NO_ZERO_DATE fail with 1292, as
// in MySQL; go-mysql-server stored the TIME clamped to 838:59:59 and the
// zero date as it was. Outside strict mode go-mysql-server's clamping and
// zero dates stay.
type fittedTemporal struct {
	over
	col    string
	time   bool // a TIME column (else a date column)
	zero   bool // NO_ZERO_DATE is set
	fail   bool // strict mode, no IGNORE
	rows   *rowCounter
	isDate bool // DATE (for the message)
}

func (f *fittedTemporal) Type() sql.Type { return f.child.Type() }

func (f *fittedTemporal) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	nf := *f
	nf.child = children[0]
	return &nf, nil
}

var (
	timeTextRE = regexp.MustCompile(`^\s*-?(\d+):(\d{1,2})(?::(\d{1,2})(?:\.\d*)?)?\s*$`)
	zeroDateRE = regexp.MustCompile(`^\s*0000-00-00(?:[ T]00:00:00(?:\.0*)?)?\s*$`)
)

func (f *fittedTemporal) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n := f.rows.next(ctx)
	v, err := f.child.Eval(ctx, row)
	if err != nil || v == nil || !f.fail {
		return v, err
	}
	switch {
	case f.time:
		if timeOutOfRange(v) {
			return nil, mysql.NewSQLError(1292, "22007", "Incorrect time value: '%v' for column '%s' at row %d", v, f.col, n)
		}
	case f.zero:
		if s, ok := v.(string); ok && zeroDateRE.MatchString(s) {
			kind := "datetime"
			if f.isDate {
				kind = "date"
			}
			return nil, mysql.NewSQLError(1292, "22007", "Incorrect %s value: '%s' for column '%s' at row %d", kind, s, f.col, n)
		}
	}
	return v, nil
}

// timeOutOfRange reports whether v, written as a TIME ([-]H:MM[:SS] text
// or a [-]HHMMSS number), lies beyond 838:59:59.
func timeOutOfRange(v any) bool {
	var h, m, s int64
	switch x := v.(type) {
	case string:
		p := timeTextRE.FindStringSubmatch(x)
		if p == nil {
			return false
		}
		h, _ = strconv.ParseInt(p[1], 10, 64)
		m, _ = strconv.ParseInt(p[2], 10, 64)
		if p[3] != "" {
			s, _ = strconv.ParseInt(p[3], 10, 64)
		}
	case int8, int16, int32, int64, int:
		var n int64
		switch y := x.(type) {
		case int8:
			n = int64(y)
		case int16:
			n = int64(y)
		case int32:
			n = int64(y)
		case int64:
			n = y
		case int:
			n = int64(y)
		}
		if n < 0 {
			n = -n
		}
		h, m, s = n/10000, n/100%100, n%100
	default:
		return false
	}
	return h*3600+m*60+s > 838*3600+59*60+59
}

// fittedMember implements RULE-55: in strict mode (without IGNORE), a
// value going into an ENUM or SET column that is not one of its members
// (for ENUM: index 0, an index past the list or an unknown name) fails
// with 1265 "Data truncated", as in MySQL: go-mysql-server stored ENUM
// index 0 as ” and answered unknown names with 1105.
type fittedMember struct {
	over
	col  string
	typ  sql.Type
	rows *rowCounter
}

func (f *fittedMember) Type() sql.Type { return f.child.Type() }

func (f *fittedMember) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	nf := *f
	nf.child = children[0]
	return &nf, nil
}

func (f *fittedMember) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n := f.rows.next(ctx)
	v, err := f.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	bad := false
	if et, ok := f.typ.(sql.EnumType); ok {
		switch x := v.(type) {
		case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64:
			i, _ := asUint64(x)
			bad = i == 0 || i > uint64(et.NumberOfElements())
		default:
			_, _, cerr := f.typ.Convert(ctx, v)
			bad = cerr != nil
		}
	} else {
		_, _, cerr := f.typ.Convert(ctx, v)
		bad = cerr != nil
	}
	if bad {
		return nil, mysql.NewSQLError(1265, "01000", "Data truncated for column '%s' at row %d", f.col, n)
	}
	return v, nil
}
