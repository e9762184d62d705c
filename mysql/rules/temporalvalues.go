package rules

import (
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// temporalValues implements RULE-62: a temporal value read as a number
// is its number, a TIME read as a string its text, as MySQL reads them.
//
//   - CAST(x AS SIGNED / UNSIGNED / DECIMAL / DOUBLE / FLOAT) of a DATE,
//     DATETIME, TIMESTAMP or TIME, a temporal value compared with a
//     DECIMAL or a floating-point value, and a temporal value stored in a
//     numeric column (INSERT, UPDATE): YYYYMMDD, YYYYMMDDhhmmss[.ffffff],
//     hhmmss (RULE-42's dateNumber). go-mysql-server gave 0 for the
//     casts, stored a DATE in a BIGINT column as its Unix time
//     (978307200 for 2001-01-01), and failed ("is not a valid Decimal")
//     on the comparisons and DECIMAL columns.
//   - A TIME argument of a string function (CONCAT, LENGTH, LIKE, CRC32,
//     GROUP_CONCAT, JSON_ARRAY, ...), CAST(t AS CHAR / BINARY / JSON) and
//     a TIME stored in a string column: its text, 'hh:mm:ss'.
//     go-mysql-server failed ("incompatible conversion to SQL type") or
//     gave NULL for the CAST. Functions that read TIME values as times
//     (timeAware) keep them.
//   - SUM and AVG of temporal values add their numbers (DECIMAL, as
//     MySQL); go-mysql-server gave 0 and averaged Unix times.
//   - CAST(x AS TIME(n)) with n > 0 is refused with 1235, as TIME(n)
//     columns are: go-mysql-server's TIME keeps no precision.
//   - GREATEST/LEAST of temporal values and strings: compared as TIME
//     when the temporal ones are TIMEs, else as DATE or DATETIME, and
//     typed so (go-mysql-server: "unsupported type for greatest/least
//     argument" for TIME, 0 for a DATE beside a string).
func temporalValues(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same1, err := transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *expression.Convert:
			t := x.Type()
			if types.IsTimespan(t) && strings.Contains(x.String(), ", time(") {
				// CAST(x AS TIME(n)): go-mysql-server's TIME keeps no
				// precision (the text had 6 digits, the binary protocol
				// none), as TIME(n) columns are refused.
				return nil, transform.SameTree, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
					"This version of Strata doesn't yet support 'TIME with fractional seconds (TIME(n))'")
			}
			switch {
			case types.IsNumber(t):
				if g, ok := asNumber(x.Child); ok {
					if dn := g.(*dateNumber); types.IsInteger(t) {
						dn.prec = 0 // whole seconds: the fraction is cut, as MariaDB
					}
					ne, err := x.WithChildren(g)
					return ne, transform.NewTree, err
				}
			case types.IsText(t) || types.IsBinaryType(t):
				if g, ok := asString(x.Child, false); ok {
					ne, err := x.WithChildren(g)
					return ne, transform.NewTree, err
				}
			case types.IsJSON(t):
				if types.IsTimespan(x.Child.Type()) {
					ne, err := x.WithChildren(&temporalString{over: over{x.Child}, json: true})
					return ne, transform.NewTree, err
				}
			}
			return e, transform.SameTree, nil
		case *aggregation.Sum, *aggregation.Avg:
			if g, ok := asNumber(x.Children()[0]); ok {
				ne, err := x.WithChildren(g)
				return ne, transform.NewTree, err
			}
			return e, transform.SameTree, nil
		case *expression.SetField:
			dest := x.LeftChild.Type()
			if g, ok := storedTemporal(x.RightChild, dest); ok {
				ne, err := x.WithChildren(x.LeftChild, g)
				return ne, transform.NewTree, err
			}
			return e, transform.SameTree, nil
		}
		if !readsText(e) {
			return e, transform.SameTree, nil
		}
		children := e.Children()
		var out []sql.Expression
		for i, c := range children {
			if types.IsTimespan(c.Type()) {
				if out == nil {
					out = append([]sql.Expression{}, children...)
				}
				out[i] = &temporalString{over: over{c}}
			}
		}
		if out == nil {
			return e, transform.SameTree, nil
		}
		ne, err := e.WithChildren(out...)
		return ne, transform.NewTree, err
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, same2, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ins, ok := n.(*plan.InsertInto)
		if !ok {
			return n, transform.SameTree, nil
		}
		// go-mysql-server projects INSERT ... SELECT's rows into the
		// table's columns with fields typed as the table's: the value's
		// own type is the projected node's.
		var from sql.Schema
		if p, ok := ins.Source.(*plan.Project); ok {
			from = p.Child.Schema()
		}
		return insertSources(ins, func(e sql.Expression, col *sql.Column) (sql.Expression, bool) {
			if gf, ok := e.(*expression.GetField); ok && gf.Index() >= 0 && gf.Index() < len(from) && from[gf.Index()] != nil {
				if t := from[gf.Index()].Type; t != nil && gf.Type() != nil && !t.Equals(gf.Type()) && (types.IsTime(t) || types.IsTimespan(t)) {
					e = expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), t, gf.Database(), gf.Table(), gf.Name(), gf.IsNullable())
				}
			}
			return storedTemporal(e, col.Type)
		})
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	return n, same1 && same2, nil
}

// temporalComparisons is RULE-62's comparisons, run before
// go-mysql-server builds index ranges from them (it converts the
// constant to the column's type there): a temporal value compared with
// a DECIMAL or floating-point value is its number, a TIME expression
// compared with a string compares TIMEs. A temporal column
// compared with a numeric constant is RULE-31's (the constant read as a
// date keeps the column's index).
func temporalComparisons(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		l, r, ok := comparedOperands(e)
		if !ok {
			return e, transform.SameTree, nil
		}
		_, lcol := l.(*expression.GetField)
		_, rcol := r.(*expression.GetField)
		// A TIME that is not a column (go-mysql-server compares a
		// column's TIME as a TIME) compared with a string: as TIMEs.
		if types.IsTimespan(l.Type()) && !lcol && types.IsText(r.Type()) {
			ne, err := e.WithChildren(l, expression.NewConvert(r, expression.ConvertToTime))
			return ne, transform.NewTree, err
		}
		if types.IsTimespan(r.Type()) && !rcol && types.IsText(l.Type()) {
			ne, err := e.WithChildren(expression.NewConvert(l, expression.ConvertToTime), r)
			return ne, transform.NewTree, err
		}
		// A TIME column compared with a string holding a date and a
		// time: its time of day (RULE-59), not 1292.
		if types.IsTimespan(l.Type()) && lcol && types.IsText(r.Type()) {
			if nr, ok := clockOperand(r); ok {
				ne, err := e.WithChildren(l, nr)
				return ne, transform.NewTree, err
			}
		}
		if types.IsTimespan(r.Type()) && rcol && types.IsText(l.Type()) {
			if nl, ok := clockOperand(l); ok {
				ne, err := e.WithChildren(nl, r)
				return ne, transform.NewTree, err
			}
		}
		if inexactNumber(r.Type()) && !(lcol && !rcol) {
			if g, ok := asNumber(l); ok {
				ne, err := e.WithChildren(g, r)
				return ne, transform.NewTree, err
			}
		}
		if inexactNumber(l.Type()) && !(rcol && !lcol) {
			if g, ok := asNumber(r); ok {
				ne, err := e.WithChildren(l, g)
				return ne, transform.NewTree, err
			}
		}
		return e, transform.SameTree, nil
	})
}

// inexactNumber: the types go-mysql-server cannot compare with a
// temporal value (DECIMAL fails, FLOAT and DOUBLE read a date as its
// Unix time). Integers compare right (RULE-31 reads them as dates).
func inexactNumber(t sql.Type) bool {
	return types.IsDecimal(t) || types.IsFloat(t)
}

// storedTemporal is the value e stored in a column of type dest: a
// temporal value as a number for a numeric column, a TIME as its text
// for a string column.
func storedTemporal(e sql.Expression, dest sql.Type) (sql.Expression, bool) {
	switch {
	case types.IsNumber(dest) && !types.IsBit(dest) && !types.IsYear(dest):
		return asNumber(e)
	case types.IsText(dest) || types.IsBinaryType(dest):
		return asString(e, false)
	}
	return e, false
}

// asString wraps a temporal value in temporalString.
func asString(e sql.Expression, json bool) (sql.Expression, bool) {
	if _, done := e.(*temporalString); done {
		return e, false
	}
	t := e.Type()
	_, column := e.(*expression.GetField)
	switch {
	case types.IsTimespan(t), types.IsDateType(t):
	case types.IsTime(t) && column:
		// A column's fraction digits are its type's; computed values
		// keep go-mysql-server's text (their types often claim 6).
	default:
		return e, false
	}
	return &temporalString{over: over{e}, json: json}, true
}

// timeAware are the functions that read a TIME argument as a time (or
// pass it through unchanged); every other function reads it as text.
var timeAware = map[string]bool{
	"hour": true, "minute": true, "second": true, "microsecond": true,
	"time_to_sec": true, "time_format": true, "addtime": true, "subtime": true,
	"timediff": true, "date_add": true, "date_sub": true, "adddate": true,
	"subdate": true, "extract": true, "timestamp": true, "timestampdiff": true,
	"timestampadd": true, "date": true, "time": true, "unix_timestamp": true,
	"greatest": true, "least": true, "coalesce": true, "ifnull": true,
	"nullif": true, "if": true, "isnull": true, "min": true, "max": true,
	"count": true, "sum": true, "avg": true, "first_value": true,
	"last_value": true, "lag": true, "lead": true, "nth_value": true,
	"any_value": true, "sec_to_time": true, "date_format": true,
}

// passThrough are the functions whose answer is one of their arguments
// (from the first given here): a TIME among strings is read as text
// (IF(c, t, 'x'), COALESCE(t, 'none'), as MySQL types them: a string),
// else kept.
var passThrough = map[string]int{"coalesce": 0, "ifnull": 0, "if": 1}

// mixedWithText: among args, a TIME value beside a string.
func mixedWithText(args []sql.Expression) bool {
	span, text := false, false
	for _, a := range args {
		t := a.Type()
		span = span || types.IsTimespan(t)
		text = text || types.IsText(t)
	}
	return span && text
}

// readsText: e reads its TIME arguments as strings (RULE-62).
func readsText(e sql.Expression) bool {
	switch e.(type) {
	case *expression.Like, *expression.Binary:
		return true
	case *expression.Case:
		return types.IsText(e.Type())
	case *temporalString, *dateNumber, *timeExtremum:
		return false
	}
	f, ok := e.(sql.FunctionExpression)
	if !ok {
		return false
	}
	name := strings.ToLower(f.FunctionName())
	if from, ok := passThrough[name]; ok {
		args := e.Children()
		return from < len(args) && mixedWithText(args[from:])
	}
	if name == "nullif" {
		return false
	}
	return !timeAware[name] && !strings.HasPrefix(name, "strata_")
}

// temporalString is a temporal value read as a string, as MySQL writes
// it: a TIME 'hh:mm:ss' ('-hh:mm:ss', with the microseconds when there
// are some), a DATE 'YYYY-MM-DD', a DATETIME or TIMESTAMP with exactly
// its type's fractional digits (RULE-62). go-mysql-server wrote every
// date and time as a DATETIME with its fraction's trailing zeros cut.
type temporalString struct {
	over
	json bool // a JSON string (CAST(t AS JSON))
}

func (t *temporalString) Type() sql.Type {
	if t.json {
		return types.JSON
	}
	return temporalText
}

// temporalText is temporalString's type: the longest DATETIME(6) text.
var temporalText = types.MustCreateString(sqltypes.VarChar, 26, DefaultCollation)

func (t *temporalString) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return DefaultCollation, 5
}

func (t *temporalString) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return &temporalString{over: over{children[0]}, json: t.json}, nil
}

func (t *temporalString) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	var s string
	switch x := v.(type) {
	case types.Timespan:
		s = x.String()
	case time.Time:
		typ := t.child.Type()
		switch {
		case types.IsDateType(typ):
			s = x.Format("2006-01-02")
		default:
			s = x.Format("2006-01-02 15:04:05")
			if dt, ok := typ.(sql.DatetimeType); ok && dt.Precision() > 0 {
				s += x.Format(".000000")[:1+dt.Precision()]
			}
		}
	default:
		return v, nil
	}
	if t.json {
		return types.JSONDocument{Val: s}, nil
	}
	return s, nil
}

// timeExtremums replaces GREATEST and LEAST in go-mysql-server's
// built-in functions (before the engine copies them): arguments that
// are TIME values, strings and NULLs, with at least one TIME, make a
// timeExtremum; any other arguments go-mysql-server's function, which
// fails on TIME ("unsupported type for greatest/least argument") when
// its statement is built, before any rule could see it (RULE-62).
func timeExtremums() {
	for i, f := range function.BuiltIns {
		fn, ok := f.(sql.FunctionN)
		if !ok || (fn.Name != "greatest" && fn.Name != "least") {
			continue
		}
		name, orig := fn.Name, fn.Fn
		function.BuiltIns[i] = sql.FunctionN{Name: name, Fn: func(args ...sql.Expression) (sql.Expression, error) {
			if t, ok := extremumType(args); ok {
				return &timeExtremum{name: name, args: args, greatest: name == "greatest", typ: t}, nil
			}
			return orig(args...)
		}}
	}
}

// extremumType is the type GREATEST/LEAST of args compare in when they
// are temporal values, strings and NULLs: TIME when the temporal ones are
// all TIME, DATE when all DATE, else DATETIME with the largest fraction.
// A TIME beside a date is go-mysql-server's.
func extremumType(args []sql.Expression) (sql.Type, bool) {
	spans, dates, datetimes, prec := 0, 0, 0, 0
	for _, a := range args {
		if !a.Resolved() {
			return nil, false
		}
		t := a.Type()
		switch {
		case types.IsTimespan(t):
			spans++
		case types.IsDateType(t):
			dates++
		case types.IsTime(t):
			datetimes++
			if dt, ok := t.(sql.DatetimeType); ok {
				prec = max(prec, dt.Precision())
			}
		case types.IsText(t), t == types.Null:
		default:
			return nil, false
		}
	}
	switch {
	case spans > 0 && dates+datetimes == 0:
		return types.Time, true
	case spans > 0:
		return nil, false
	case dates > 0 && datetimes == 0:
		return types.Date, true
	case datetimes > 0:
		t, err := types.CreateDatetimeType(sqltypes.Datetime, prec)
		return t, err == nil
	}
	return nil, false
}

// timeExtremum is GREATEST (greatest true) or LEAST of temporal
// values, strings and NULLs: each argument read as a value of typ
// (extremumType), the answer one (RULE-62).
type timeExtremum struct {
	name     string
	args     []sql.Expression
	greatest bool
	typ      sql.Type
}

func (x *timeExtremum) Resolved() bool             { return expression.ExpressionsResolved(x.args...) }
func (x *timeExtremum) Type() sql.Type             { return x.typ }
func (x *timeExtremum) IsNullable() bool           { return true }
func (x *timeExtremum) Children() []sql.Expression { return x.args }
func (x *timeExtremum) FunctionName() string       { return x.name }
func (x *timeExtremum) Description() string        { return "returns the " + x.name + " temporal value." }
func (x *timeExtremum) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}

func (x *timeExtremum) String() string {
	parts := make([]string, len(x.args))
	for i, a := range x.args {
		parts[i] = a.String()
	}
	return x.name + "(" + strings.Join(parts, ",") + ")"
}

func (x *timeExtremum) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	nx := *x
	nx.args = children
	return &nx, nil
}

func (x *timeExtremum) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	var best any
	for _, a := range x.args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		c, _, err := x.typ.Convert(ctx, v)
		if err != nil || c == nil {
			return nil, err
		}
		if best == nil {
			best = c
			continue
		}
		cmp, err := x.typ.Compare(ctx, c, best)
		if err != nil {
			return nil, err
		}
		if (x.greatest && cmp > 0) || (!x.greatest && cmp < 0) {
			best = c
		}
	}
	return best, nil
}

// clockOperand is RULE-59 for a string compared with a TIME column: a
// literal holding a date and a time becomes the literal of its time of
// day (still a literal: index ranges are built from it); any other string
// expression reads through clockOfDatetime. ok is false when nothing
// changes (a time literal, a placeholder, a wrapped expression).
func clockOperand(e sql.Expression) (sql.Expression, bool) {
	switch x := e.(type) {
	case *expression.Literal:
		m := datetimeString.FindStringSubmatch(stringOf(x.Value()))
		if m == nil {
			return e, false
		}
		return expression.NewLiteral(m[1], x.Type()), true
	case *expression.BindVar, *clockOfDatetime:
		return e, false
	}
	return &clockOfDatetime{over: over{e}}, true
}
