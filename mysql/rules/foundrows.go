package rules

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// foundRows implements RULE-56 on the statement's outermost LIMIT ...
// OFFSET: FOUND_ROWS() counts the rows the limit read from its input (all
// of them under SQL_CALC_FOUND_ROWS, otherwise up to offset + limit), as
// MariaDB does. go-mysql-server's Limit over Offset counted the rows past
// the offset only (LIMIT 2,1 of 8 rows: 6 with SQL_CALC_FOUND_ROWS, 1
// without; MariaDB 8 and 3). A TopN under SQL_CALC_FOUND_ROWS counts its
// whole input itself and is left alone.
func foundRows(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	l, ok := n.(*plan.Limit)
	if !ok {
		return n, transform.SameTree, nil
	}
	o, ok := l.Child.(*plan.Offset)
	if !ok {
		return n, transform.SameTree, nil
	}
	if t, ok := o.Child.(*plan.TopN); ok && t.CalcFoundRows {
		return n, transform.SameTree, nil
	}
	// The Limit stays in the tree, marked CalcFoundRows, so that the
	// process tracker leaves FOUND_ROWS to this node; it is not executed.
	return &limitOffset{UnaryNode: plan.UnaryNode{Child: l.WithCalcFoundRows(true)}, calc: l.CalcFoundRows}, transform.NewTree, nil
}

// limitOffset runs its Limit-over-Offset child itself and sets FOUND_ROWS.
type limitOffset struct {
	plan.UnaryNode
	calc bool // SQL_CALC_FOUND_ROWS: read the whole input
}

var _ sql.ExecSourceRel = (*limitOffset)(nil)

func (n *limitOffset) String() string   { return n.Child.String() }
func (n *limitOffset) IsReadOnly() bool { return n.Child.IsReadOnly() }
func (n *limitOffset) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 1)
	}
	return &limitOffset{UnaryNode: plan.UnaryNode{Child: children[0]}, calc: n.calc}, nil
}

func (n *limitOffset) RowIter(ctx *sql.Context, r sql.Row) (sql.RowIter, error) {
	l, ok := n.Child.(*plan.Limit)
	if !ok {
		return Exec.Build(ctx, n.Child, r)
	}
	o, ok := l.Child.(*plan.Offset)
	if !ok {
		return Exec.Build(ctx, n.Child, r)
	}
	limit, err := iters.GetInt64Value(ctx, l.Limit)
	if err != nil {
		return nil, err
	}
	offset, err := iters.GetInt64Value(ctx, o.Offset)
	if err != nil {
		return nil, err
	}
	it, err := Exec.Build(ctx, o.Child, r)
	if err != nil {
		return nil, err
	}
	return &limitOffsetIter{child: it, offset: offset, limit: limit, calc: n.calc}, nil
}

type limitOffsetIter struct {
	child         sql.RowIter
	offset, limit int64
	calc          bool
	read, sent    int64
}

func (i *limitOffsetIter) Next(ctx *sql.Context) (sql.Row, error) {
	for i.read < i.offset {
		if _, err := i.child.Next(ctx); err != nil {
			return nil, err
		}
		i.read++
	}
	if i.sent >= i.limit {
		if i.calc {
			for {
				if _, err := i.child.Next(ctx); err != nil {
					return nil, err
				}
				i.read++
			}
		}
		return nil, io.EOF
	}
	row, err := i.child.Next(ctx)
	if err != nil {
		return nil, err
	}
	i.read++
	i.sent++
	return row, nil
}

func (i *limitOffsetIter) Close(ctx *sql.Context) error {
	err := i.child.Close(ctx)
	ctx.SetLastQueryInfoInt(sql.FoundRows, i.read)
	return err
}
