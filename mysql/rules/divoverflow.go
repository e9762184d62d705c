package rules

import (
	"fmt"
	"math"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// checkedDivisions implements RULE-71: a division whose result leaves
// its type fails with 1690, as in MySQL. go-mysql-server answered `1e300 /
// 1e-300` with +Inf (a value MySQL never returns) and `-9223372036854775808
// DIV -1` with -9223372036854775808 (wrapped). / of DOUBLEs is checked for
// an infinite result; DIV for a quotient outside BIGINT (up to BIGINT
// UNSIGNED's largest when an operand is unsigned), computed exactly.
func checkedDivisions(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if temporalOperand(e) {
			return e, transform.SameTree, nil // RULE-42 reads those as numbers; they cannot overflow
		}
		switch x := e.(type) {
		case *expression.Div:
			if types.IsFloat(x.Type()) {
				return &checkedDiv{inner: x, kind: "DOUBLE"}, transform.NewTree, nil
			}
		case *expression.IntDiv:
			return &checkedDiv{inner: x, kind: "BIGINT"}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// checkedDiv is a division checked for RULE-71.
type checkedDiv struct {
	inner sql.Expression // *expression.Div or *expression.IntDiv
	kind  string         // DOUBLE or BIGINT, for the message
}

var _ sql.Expression = (*checkedDiv)(nil)

func (d *checkedDiv) Resolved() bool             { return d.inner.Resolved() }
func (d *checkedDiv) String() string             { return d.inner.String() }
func (d *checkedDiv) DebugString() string        { return fmt.Sprintf("checked(%s)", d.inner) }
func (d *checkedDiv) Type() sql.Type             { return d.inner.Type() }
func (d *checkedDiv) IsNullable() bool           { return d.inner.IsNullable() }
func (d *checkedDiv) Children() []sql.Expression { return d.inner.Children() }
func (d *checkedDiv) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, d.inner)
}

func (d *checkedDiv) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	inner, err := d.inner.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	return &checkedDiv{inner: inner, kind: d.kind}, nil
}

func (d *checkedDiv) outOfRange() error {
	return mysql.NewSQLError(mysql.ERDataOutOfRange, "22003", "%s value is out of range in '%s'", d.kind, d.inner.String())
}

func (d *checkedDiv) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.inner.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, d.outOfRange()
		}
	case int64:
		// go-mysql-server refuses the other quotients outside BIGINT;
		// MinInt64 DIV -1 wraps to MinInt64. Only then are the operands
		// evaluated again, exactly.
		if id, ok := d.inner.(*expression.IntDiv); ok && x == math.MinInt64 {
			if err := d.checkIntDiv(ctx, id, row); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// checkIntDiv fails when l DIV r, truncated toward zero, leaves the
// result's integer type. Operands that are not numbers are left to
// go-mysql-server.
func (d *checkedDiv) checkIntDiv(ctx *sql.Context, id *expression.IntDiv, row sql.Row) error {
	l, err := id.LeftChild.Eval(ctx, row)
	if err != nil || l == nil {
		return nil
	}
	r, err := id.RightChild.Eval(ctx, row)
	if err != nil || r == nil {
		return nil
	}
	ld, lok := exactNumber(l)
	rd, rok := exactNumber(r)
	if !lok || !rok || rd.IsZero() {
		return nil
	}
	q := ld.Div(rd).Truncate(0)
	lo, hi := decimal.NewFromInt(math.MinInt64), decimal.NewFromInt(math.MaxInt64)
	if types.IsUnsigned(id.LeftChild.Type()) || types.IsUnsigned(id.RightChild.Type()) {
		hi = decimal.NewFromBigInt(maxUint64, 0)
	}
	if q.LessThan(lo) || q.GreaterThan(hi) {
		return d.outOfRange()
	}
	return nil
}

// exactNumber is v as a decimal when v is an integer or a decimal.
func exactNumber(v any) (decimal.Decimal, bool) {
	switch v.(type) {
	case float32, float64, string, []byte:
		return decimal.Decimal{}, false
	}
	return decimalOf(v)
}

// temporalOperand reports whether a child of e is a date or time.
func temporalOperand(e sql.Expression) bool {
	for _, c := range e.Children() {
		if types.IsTime(c.Type()) || types.IsDateType(c.Type()) || types.IsTimespan(c.Type()) {
			return true
		}
	}
	return false
}
