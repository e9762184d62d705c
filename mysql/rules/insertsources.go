package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// insertSources replaces, in what an INSERT reads, each value f changes;
// f sees the value and the column it goes to. The source is
// go-mysql-server's projection into the table's column order (INSERT ...
// VALUES with or without a column list, INSERT ... SELECT with one) or
// the VALUES rows themselves in the statement's column order.
func insertSources(n *plan.InsertInto, f func(e sql.Expression, dest *sql.Column) (sql.Expression, bool)) (sql.Node, transform.TreeIdentity, error) {
	dest := n.Destination.Schema()
	typeOf := func(i int) *sql.Column { // the destination of source column i
		if len(n.ColumnNames) > 0 {
			if i < len(n.ColumnNames) {
				if o := dest.IndexOfColName(n.ColumnNames[i]); o >= 0 {
					return dest[o]
				}
			}
			return nil
		}
		if i < len(dest) {
			return dest[i]
		}
		return nil
	}
	switch src := n.Source.(type) {
	case *plan.Project:
		exprs := src.Projections
		var out []sql.Expression
		for i, e := range exprs {
			t := typeOf(i)
			if len(exprs) == len(dest) { // projected into the table's column order
				t = dest[i]
			}
			if t == nil {
				continue
			}
			if g, ok := f(e, t); ok {
				if out == nil {
					out = append([]sql.Expression{}, exprs...)
				}
				out[i] = g
			}
		}
		if out == nil {
			return n, transform.SameTree, nil
		}
		np, err := src.WithExpressions(out...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return n.WithSource(np), transform.NewTree, nil
	case *plan.Values:
		changed := false
		tuples := make([][]sql.Expression, len(src.ExpressionTuples))
		for r, tuple := range src.ExpressionTuples {
			tuples[r] = tuple
			copied := false
			for i, e := range tuple {
				t := typeOf(i)
				if t == nil {
					continue
				}
				if g, ok := f(e, t); ok {
					if !copied {
						tuples[r], copied = append([]sql.Expression{}, tuple...), true
					}
					tuples[r][i] = g
					changed = true
				}
			}
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		nv := *src
		nv.ExpressionTuples = tuples
		return n.WithSource(&nv), transform.NewTree, nil
	}
	return n, transform.SameTree, nil
}

// updateSources replaces each UPDATE ... SET value f changes; f sees the
// value and the column it goes to (the row's column when the target is
// one, else a nullable column of the target's type).
func updateSources(n *plan.UpdateSource, f func(e sql.Expression, dest *sql.Column) (sql.Expression, bool)) (sql.Node, transform.TreeIdentity, error) {
	sch := n.Child.Schema()
	var out []sql.Expression
	for i, e := range n.UpdateExprs {
		sf, ok := e.(*expression.SetField)
		if !ok {
			continue
		}
		dest := &sql.Column{Type: sf.LeftChild.Type(), Nullable: true}
		if gf, ok := sf.LeftChild.(*expression.GetField); ok {
			if o := sch.IndexOfColName(gf.Name()); o >= 0 {
				dest = sch[o]
			}
		}
		if g, ok := f(sf.RightChild, dest); ok {
			if out == nil {
				out = append([]sql.Expression{}, n.UpdateExprs...)
			}
			out[i] = expression.NewSetField(sf.LeftChild, g)
		}
	}
	if out == nil {
		return n, transform.SameTree, nil
	}
	nn, err := n.WithExpressions(out...)
	return nn, transform.NewTree, err
}
