package rules

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-25 A string becoming a DECIMAL never carries an exponent beyond
// what a DECIMAL can hold: go-mysql-server converts '0e111111111' or
// '1e-99999999' by writing out (or dividing by) that power of ten, which
// takes minutes of CPU and gigabytes, so one statement could stall the
// server. A numeric string whose value is beyond 10^±decimalExpLimit is
// handed over as the same value clamped there: zero stays 0, a tiny value
// becomes 0, a huge one 9e400 (out of range for every DECIMAL, so strict
// mode gives 1264 and otherwise the column's largest value, as for any
// value out of range). Guarded: CAST/CONVERT to DECIMAL, INSERT ...
// VALUES and UPDATE ... SET into DECIMAL columns.
const decimalExpLimit = 400

var numericRE = regexp.MustCompile(`^\s*([+-]?)(\d*)(?:\.(\d*))?[eE]([+-]?\d+)\s*$`)

// clampExponent returns s, or s clamped as RULE-25 says.
func clampExponent(s string) string {
	if len(s) < 4 || !strings.ContainsAny(s, "eE") {
		return s
	}
	m := numericRE.FindStringSubmatch(s)
	if m == nil || m[2]+m[3] == "" {
		return s
	}
	exp, err := strconv.ParseInt(m[4], 10, 64)
	if err != nil { // beyond int64: as huge as it gets
		if strings.HasPrefix(m[4], "-") {
			exp = -1 << 62
		} else {
			exp = 1 << 62
		}
	}
	if exp >= -decimalExpLimit && exp <= decimalExpLimit {
		return s
	}
	if strings.Trim(m[2]+m[3], "0") == "" || exp < 0 {
		return "0"
	}
	return m[1] + "9e400"
}

// HugeExponent reports whether RULE-25 would clamp s (the fast path then
// leaves the statement to the general path, which does).
func HugeExponent(s string) bool { return clampExponent(s) != s }

// guardedString clamps the exponent of its child's string values.
type guardedString struct{ expression.UnaryExpression }

var _ sql.Expression = (*guardedString)(nil)

func (g *guardedString) Type() sql.Type   { return g.Child.Type() }
func (g *guardedString) String() string   { return g.Child.String() }
func (g *guardedString) IsNullable() bool { return g.Child.IsNullable() }
func (g *guardedString) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(g, len(children), 1)
	}
	return &guardedString{expression.UnaryExpression{Child: children[0]}}, nil
}
func (g *guardedString) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := g.Child.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	switch s := v.(type) {
	case string:
		return clampExponent(s), nil
	case []byte:
		if c := clampExponent(string(s)); c != string(s) {
			return c, nil
		}
	}
	return v, nil
}

func guard(e sql.Expression) sql.Expression {
	if _, ok := e.(*guardedString); ok {
		return e
	}
	if lit, ok := e.(*expression.Literal); ok { // decided now, once
		switch s := lit.Value().(type) {
		case string:
			if c := clampExponent(s); c != s {
				return expression.NewLiteral(c, lit.Type())
			}
		case []byte:
			if c := clampExponent(string(s)); c != string(s) {
				return expression.NewLiteral(c, types.LongText)
			}
		}
		return e
	}
	// Not by static type: a VALUES column carries its destination's type
	// while its values are still the strings the client sent.
	return &guardedString{expression.UnaryExpression{Child: e}}
}

func isDecimal(t sql.Type) bool { return types.IsDecimal(t) }

// decimalExponents is RULE-25's analyzer rule.
func decimalExponents(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same1, err := transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		c, ok := e.(*expression.Convert)
		if !ok || !isDecimal(c.Type()) {
			return e, transform.SameTree, nil
		}
		g := guard(c.Child)
		if g == c.Child {
			return e, transform.SameTree, nil
		}
		nc, err := c.WithChildren(g)
		return nc, transform.NewTree, err
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, same2, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			return insertSources(n, func(e sql.Expression, dest *sql.Column) (sql.Expression, bool) {
				if !isDecimal(dest.Type) {
					return e, false
				}
				g := guard(e)
				return g, g != e
			})
		case *plan.UpdateSource:
			return updateSources(n, func(e sql.Expression, dest *sql.Column) (sql.Expression, bool) {
				if !isDecimal(dest.Type) {
					return e, false
				}
				g := guard(e)
				return g, g != e
			})
		}
		return n, transform.SameTree, nil
	})
	return n, same1 && same2, err
}
