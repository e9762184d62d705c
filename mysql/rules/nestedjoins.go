package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// nestedJoinFilters implements RULE-64: in an inner join one of whose
// sides is itself an inner or cross join (`a JOIN (b JOIN c) ON b.x = a.x
// AND c.y = b.y`, or the list `a JOIN (b, c) ON ...`), each conjunct of
// the ON condition that reads only the nested join's tables moves into
// the nested join's condition, which means the same for inner joins.
// go-mysql-server's join planner lost such a conjunct when it reordered
// the joins (the query above returned every c row for each match: 4 rows
// for 2), so the rule runs before join planning.
func nestedJoinFilters(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		j, ok := n.(*plan.JoinNode)
		if !ok || !j.Op.IsInner() || j.Filter == nil {
			return n, transform.SameTree, nil
		}
		conjuncts := expression.SplitConjunction(j.Filter)
		children := []sql.Node{j.Left(), j.Right()}
		changed := false
		for i, side := range children {
			inner, ok := side.(*plan.JoinNode)
			if !ok || !inner.Op.IsInner() {
				continue
			}
			tables := tablesUnder(inner)
			var moved, kept []sql.Expression
			for _, c := range conjuncts {
				if refs := tablesRead(c); len(refs) > 0 && subset(refs, tables) {
					moved = append(moved, c)
				} else {
					kept = append(kept, c)
				}
			}
			if len(moved) == 0 {
				continue
			}
			if inner.Filter != nil {
				moved = append([]sql.Expression{inner.Filter}, moved...)
			}
			ni := *inner
			ni.Op = plan.JoinTypeInner
			ni.Filter = expression.JoinAnd(moved...)
			children[i], conjuncts, changed = &ni, kept, true
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		nj, err := j.WithChildren(children...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		out := *nj.(*plan.JoinNode)
		if len(conjuncts) == 0 {
			out.Op, out.Filter = plan.JoinTypeCross, nil
		} else {
			out.Filter = expression.JoinAnd(conjuncts...)
		}
		return &out, transform.NewTree, nil
	})
}

// tablesUnder are the (lower-case) names the tables and aliases below n
// go by.
func tablesUnder(n sql.Node) map[string]bool {
	out := map[string]bool{}
	transform.Inspect(n, func(n sql.Node) bool {
		switch t := n.(type) {
		case *plan.TableAlias:
			out[strings.ToLower(t.Name())] = true
			return false
		case *plan.SubqueryAlias:
			out[strings.ToLower(t.Name())] = true
			return false
		case sql.TableNode:
			if nm, ok := n.(sql.Nameable); ok {
				out[strings.ToLower(nm.Name())] = true
			}
		}
		return true
	})
	return out
}

// tablesRead are the (lower-case) table names e's columns name; nil when
// e holds a subquery or a column without a table (nothing to move).
func tablesRead(e sql.Expression) map[string]bool {
	out := map[string]bool{}
	ok := true
	transform.InspectExpr(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *plan.Subquery:
			ok = false
		case *expression.GetField:
			if x.Table() == "" {
				ok = false
			}
			out[strings.ToLower(x.Table())] = true
		}
		return !ok
	})
	if !ok {
		return nil
	}
	return out
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
