package rules

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// RULE-98 A subquery's WHERE conjunct that reads columns of the outer
// query and none of the table it filters (`o.id > 3` in `(SELECT COUNT(*)
// FROM u WHERE o.id > 3)`), or an OR that reads one, is kept out of that
// table's index ranges: go-mysql-server's range builder matched a
// comparison's column to the index by name alone, so `o.id > 3` became
// the range u.id > 3 and the subquery counted u's rows above 3 for every
// outer row (a wrong answer; MariaDB's is u's row count where o.id > 3,
// else 0). The conjunct is evaluated on each row as written, wrapped in
// an expression the range builder does not take apart; it runs before
// go-mysql-server plans index scans (optimizeJoins).
func outerFilters(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		child := f.Child
		name := ""
		if ta, ok := child.(*plan.TableAlias); ok {
			name, child = ta.Name(), ta.Child
		}
		rt, ok := child.(*plan.ResolvedTable)
		if !ok {
			return n, transform.SameTree, nil
		}
		if name == "" {
			name = rt.Name()
		}
		conj := expression.SplitConjunction(f.Expression)
		changed := false
		for i, c := range conj {
			if _, done := c.(*outerComparison); done {
				continue
			}
			own, foreign, or := columnTables(c, name)
			if foreign && (!own || or) {
				conj[i], changed = &outerComparison{c}, true
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		nf, err := f.WithExpressions(expression.JoinAnd(conj...))
		if err != nil {
			return n, transform.SameTree, err
		}
		return nf, transform.NewTree, nil
	})
}

// columnTables reports whether e reads a column of the table name, a
// column of another table, and whether it has an OR.
func columnTables(e sql.Expression, name string) (own, foreign, or bool) {
	transform.InspectExpr(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *expression.GetField:
			if x.Table() == "" || strings.EqualFold(x.Table(), name) {
				own = true
			} else {
				foreign = true
			}
		case *expression.Or:
			or = true
		case *plan.Subquery:
			own = true // its own scope: left as it is
		}
		return false
	})
	return own, foreign, or
}

// outerComparison is a RULE-98 conjunct: evaluated as written, opaque to
// the index range builder.
type outerComparison struct{ sql.Expression }

var _ sql.Expression = (*outerComparison)(nil)

func (o *outerComparison) Children() []sql.Expression { return []sql.Expression{o.Expression} }
func (o *outerComparison) String() string             { return o.Expression.String() }
func (o *outerComparison) DebugString() string {
	return fmt.Sprintf("outer(%s)", sql.DebugString(o.Expression))
}
func (o *outerComparison) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	return o.Expression.Eval(ctx, row)
}
func (o *outerComparison) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(o, len(children), 1)
	}
	return &outerComparison{children[0]}, nil
}
