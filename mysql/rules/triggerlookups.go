package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-72 An UPDATE or DELETE in a trigger body (or any statement planned
// under an outer scope) whose WHERE compares an integer column leading
// one of the table's indexes with an integer expression of the outer row
// only (`WHERE id = NEW.customer_id`) reads the table through that index,
// the key evaluated from the outer row when the statement runs (the
// trigger's row: go-mysql-server builds a trigger body with it). The
// filter stays above the lookup. go-mysql-server planned these as a scan
// of the whole table, filtered, for every row that fired the trigger
// (NEW is not a constant when the body is analyzed). Integers only: their
// equality and an index lookup's agree.
func triggerLookups(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if scope == nil || scope.IsEmpty() {
		return n, transform.SameTree, nil
	}
	switch n.(type) {
	case *plan.Update, *plan.DeleteFrom:
	default:
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		f, ok := n.(*plan.Filter)
		if !ok {
			return n, transform.SameTree, nil
		}
		rt, ok := f.Child.(*plan.ResolvedTable)
		if !ok {
			return n, transform.SameTree, nil
		}
		ia, ok := rt.UnderlyingTable().(sql.IndexAddressableTable)
		if !ok {
			return n, transform.SameTree, nil
		}
		indexes, err := ia.GetIndexes(ctx)
		if err != nil {
			return n, transform.SameTree, nil
		}
		sch := rt.Schema()
		for _, conj := range expression.SplitConjunction(f.Expression) {
			eq, ok := conj.(*expression.Equals)
			if !ok {
				continue
			}
			for _, pair := range [][2]sql.Expression{{eq.Left(), eq.Right()}, {eq.Right(), eq.Left()}} {
				col, ok := pair[0].(*expression.GetField)
				if !ok || !types.IsInteger(col.Type()) || !types.IsInteger(pair[1].Type()) {
					continue
				}
				o := sch.IndexOf(col.Name(), col.Table())
				outer := col.Index() - o // the outer row's width: the table's columns follow it
				if o < 0 || outer <= 0 || !onlyOuter(pair[1], outer) {
					continue
				}
				idx := leadingIndex(indexes, rt.Name(), col.Name())
				if idx == nil {
					continue
				}
				ita, err := plan.NewIndexedAccessForTableNode(ctx, rt, plan.NewLookupBuilder(idx, []sql.Expression{pair[1]}, []bool{false}))
				if err != nil {
					return n, transform.SameTree, nil
				}
				nf, err := f.WithChildren(ita)
				if err != nil {
					return nil, transform.SameTree, err
				}
				return nf, transform.NewTree, nil
			}
		}
		return n, transform.SameTree, nil
	})
}

// onlyOuter reports whether e reads nothing but the first outer columns
// of the row (and constants).
func onlyOuter(e sql.Expression, outer int) bool {
	ok, fields := true, 0
	transform.InspectExpr(e, func(e sql.Expression) bool {
		switch e := e.(type) {
		case *expression.GetField:
			fields++
			ok = ok && e.Index() < outer
		case *plan.Subquery, sql.NonDeterministicExpression:
			ok = false
		}
		return !ok
	})
	return ok && fields > 0
}

// leadingIndex is the primary key if its first column is col, else the
// first index that starts with col; nil if none. An index with a prefix
// length is never taken (RULE-18).
func leadingIndex(indexes []sql.Index, table, col string) sql.Index {
	var found sql.Index
	for _, idx := range indexes {
		exprs := idx.Expressions()
		if len(exprs) == 0 || len(idx.PrefixLengths()) > 0 || idx.IsSpatial() || idx.IsFullText() || idx.IsVector() {
			continue
		}
		if !strings.EqualFold(exprs[0], table+"."+col) {
			continue
		}
		if idx.ID() == "PRIMARY" {
			return idx
		}
		if found == nil {
			found = idx
		}
	}
	return found
}
