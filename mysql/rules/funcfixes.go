package rules

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// functionAnswers implements RULE-49: built-in functions whose
// go-mysql-server answer differs from MySQL's documented one on some
// inputs are wrapped, the wrapper answering those inputs and leaving the
// rest to go-mysql-server:
//   - ROUND(x[, d]) of a DOUBLE rounds half to even, as MySQL's rint
//     (ROUND(2.5e0) = 2; it rounded half away from zero);
//   - LPAD/RPAD that must pad with an empty pad string are NULL (they
//     returned ”);
//   - REPEAT(s, n) with n < 0 is ” (it failed with 1105);
//   - FIND_IN_SET(s, ”) is 0 (FIND_IN_SET(”, ”) was 1);
//   - QUOTE(NULL) is the word NULL (it was SQL NULL);
//   - ASCII() is a signed INT (it was typed INT UNSIGNED);
//   - CAST(u AS SIGNED) of a BIGINT UNSIGNED past 2^63-1 wraps to the
//     negative value with the same bits (it clamped to 2^63-1);
//   - INSTR and LOCATE compare under the string's collation (INSTR was
//     case-sensitive under a case-insensitive one, LOCATE case-insensitive
//     under a binary one) and count characters, not bytes (LOCATE('b',
//     'éb') was 3);
//   - HOUR, MINUTE, SECOND, MICROSECOND and TIME_TO_SEC of a TIME value
//     or of a string written as a time ('12:34:56', '100:00:00') read it
//     as a TIME: hours past 23, negative times (TIME_TO_SEC('-01:00:00')
//     is -3600); they were NULL with Warning 1292, failed, or were taken
//     modulo a day;
//   - ABS of the smallest BIGINT is error 1690 (it wrapped to itself);
//   - JSON_TYPE of SQL NULL is NULL (it was the string 'NULL', which is
//     the answer for a JSON null), and JSON_LENGTH of a JSON null is 1
//     (it was NULL);
//   - a DOUBLE result beyond the type's range (1e308 * 10, POW(10, 400),
//     EXP(1000)) is error 1690, as in MySQL: it was +Inf or NULL;
//   - REPEAT, LPAD, RPAD, SPACE, REPLACE, CONCAT, CONCAT_WS, HEX and
//     TO_BASE64 of a result larger than
//     max_allowed_packet are NULL with Warning 1301 (go-mysql-server
//     built it, and REPEAT('hello', 4294967295) took all memory);
//   - FROM_BASE64 ignores spaces, tabs and line breaks and is NULL for
//     text that is not base-64 (it failed with 1105 'illegal base64
//     data');
//   - WEEKOFYEAR(d) and WEEK(d, 3) are ISO 8601 weeks (2024-12-31 is week
//     1 of 2025; it was 53), WEEKOFYEAR a signed INT.
func functionAnswers(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if _, done := e.(*answered); done {
			return e, transform.SameTree, nil
		}
		if _, done := e.(*packetChecked); done {
			return e, transform.SameTree, nil
		}
		if c, ok := e.(*expression.Convert); ok {
			if c.Type().Equals(types.Int64) && c.Child.Type().Equals(types.Uint64) {
				return &answered{Expression: e, answer: wrapSigned}, transform.NewTree, nil
			}
			return e, transform.SameTree, nil
		}
		if a, ok := e.(*expression.Arithmetic); ok && types.IsFloat(a.Type()) {
			return &finiteDouble{Expression: e}, transform.NewTree, nil
		}
		if _, ok := e.(*function.Quote); ok { // not a sql.FunctionExpression (no Description)
			return &answered{Expression: e, answer: quoteNull}, transform.NewTree, nil
		}
		switch e.(type) {
		case function.Instr:
			return &answered{Expression: e, answer: position(1, 0)}, transform.NewTree, nil
		case *function.Locate:
			return &answered{Expression: e, answer: position(0, 1)}, transform.NewTree, nil
		}
		f, ok := e.(sql.FunctionExpression)
		if !ok {
			return e, transform.SameTree, nil
		}
		var a func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error)
		var typ sql.Type
		switch strings.ToLower(f.FunctionName()) {
		case "round":
			if len(e.Children()) >= 1 && types.IsFloat(e.Children()[0].Type()) {
				a = roundHalfEven
			}
		case "lpad", "rpad":
			a = padAnswer(strings.ToLower(f.FunctionName()))
		case "repeat":
			a = negativeRepeat
		case "space":
			a = hugeSpace
		case "replace":
			a = hugeReplace
		case "concat", "concat_ws", "hex", "to_base64":
			return &packetChecked{Expression: e, fn: strings.ToLower(f.FunctionName())}, transform.NewTree, nil
		case "find_in_set":
			a = emptySet
		case "from_base64":
			a = fromBase64
		case "sha2":
			a = sha2Length
		case "ascii":
			typ = types.Int32
		case "hour", "minute", "second":
			a = timePart(strings.ToLower(f.FunctionName()))
		case "microsecond", "time_to_sec":
			a, typ = timePart(strings.ToLower(f.FunctionName())), types.Int32 // signed, as MySQL types them
		case "abs":
			a = absOverflow(e)
		case "json_type":
			a = jsonTypeOfNull
		case "json_length":
			a = jsonLengthOfNull
		case "pow", "power", "exp":
			a = doubleOverflow(strings.ToLower(f.FunctionName()), e)
		case "weekofyear":
			a, typ = isoWeek, types.Int32
		case "week":
			a = isoWeek
		}
		if a == nil && typ == nil {
			return e, transform.SameTree, nil
		}
		return &answered{Expression: e, answer: a, typ: typ}, transform.NewTree, nil
	})
}

// answered is a function with some of its answers given by RULE-49.
type answered struct {
	sql.Expression
	// answer returns (value, true) where it answers, (_, false) where
	// go-mysql-server does.
	answer func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error)
	typ    sql.Type
}

func (a *answered) Type() sql.Type {
	if a.typ != nil {
		return a.typ
	}
	return a.Expression.Type()
}

func (a *answered) IsNullable() bool { return true }
func (a *answered) DebugString() string {
	return fmt.Sprintf("answered(%s)", sql.DebugString(a.Expression))
}

func (a *answered) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := a.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	na := *a
	na.Expression = e
	return &na, nil
}

func (a *answered) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if a.answer != nil {
		if v, ok, err := a.answer(ctx, a.Expression.Children(), row); ok || err != nil {
			return v, err
		}
	}
	v, err := a.Expression.Eval(ctx, row)
	if err != nil || v == nil || a.typ == nil {
		return v, err
	}
	out, _, err := a.typ.Convert(ctx, v)
	return out, err
}

func evalArgs(ctx *sql.Context, args []sql.Expression, row sql.Row) ([]any, error) {
	out := make([]any, len(args))
	for i, e := range args {
		v, err := e.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func roundHalfEven(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	v, err := evalArgs(ctx, args, row)
	if err != nil || v[0] == nil || (len(v) > 1 && v[1] == nil) {
		return nil, err == nil, err
	}
	x, ok := v[0].(float64)
	if !ok {
		return nil, false, nil
	}
	d := int64(0)
	if len(v) > 1 {
		n, err := toInt(ctx, v[1])
		if err != nil {
			return nil, false, nil
		}
		d = n
	}
	if math.IsInf(x, 0) || math.IsNaN(x) || d > 30 || d < -30 {
		return nil, false, nil
	}
	// MySQL's my_double_round: scale, rint (half to even), scale back.
	p := math.Pow10(int(math.Abs(float64(d))))
	var r float64
	if d >= 0 {
		r = math.RoundToEven(x*p) / p
	} else {
		r = math.RoundToEven(x/p) * p
	}
	return r + 0, true, nil // -0 prints as 0, as MariaDB prints it
}

// overPacket reports whether a result of fn of n bytes would be larger
// than max_allowed_packet; then the result is NULL with Warning 1301, as
// in MySQL. go-mysql-server built it: REPEAT('hello', 4294967295) took
// the server's memory (the replay of MariaDB's func_str).
func overPacket(ctx *sql.Context, fn string, n int64) bool {
	max := int64(16 << 20)
	if v, err := ctx.GetSessionVariable(ctx, "max_allowed_packet"); err == nil {
		if m, err := toInt(ctx, v); err == nil && m > 0 {
			max = m
		}
	}
	if n <= max {
		return false
	}
	ctx.Warn(1301, "Result of %s() was larger than max_allowed_packet (%d) - truncated", fn, max)
	return true
}

// grownLength is base + n*each, or 2^62 (past any packet limit) where
// that would overflow: the length of a result built by n repetitions.
func grownLength(base, n, each int64) int64 {
	const huge = int64(1 << 62)
	if each > 0 && n > (huge-base)/each {
		return huge
	}
	return base + n*each
}

func hugeSpace(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) != 1 {
		return nil, false, nil
	}
	v, err := evalArgs(ctx, args, row)
	if err != nil || v[0] == nil {
		return nil, false, err
	}
	if n, err := toInt(ctx, v[0]); err == nil && overPacket(ctx, "space", n) {
		return nil, true, nil
	}
	return nil, false, nil
}

// hugeReplace answers REPLACE(s, from, to) whose result would pass
// max_allowed_packet (REPLACE(REPEAT('a', 16777216), 'a', REPEAT('b',
// 16777216)) is 2^48 bytes).
func hugeReplace(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) != 3 {
		return nil, false, nil
	}
	var str [3]string
	for _, i := range [3]int{1, 2, 0} { // from and to first: most replacements do not grow, s is then left to go-mysql-server alone
		v, err := args[i].Eval(ctx, row)
		if err != nil || v == nil {
			return nil, false, err
		}
		t, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, false, nil
		}
		str[i] = t.(string)
		if i == 2 && (str[1] == "" || len(str[2]) <= len(str[1])) {
			return nil, false, nil
		}
	}
	total := grownLength(int64(len(str[0])), int64(strings.Count(str[0], str[1])), int64(len(str[2])-len(str[1])))
	if overPacket(ctx, "replace", total) {
		return nil, true, nil
	}
	return nil, false, nil
}

// packetChecked is CONCAT, CONCAT_WS, HEX or TO_BASE64 whose result, once built (its
// arguments are each within max_allowed_packet: the result is at most a
// few times that), is NULL with Warning 1301 when it is larger than
// max_allowed_packet. The arguments are evaluated once (they may assign
// variables).
type packetChecked struct {
	sql.Expression
	fn string
}

func (p *packetChecked) IsNullable() bool { return true }
func (p *packetChecked) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, p.Expression)
}
func (p *packetChecked) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := p.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &packetChecked{Expression: e, fn: p.fn}, nil
}

func (p *packetChecked) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := p.Expression.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	var n int
	switch x := v.(type) {
	case string:
		n = len(x)
	case []byte:
		n = len(x)
	}
	if n > 16<<20 && overPacket(ctx, p.fn, int64(n)) {
		return nil, nil
	}
	return v, nil
}

// padAnswer answers LPAD/RPAD (fn) past max_allowed_packet, and with an
// empty pad that padding would need (NULL).
func padAnswer(fn string) func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	return func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
		if len(args) != 3 {
			return nil, false, nil
		}
		v, err := evalArgs(ctx, args, row)
		if err != nil || v[0] == nil || v[1] == nil || v[2] == nil {
			return nil, false, err
		}
		n, err := toInt(ctx, v[1])
		if err != nil {
			return nil, false, nil
		}
		if overPacket(ctx, fn, n) {
			return nil, true, nil
		}
		pad, _, err := types.LongText.Convert(ctx, v[2])
		if err != nil || pad.(string) != "" {
			return nil, false, nil
		}
		s, _, err := types.LongText.Convert(ctx, v[0])
		if err != nil {
			return nil, false, nil
		}
		if n > int64(len([]rune(s.(string)))) {
			return nil, true, nil // padding needed, nothing to pad with
		}
		return nil, false, nil
	}
}

func negativeRepeat(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) != 2 {
		return nil, false, nil
	}
	v, err := evalArgs(ctx, args, row)
	if err != nil || v[0] == nil || v[1] == nil {
		return nil, false, err
	}
	n, err := toInt(ctx, v[1])
	if err != nil {
		return nil, false, nil
	}
	if n < 0 {
		return "", true, nil
	}
	if s, _, err := types.LongText.Convert(ctx, v[0]); err == nil && overPacket(ctx, "repeat", grownLength(0, n, int64(len(s.(string))))) {
		return nil, true, nil
	}
	return nil, false, nil
}

func emptySet(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) != 2 {
		return nil, false, nil
	}
	v, err := evalArgs(ctx, args, row)
	if err != nil || v[0] == nil || v[1] == nil {
		return nil, false, err
	}
	if list, _, err := types.LongText.Convert(ctx, v[1]); err == nil && list.(string) == "" {
		return int32(0), true, nil
	}
	return nil, false, nil
}

// fromBase64 answers FROM_BASE64 as MySQL documents it: whitespace
// ignored, NULL for text that is not base-64.
func fromBase64(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) != 1 {
		return nil, false, nil
	}
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, v == nil && err == nil, err
	}
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return nil, false, nil
	}
	text := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s.(string))
	out, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, true, nil
	}
	return out, true, nil
}

// sha2Length: SHA2 with a hash length MySQL does not offer (0, 224, 256,
// 384, 512) is NULL with Warning 1583, as in MySQL; go-mysql-server
// returned NULL silently.
func sha2Length(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) != 2 {
		return nil, false, nil
	}
	v, err := args[1].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, false, err
	}
	n, _, err := types.Int64.Convert(ctx, v)
	if err == nil {
		switch n.(int64) {
		case 0, 224, 256, 384, 512:
			return nil, false, nil
		}
	}
	ctx.Warn(1583, "Incorrect parameters in the call to native function 'sha2'")
	return nil, true, nil
}

func quoteNull(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) != 1 {
		return nil, false, nil
	}
	v, err := args[0].Eval(ctx, row)
	if err != nil {
		return nil, false, err
	}
	if v == nil {
		return "NULL", true, nil
	}
	return nil, false, nil
}

func wrapSigned(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	v, err := args[0].Eval(ctx, row)
	if err != nil {
		return nil, false, err
	}
	if u, ok := v.(uint64); ok && u > math.MaxInt64 {
		return int64(u), true, nil
	}
	return nil, false, nil
}

// position answers INSTR(str, sub) (sub at argument 1, str at 0) and
// LOCATE(sub, str[, start]) (0 and 1): the 1-based character position of
// the first sub in str from start, 0 if none, comparing characters by the
// weights of str's collation; binary strings compare and count bytes.
func position(subArg, strArg int) func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	return func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
		v, err := evalArgs(ctx, args, row)
		if err != nil {
			return nil, false, err
		}
		for _, x := range v {
			if x == nil {
				return nil, true, nil
			}
		}
		start := int64(1)
		if subArg == 0 && len(v) == 3 {
			if start, err = toInt(ctx, v[2]); err != nil {
				return nil, false, nil
			}
		}
		strB, strBin := v[strArg].([]byte)
		subB, subBin := v[subArg].([]byte)
		if strBin || subBin {
			if !strBin {
				strB = []byte(fmt.Sprint(v[strArg]))
			}
			if !subBin {
				subB = []byte(fmt.Sprint(v[subArg]))
			}
			if start < 1 || start > int64(len(strB))+1 {
				return int32(0), true, nil
			}
			i := bytes.Index(strB[start-1:], subB)
			if i < 0 {
				return int32(0), true, nil
			}
			return int32(i + int(start)), true, nil
		}
		str, ok1 := v[strArg].(string)
		sub, ok2 := v[subArg].(string)
		if !ok1 || !ok2 {
			return nil, false, nil
		}
		// Characters compare by the collation's weights, as padCompare
		// compares them (case and, for _ai_, accents ignored where the
		// collation ignores them).
		same := func(a, b rune) bool { return strings.EqualFold(string(a), string(b)) }
		if coll, ok := args[strArg].(sql.CollationCoercible); ok {
			id, _ := coll.CollationCoercibility(ctx)
			if weight := id.Sorter(); weight != nil {
				same = func(a, b rune) bool { return weight(a) == weight(b) }
			}
		}
		sr, ur := []rune(str), []rune(sub)
		if start < 1 || start > int64(len(sr))+1 {
			return int32(0), true, nil
		}
		for i := int(start) - 1; i+len(ur) <= len(sr); i++ {
			match := true
			for j, r := range ur {
				if c := sr[i+j]; c != r && !same(c, r) {
					match = false
					break
				}
			}
			if match {
				return int32(i + 1), true, nil
			}
		}
		return int32(0), true, nil
	}
}

// isoWeek answers WEEKOFYEAR(d) and WEEK(d, 3) (other modes are
// go-mysql-server's): the ISO 8601 week number.
func isoWeek(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	v, err := evalArgs(ctx, args, row)
	if err != nil || len(v) == 0 || v[0] == nil {
		return nil, false, err
	}
	if len(v) == 2 {
		if v[1] == nil {
			return nil, false, nil
		}
		if mode, err := toInt(ctx, v[1]); err != nil || mode != 3 {
			return nil, false, nil
		}
	}
	t, _, err := types.DatetimeMaxPrecision.Convert(ctx, v[0])
	if err != nil {
		return nil, false, nil
	}
	tm, ok := t.(time.Time)
	if !ok {
		return nil, false, nil
	}
	_, w := tm.ISOWeek()
	return int32(w), true, nil
}

// timeText is a string written as a TIME, not a date: [-][D ]H:MM[:SS[.f]].
var timeText = regexp.MustCompile(`^\s*-?(?:\d+ )?\d+:\d{1,2}(?::\d{1,2}(?:\.\d{1,6})?)?\s*$`)

// timePart answers fn (hour, minute, second, microsecond, time_to_sec) of
// a TIME value or time-shaped string; dates and datetimes are
// go-mysql-server's.
func timePart(fn string) func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	return func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
		if len(args) != 1 {
			return nil, false, nil
		}
		v, err := args[0].Eval(ctx, row)
		if err != nil || v == nil {
			return nil, false, err
		}
		switch x := v.(type) {
		case types.Timespan:
		case string:
			if !timeText.MatchString(x) {
				return nil, false, nil
			}
		default:
			return nil, false, nil
		}
		ts, err := types.Time.ConvertToTimespan(v)
		if err != nil {
			return nil, false, nil
		}
		us := ts.AsMicroseconds()
		sign := int64(1)
		if us < 0 {
			us, sign = -us, -1
		}
		switch fn {
		case "hour":
			return int32(us / 3_600_000_000), true, nil
		case "minute":
			return int32(us / 60_000_000 % 60), true, nil
		case "second":
			return int32(us / 1_000_000 % 60), true, nil
		case "microsecond":
			return int32(us % 1_000_000), true, nil
		default: // time_to_sec
			return int32(sign * (us / 1_000_000)), true, nil
		}
	}
}

func doubleRangeErr(e sql.Expression) error {
	return mysql.NewSQLError(1690, "22003", "DOUBLE value is out of range in '%s'", e.String())
}

// doubleOverflow answers POW/POWER/EXP whose result overflows DOUBLE with
// 1690; go-mysql-server returned NULL.
func doubleOverflow(fn string, e sql.Expression) func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	return func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
		v, err := evalArgs(ctx, args, row)
		if err != nil {
			return nil, false, err
		}
		f := make([]float64, len(v))
		for i, x := range v {
			if x == nil {
				return nil, false, nil
			}
			c, _, err := types.Float64.Convert(ctx, x)
			if err != nil {
				return nil, false, nil
			}
			f[i] = c.(float64)
		}
		var r float64
		switch {
		case fn == "exp" && len(f) == 1:
			r = math.Exp(f[0])
		case len(f) == 2:
			r = math.Pow(f[0], f[1])
		default:
			return nil, false, nil
		}
		if math.IsInf(r, 0) {
			return nil, true, doubleRangeErr(e)
		}
		return nil, false, nil
	}
}

// finiteDouble is DOUBLE arithmetic that fails with 1690 rather than
// return an infinity.
type finiteDouble struct{ sql.Expression }

func (f *finiteDouble) DebugString() string {
	return fmt.Sprintf("finite(%s)", sql.DebugString(f.Expression))
}

func (f *finiteDouble) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := f.Expression.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &finiteDouble{e}, nil
}

func (f *finiteDouble) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := f.Expression.Eval(ctx, row)
	if x, ok := v.(float64); ok && err == nil && (math.IsInf(x, 0) || math.IsNaN(x)) {
		return nil, doubleRangeErr(f.Expression)
	}
	return v, err
}

// absOverflow answers ABS(-9223372036854775808) with 1690, as MySQL.
func absOverflow(e sql.Expression) func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	return func(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
		if len(args) != 1 {
			return nil, false, nil
		}
		v, err := args[0].Eval(ctx, row)
		if err != nil {
			return nil, false, err
		}
		if i, ok := v.(int64); ok && i == math.MinInt64 {
			return nil, true, mysql.NewSQLError(1690, "22003", "BIGINT value is out of range in '%s'", e.String())
		}
		return nil, false, nil
	}
}

func jsonTypeOfNull(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) != 1 {
		return nil, false, nil
	}
	v, err := args[0].Eval(ctx, row)
	if err != nil {
		return nil, false, err
	}
	return nil, v == nil, nil
}

func jsonLengthOfNull(ctx *sql.Context, args []sql.Expression, row sql.Row) (any, bool, error) {
	if len(args) == 2 { // JSON_LENGTH(doc) carries the path '$'
		if lit, ok := args[1].(*expression.Literal); !ok || lit.Value() != "$" {
			return nil, false, nil
		}
	} else if len(args) != 1 {
		return nil, false, nil
	}
	v, err := args[0].Eval(ctx, row)
	if err != nil || v == nil {
		return nil, false, err
	}
	w, ok := v.(sql.JSONWrapper)
	if !ok {
		return nil, false, nil
	}
	if x, err := w.ToInterface(); err == nil && x == nil {
		return int64(1), true, nil // a JSON null is one scalar
	}
	return nil, false, nil
}
