package rules

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// divisionByZero makes a division by zero in a value written by INSERT
// ... VALUES or UPDATE ... SET fail with 1365 when sql_mode has
// ERROR_FOR_DIVISION_BY_ZERO and a strict mode (RULE-14), as MySQL does;
// go-mysql-server only warns and writes NULL. IGNORE statements keep the
// warning.
func divisionByZero(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.InsertInto:
			if x.Ignore {
				return n, transform.SameTree, nil
			}
			return mapValues(x, func(e sql.Expression) (sql.Expression, bool) {
				if divides(e) {
					return &zeroDivisionChecked{over{e}}, true
				}
				return e, false
			})
		case *plan.UpdateSource:
			if x.Ignore {
				return n, transform.SameTree, nil
			}
			exprs := x.Expressions()
			out := make([]sql.Expression, len(exprs))
			changed := false
			for i, e := range exprs {
				out[i] = e
				sf, ok := e.(*expression.SetField)
				if ok && divides(sf.RightChild) {
					out[i], changed = expression.NewSetField(sf.LeftChild, &zeroDivisionChecked{over: over{sf.RightChild}}), true
				}
			}
			if !changed {
				return n, transform.SameTree, nil
			}
			nn, err := x.WithExpressions(out...)
			if err != nil {
				return nil, transform.SameTree, err
			}
			return nn, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}

// divides reports whether e contains a division or modulo.
func divides(e sql.Expression) bool {
	return transform.InspectExpr(e, func(e sql.Expression) bool {
		switch e.(type) {
		case *expression.Div, *expression.IntDiv, *expression.Mod, *integerMod, *checkedDiv:
			return true
		}
		return false
	})
}

// zeroDivisionChecked fails where its child divided by zero, in the modes
// where MySQL makes that an error.
type zeroDivisionChecked struct{ over }

var _ sql.Expression = (*zeroDivisionChecked)(nil)

func (z *zeroDivisionChecked) DebugString() string {
	return fmt.Sprintf("zeroDiv(%s)", sql.DebugString(z.child))
}
func (z *zeroDivisionChecked) Type() sql.Type { return z.child.Type() }

func (z *zeroDivisionChecked) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(z, len(children), 1)
	}
	return &zeroDivisionChecked{over: over{children[0]}}, nil
}

func (z *zeroDivisionChecked) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	before := ctx.WarningCount()
	v, err := z.child.Eval(ctx, row)
	if err != nil || v != nil || ctx.WarningCount() == before {
		return v, err
	}
	if w := ctx.Warnings(); len(w) > 0 && w[0].Code == expression.ERDivisionByZero {
		m := sql.LoadSqlMode(ctx)
		if m.ModeEnabled("ERROR_FOR_DIVISION_BY_ZERO") && (m.ModeEnabled("STRICT_TRANS_TABLES") || m.ModeEnabled("STRICT_ALL_TABLES")) {
			return nil, mysql.NewSQLError(1365, "22012", "Division by 0")
		}
	}
	return v, nil
}

// ignoreBinaryValues gives INSERT IGNORE its binary values as strings
// (RULE-17): go-mysql-server truncates a too-long value of an IGNORE
// insert with a string type assertion and panicked on bytes (a hex
// literal into VARBINARY dropped the client's connection).
func ignoreBinaryValues(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ins, ok := n.(*plan.InsertInto)
		if !ok || !ins.Ignore {
			return n, transform.SameTree, nil
		}
		nn, same, err := mapValues(ins, func(e sql.Expression) (sql.Expression, bool) {
			if types.IsBinaryType(e.Type()) {
				return &bytesAsText{over{e}}, true
			}
			return e, false
		})
		if err != nil {
			return nil, same, err
		}
		// Numbers going into a string column arrive as their text: the
		// truncation asserted a string there too ('5000.0' into CHAR(3)).
		nn2, same2, err := insertSources(nn.(*plan.InsertInto), func(e sql.Expression, dest *sql.Column) (sql.Expression, bool) {
			if !types.IsText(dest.Type) {
				return e, false
			}
			if _, ok := e.(*valueAsText); ok {
				return e, false
			}
			return &valueAsText{over{e}}, true
		})
		return nn2, same && same2, err
	})
}

// valueAsText is a value handed over as its text (RULE-17): numbers and
// temporal values as go-mysql-server's LONGTEXT conversion writes them.
type valueAsText struct{ over }

func (v *valueAsText) Type() sql.Type { return v.child.Type() }
func (v *valueAsText) DebugString() string {
	return fmt.Sprintf("valueAsText(%s)", sql.DebugString(v.child))
}
func (v *valueAsText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(v, len(children), 1)
	}
	return &valueAsText{over{children[0]}}, nil
}
func (v *valueAsText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	x, err := v.child.Eval(ctx, row)
	if err != nil || x == nil {
		return x, err
	}
	switch x := x.(type) {
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	}
	s, _, err := types.LongText.Convert(ctx, x)
	if err != nil {
		return x, nil // left to the insert's own conversion
	}
	if str, ok := s.(string); ok {
		return str, nil
	}
	return x, nil
}

// mapValues replaces, in the VALUES rows an INSERT reads, each expression
// f changes.
func mapValues(ins *plan.InsertInto, f func(sql.Expression) (sql.Expression, bool)) (sql.Node, transform.TreeIdentity, error) {
	src, same, err := transform.Node(ins.Source, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		v, ok := n.(*plan.Values)
		if !ok {
			return n, transform.SameTree, nil
		}
		changed := false
		tuples := make([][]sql.Expression, len(v.ExpressionTuples))
		for i, tuple := range v.ExpressionTuples {
			tuples[i] = append([]sql.Expression{}, tuple...)
			for j, e := range tuple {
				if ne, ok := f(e); ok {
					tuples[i][j], changed = ne, true
				}
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		nv := *v
		nv.ExpressionTuples = tuples
		return &nv, transform.NewTree, nil
	})
	if err != nil || same {
		return ins, transform.SameTree, err
	}
	return ins.WithSource(src), transform.NewTree, nil
}

// bytesAsText is a binary value handed over as a Go string of its bytes.
type bytesAsText struct{ over }

func (b *bytesAsText) Type() sql.Type { return types.LongText }
func (b *bytesAsText) DebugString() string {
	return fmt.Sprintf("bytesAsText(%s)", sql.DebugString(b.child))
}
func (b *bytesAsText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 1)
	}
	return &bytesAsText{over{children[0]}}, nil
}
func (b *bytesAsText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := b.child.Eval(ctx, row)
	if bs, ok := v.([]byte); ok {
		return string(bs), err
	}
	return v, err
}
