package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// RULE-92 A read-only query's tables leave undecoded the columns no
// expression of the query reads. go-mysql-server narrows a table's
// columns before it plans joins and not again: the semi-join it makes of
// EXISTS put a Project of every column of the outer table under the
// COUNT(*) (exists-returned decoded every column of each customer it
// looked up), and a table under a filter with a subquery keeps all its
// columns (orders-above-average decoded status and created of 250,000
// rows it only compares by total). The table's row keeps its columns
// (nothing positional changes): the unread ones are NULL.
//
// A column is read when any expression anywhere in the statement (its
// subqueries included) names it, by table (or alias) and column name,
// or by column name alone; names compare case-insensitively. The rule
// applies only to plans made of nodes that read rows through expressions
// (projections, filters, joins, groupings, sorts, limits, aliases,
// lookups, windows); a DISTINCT over anything but a projection or
// grouping, set operations, DML, INTO and any other node keep every
// column.

// unreadColumns is a table that can leave columns undecoded (backend
// Table.WithUnread).
type unreadColumns interface {
	WithUnread(names []string) sql.Table
}

func unreadColumnsRule(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	refs := columnRefs{}
	if !refs.collect(n) {
		return n, transform.SameTree, nil
	}
	nn, changed, err := refs.narrow(n, "")
	if err != nil || !changed {
		return n, transform.SameTree, err
	}
	return nn, transform.NewTree, nil
}

// narrow leaves unread columns undecoded in n's tables; alias is the name
// n's rows go by when n is a table under a TableAlias.
func (r columnRefs) narrow(n sql.Node, alias string) (sql.Node, bool, error) {
	switch t := n.(type) {
	case *plan.TableAlias:
		c, changed, err := r.narrow(t.Child, t.Name())
		if err != nil || !changed {
			return n, false, err
		}
		nn, err := t.WithChildren(c)
		return nn, err == nil, err
	case *plan.ResolvedTable:
		if alias == "" {
			alias = t.Name()
		}
		nt, ok := r.narrowTable(alias, t)
		if !ok {
			return n, false, nil
		}
		return nt, true, nil
	case *plan.IndexedTableAccess:
		if alias == "" {
			alias = t.Name()
		}
		nt, ok := r.narrowAccess(alias, t)
		if !ok {
			return n, false, nil
		}
		return nt, true, nil
	}
	children := n.Children()
	if len(children) == 0 {
		return n, false, nil
	}
	next := make([]sql.Node, len(children))
	changed := false
	for i, c := range children {
		nc, ch, err := r.narrow(c, "")
		if err != nil {
			return n, false, err
		}
		next[i], changed = nc, changed || ch
	}
	if !changed {
		return n, false, nil
	}
	nn, err := n.WithChildren(next...)
	return nn, err == nil, err
}

// columnRefs is the set of columns a statement's expressions name:
// "table.column" and "*.column" (no table named), lower case.
type columnRefs map[string]bool

func (r columnRefs) reads(table, col string) bool {
	col = strings.ToLower(col)
	return r[strings.ToLower(table)+"."+col] || r["*."+col]
}

// collect adds the columns n's expressions name, and reports whether n
// is a plan RULE-92 applies to.
// The statement's result (the root's rows, and a derived table's) is
// read whole, in column order.
func (r columnRefs) collect(n sql.Node) bool {
	r.readAll(n.Schema())
	return r.collectNode(n, nil)
}

// readAll marks every column of sch read.
func (r columnRefs) readAll(sch sql.Schema) {
	for _, c := range sch {
		t := c.Source
		if t == "" {
			t = "*"
		}
		r[strings.ToLower(t)+"."+strings.ToLower(c.Name)] = true
	}
}

func (r columnRefs) collectNode(n, parent sql.Node) bool {
	switch x := n.(type) {
	case *plan.Project, *plan.Filter, *plan.GroupBy, *plan.Having, *plan.Sort, *plan.TopN,
		*plan.Limit, *plan.Offset, *plan.JoinNode, *plan.TableAlias, *plan.ResolvedTable,
		*plan.IndexedTableAccess, *plan.HashLookup, *plan.CachedResults,
		*plan.Max1Row, *plan.Window, *memoryChecked, *semiJoin, *antiMergeJoin:
	case *plan.SubqueryAlias:
		r.readAll(x.Child.Schema())
	case *plan.Distinct:
		if !rowsByExpressions(x.Child) {
			return false
		}
	case *plan.OrderedDistinct:
		if !rowsByExpressions(x.Child) {
			return false
		}
	default:
		return false
	}
	if ex, ok := n.(sql.Expressioner); ok {
		// A projection under a grouping or another projection passes its
		// bare columns to a node that reads them by name: they are read
		// when that node names them, not for being passed.
		_, passes := n.(*plan.Project)
		switch parent.(type) {
		case *plan.GroupBy, *plan.Project:
		default:
			passes = false
		}
		for _, e := range ex.Expressions() {
			if _, bare := e.(*expression.GetField); bare && passes {
				continue
			}
			if !r.collectExpr(e) {
				return false
			}
		}
	}
	p := n
	if _, ok := n.(*memoryChecked); ok { // the memory check passes rows through
		p = parent
	}
	for _, c := range n.Children() {
		if !r.collectNode(c, p) {
			return false
		}
	}
	return true
}

// rowsByExpressions reports whether n's rows are all computed by
// expressions (a DISTINCT above compares only what they name).
func rowsByExpressions(n sql.Node) bool {
	if m, ok := n.(*memoryChecked); ok {
		n = m.Child
	}
	switch n.(type) {
	case *plan.Project, *plan.GroupBy:
		return true
	}
	return false
}

func (r columnRefs) collectExpr(e sql.Expression) bool {
	ok := true
	transform.InspectExpr(e, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *expression.GetField:
			t := x.Table()
			if t == "" {
				t = "*"
			}
			r[strings.ToLower(t)+"."+strings.ToLower(x.Name())] = true
		case *plan.Subquery:
			if !r.collectAll(x.Query) {
				ok = false
			}
		case *expression.Star, *expression.UnresolvedColumn, *expression.MatchAgainst:
			// MATCH ... AGAINST reads its table's row by position.
			ok = false
		}
		return !ok
	})
	return ok
}

// collectAll adds every column a subquery's plan names, whatever its
// nodes (the subquery's own tables are narrowed, if at all, when it is
// analyzed).
func (r columnRefs) collectAll(n sql.Node) bool {
	ok := true
	transform.Inspect(n, func(n sql.Node) bool {
		if n == nil {
			return ok
		}
		if ex, isEx := n.(sql.Expressioner); isEx {
			for _, e := range ex.Expressions() {
				if !r.collectExpr(e) {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}

// unread lists the columns of sch no expression reads as table's.
func (r columnRefs) unread(table string, sch sql.Schema) []string {
	var out []string
	for _, c := range sch {
		if !r.reads(table, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

func (r columnRefs) narrowTable(name string, rt *plan.ResolvedTable) (sql.Node, bool) {
	u, ok := rt.Table.(unreadColumns)
	if !ok {
		return nil, false
	}
	cols := r.unread(name, rt.Schema())
	if len(cols) == 0 {
		return nil, false
	}
	nt, err := rt.ReplaceTable(u.WithUnread(cols))
	if err != nil {
		return nil, false
	}
	return nt, true
}

func (r columnRefs) narrowAccess(name string, ita *plan.IndexedTableAccess) (sql.Node, bool) {
	u, ok := ita.Table.(unreadColumns)
	if !ok {
		return nil, false
	}
	cols := r.unread(name, ita.Schema())
	if len(cols) == 0 {
		return nil, false
	}
	it, ok := u.WithUnread(cols).(sql.IndexedTable)
	if !ok {
		return nil, false
	}
	n := *ita
	n.Table = it
	return &n, true
}
