package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// RULE-94 ORDER BY over SELECT DISTINCT sorts by the distinct rows'
// columns: go-mysql-server kept a sort key that is an expression of the
// table's columns (`SELECT DISTINCT UPPER(s) FROM t ORDER BY 1` sorted by
// upper(t.s), reading t.s by its position in the table) above rows that
// hold only the selected values, and failed with "unable to find field
// with index 4 in row of 1 columns". A sort key equal to one of the
// projection's expressions under the DISTINCT (or RULE-7's grouping that
// replaces it) reads that column of the row.
func distinctSortKeys(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.Sort:
			if fields, ok := distinctRowKeys(x.SortFields, x.Child); ok {
				return plan.NewSort(fields, x.Child), transform.NewTree, nil
			}
		case *plan.TopN:
			if fields, ok := distinctRowKeys(x.Fields, x.Child); ok {
				t := *x
				t.Fields = fields
				return &t, transform.NewTree, nil
			}
		}
		return n, transform.SameTree, nil
	})
}

// distinctRowKeys returns sort keys over child, a DISTINCT, that read
// its rows' columns; ok is false when none changed.
func distinctRowKeys(keys sql.SortFields, child sql.Node) (sql.SortFields, bool) {
	proj := distinctProjection(child)
	if proj == nil {
		return nil, false
	}
	sch := child.Schema()
	fields := make(sql.SortFields, len(keys))
	changed := false
	for i, f := range keys {
		fields[i] = f
		if fitsRow(f.Column, len(sch)) {
			continue
		}
		key := f.Column
		if a, ok := key.(*expression.Alias); ok {
			key = a.Child
		}
		for j, p := range proj.Projections {
			e := p
			if a, ok := p.(*expression.Alias); ok {
				e = a.Child
			}
			if j < len(sch) && e.String() == key.String() {
				fields[i].Column = expression.NewGetField(j, p.Type(), sch[j].Name, p.IsNullable())
				changed = true
				break
			}
		}
	}
	return fields, changed
}

// distinctProjection is the projection under a DISTINCT (or RULE-7's
// grouping in its place), or nil.
func distinctProjection(n sql.Node) *plan.Project {
	if m, ok := n.(*memoryChecked); ok {
		n = m.Child
	}
	switch x := n.(type) {
	case *plan.Distinct:
		n = x.Child
	case *plan.GroupBy:
		n = x.Child
	default:
		return nil
	}
	if m, ok := n.(*memoryChecked); ok {
		n = m.Child
	}
	p, _ := n.(*plan.Project)
	return p
}

// fitsRow reports whether every column e reads lies within a row of width
// columns.
func fitsRow(e sql.Expression, width int) bool {
	fits := true
	transform.InspectExpr(e, func(e sql.Expression) bool {
		if gf, ok := e.(*expression.GetField); ok && gf.Index() >= width {
			fits = false
		}
		return !fits
	})
	return fits
}
