package rules

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/vitess/go/mysql"
)

// checkedSet wraps the value side of `SET col = expr` in rangeChecked.
func checkedSet(e sql.Expression) (sql.Expression, bool) {
	sf, ok := e.(*expression.SetField)
	if !ok {
		return e, false
	}
	gf, ok := sf.LeftChild.(*expression.GetField)
	if !ok {
		return e, false
	}
	if _, done := sf.RightChild.(*rangeChecked); done {
		return e, false
	}
	return expression.NewSetField(gf, &rangeChecked{over: over{sf.RightChild}, typ: gf.Type(), col: gf.Name()}), true
}

// rangeChecked evaluates its child and, in strict mode, fails with 1264
// if the value does not fit the column's type (RULE-1).
type rangeChecked struct {
	over
	typ sql.Type
	col string
}

var _ sql.Expression = (*rangeChecked)(nil)

func (r *rangeChecked) Type() sql.Type { return r.child.Type() }

func (r *rangeChecked) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(r, len(children), 1)
	}
	return &rangeChecked{over: over{children[0]}, typ: r.typ, col: r.col}, nil
}

func (r *rangeChecked) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := r.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	if _, inRange, err := r.typ.Convert(ctx, v); err == nil && inRange == sql.OutOfRange && strict(ctx) {
		return nil, mysql.NewSQLError(1264, "22003", "Out of range value for column '%s' at row 1", r.col)
	}
	return v, nil
}

func strict(ctx *sql.Context) bool {
	m := sql.LoadSqlMode(ctx)
	return m.ModeEnabled("STRICT_TRANS_TABLES") || m.ModeEnabled("STRICT_ALL_TABLES")
}

func (r *rangeChecked) DebugString() string {
	return fmt.Sprintf("rangeChecked(%s)", sql.DebugString(r.child))
}
