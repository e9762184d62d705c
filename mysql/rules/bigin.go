package rules

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// bigInList is the number of values past which an IN list is not turned
// into index ranges (RULE-60).
const bigInList = 4096

// bigInLists implements RULE-60's first half: an IN list of more than
// bigInList values is hidden from go-mysql-server's index planning, which
// checks the ranges it builds pairwise (10,000 values: 50 million
// comparisons, 4 s to plan a SELECT and 35 s an UPDATE ... NOT IN in the
// replay of MariaDB's func_in). Such a condition is then a filter,
// evaluated through a hash of the values (unhideBigIns). The cost: a
// lookup of more than 4,096 keys scans the table instead of seeking each
// key.
func bigInLists(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		in, ok := e.(*expression.InTuple)
		if !ok {
			return e, transform.SameTree, nil
		}
		if t, ok := in.Right().(expression.Tuple); !ok || len(t) <= bigInList {
			return e, transform.SameTree, nil
		}
		return &bigIn{in: in}, transform.NewTree, nil
	})
}

// unhideBigIns implements RULE-60's second half, after index planning: a
// hidden IN list over constants becomes go-mysql-server's hashed IN.
func unhideBigIns(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		b, ok := e.(*bigIn)
		if !ok {
			return e, transform.SameTree, nil
		}
		if static(b.in.Right()) {
			if h, err := expression.NewHashInTuple(ctx, b.in.Left(), b.in.Right()); err == nil {
				return h, transform.NewTree, nil
			}
		}
		return b.in, transform.NewTree, nil
	})
}

// static reports whether e holds no column reference or subquery.
func static(e sql.Expression) bool {
	return !transform.InspectExpr(e, func(e sql.Expression) bool {
		switch e.(type) {
		case *expression.GetField, *plan.Subquery, *expression.BindVar:
			return true
		}
		return false
	})
}

// bigIn is an IN list RULE-60 hides from index planning: not an
// expression.Comparer, nor an *expression.InTuple.
type bigIn struct{ in *expression.InTuple }

func (b *bigIn) Resolved() bool                                  { return b.in.Resolved() }
func (b *bigIn) String() string                                  { return b.in.String() }
func (b *bigIn) Type() sql.Type                                  { return b.in.Type() }
func (b *bigIn) IsNullable() bool                                { return b.in.IsNullable() }
func (b *bigIn) Children() []sql.Expression                      { return b.in.Children() }
func (b *bigIn) Eval(ctx *sql.Context, row sql.Row) (any, error) { return b.in.Eval(ctx, row) }
func (b *bigIn) DebugString() string                             { return fmt.Sprintf("bigIn(%s)", sql.DebugString(b.in)) }

func (b *bigIn) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(b, len(children), 2)
	}
	return &bigIn{in: expression.NewInTuple(children[0], children[1])}, nil
}
