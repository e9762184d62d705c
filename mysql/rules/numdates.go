package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// RULE-31 A number becoming a DATE, DATETIME or TIMESTAMP is read as MySQL
// reads it: YYYYMMDDhhmmss[.fraction], YYMMDDhhmmss, YYYYMMDD or YYMMDD
// (two-digit years 70-99 are 19xx, 00-69 20xx), and so is a string of
// only those digits. go-mysql-server refused INSERT INTO t (d) VALUES
// (20230102) with 1292 and made CAST(20001231235959 AS DATETIME) NULL.
// Applied to CAST/CONVERT to those types, INSERT and UPDATE values for
// columns of those types, and the other side of a comparison with such a
// column. Other lengths are left to go-mysql-server.

// temporalDigits formats v as a date-time text if it is such a number.
func temporalDigits(v any) (string, bool) {
	var s string
	switch x := v.(type) {
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint:
		s = fmt.Sprint(x)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		s = strconv.FormatFloat(float64(x), 'f', -1, 32)
	case decimal.Decimal:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	case []byte:
		s = strings.TrimSpace(string(x))
	default:
		return "", false
	}
	digits, frac, _ := strings.Cut(s, ".")
	if digits == "" || strings.Trim(digits, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return "", false
	}
	year := func(yy string) string {
		if yy < "70" {
			return "20" + yy
		}
		return "19" + yy
	}
	var out string
	switch len(digits) {
	case 14:
		out = digits[:4] + "-" + digits[4:6] + "-" + digits[6:8] + " " + digits[8:10] + ":" + digits[10:12] + ":" + digits[12:14]
	case 12:
		out = year(digits[:2]) + "-" + digits[2:4] + "-" + digits[4:6] + " " + digits[6:8] + ":" + digits[8:10] + ":" + digits[10:12]
	case 8:
		out = digits[:4] + "-" + digits[4:6] + "-" + digits[6:8]
	case 6:
		out = year(digits[:2]) + "-" + digits[2:4] + "-" + digits[4:6]
	default:
		return "", false
	}
	if frac != "" && len(digits) >= 12 {
		out += "." + frac
	}
	return out, true
}

// temporalNumber is a value on its way to a date-time type (RULE-31).
type temporalNumber struct{ over }

func (t *temporalNumber) Type() sql.Type { return t.child.Type() }
func (t *temporalNumber) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return &temporalNumber{over{children[0]}}, nil
}
func (t *temporalNumber) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	if s, ok := temporalDigits(v); ok {
		return s, nil
	}
	return v, nil
}

// mayBeDigits: expressions whose values can be such numbers.
func mayBeDigits(e sql.Expression) bool {
	if _, done := e.(*temporalNumber); done {
		return false
	}
	// Not by static type alone: a VALUES column carries its destination's
	// type while its values are still what the client sent.
	t := e.Type()
	return types.IsNumber(t) || types.IsText(t) || types.IsTime(t)
}

func toTemporal(e sql.Expression) sql.Expression {
	if !mayBeDigits(e) {
		return e
	}
	if lit, ok := e.(*expression.Literal); ok { // decided once
		if s, ok := temporalDigits(lit.Value()); ok {
			return expression.NewLiteral(s, types.LongText)
		}
		return e
	}
	return &temporalNumber{over{e}}
}

// numericDates is RULE-31's analyzer rule.
func numericDates(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same1, err := transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if c, ok := e.(*expression.Convert); ok {
			if !types.IsTime(c.Type()) {
				return e, transform.SameTree, nil
			}
			if g := toTemporal(c.Child); g != c.Child {
				nc, err := c.WithChildren(g)
				return nc, transform.NewTree, err
			}
			return e, transform.SameTree, nil
		}
		l, r, ok := comparedOperands(e)
		if !ok {
			return e, transform.SameTree, nil
		}
		_, lcol := l.(*expression.GetField)
		_, rcol := r.(*expression.GetField)
		switch {
		case lcol && types.IsTime(l.Type()) && types.IsNumber(r.Type()):
			if g := toTemporal(r); g != r {
				ne, err := e.WithChildren(l, g)
				return ne, transform.NewTree, err
			}
		case rcol && types.IsTime(r.Type()) && types.IsNumber(l.Type()):
			if g := toTemporal(l); g != l {
				ne, err := e.WithChildren(g, r)
				return ne, transform.NewTree, err
			}
		}
		return e, transform.SameTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, same2, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			return insertSources(n, func(e sql.Expression, col *sql.Column) (sql.Expression, bool) {
				if !types.IsTime(col.Type) {
					return e, false
				}
				g := toTemporal(e)
				return g, g != e
			})
		case *plan.UpdateSource:
			return updateSources(n, func(e sql.Expression, dest *sql.Column) (sql.Expression, bool) {
				if !types.IsTime(dest.Type) {
					return e, false
				}
				g := toTemporal(e)
				return g, g != e
			})
		}
		return n, transform.SameTree, nil
	})
	return n, same1 && same2, err
}
