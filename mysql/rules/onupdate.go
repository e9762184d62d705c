package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// onUpdateIfChanged implements RULE-37: in a single-table UPDATE, a
// column's ON UPDATE CURRENT_TIMESTAMP applies only when the statement
// changes the value of another column of the row, as MySQL documents;
// so an UPDATE that sets every column to what it holds changes nothing
// and counts no row as changed. go-mysql-server appended the ON UPDATE
// value as one more assignment, so `UPDATE t SET v = v` moved the
// timestamp and reported the row changed.
//
// The assignments go-mysql-server added are those of ON UPDATE columns
// whose value is the column's ON UPDATE expression (a column default
// value); an explicit `SET c = DEFAULT` of such a column looks the same
// and is treated alike. The first assignment evaluated keeps a copy of
// the row as read, for the comparison.
func onUpdateIfChanged(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		us, ok := n.(*plan.UpdateSource)
		if !ok {
			return n, transform.SameTree, nil
		}
		sch := us.Child.Schema()
		if len(sch) == 0 || len(us.UpdateExprs) == 0 {
			return n, transform.SameTree, nil
		}
		for _, c := range sch {
			if !strings.EqualFold(c.Source, sch[0].Source) {
				return n, transform.SameTree, nil // a join: per-table changes are not tracked here
			}
		}
		done := false
		transform.InspectExpressions(us, func(e sql.Expression) bool {
			_, isKeep := e.(*keepReadRow)
			done = done || isKeep
			return !done
		})
		if done {
			return n, transform.SameTree, nil
		}
		held := &readRow{}
		var out []sql.Expression
		for i, e := range us.UpdateExprs {
			sf, ok := e.(*expression.SetField)
			if !ok {
				continue
			}
			gf, ok := sf.LeftChild.(*expression.GetField)
			if !ok {
				continue
			}
			o := sch.IndexOfColName(gf.Name())
			if o < 0 || sch[o].OnUpdate == nil || sch[o].Generated != nil {
				continue
			}
			if _, isDefault := sf.RightChild.(*sql.ColumnDefaultValue); !isDefault {
				continue // an explicit value
			}
			if out == nil {
				out = append([]sql.Expression{}, us.UpdateExprs...)
			}
			out[i] = expression.NewSetField(sf.LeftChild, &ifRowChanged{over: over{sf.RightChild}, held: held, sch: sch, col: o})
		}
		if out == nil {
			return n, transform.SameTree, nil
		}
		// The first assignment evaluated in go-mysql-server's first pass
		// (one not valued by a column default, which waits for the second)
		// sees the row as read: it keeps a copy.
		for i, e := range out {
			sf, ok := e.(*expression.SetField)
			if !ok {
				continue
			}
			if _, deferred := sf.RightChild.(*sql.ColumnDefaultValue); deferred {
				continue
			}
			out[i] = expression.NewSetField(sf.LeftChild, &keepReadRow{over: over{sf.RightChild}, held: held})
			break
		}
		nn, err := us.WithExpressions(out...)
		return nn, transform.NewTree, err
	})
}

// readRow holds the row an UPDATE read, for the row being updated.
type readRow struct{ row sql.Row }

// keepReadRow is an assigned value; evaluating it keeps a copy of the row
// it is evaluated on.
type keepReadRow struct {
	over
	held *readRow
}

func (k *keepReadRow) Type() sql.Type { return k.child.Type() }
func (k *keepReadRow) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &keepReadRow{over: over{children[0]}, held: k.held}, nil
}
func (k *keepReadRow) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	k.held.row = append(k.held.row[:0], row...)
	return k.child.Eval(ctx, row)
}

// ifRowChanged is an ON UPDATE value when another column (not a
// generated one, computed later) changed, else the column's value as read.
type ifRowChanged struct {
	over
	held *readRow
	sch  sql.Schema
	col  int
}

func (c *ifRowChanged) Type() sql.Type { return c.child.Type() }
func (c *ifRowChanged) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	return &ifRowChanged{over: over{children[0]}, held: c.held, sch: c.sch, col: c.col}, nil
}
func (c *ifRowChanged) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	old := c.held.row
	if len(old) != len(row) {
		return c.child.Eval(ctx, row)
	}
	for i, col := range c.sch {
		if i == c.col || col.Generated != nil || i >= len(row) {
			continue
		}
		if (old[i] == nil) != (row[i] == nil) {
			return c.child.Eval(ctx, row)
		}
		if old[i] == nil {
			continue
		}
		if n, err := c.sch[i].Type.Compare(ctx, old[i], row[i]); err != nil || n != 0 {
			return c.child.Eval(ctx, row)
		}
	}
	return row[c.col], nil
}
