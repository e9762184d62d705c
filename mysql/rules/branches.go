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
	"github.com/shopspring/decimal"
)

// numericBranches types IF and CASE over exact numbers of several types
// with the type that holds them all (RULE-9): an integer and a DECIMAL
// give a DECIMAL with the larger scale and integer part, a float makes it
// DOUBLE. go-mysql-server took the first branch's type (IF(0, 1, 2.5) was
// 3, CASE WHEN 1 THEN 1 ELSE 2.5 END was 1 rather than 1.0).
func numericBranches(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		var values []sql.Expression
		switch x := e.(type) {
		case *function.If:
			values = x.Children()[1:]
		case *expression.Case:
			for _, b := range x.Branches {
				values = append(values, b.Value)
			}
			if x.Else != nil {
				values = append(values, x.Else)
			}
		default:
			return e, transform.SameTree, nil
		}
		typ, ok := mergedNumericType(values)
		if !ok || typ.Equals(e.Type()) {
			return e, transform.SameTree, nil
		}
		return &typedAs{over: over{e}, typ: typ}, transform.NewTree, nil
	})
}

// mergedNumericType is the type of a result that may come from any of
// values, when they are all numbers of more than one type.
func mergedNumericType(values []sql.Expression) (sql.Type, bool) {
	intDigitsMax, scaleMax := 0, 0
	hasFloat, hasDecimal := false, false
	first := sql.Type(nil)
	mixed := false
	for _, v := range values {
		t := v.Type()
		if t == types.Null {
			continue
		}
		switch {
		case types.IsInteger(t):
			intDigitsMax = max(intDigitsMax, intDigits(t))
		case types.IsDecimal(t):
			dt := t.(sql.DecimalType)
			hasDecimal = true
			intDigitsMax = max(intDigitsMax, int(dt.Precision())-int(dt.Scale()))
			scaleMax = max(scaleMax, int(dt.Scale()))
		case types.IsFloat(t):
			hasFloat = true
		default:
			return nil, false
		}
		if first == nil {
			first = t
		} else if !first.Equals(t) {
			mixed = true
		}
	}
	switch {
	case !mixed:
		return nil, false
	case hasFloat:
		return types.Float64, true
	case hasDecimal:
		t, err := types.CreateDecimalType(uint8(min(intDigitsMax+scaleMax, 65)), uint8(min(scaleMax, 30)))
		return t, err == nil
	}
	return nil, false // integers only: go-mysql-server's type holds them
}

// typedAs is its child's value converted to typ.
type typedAs struct {
	over
	typ sql.Type
}

var _ sql.Expression = (*typedAs)(nil)

func (t *typedAs) DebugString() string {
	return fmt.Sprintf("typedAs(%s, %s)", sql.DebugString(t.child), t.typ)
}
func (t *typedAs) Type() sql.Type { return t.typ }

func (t *typedAs) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return &typedAs{over: over{children[0]}, typ: t.typ}, nil
}

func (t *typedAs) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	cv, _, err := t.typ.Convert(ctx, v)
	if dt, ok := t.typ.(sql.DecimalType); ok && err == nil {
		if d, ok := cv.(decimal.Decimal); ok {
			cv = d.Round(int32(dt.Scale())) // printed with the type's scale: 1.0
		}
	}
	return cv, err
}
