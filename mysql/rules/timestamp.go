package rules

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// unixTimestamp makes UNIX_TIMESTAMP(timestamp_column) read the value as a
// wall clock in the session's time zone (RULE-10): Strata returns
// TIMESTAMP values in the session's zone (backend CODEC-5), while
// go-mysql-server takes a TIMESTAMP argument to be UTC already.
func unixTimestamp(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		ut, ok := e.(*function.UnixTimestamp)
		if !ok || ut.Date == nil || !ut.Date.Type().Equals(types.Timestamp) {
			return e, transform.SameTree, nil
		}
		typ := types.DatetimeMaxPrecision
		if dt, ok := ut.Date.Type().(sql.DatetimeType); ok {
			if t, err := types.CreateDatetimeType(sqltypes.Datetime, dt.Precision()); err == nil {
				typ = t
			}
		}
		ne, err := ut.WithChildren(&wallClock{over: over{ut.Date}, typ: typ})
		if err != nil {
			return nil, transform.SameTree, err
		}
		return ne, transform.NewTree, nil
	})
}

// wallClock is a TIMESTAMP value typed as the DATETIME wall clock it is.
type wallClock struct {
	over
	typ sql.Type // DATETIME of the TIMESTAMP's precision
}

var _ sql.Expression = (*wallClock)(nil)

func (w *wallClock) DebugString() string {
	return fmt.Sprintf("wallClock(%s)", sql.DebugString(w.child))
}
func (w *wallClock) Type() sql.Type { return w.typ }
func (w *wallClock) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return w.child.Eval(ctx, row)
}

func (w *wallClock) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(w, len(children), 1)
	}
	return &wallClock{over: over{children[0]}, typ: w.typ}, nil
}
