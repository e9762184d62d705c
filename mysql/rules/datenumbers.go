package rules

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// datesAsNumbers implements RULE-42: a DATE, DATETIME, TIMESTAMP or TIME
// operand of +, -, *, /, DIV, % (not an INTERVAL sum) is the number MySQL reads
// it as: YYYYMMDD, YYYYMMDDhhmmss, hhmmss, with the fractional seconds as
// decimals when the type has them. go-mysql-server read a date as its
// year (DATE '2024-01-01' + 1 was 2025) and a TIME as its hour. MOD of
// two integers is an integer (go-mysql-server typed it DECIMAL).
func datesAsNumbers(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		var l, r sql.Expression
		switch a := e.(type) {
		case *expression.Arithmetic:
			switch a.Op {
			case "+", "-", "*", "/":
			default:
				return e, transform.SameTree, nil
			}
			l, r = a.LeftChild, a.RightChild
		case *expression.Div:
			l, r = a.LeftChild, a.RightChild
		case *expression.IntDiv:
			l, r = a.LeftChild, a.RightChild
		case *expression.Mod:
			l, r = a.LeftChild, a.RightChild
		default:
			return e, transform.SameTree, nil
		}
		if isInterval(l) || isInterval(r) {
			return e, transform.SameTree, nil
		}
		nl, lok := asNumber(l)
		nr, rok := asNumber(r)
		if lok || rok {
			ne, err := e.WithChildren(nl, nr)
			if err != nil {
				return nil, transform.SameTree, err
			}
			e = ne
		}
		if m, ok := e.(*expression.Mod); ok && types.IsInteger(nl.Type()) && types.IsInteger(nr.Type()) {
			return &integerMod{Mod: m}, transform.NewTree, nil
		}
		if !lok && !rok {
			return e, transform.SameTree, nil
		}
		return e, transform.NewTree, nil
	})
}

func isInterval(e sql.Expression) bool {
	_, ok := e.(*expression.Interval)
	return ok
}

// asNumber wraps a temporal operand in dateNumber.
func asNumber(e sql.Expression) (sql.Expression, bool) {
	if _, done := e.(*dateNumber); done {
		return e, false
	}
	t := e.Type()
	if !types.IsTime(t) && !types.IsTimespan(t) {
		return e, false
	}
	prec := 0
	if dt, ok := t.(sql.DatetimeType); ok && !types.IsDateType(t) {
		prec = dt.Precision()
	}
	return &dateNumber{over: over{e}, date: types.IsDateType(t), span: types.IsTimespan(t), prec: prec}, true
}

// dateNumber is a temporal value read as a number (RULE-42).
type dateNumber struct {
	over
	date, span bool
	prec       int // fractional digits of a DATETIME/TIMESTAMP
}

func (d *dateNumber) Type() sql.Type {
	if d.prec > 0 {
		return types.MustCreateDecimalType(14+uint8(d.prec), uint8(d.prec))
	}
	return types.Int64
}

func (d *dateNumber) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	nd := *d
	nd.child = children[0]
	return &nd, nil
}

func (d *dateNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	switch x := v.(type) {
	case time.Time:
		ymd := int64(x.Year())*10000 + int64(x.Month())*100 + int64(x.Day())
		if d.date {
			return ymd, nil
		}
		n := ymd*1000000 + int64(x.Hour())*10000 + int64(x.Minute())*100 + int64(x.Second())
		if d.prec == 0 {
			return n, nil
		}
		frac := decimal.New(int64(x.Nanosecond()), -9).Truncate(int32(d.prec))
		return decimal.NewFromInt(n).Add(frac), nil
	case types.Timespan:
		micros := x.AsMicroseconds()
		neg := micros < 0
		if neg {
			micros = -micros
		}
		secs := micros / 1000000
		n := (secs/3600)*10000 + (secs/60%60)*100 + secs%60
		if neg {
			n = -n
		}
		return n, nil
	}
	return v, nil
}

// integerMod is MOD / % of two integers typed as an integer, as in MySQL
// (go-mysql-server typed it DECIMAL); BIGINT UNSIGNED when the dividend
// is unsigned, as MySQL's result takes the dividend's sign.
type integerMod struct{ *expression.Mod }

func (m *integerMod) Type() sql.Type {
	if types.IsUnsigned(m.LeftChild.Type()) {
		return types.Uint64
	}
	return types.Int64
}

func (m *integerMod) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(m.Mod, children, func(mm *expression.Mod) sql.Expression { return &integerMod{mm} })
}

func (m *integerMod) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := m.Mod.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	out, _, err := m.Type().Convert(ctx, v)
	if err != nil {
		return v, nil
	}
	return out, nil
}
