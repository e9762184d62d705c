package rules

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// Functions are MySQL built-in functions go-mysql-server v0.20.0 lacks
// (FUNC-1), registered by the server where the name is free.
func Functions() []sql.Function {
	return append(append(quantifierFunctions(), assignFunction(), defaultFunction(), rollupMarker(), benchmarkFunction(), uuidShortFunction()),
		fn("truncate", 2, 2, truncateType, truncateNum),
		fn("makedate", 2, 2, fixed(types.Date), makedate),
		fn("maketime", 3, 3, fixed(types.Time), maketime),
		fn("sec_to_time", 1, 1, fixed(types.Time), secToTime),
		fn("utc_date", 0, 0, fixed(types.Date), func(ctx *sql.Context, _ []any) (any, error) {
			t := ctx.QueryTime().UTC()
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), nil
		}),
		fn("oct", 1, 1, fixed(types.LongText), func(ctx *sql.Context, a []any) (any, error) {
			n, err := toInt(ctx, a[0])
			if err != nil {
				return nil, err
			}
			return strconv.FormatUint(uint64(n), 8), nil
		}),
		fn("insert", 4, 4, fixed(types.LongText), insertString),
		allNulls(fn("strata_fn_interval", 2, 1<<16, fixed(types.Int32), intervalIndex)),
		fn("addtime", 2, 2, addTimeType, addTime(1)),
		fn("subtime", 2, 2, addTimeType, addTime(-1)),
		fn("export_set", 3, 5, fixed(types.LongText), exportSet),
		keepNulls(fn("make_set", 2, 64, fixed(types.LongText), makeSet)),
		fn("strata_typed_date", 1, 1, fixed(types.Date), typedValue(types.Date)),
		fn("strata_typed_time", 1, 1, fixed(types.Time), typedValue(types.Time)),
		fn("strata_typed_timestamp", 1, 1, timestampLiteralType, func(ctx *sql.Context, a []any) (any, error) {
			return typedValue(timestampLiteralType([]sql.Expression{expression.NewLiteral(a[0], types.LongText)}))(ctx, a)
		}),
	)
}

// FUNC-4 DATE 'x', TIME 'x' and TIMESTAMP 'x' are typed literals, which
// the server rewrites to strata_typed_date('x') and its kin (the names
// of result columns read as written): go-mysql-server read them as plain
// strings, so DATE '2024-01-01' + 1 was 2025 (MySQL: 20240102). A
// TIMESTAMP literal is a DATETIME with as many fractional digits as it
// writes, as in MySQL.
func typedValue(t sql.Type) func(*sql.Context, []any) (any, error) {
	return func(ctx *sql.Context, a []any) (any, error) {
		v, _, err := t.Convert(ctx, a[0])
		if err != nil {
			return nil, mysql.NewSQLError(1525, "HY000", "Incorrect %s value: '%v'", literalTypeName(t), a[0])
		}
		return v, nil
	}
}

func literalTypeName(t sql.Type) string {
	switch {
	case types.IsDateType(t):
		return "DATE"
	case types.IsTimespan(t):
		return "TIME"
	}
	return "DATETIME"
}

func timestampLiteralType(args []sql.Expression) sql.Type {
	fsp := 0
	if lit, ok := args[0].(*expression.Literal); ok {
		if s, ok := lit.Value().(string); ok {
			if dot := strings.LastIndexByte(s, '.'); dot >= 0 {
				for _, c := range s[dot+1:] {
					if c < '0' || c > '9' || fsp == 6 {
						break
					}
					fsp++
				}
			}
		}
	}
	return types.MustCreateDatetimeType(sqltypes.Datetime, fsp)
}

// scalar is a function of fixed arity over evaluated arguments: NULL in,
// NULL out.
type scalar struct {
	name string
	args []sql.Expression
	typ  func(args []sql.Expression) sql.Type
	eval func(ctx *sql.Context, args []any) (any, error)
	// keepNulls: only a NULL first argument makes the result NULL; eval
	// sees the other NULLs.
	keepNulls bool
	allNulls  bool
}

var _ sql.FunctionExpression = (*scalar)(nil)

func fn(name string, minArgs, maxArgs int, typ func([]sql.Expression) sql.Type, eval func(*sql.Context, []any) (any, error)) sql.Function {
	return sql.FunctionN{Name: name, Fn: func(args ...sql.Expression) (sql.Expression, error) {
		if len(args) < minArgs || len(args) > maxArgs {
			return nil, sql.ErrInvalidArgumentNumber.New(strings.ToUpper(name), fmt.Sprint(minArgs), len(args))
		}
		return &scalar{name: name, args: args, typ: typ, eval: eval}, nil
	}}
}

// keepNulls makes f's NULL arguments after the first reach its eval.
// allNulls makes all of f's NULL arguments reach its eval.
func allNulls(f sql.Function) sql.Function {
	fn := f.(sql.FunctionN)
	inner := fn.Fn
	fn.Fn = func(args ...sql.Expression) (sql.Expression, error) {
		e, err := inner(args...)
		if s, ok := e.(*scalar); ok {
			s.allNulls = true
		}
		return e, err
	}
	return fn
}

func keepNulls(f sql.Function) sql.Function {
	fn := f.(sql.FunctionN)
	inner := fn.Fn
	fn.Fn = func(args ...sql.Expression) (sql.Expression, error) {
		e, err := inner(args...)
		if s, ok := e.(*scalar); ok {
			s.keepNulls = true
		}
		return e, err
	}
	return fn
}

func fixed(t sql.Type) func([]sql.Expression) sql.Type {
	return func([]sql.Expression) sql.Type { return t }
}

func (s *scalar) FunctionName() string { return s.name }
func (s *scalar) Description() string  { return "MySQL's " + strings.ToUpper(s.name) }
func (s *scalar) Type() sql.Type       { return s.typ(s.args) }
func (s *scalar) IsNullable() bool     { return true }
func (s *scalar) Children() []sql.Expression {
	return s.args
}
func (s *scalar) Resolved() bool {
	for _, a := range s.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}
func (s *scalar) String() string {
	parts := make([]string, len(s.args))
	for i, a := range s.args {
		parts[i] = a.String()
	}
	return strings.ToUpper(s.name) + "(" + strings.Join(parts, ", ") + ")"
}
func (s *scalar) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	ns := *s
	ns.args = children
	return &ns, nil
}
func (s *scalar) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	vals := make([]any, len(s.args))
	for i, a := range s.args {
		v, err := a.Eval(ctx, row)
		if err != nil || (v == nil && !s.allNulls && (i == 0 || !s.keepNulls)) {
			return nil, err
		}
		vals[i] = v
	}
	return s.eval(ctx, vals)
}

func toInt(ctx *sql.Context, v any) (int64, error) {
	n, _, err := types.Int64.Convert(ctx, v)
	if err != nil {
		return 0, err
	}
	return n.(int64), nil
}

// truncateType: TRUNCATE(x, d) keeps x's kind: DOUBLE for floats and
// strings, else DECIMAL with d decimals (0 for integers and d <= 0).
func truncateType(args []sql.Expression) sql.Type {
	t := args[0].Type()
	if types.IsFloat(t) || types.IsText(t) {
		return types.Float64
	}
	if types.IsInteger(t) {
		return types.Int64
	}
	scale := 0
	if dt, ok := t.(sql.DecimalType); ok {
		scale = int(dt.Scale())
	}
	return types.MustCreateDecimalType(65, uint8(min(scale, 30)))
}

func truncateNum(ctx *sql.Context, a []any) (any, error) {
	d, err := toInt(ctx, a[1])
	if err != nil {
		return nil, err
	}
	switch x := a[0].(type) {
	case float32, float64, string, []byte:
		f, _, err := types.Float64.Convert(ctx, x)
		if err != nil {
			return nil, err
		}
		switch { // beyond a double's exponents: nothing to cut, or all
		case d > 330:
			return f, nil
		case d < -330:
			return 0.0, nil
		}
		p := math.Pow(10, float64(d))
		return math.Trunc(f.(float64)*p) / p, nil
	}
	// A DECIMAL has at most 65 digits, 30 after the point: d beyond those
	// cuts nothing or everything (and must not reach the decimal library
	// as a huge exponent, which takes minutes).
	if d > 30 {
		d = 30
	} else if d < -66 {
		d = -66
	}
	dv, _, err := types.InternalDecimalType.Convert(ctx, a[0])
	if err != nil {
		return nil, err
	}
	v := dv.(decimal.Decimal)
	var out decimal.Decimal
	if d >= 0 {
		out = v.Truncate(int32(d))
	} else {
		shift := decimal.New(1, int32(-d))
		out = v.Div(shift).Truncate(0).Mul(shift)
	}
	switch a[0].(type) {
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return out.IntPart(), nil
	}
	return out, nil
}

func makedate(ctx *sql.Context, a []any) (any, error) {
	y, err := toInt(ctx, a[0])
	if err != nil {
		return nil, err
	}
	day, err := toInt(ctx, a[1])
	if err != nil || day <= 0 {
		return nil, err
	}
	if y >= 0 && y < 70 {
		y += 2000
	} else if y >= 70 && y < 100 {
		y += 1900
	}
	t := time.Date(int(y), 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(day-1))
	if t.Year() > 9999 {
		return nil, nil
	}
	return t, nil
}

func maketime(ctx *sql.Context, a []any) (any, error) {
	h, err1 := toInt(ctx, a[0])
	m, err2 := toInt(ctx, a[1])
	s, err3 := toInt(ctx, a[2])
	if err1 != nil || err2 != nil || err3 != nil || m < 0 || m > 59 || s < 0 || s > 59 {
		return nil, nil
	}
	sign := ""
	if h < 0 {
		sign, h = "-", -h
	}
	v, _, err := types.Time.Convert(ctx, fmt.Sprintf("%s%d:%02d:%02d", sign, min(h, 838), m, s))
	return v, err
}

func secToTime(ctx *sql.Context, a []any) (any, error) {
	n, err := toInt(ctx, a[0])
	if err != nil {
		return nil, err
	}
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	n = min(n, 838*3600+59*60+59)
	v, _, err := types.Time.Convert(ctx, fmt.Sprintf("%s%d:%02d:%02d", sign, n/3600, n/60%60, n%60))
	return v, err
}

// insertString is INSERT(str, pos, len, newstr): str with len characters
// from pos replaced by newstr (str unchanged when pos is out of range).
func insertString(ctx *sql.Context, a []any) (any, error) {
	sv, _, err := types.LongText.Convert(ctx, a[0])
	if err != nil {
		return nil, err
	}
	nv, _, err := types.LongText.Convert(ctx, a[3])
	if err != nil {
		return nil, err
	}
	pos, err1 := toInt(ctx, a[1])
	n, err2 := toInt(ctx, a[2])
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	r := []rune(sv.(string))
	if pos < 1 || pos > int64(len(r)) {
		return string(r), nil
	}
	end := int64(len(r))
	if n >= 0 && pos-1+n < end {
		end = pos - 1 + n
	}
	return string(r[:pos-1]) + nv.(string) + string(r[end:]), nil
}

// exportSet is EXPORT_SET(bits, on, off[, separator[, number_of_bits]]).
func exportSet(ctx *sql.Context, a []any) (any, error) {
	bits, _, err := types.Uint64.Convert(ctx, a[0])
	if err != nil {
		return nil, err
	}
	str := func(v any) (string, error) {
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return "", err
		}
		return s.(string), nil
	}
	on, err1 := str(a[1])
	off, err2 := str(a[2])
	if err1 != nil || err2 != nil {
		return nil, nil
	}
	sep, n := ",", int64(64)
	if len(a) > 3 {
		if sep, err = str(a[3]); err != nil {
			return nil, nil
		}
	}
	if len(a) > 4 {
		if n, err = toInt(ctx, a[4]); err != nil || n < 0 || n > 64 {
			n = 64
		}
	}
	b := bits.(uint64)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = off
		if b&(1<<uint(i)) != 0 {
			parts[i] = on
		}
	}
	return strings.Join(parts, sep), nil
}

// makeSet is MAKE_SET(bits, str1, str2, ...): the strings whose bit is set,
// comma-separated (NULL strings left out).
func makeSet(ctx *sql.Context, a []any) (any, error) {
	bits, _, err := types.Uint64.Convert(ctx, a[0])
	if err != nil {
		return nil, err
	}
	var picked []string
	for i, v := range a[1:] {
		if v == nil || bits.(uint64)&(1<<uint(i)) == 0 {
			continue
		}
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		picked = append(picked, s.(string))
	}
	return strings.Join(picked, ","), nil
}

// addTimeType is the type of ADDTIME/SUBTIME(expr1, expr2): DATETIME over
// a DATETIME or TIMESTAMP, TIME over a TIME, a string over a string (its
// value is a datetime or a time depending on what it holds), as in MySQL.
func addTimeType(args []sql.Expression) sql.Type {
	t := args[0].Type()
	switch {
	case types.IsDatetimeType(t) || types.IsTimestampType(t) || types.IsDateType(t):
		return types.DatetimeMaxPrecision
	case types.IsTimespan(t):
		return types.Time
	}
	return types.LongText
}

// addTime answers ADDTIME (sign 1) and SUBTIME (sign -1): expr1, a
// datetime or a time, plus or minus expr2, a time (FUNC-1). An argument
// that is not a datetime or time is NULL, as in MySQL (with a warning
// there).
func addTime(sign int64) func(*sql.Context, []any) (any, error) {
	return func(ctx *sql.Context, a []any) (any, error) {
		d, ok := timeArg(ctx, a[1])
		if !ok {
			return nil, nil
		}
		delta := sign * int64(d)
		frac := int64(d)%1e6 != 0
		var s string
		switch x := a[0].(type) {
		case time.Time:
			return x.Add(time.Duration(delta) * time.Microsecond), nil
		case types.Timespan:
			return types.Timespan(int64(x) + delta), nil
		case string:
			s = x
		case []byte:
			s = string(x)
		default:
			s = fmt.Sprint(x)
		}
		if datetimeString.MatchString(s) {
			t, _, err := types.DatetimeMaxPrecision.Convert(ctx, s)
			if err != nil || t == nil {
				return nil, nil
			}
			r := t.(time.Time).Add(time.Duration(delta) * time.Microsecond)
			if frac || strings.Contains(s[strings.LastIndexByte(s, ':')+1:], ".") {
				return r.Format("2006-01-02 15:04:05.000000"), nil
			}
			return r.Format("2006-01-02 15:04:05"), nil
		}
		t, ok := timeArg(ctx, s)
		if !ok {
			return nil, nil
		}
		r := types.Timespan(int64(t) + delta)
		out := r.String()
		if (frac || strings.Contains(s, ".")) && !strings.Contains(out, ".") {
			out += ".000000"
		}
		return out, nil
	}
}

var dayTimeRE = regexp.MustCompile(`^\s*(-?)(\d+)\s+(\d+(?::\d+(?::\d+(?:\.\d*)?)?)?)\s*$`)

// timeArg reads v as a TIME, also in MySQL's 'D HH:MM:SS' form.
func timeArg(ctx *sql.Context, v any) (types.Timespan, bool) {
	if s, ok := v.(string); ok {
		if m := dayTimeRE.FindStringSubmatch(s); m != nil {
			days, _ := strconv.ParseInt(m[2], 10, 64)
			hm := m[3]
			if !strings.Contains(hm, ":") {
				hm += ":00:00"
			}
			t, _, err := types.Time.Convert(ctx, hm)
			if err != nil || t == nil {
				return 0, false
			}
			us := days*86400e6 + int64(t.(types.Timespan))
			if m[1] == "-" {
				us = -us
			}
			return types.Timespan(us), true
		}
	}
	t, _, err := types.Time.Convert(ctx, v)
	if err != nil || t == nil {
		return 0, false
	}
	return t.(types.Timespan), true
}

// intervalIndex answers INTERVAL(N, N1, N2, ...) (rewritten by the server
// to strata_fn_INTERVAL): the number of Ni at most N, for N1 < N2 < ...;
// -1 when N is NULL. A NULL Ni counts as below N, as in MySQL.
func intervalIndex(ctx *sql.Context, a []any) (any, error) {
	if a[0] == nil {
		return int32(-1), nil
	}
	n, _, err := types.Float64.Convert(ctx, a[0])
	if err != nil {
		return nil, err
	}
	i := 0
	for _, v := range a[1:] {
		if v != nil {
			b, _, err := types.Float64.Convert(ctx, v)
			if err != nil {
				return nil, err
			}
			if n.(float64) < b.(float64) {
				break
			}
		}
		i++
	}
	return int32(i), nil
}

// benchmarkFunction is BENCHMARK(count, expr) (FUNC-1): expr evaluated
// count times, then 0; NULL count NULL, a negative one NULL with Warning
// 1411, as MySQL. A KILL QUERY ends the loop.
func benchmarkFunction() sql.Function {
	return sql.Function2{Name: "benchmark", Fn: func(count, expr sql.Expression) sql.Expression {
		return &benchmark{count: count, expr: expr}
	}}
}

type benchmark struct{ count, expr sql.Expression }

var _ sql.FunctionExpression = (*benchmark)(nil)

func (b *benchmark) Resolved() bool             { return b.count.Resolved() && b.expr.Resolved() }
func (b *benchmark) IsNullable() bool           { return true }
func (b *benchmark) Type() sql.Type             { return types.Int32 }
func (b *benchmark) Children() []sql.Expression { return []sql.Expression{b.count, b.expr} }
func (b *benchmark) FunctionName() string       { return "benchmark" }
func (b *benchmark) Description() string        { return "evaluates an expression count times" }
func (b *benchmark) IsNonDeterministic() bool   { return true }
func (b *benchmark) String() string             { return fmt.Sprintf("benchmark(%s, %s)", b.count, b.expr) }
func (b *benchmark) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}
func (b *benchmark) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 2)
	}
	return &benchmark{count: children[0], expr: children[1]}, nil
}
func (b *benchmark) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := b.count.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	n, err := toInt(ctx, v)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		ctx.Warn(1411, "Incorrect count value: '%d' for function benchmark", n)
		return nil, nil
	}
	for i := int64(0); i < n; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if _, err := b.expr.Eval(ctx, row); err != nil {
			return nil, err
		}
	}
	return int32(0), nil
}
