package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// setOpOrdinals implements RULE-69: `SELECT 1 UNION SELECT 2 ORDER BY 1
// DESC` sorts by the UNION's first column. go-mysql-server's planner
// resolves an ORDER BY ordinal to the first SELECT's expression, which
// for an unaliased literal is the literal itself: the UNION was sorted by
// a constant and its rows came in any order (a wrong answer; `LIMIT 1`
// picked the wrong row). A sort field that is one of the first SELECT's
// literal columns becomes that column of the UNION's result (a literal
// written the same way in two of them stays ambiguous and is left as is).
func setOpOrdinals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		so, ok := n.(*plan.SetOp)
		if !ok || len(so.SortFields) == 0 {
			return n, transform.SameTree, nil
		}
		proj := firstProjection(so.Left())
		if proj == nil {
			return n, transform.SameTree, nil
		}
		sch := so.Schema()
		var fields sql.SortFields
		for i, sf := range so.SortFields {
			lit, ok := sf.Column.(*expression.Literal)
			if !ok {
				continue
			}
			j := literalColumn(proj.Projections, lit)
			if j < 0 || j >= len(sch) {
				continue
			}
			if fields == nil {
				fields = append(sql.SortFields{}, so.SortFields...)
			}
			c := sch[j]
			gf := expression.NewGetField(j, c.Type, c.Name, c.Nullable)
			fields[i].Column, fields[i].Column2 = gf, gf
		}
		if fields == nil {
			return n, transform.SameTree, nil
		}
		out := *so
		out.SortFields = fields
		return &out, transform.NewTree, nil
	})
}

// literalColumn is the index of lit among projections: the same
// expression, else the only literal written the same way or column named
// after it (analysis may put a projection over the literal's, for the
// UNION's types); -1 if none or ambiguous.
func literalColumn(projections []sql.Expression, lit *expression.Literal) int {
	for j, p := range projections {
		if p == sql.Expression(lit) {
			return j
		}
	}
	found := -1
	for j, p := range projections {
		same := false
		switch x := p.(type) {
		case *expression.Literal:
			same = x.String() == lit.String() && x.Type().Equals(lit.Type())
		case *expression.GetField: // a projection over the one that has the literal
			same = x.Name() == lit.String()
		}
		if same {
			if found >= 0 {
				return -1
			}
			found = j
		}
	}
	return found
}

// firstProjection is the projection giving a set operation's left side its
// columns (through nested set operations and distinct).
func firstProjection(n sql.Node) *plan.Project {
	for n != nil {
		switch x := n.(type) {
		case *plan.Project:
			return x
		case *plan.SetOp:
			n = x.Left()
		case *plan.Distinct:
			n = x.Child
		default:
			return nil
		}
	}
	return nil
}
