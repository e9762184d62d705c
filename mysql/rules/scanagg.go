package rules

import (
	"fmt"
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"strata/mysql/scanfilter"
)

// RULE-96 COUNT, SUM and AVG without GROUP BY over one table read whole
// (optionally filtered by conjuncts that are all RULE-95 checks) take
// their arguments' numbers from the stored rows (backend AGG-1) into the
// same aggregation buffers go-mysql-server's grouping would fill, in the
// same order: COUNT(*) counts a row that passed the checks, SUM and AVG
// add its integer or DECIMAL digits as RULE-75 adds the decoded value's.
// A row whose checks or values the stored bytes cannot settle comes
// decoded, goes through the filter and updates the buffers as a decoded
// row would. The plan keeps its GroupBy (Exec runs it this way); a read
// AGG-1 does not take (a locking read) runs as before. `SELECT
// COUNT(*), SUM(total) FROM orders WHERE total BETWEEN 100 AND 200`
// decoded no row's total but the 2,776 it sums, and `(SELECT AVG(total)
// FROM orders)` none.

// numberScanner is a table AGG-1 reads (backend Table).
type numberScanner interface {
	scanCheckable
	CanScanNumbers(ctx *sql.Context, cols []int) bool
	ScanNumbers(ctx *sql.Context, cols []int, visit func(r *scanfilter.NumberRow, decode func() (sql.Row, error)) error) error
}

// aggKind is how scanAgg feeds one selected aggregate.
type aggKind uint8

const (
	aggCountRows aggKind = iota // COUNT(*), COUNT(non-NULL literal)
	aggCountCol                 // COUNT(col)
	aggSum                      // fastSum of a column
	aggAvg                      // fastAvg of a column
)

type scanAggPart struct {
	kind aggKind
	arg  int // index into the scan's columns
}

// scanAgg is a RULE-96 run of a GroupBy.
type scanAgg struct {
	g      *plan.GroupBy
	filter sql.Expression // nil: no filter
	// The rows before the table's in the filter's rows, and in the
	// aggregates' after them (PrependNode).
	filterPrefix, prefix sql.Row
	width                int // of the table's rows
	tb                   numberScanner
	cols                 []int
	parts                []scanAggPart
}

// newScanAgg returns g's RULE-96 run, or nil when it does not apply.
func newScanAgg(ctx *sql.Context, g *plan.GroupBy) *scanAgg {
	if len(g.GroupByExprs) != 0 || len(g.SelectedExprs) == 0 {
		return nil
	}
	n := g.Child
	if m, ok := n.(*memoryChecked); ok {
		n = m.Child
	}
	a := &scanAgg{g: g}
	// A subquery's rows come after the outer row (PrependNode), above or
	// below its filter.
	if p, ok := n.(*plan.PrependNode); ok {
		a.prefix, n = p.Row, p.Child
	}
	var f *plan.Filter
	if x, ok := n.(*plan.Filter); ok {
		f, n = x, x.Child
		if p, ok := n.(*plan.PrependNode); ok {
			a.filterPrefix, n = p.Row, p.Child
		}
	}
	whole := n // a table read whole: an index lookup's range is no part of the table's checks
	if ta, ok := whole.(*plan.TableAlias); ok {
		whole = ta.Child
	}
	if _, ok := whole.(*plan.ResolvedTable); !ok {
		return nil
	}
	alias, tb := filteredTable(n)
	if tb == nil {
		return nil
	}
	ns, ok := tb.(numberScanner)
	if !ok {
		return nil
	}
	a.tb = ns
	a.width = len(n.Schema())
	if f != nil {
		if !bindDeferred(ctx, f) || !checkedWhole(f.Expression, alias, tb) {
			return nil
		}
		a.filter = f.Expression
	}
	colArg := map[int]int{}
	arg := func(e sql.Expression) (int, bool) {
		col := numericColumn(e, alias, tb)
		if col < 0 {
			return 0, false
		}
		if i, ok := colArg[col]; ok {
			return i, true
		}
		colArg[col] = len(a.cols)
		a.cols = append(a.cols, col)
		return len(a.cols) - 1, true
	}
	for _, e := range g.SelectedExprs {
		if r, ok := e.(*retypedAggregation); ok {
			e = r.Aggregation
		}
		var p scanAggPart
		switch x := e.(type) {
		case *aggregation.Count:
			switch c := x.Child.(type) {
			case *expression.Star:
				p.kind = aggCountRows
			case *expression.Literal:
				if c.Value() == nil {
					return nil
				}
				p.kind = aggCountRows
			default:
				i, ok := arg(c)
				if !ok {
					return nil
				}
				p = scanAggPart{kind: aggCountCol, arg: i}
			}
		case *fastSum:
			i, ok := sumArg(x, arg)
			if !ok {
				return nil
			}
			p = scanAggPart{kind: aggSum, arg: i}
		case *fastAvg:
			i, ok := sumArg(x.sum, arg)
			if !ok {
				return nil
			}
			p = scanAggPart{kind: aggAvg, arg: i}
		default:
			return nil
		}
		a.parts = append(a.parts, p)
	}
	if !a.tb.CanScanNumbers(ctx, a.cols) {
		return nil
	}
	return a
}

// sumArg is the scan column of a fastSum's argument: a DECIMAL column, or
// an integer column under RULE-3's conversion.
func sumArg(s *fastSum, arg func(sql.Expression) (int, bool)) (int, bool) {
	if s.intChild != nil {
		if _, ok := s.intChild.(*expression.GetField); ok {
			return arg(s.intChild)
		}
		return 0, false
	}
	if gf, ok := s.Child.(*expression.GetField); ok && isDecimalType(gf.Type()) {
		return arg(gf)
	}
	return 0, false
}

func isDecimalType(t sql.Type) bool {
	_, ok := t.(sql.DecimalType)
	return ok
}

// checkedWhole reports whether every conjunct of e is a RULE-95 check
// of the table (so a row whose checks are all decided passes e): each
// conjunct filterChecks makes checks of is equivalent to them (a
// comparison to one, BETWEEN to two), and the table must hold them all.
func checkedWhole(e sql.Expression, alias string, tb scanCheckable) bool {
	if a, ok := e.(*expression.And); ok {
		return checkedWhole(a.LeftChild, alias, tb) && checkedWhole(a.RightChild, alias, tb)
	}
	conds := filterChecks(e, alias, tb, nil)
	if len(conds) == 0 {
		return false
	}
	have := tb.ScanChecks()
	for _, c := range conds {
		found := false
		for _, h := range have {
			if h.Col == c.Col && h.Op == c.Op && h.Value == c.Value && h.Bound == nil &&
				(c.Deferred == nil) == (h.Deferred == nil) && (c.Deferred == nil || c.Deferred.Key == h.Deferred.Key) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// rows runs the aggregation: its one row.
func (a *scanAgg) rows(ctx *sql.Context) (sql.Row, error) {
	bufs := make([]sql.AggregationBuffer, len(a.g.SelectedExprs))
	for i, e := range a.g.SelectedExprs {
		b, err := e.(sql.Aggregation).NewBuffer()
		if err != nil {
			return nil, err
		}
		bufs[i] = b
	}
	dispose := func() {
		for _, b := range bufs {
			b.Dispose()
		}
	}
	countRow := sql.Row{}
	var colRow sql.Row // COUNT(col)'s: a non-NULL value where it reads
	for i, p := range a.parts {
		if p.kind == aggCountCol {
			gf := plainCountArg(a.g.SelectedExprs[i])
			if colRow == nil {
				colRow = make(sql.Row, len(a.prefix)+len(a.filterPrefix)+a.width)
			}
			if gf.Index() < 0 || gf.Index() >= len(colRow) {
				return nil, fmt.Errorf("COUNT(%s): column %d of %d", gf, gf.Index(), len(colRow))
			}
			colRow[gf.Index()] = int64(1)
		}
	}
	visit := func(r *scanfilter.NumberRow, decode func() (sql.Row, error)) error {
		var row, frow sql.Row // decoded when needed: the aggregates' and the filter's
		decoded := func() (sql.Row, error) {
			if row == nil {
				d, err := decode()
				if err != nil {
					return nil, err
				}
				frow = append(append(make(sql.Row, 0, len(a.prefix)+len(a.filterPrefix)+len(d)), a.filterPrefix...), d...)
				row = append(append(make(sql.Row, 0, cap(frow)), a.prefix...), frow...)
			}
			return row, nil
		}
		if !r.Decided {
			row, err := decoded()
			if err != nil {
				return err
			}
			if a.filter != nil {
				ok, err := sql.EvaluateCondition(ctx, a.filter, frow)
				if err != nil {
					return err
				}
				if !sql.IsTrue(ok) {
					return nil
				}
			}
			for _, b := range bufs {
				if err := b.Update(ctx, row); err != nil {
					return err
				}
			}
			return nil
		}
		for i, p := range a.parts {
			b := bufs[i]
			switch p.kind {
			case aggCountRows:
				if err := b.Update(ctx, countRow); err != nil {
					return err
				}
				continue
			case aggCountCol:
				switch r.State[p.arg] {
				case scanfilter.NumNull:
				case scanfilter.NumExact:
					if err := b.Update(ctx, colRow); err != nil {
						return err
					}
				default:
					row, err := decoded()
					if err != nil {
						return err
					}
					if err := b.Update(ctx, row); err != nil {
						return err
					}
				}
				continue
			}
			var sum *fastSumBuffer
			avg, _ := b.(*fastAvgBuffer)
			if avg != nil {
				sum = avg.sum
			} else {
				sum, _ = b.(*fastSumBuffer)
			}
			switch r.State[p.arg] {
			case scanfilter.NumNull:
				continue // not counted, as update skips a NULL
			case scanfilter.NumExact:
				v := r.Nums[p.arg]
				if sum != nil && sum.add(v.M, -v.Scale) {
					if avg != nil {
						avg.rows++
					}
					continue
				}
			}
			// What add cannot take goes through the decoded row, as
			// RULE-75's update takes it.
			row, err := decoded()
			if err != nil {
				return err
			}
			if err := b.Update(ctx, row); err != nil {
				return err
			}
		}
		return nil
	}
	defer dispose()
	if err := a.tb.ScanNumbers(ctx, a.cols, visit); err != nil {
		return nil, err
	}
	out := make(sql.Row, len(bufs))
	for i, b := range bufs {
		var err error
		if out[i], err = b.Eval(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// plainCountArg is the column COUNT(col) reads.
func plainCountArg(e sql.Expression) *expression.GetField {
	if r, ok := e.(*retypedAggregation); ok {
		e = r.Aggregation
	}
	gf, _ := e.(*aggregation.Count).Child.(*expression.GetField)
	return gf
}

// scanAggIter hands out a RULE-96 row.
type scanAggIter struct {
	a    *scanAgg
	done bool
}

func (it *scanAggIter) Next(ctx *sql.Context) (sql.Row, error) {
	if it.done {
		return nil, io.EOF
	}
	it.done = true
	return it.a.rows(ctx)
}

func (it *scanAggIter) Close(*sql.Context) error { return nil }

// RULE-97 A GROUP BY that RULE-80 reads through a covering index in
// grouping order, selecting only COUNT(*) (or COUNT of a non-NULL
// literal) and its grouping columns, counts each key prefix's index
// entries without decoding them (backend AGG-2): one row per group, in
// index order (the order RULE-80's groups come in), COUNT an int64 as
// go-mysql-server's count buffer gives it and each grouping column's
// value as the covered read gives it. `SELECT customer_id, COUNT(*) FROM
// orders GROUP BY customer_id` made a row of each of 250,000 index
// entries and a map key of each.

// groupCounter is a table AGG-2 reads (backend Table).
type groupCounter interface {
	CountIndexGroups(ctx *sql.Context, lookup sql.IndexLookup, k int, visit func(vals []any, n int64) error) (bool, error)
}

// newIndexGroups returns g's RULE-97 rows, or nil when it does not apply.
func newIndexGroups(ctx *sql.Context, g *plan.GroupBy, row sql.Row) sql.RowIter {
	n := g.Child
	if m, ok := n.(*memoryChecked); ok {
		n = m.Child
	}
	alias := ""
	if ta, ok := n.(*plan.TableAlias); ok {
		alias, n = ta.Name(), ta.Child
	}
	ita, ok := n.(*plan.IndexedTableAccess)
	if !ok || !ita.IsStatic() {
		return nil
	}
	if alias == "" {
		alias = ita.Name()
	}
	gc, ok := sql.GetUnderlyingTable(ita.Table).(groupCounter)
	if !ok {
		return nil
	}
	// The grouping columns must be the index's first k.
	k := len(g.GroupByExprs)
	cols := ita.Index().Expressions()
	if len(cols) < k {
		return nil
	}
	pos := map[string]int{} // a leading index column's position
	for j := 0; j < k; j++ {
		c := cols[j]
		pos[strings.ToLower(c[strings.LastIndexByte(c, '.')+1:])] = j
	}
	grouped := map[string]bool{} // k distinct columns: GROUP BY a, a groups by a alone
	for _, e := range g.GroupByExprs {
		gf, ok := e.(*expression.GetField)
		if !ok || !strings.EqualFold(gf.Table(), alias) {
			return nil
		}
		name := strings.ToLower(gf.Name())
		if _, ok := pos[name]; !ok {
			return nil
		}
		grouped[name] = true
	}
	if len(pos) != k || len(grouped) != k {
		return nil
	}
	out := make([]int, len(g.SelectedExprs)) // -1: COUNT, else a key column
	counts := false
	for i, e := range g.SelectedExprs {
		switch x := e.(type) {
		case *aggregation.Count:
			switch c := x.Child.(type) {
			case *expression.Star:
			case *expression.Literal:
				if c.Value() == nil {
					return nil
				}
			default:
				return nil
			}
			out[i], counts = -1, true
		case *expression.GetField:
			j, ok := pos[strings.ToLower(x.Name())]
			if !ok || !strings.EqualFold(x.Table(), alias) {
				return nil
			}
			out[i] = j
		default:
			return nil
		}
	}
	if !counts {
		return nil
	}
	lookup, err := ita.GetLookup(ctx, row)
	if err != nil {
		return nil
	}
	return &indexGroupsIter{gc: gc, lookup: lookup, k: k, out: out}
}

// indexGroupsIter hands out RULE-97's rows; it counts every group on the
// first call (as RULE-80's groupIter reads all its input first).
type indexGroupsIter struct {
	gc     groupCounter
	lookup sql.IndexLookup
	k      int
	out    []int
	rows   []sql.Row
	pos    int
	done   bool
	// fallback: the read AGG-2 did not take, as RULE-80 runs it
	fallback func() (sql.RowIter, error)
	inner    sql.RowIter
}

func (it *indexGroupsIter) Next(ctx *sql.Context) (sql.Row, error) {
	if it.inner != nil {
		return it.inner.Next(ctx)
	}
	if !it.done {
		it.done = true
		var block sql.Row
		ok, err := it.gc.CountIndexGroups(ctx, it.lookup, it.k, func(vals []any, n int64) error {
			if len(block) < len(it.out) {
				block = make(sql.Row, len(it.out)*256)
			}
			r := block[:len(it.out):len(it.out)]
			block = block[len(it.out):]
			for i, j := range it.out {
				if j < 0 {
					r[i] = n
				} else {
					r[i] = vals[j]
				}
			}
			it.rows = append(it.rows, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if !ok {
			if it.inner, err = it.fallback(); err != nil {
				return nil, err
			}
			return it.inner.Next(ctx)
		}
	}
	if it.pos >= len(it.rows) {
		return nil, io.EOF
	}
	it.pos++
	return it.rows[it.pos-1], nil
}

func (it *indexGroupsIter) Close(ctx *sql.Context) error {
	it.rows = nil
	if it.inner != nil {
		return it.inner.Close(ctx)
	}
	return nil
}
