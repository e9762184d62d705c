package rules

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// intervalArithmetic evaluates `d + INTERVAL n unit` and `d - INTERVAL n
// unit` as DATE_ADD / DATE_SUB (RULE-15), which compute and type the
// result as MySQL does (a DATE stays a DATE for day-or-larger units, a
// TIME a TIME, a DATETIME(n) keeps its fraction and MICROSECOND steps);
// go-mysql-server's arithmetic made every such result a DATETIME(0):
// DATETIME(6) + INTERVAL 1 MICROSECOND lost the microsecond, and TIME +
// INTERVAL 1 HOUR became today's date and time.
func intervalArithmetic(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		a, ok := e.(*expression.Arithmetic)
		if !ok || (a.Op != "+" && a.Op != "-") {
			return e, transform.SameTree, nil
		}
		date, interval := a.LeftChild, a.RightChild
		if iv, ok := date.(*expression.Interval); ok && a.Op == "+" {
			date, interval = interval, iv
		}
		if _, ok := interval.(*expression.Interval); !ok || !intervalOperand(date.Type()) {
			return e, transform.SameTree, nil
		}
		if types.IsTimespan(date.Type()) {
			return &timeInterval{date: date, interval: interval.(*expression.Interval), sub: a.Op == "-", orig: a}, transform.NewTree, nil
		}
		var ne sql.Expression
		var err error
		if a.Op == "+" {
			ne, err = function.NewDateAdd(date, interval)
		} else {
			ne, err = function.NewDateSub(date, interval)
		}
		if err != nil {
			return e, transform.SameTree, nil
		}
		return ne, transform.NewTree, nil
	})
}

// intervalOperand: the operand types RULE-15 hands to DATE_ADD/DATE_SUB:
// temporal types, and strings ('2020-01-31' + INTERVAL 1 MONTH is the
// DATE '2020-02-29', as DATE_ADD answers; go-mysql-server's arithmetic
// made it a DATETIME).
func intervalOperand(t sql.Type) bool {
	return types.IsDateType(t) || types.IsDatetimeType(t) || types.IsTimespan(t) || types.IsText(t)
}

// maxTimeMicros is TIME's range, ±838:59:59.
const maxTimeMicros = (838*3600 + 59*60 + 59) * 1_000_000

// timeInterval is TIME ± INTERVAL of day-or-smaller units (RULE-15): a
// TIME, negative if need be, NULL past ±838:59:59 (as MySQL). DATE_SUB
// wrapped a TIME around the day (10:20:30 - INTERVAL 11 HOUR was
// 23:20:30, MySQL -00:39:30). Year and month units are go-mysql-server's.
type timeInterval struct {
	date     sql.Expression
	interval *expression.Interval
	sub      bool
	orig     sql.Expression
}

func (t *timeInterval) Resolved() bool { return t.date.Resolved() && t.interval.Resolved() }
func (t *timeInterval) String() string { return t.orig.String() }
func (t *timeInterval) DebugString() string {
	return fmt.Sprintf("timeInterval(%s)", sql.DebugString(t.orig))
}
func (t *timeInterval) Type() sql.Type             { return t.date.Type() }
func (t *timeInterval) IsNullable() bool           { return true }
func (t *timeInterval) Children() []sql.Expression { return []sql.Expression{t.date, t.interval} }

func (t *timeInterval) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 2)
	}
	iv, ok := children[1].(*expression.Interval)
	if !ok {
		return nil, fmt.Errorf("timeInterval: %T is not an interval", children[1])
	}
	nt := *t
	nt.date, nt.interval = children[0], iv
	return &nt, nil
}

func (t *timeInterval) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	delta, err := t.interval.EvalDelta(ctx, row)
	if err != nil || delta == nil {
		return nil, err
	}
	if delta.Years != 0 || delta.Months != 0 {
		var ne sql.Expression
		if t.sub {
			ne, err = function.NewDateSub(t.date, t.interval)
		} else {
			ne, err = function.NewDateAdd(t.date, t.interval)
		}
		if err != nil {
			return nil, err
		}
		return ne.Eval(ctx, row)
	}
	v, err := t.date.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	ts, err := types.Time.ConvertToTimespan(v)
	if err != nil {
		return nil, nil
	}
	d := ((delta.Days*24+delta.Hours)*60+delta.Minutes)*60*1_000_000 + delta.Seconds*1_000_000 + delta.Microseconds
	if t.sub {
		d = -d
	}
	r := ts.AsMicroseconds() + d
	if r > maxTimeMicros || r < -maxTimeMicros {
		ctx.Warn(1441, "Datetime function: time field overflow")
		return nil, nil
	}
	return types.Time.MicrosecondsToTimespan(r), nil
}
