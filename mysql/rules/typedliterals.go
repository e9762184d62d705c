package rules

import (
	"math"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// RULE-73 A comparison (=, <=>, <, <=, >, >=) of a character column with
// a plain string literal takes the literal as a value of the column's
// type: go-mysql-server compared operands of different string types by
// converting both to text and building a string type of the comparison's
// collation for every row (35% of a 250,000-row scan filtered by
// `status = 'returned'`), where equal types compare directly. The
// comparison's collation is the column's either way (the column's
// coercibility wins over a literal's), so the answers are the same. Only
// for non-binary column types, a literal of a non-binary text type, and
// a literal the column's character set can hold (ASCII, or a utf8mb4
// column). Likewise a DATE, DATETIME or TIMESTAMP column compared with a
// string literal takes the literal as the DATETIME(6) value
// go-mysql-server converted it to for every row (parsing it anew each
// time: 38% of a range report's CPU), when that conversion succeeds
// without a note.
func typedLiterals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		if _, ok := n.(sql.Expressioner); !ok {
			return n, transform.SameTree, nil
		}
		return transform.OneNodeExprsWithNode(n, func(_ sql.Node, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			l, r, ok := comparedOperands(e)
			if !ok {
				return e, transform.SameTree, nil
			}
			if lit, ok := temporalLiteral(ctx, l, r); ok {
				ne, err := e.WithChildren(l, lit)
				return ne, transform.NewTree, err
			}
			if lit, ok := temporalLiteral(ctx, r, l); ok {
				ne, err := e.WithChildren(lit, r)
				return ne, transform.NewTree, err
			}
			if lit, ok := typedLiteral(l, r); ok {
				ne, err := e.WithChildren(l, lit)
				return ne, transform.NewTree, err
			}
			if lit, ok := typedLiteral(r, l); ok {
				ne, err := e.WithChildren(lit, r)
				return ne, transform.NewTree, err
			}
			return e, transform.SameTree, nil
		})
	})
}

// typedLiteral returns lit as a literal of col's type when RULE-73 applies.
func typedLiteral(col, lit sql.Expression) (sql.Expression, bool) {
	gf, ok := col.(*expression.GetField)
	if !ok {
		return nil, false
	}
	l, ok := lit.(*expression.Literal)
	if !ok {
		return nil, false
	}
	ct, lt := gf.Type(), l.Type()
	if !types.IsTextOnly(ct) || !types.IsTextOnly(lt) || types.TypesEqual(ct, lt) {
		return nil, false
	}
	s, ok := l.Value().(string)
	if !ok {
		return nil, false
	}
	if ct.(sql.StringType).Collation().CharacterSet() != sql.CharacterSet_utf8mb4 {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return nil, false
			}
		}
	}
	return expression.NewLiteral(s, ct), true
}

// temporalLiteral returns lit converted once as go-mysql-server's
// comparison converts it per row (DATETIME(6)), when RULE-73 applies.
func temporalLiteral(ctx *sql.Context, col, lit sql.Expression) (sql.Expression, bool) {
	gf, ok := col.(*expression.GetField)
	if !ok || !types.IsTime(gf.Type()) {
		return nil, false
	}
	l, ok := lit.(*expression.Literal)
	if !ok || !types.IsTextOnly(l.Type()) {
		return nil, false
	}
	s, ok := l.Value().(string)
	if !ok {
		return nil, false
	}
	warnings := ctx.WarningCount()
	d, _, err := types.DatetimeMaxPrecision.Convert(ctx, s)
	if err != nil || d == nil || ctx.WarningCount() != warnings {
		return nil, false
	}
	return expression.NewLiteral(d, types.DatetimeMaxPrecision), true
}

// RULE-89 Before index ranges are built, a DATE or DATETIME column
// compared with a string literal takes the literal as a value of the
// column's own type when RULE-73's conversion of it (the DATETIME(6) value
// go-mysql-server compares with) is exactly a value of that type (no
// fraction beyond the column's digits; midnight for a DATE): the same
// comparisons, and go-mysql-server then sees a comparison of one type,
// which an index range answers exactly, and drops the filter it kept
// above the range (`created >= '2025-10-01'` was evaluated again for every
// row of the range: 10% of a range report). TIMESTAMP columns (session
// time zone) are left as they are.
func preciseTemporalLiterals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		if _, ok := n.(*plan.Filter); !ok {
			return n, transform.SameTree, nil
		}
		return transform.OneNodeExprsWithNode(n, func(_ sql.Node, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			l, r, ok := comparedOperands(e)
			if !ok {
				return e, transform.SameTree, nil
			}
			if lit, ok := columnTemporalLiteral(ctx, l, r); ok {
				ne, err := e.WithChildren(l, lit)
				return ne, transform.NewTree, err
			}
			if lit, ok := columnTemporalLiteral(ctx, r, l); ok {
				ne, err := e.WithChildren(lit, r)
				return ne, transform.NewTree, err
			}
			return e, transform.SameTree, nil
		})
	})
}

// columnTemporalLiteral is RULE-89's literal of col's type, when it applies.
func columnTemporalLiteral(ctx *sql.Context, col, lit sql.Expression) (sql.Expression, bool) {
	gf, ok := col.(*expression.GetField)
	if !ok {
		return nil, false
	}
	dt, ok := gf.Type().(sql.DatetimeType)
	if !ok {
		return nil, false
	}
	var digits int
	switch dt.Type() {
	case sqltypes.Date:
	case sqltypes.Datetime:
		digits = dt.Precision()
	default: // TIMESTAMP
		return nil, false
	}
	conv, ok := temporalLiteral(ctx, col, lit)
	if !ok {
		return nil, false
	}
	t, ok := conv.(*expression.Literal).Value().(time.Time)
	if !ok {
		return nil, false
	}
	if dt.Type() == sqltypes.Date {
		if t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0 || t.Nanosecond() != 0 {
			return nil, false
		}
	} else if unit := int(math.Pow10(9 - digits)); t.Nanosecond()%unit != 0 {
		return nil, false
	}
	warnings := ctx.WarningCount()
	v, _, err := dt.Convert(ctx, t)
	if err != nil || v == nil || ctx.WarningCount() != warnings {
		return nil, false
	}
	if vt, ok := v.(time.Time); !ok || !vt.Equal(t) {
		return nil, false
	}
	return expression.NewLiteral(v, dt), true
}
