package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// exactSums gives SUM and AVG of exact numbers MySQL's exact DECIMAL
// results (RULE-3): the aggregate over an integer reads its argument as
// DECIMAL(digits, 0) (so the sum is added in decimal, not float64), and
// every reference to the aggregate's result takes MySQL's result type
// (nullable: NULL over no rows).
func exactSums(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	retype := map[sql.ColumnId]sql.Type{}
	windowed := map[sql.ColumnId]bool{}
	n, same, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		if w, ok := n.(*plan.Window); ok {
			// Window SUM/AVG: go-mysql-server computes them in float64
			// and types them as their argument (AVG of integers was
			// truncated): they take MySQL's type.
			sel := make([]sql.Expression, len(w.SelectExprs))
			changed := false
			for i, e := range w.SelectExprs {
				sel[i] = e
				inner, alias := e, (*expression.Alias)(nil)
				if a, ok := e.(*expression.Alias); ok {
					inner, alias = a.Child, a
				}
				agg, ok := inner.(sql.Aggregation)
				if !ok {
					continue
				}
				var child sql.Expression
				var avg, own bool
				switch x := inner.(type) {
				case *aggregation.Sum:
					child, own = x.Child, true
				case *aggregation.Avg:
					child, avg, own = x.Child, true, true
				case *aggregation.StdDevPop, *aggregation.StdDevSamp, *aggregation.VarPop, *aggregation.VarSamp:
					child = expression.NewLiteral(0.0, types.Float64) // DOUBLE, below
				default:
					continue
				}
				typ, ok := ExactAggregateType(child.Type(), avg)
				if !ok {
					typ = types.Float64
				}
				if typ.Equals(inner.Type()) && !own {
					continue
				}
				// SUM and AVG are wrapped even when typed right: their window
				// function is strata's (windowsums.go).
				var ne sql.Expression = &retypedAggregation{Aggregation: agg, typ: typ}
				if alias != nil {
					ae, err := alias.WithChildren(ne)
					if err != nil {
						return nil, transform.SameTree, err
					}
					ne = ae
				}
				sel[i], changed = ne, true
				retype[agg.Id()], windowed[agg.Id()] = typ, true
			}
			if !changed {
				return n, transform.SameTree, nil
			}
			nw := *w
			nw.SelectExprs = sel
			return &nw, transform.NewTree, nil
		}
		gb, ok := n.(*plan.GroupBy)
		if !ok {
			return n, transform.SameTree, nil
		}
		sel := make([]sql.Expression, len(gb.SelectedExprs))
		changed := false
		for i, e := range gb.SelectedExprs {
			sel[i] = e
			if ne, typ, ok := exactAggregate(e); ok {
				sel[i], changed = ne, true
				retype[ne.(sql.IdExpression).Id()] = typ
			} else if ne, ok := doubleAggregate(e); ok {
				sel[i], changed = ne, true
				retype[ne.Id()], windowed[ne.Id()] = types.Float64, true
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		ng := *gb
		ng.SelectedExprs = sel
		return &ng, transform.NewTree, nil
	})
	if err != nil {
		return n, same, err
	}
	if len(retype) == 0 {
		return derivedSums(n)
	}
	n, same, err = transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		gf, ok := e.(*expression.GetField)
		if !ok {
			return e, transform.SameTree, nil
		}
		typ, ok := retype[gf.Id()]
		if !ok || (gf.Type() != types.Float64 && !windowed[gf.Id()]) || gf.Type().Equals(typ) {
			return e, transform.SameTree, nil
		}
		return retypedField(gf, typ, true), transform.NewTree, nil
	})
	if err != nil {
		return n, same, err
	}
	n, same2, err := derivedSums(n)
	return n, same && same2, err
}

// retypedField is gf with type typ (and nullability nullable).
func retypedField(gf *expression.GetField, typ sql.Type, nullable bool) sql.Expression {
	ngf := expression.NewGetFieldWithTable(gf.Index(), int(gf.TableId()), typ, gf.Database(), gf.Table(), gf.Name(), nullable).
		WithQuotedNames(sql.GlobalSchemaFormatter, gf.IsQuotedIdentifier()).WithId(gf.Id())
	return ngf.(sql.Expression)
}

// derivedSums carries RULE-3's types out of derived tables and CTEs: a
// column of a derived table that is an exact SUM/AVG inside is DECIMAL,
// but the outer query's references were typed when the inner aggregate
// was still DOUBLE, so `t.s + 0` added in float64
// (1.0000000000009998e14 for 100000000000099.99).
func derivedSums(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	cols := map[string]sql.Type{} // alias.column (lower case) -> DECIMAL type
	transform.Inspect(n, func(n sql.Node) bool {
		if sa, ok := n.(*plan.SubqueryAlias); ok {
			for _, c := range sa.Schema() {
				if types.IsDecimal(c.Type) {
					cols[strings.ToLower(sa.Name()+"."+c.Name)] = c.Type
				}
			}
		}
		return true
	})
	if len(cols) == 0 {
		return n, transform.SameTree, nil
	}
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		gf, ok := e.(*expression.GetField)
		if !ok || gf.Type() != types.Float64 {
			return e, transform.SameTree, nil
		}
		typ, ok := cols[strings.ToLower(gf.Table()+"."+gf.Name())]
		if !ok {
			return e, transform.SameTree, nil
		}
		return retypedField(gf, typ, true), transform.NewTree, nil
	})
}

// doubleAggregate gives STD, STDDEV_POP/SAMP, VAR_POP/SAMP and VARIANCE
// their DOUBLE type (RULE-3): go-mysql-server computes them in float64 but
// types them as their argument, so over integers they were truncated
// (STD 1 for 1.4142).
func doubleAggregate(e sql.Expression) (*retypedAggregation, bool) {
	switch e.(type) {
	case *aggregation.StdDevPop, *aggregation.StdDevSamp, *aggregation.VarPop, *aggregation.VarSamp:
	default:
		return nil, false
	}
	if types.IsFloat(e.Type()) && e.Type().Equals(types.Float64) {
		return nil, false
	}
	return &retypedAggregation{Aggregation: e.(sql.Aggregation), typ: types.Float64}, true
}

// exactAggregate rewrites SUM(x) / AVG(x) of an integer or decimal x and
// returns MySQL's result type: SUM DECIMAL(p+22, s), AVG DECIMAL(p+4, s+4)
// (precision at most 65, scale at most 30).
func exactAggregate(e sql.Expression) (sql.Expression, sql.Type, bool) {
	var child sql.Expression
	var avg bool
	switch a := e.(type) {
	case *aggregation.Sum:
		if a.Window() != nil {
			return e, nil, false
		}
		child = a.Child
	case *aggregation.Avg:
		if a.Window() != nil {
			return e, nil, false
		}
		child, avg = a.Child, true
	default:
		return e, nil, false
	}
	typ, ok := ExactAggregateType(child.Type(), avg)
	if !ok {
		return e, nil, false
	}
	if types.IsInteger(child.Type()) {
		child = expression.NewConvertWithLengthAndScale(child, expression.ConvertToDecimal, intDigits(child.Type()), 0)
	}
	ne, err := e.(sql.Expression).WithChildren(child)
	if err != nil {
		return e, nil, false
	}
	ne = ne.(sql.IdExpression).WithId(e.(sql.IdExpression).Id()).(sql.Expression)
	switch x := ne.(type) { // RULE-75
	case *aggregation.Sum:
		ne = newFastSum(x)
	case *aggregation.Avg:
		ne = newFastAvg(x)
	}
	return ne, typ, true
}

// ExactAggregateType is MySQL's type of SUM (avg false) or AVG of a value
// of type t, when t is an integer or DECIMAL type (RULE-3).
func ExactAggregateType(t sql.Type, avg bool) (sql.Type, bool) {
	var prec, scale int
	switch {
	case types.IsDecimal(t):
		dt := t.(sql.DecimalType)
		prec, scale = int(dt.Precision()), int(dt.Scale())
	case types.IsInteger(t):
		prec = intDigits(t)
	default:
		return nil, false
	}
	if avg {
		prec, scale = prec+4, scale+4
	} else {
		prec += 22
	}
	typ, err := types.CreateDecimalType(uint8(min(prec, 65)), uint8(min(scale, 30)))
	return typ, err == nil
}

// intDigits is the number of decimal digits of an integer type's range.
func intDigits(t sql.Type) int {
	switch t {
	case types.Int8, types.Uint8:
		return 3
	case types.Int16, types.Uint16:
		return 5
	case types.Int24, types.Uint24:
		return 8
	case types.Int32, types.Uint32:
		return 10
	case types.Uint64:
		return 20
	}
	return 19
}

// retypedAggregation is an aggregate with MySQL's result type.
type retypedAggregation struct {
	sql.Aggregation
	typ sql.Type
}

func (r *retypedAggregation) Type() sql.Type { return r.typ }
