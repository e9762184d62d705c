package planner

import (
	"math"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/memo"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// Statistics is what a table tells the planner beyond its row count.
type Statistics interface {
	sql.StatisticsTable
	sql.IndexAddressable
	// KeyDistinct estimates the distinct values of the first prefix
	// columns of idx.
	KeyDistinct(ctx *sql.Context, idx sql.Index, prefix int) (float64, bool)
	// RangeRows estimates the rows a static lookup reads.
	RangeRows(ctx *sql.Context, lookup sql.IndexLookup) (float64, bool)
}

// PL-3 cost units.
const (
	costRow    = 1.0  // a row read in key order
	costFetch  = 2.0  // a primary-key lookup behind a secondary-index entry
	costLookup = 6.5  // a lookup join's probe: go-mysql-server builds an index iterator, one descent
	costCPU    = 0.05 // evaluating a predicate or emitting a row
	costBuild  = 2.0  // inserting a row into a hash table: its key, the map, the bucket
	costProbe  = 1.5  // a hash join's probe: a key and a bucket lookup (rules RULE-87)

	// PL-2
	selEqual = 0.1
	selRange = 1.0 / 3
	selOther = 0.5
)

// New returns the coster to install as the analyzer's Coster.
func New() memo.Coster { return coster{fallback: memo.NewDefaultCoster()} }

type coster struct{ fallback memo.Coster }

func (c coster) EstimateCost(ctx *sql.Context, n memo.RelExpr, s sql.StatsProvider) (float64, error) {
	if changesRows(ctx.Query()) { // PL-7
		return c.fallback.EstimateCost(ctx, n, s)
	}
	e := &estimator{ctx: ctx, prov: s, rowsOf: map[*memo.ExprGroup]float64{}}
	switch n := n.(type) {
	case memo.JoinRel:
		return e.joinCost(n), nil
	case *memo.Filter:
		return e.read(n.Child) + e.rows(n.Child)*costCPU*float64(len(n.Filters)), nil
	case *memo.Project:
		return e.read(n.Child) + e.rows(n.Child)*costCPU, nil
	case *memo.Distinct:
		return e.read(n.Child) + e.rows(n.Child)*costBuild, nil
	case *memo.Max1Row:
		return e.read(n.Child), nil
	}
	return c.fallback.EstimateCost(ctx, n, s) // PL-5
}

// estimator answers one EstimateCost call; rowsOf caches group rows.
type estimator struct {
	ctx    *sql.Context
	prov   sql.StatsProvider
	rowsOf map[*memo.ExprGroup]float64
	tables map[sql.TableId]sql.Table
}

// ---- rows (PL-1) ----

func (e *estimator) rows(g *memo.ExprGroup) float64 {
	if r, ok := e.rowsOf[g]; ok {
		return r
	}
	var filter *memo.Filter
	var scan *memo.IndexScan
	for n := g.First; n != nil; n = n.Next() {
		switch n := n.(type) {
		case *memo.Filter:
			if filter == nil {
				filter = n
			}
		case *memo.IndexScan:
			if scan == nil && n.Table.IsStatic() {
				scan = n
			}
		}
	}
	var r float64
	if filter != nil {
		r = e.filterRows(filter, scan)
	} else {
		r = e.exprRows(g.First)
	}
	r = math.Max(r, 1)
	e.rowsOf[g] = r
	return r
}

func (e *estimator) exprRows(n memo.RelExpr) float64 {
	switch n := n.(type) {
	case *memo.TableAlias, *memo.TableScan:
		return e.tableRows(n.(memo.SourceRel))
	case *memo.IndexScan:
		if rr, ok := e.rangeRows(n); ok {
			return rr
		}
		return e.tableRows(n)
	case *memo.Values:
		return float64(len(n.Table.ExpressionTuples))
	case *memo.Max1Row:
		return 1
	case *memo.Project:
		return e.rows(n.Child)
	case *memo.Distinct:
		return e.rows(n.Child)
	case *memo.Filter:
		return e.filterRows(n, nil)
	case memo.JoinRel:
		return e.joinRows(n)
	}
	if st := n.Group().RelProps.GetStats(); st != nil { // PL-5
		return float64(st.RowCount())
	}
	return 1000
}

// statsOf returns the Statistics behind a source, if it has them.
func statsOf(src memo.SourceRel) (Statistics, bool) {
	var t sql.Table
	switch n := src.TableIdNode().(type) {
	case *plan.TableAlias:
		if tn, ok := n.Child.(sql.TableNode); ok {
			t = tn.UnderlyingTable()
		}
	case sql.TableNode:
		t = n.UnderlyingTable()
	}
	for t != nil {
		if st, ok := t.(Statistics); ok {
			return st, true
		}
		w, ok := t.(sql.TableWrapper)
		if !ok {
			break
		}
		t = w.Underlying()
	}
	return nil, false
}

func (e *estimator) tableRows(src memo.SourceRel) float64 {
	if st, ok := statsOf(src); ok {
		if n, _, err := st.RowCount(e.ctx); err == nil {
			return float64(n)
		}
	}
	if st := src.Group().RelProps.GetStats(); st != nil {
		return float64(st.RowCount())
	}
	return 1000
}

func (e *estimator) rangeRows(scan *memo.IndexScan) (float64, bool) {
	if !scan.Table.IsStatic() {
		return 0, false
	}
	st, ok := statsOf(scan)
	if !ok {
		return 0, false
	}
	lookup, err := scan.Table.GetLookup(e.ctx, nil)
	if err != nil {
		return 0, false
	}
	return st.RangeRows(e.ctx, lookup)
}

// filterRows: the static range's rows if the group has one, times the
// filters on columns outside its index; else the child's rows times every
// filter's selectivity.
func (e *estimator) filterRows(f *memo.Filter, scan *memo.IndexScan) float64 {
	base := e.rows(f.Child)
	var covered map[string]bool
	if scan != nil {
		if rr, ok := e.rangeRows(scan); ok {
			base = rr
			covered = map[string]bool{}
			for _, c := range IndexColumns(scan.Index.SqlIdx()) {
				covered[c] = true
			}
		}
	}
	for _, conj := range f.Filters {
		for _, x := range expression.SplitConjunction(conj) {
			if covered != nil && onlyColumns(x, covered) {
				continue
			}
			base *= e.sel(x, f.Child)
		}
	}
	return base
}

// onlyColumns reports whether every column x references is in cols.
func onlyColumns(x sql.Expression, cols map[string]bool) bool {
	ok, any := true, false
	sql.Inspect(x, func(x sql.Expression) bool {
		if gf, is := x.(*expression.GetField); is {
			any = true
			ok = ok && cols[strings.ToLower(gf.Name())]
		}
		return ok
	})
	return ok && any
}

// sel is a single predicate's selectivity over the rows of g.
func (e *estimator) sel(x sql.Expression, g *memo.ExprGroup) float64 {
	switch x := x.(type) {
	case *expression.And:
		return e.sel(x.LeftChild, g) * e.sel(x.RightChild, g)
	case *expression.Or:
		a, b := e.sel(x.LeftChild, g), e.sel(x.RightChild, g)
		return a + b - a*b
	case *expression.Not:
		return 1 - e.sel(x.Child, g)
	case *expression.Equals, *expression.NullSafeEquals:
		l, r := x.Children()[0], x.Children()[1]
		if gf, ok := columnAndConstant(l, r); ok {
			if d, ok := e.distinct(gf, g); ok {
				return 1 / d
			}
		}
		return selEqual
	case *expression.InTuple, *expression.HashInTuple:
		l, r := x.Children()[0], x.Children()[1]
		if t, ok := r.(expression.Tuple); ok {
			if gf, ok := columnAndConstant(l, t); ok {
				if d, ok := e.distinct(gf, g); ok {
					return math.Min(1, float64(len(t))/d)
				}
			}
			return math.Min(1, selEqual*float64(len(t)))
		}
		return selOther
	case *expression.GreaterThan, *expression.LessThan, *expression.GreaterThanOrEqual,
		*expression.LessThanOrEqual, *expression.Between:
		return selRange
	case *expression.IsNull:
		return selEqual
	}
	return selOther
}

// columnAndConstant returns the column of a column-versus-constant pair.
func columnAndConstant(a, b sql.Expression) (*expression.GetField, bool) {
	if gf, ok := a.(*expression.GetField); ok && !hasColumn(b) {
		return gf, true
	}
	if gf, ok := b.(*expression.GetField); ok && !hasColumn(a) {
		return gf, true
	}
	return nil, false
}

func hasColumn(x sql.Expression) bool {
	found := false
	sql.Inspect(x, func(x sql.Expression) bool {
		if _, ok := x.(*expression.GetField); ok {
			found = true
		}
		return !found
	})
	return found
}

// ---- tables and distinct counts ----

// table finds the source table of a column among the sources under g.
func (e *estimator) table(id sql.TableId, g *memo.ExprGroup) (memo.SourceRel, bool) {
	var walk func(g *memo.ExprGroup) memo.SourceRel
	walk = func(g *memo.ExprGroup) memo.SourceRel {
		if src, ok := g.First.(memo.SourceRel); ok {
			// the plan's table id: the memo's TableId() numbers groups
			if tn := src.TableIdNode(); tn != nil && tn.Id() == id {
				return src
			}
			return nil
		}
		for _, c := range g.First.Children() {
			if s := walk(c); s != nil {
				return s
			}
		}
		return nil
	}
	s := walk(g)
	return s, s != nil
}

// distinct estimates a column's distinct values in its table (PL-1).
func (e *estimator) distinct(gf *expression.GetField, g *memo.ExprGroup) (float64, bool) {
	src, ok := e.table(gf.TableId(), g)
	if !ok {
		return 0, false
	}
	st, ok := statsOf(src)
	if !ok {
		return 0, false
	}
	idxs, err := st.GetIndexes(e.ctx)
	if err != nil {
		return 0, false
	}
	col := strings.ToLower(gf.Name())
	best, found := 0.0, false
	for _, idx := range idxs {
		cols := IndexColumns(idx)
		if len(cols) == 0 || cols[0] != col {
			continue
		}
		if d, ok := st.KeyDistinct(e.ctx, idx, 1); ok && (!found || d > best) {
			best, found = d, true
		}
	}
	return best, found
}

// keyDistinct is a column's distinct values within a side of rows rows;
// a column without statistics counts as unique in its table (PL-1).
func (e *estimator) keyDistinct(gf *expression.GetField, side *memo.ExprGroup) float64 {
	d, ok := e.distinct(gf, side)
	if !ok {
		d = math.Inf(1)
		if src, ok := e.table(gf.TableId(), side); ok {
			d = e.tableRows(src)
		}
	}
	return math.Max(1, math.Min(d, e.rows(side)))
}

// IndexColumns returns the lower-case column names of idx in key order.
func IndexColumns(idx sql.Index) []string {
	exprs := idx.Expressions()
	out := make([]string, len(exprs))
	for i, x := range exprs {
		if j := strings.LastIndexByte(x, '.'); j >= 0 {
			x = x[j+1:]
		}
		out[i] = strings.ToLower(strings.Trim(x, "`"))
	}
	return out
}

// ---- joins ----

// equiKeys returns the column pairs of a join's equality conditions, left
// side first, and the selectivity of its other conditions.
func (e *estimator) equiKeys(jp *memo.JoinBase) (pairs [][2]*expression.GetField, other float64) {
	other = 1
	for _, f := range jp.Filter {
		for _, x := range expression.SplitConjunction(f) {
			if eq, ok := x.(*expression.Equals); ok {
				a, aok := eq.Left().(*expression.GetField)
				b, bok := eq.Right().(*expression.GetField)
				if aok && bok {
					_, al := e.table(a.TableId(), jp.Left)
					_, br := e.table(b.TableId(), jp.Right)
					if al && br {
						pairs = append(pairs, [2]*expression.GetField{a, b})
						continue
					}
					_, bl := e.table(b.TableId(), jp.Left)
					_, ar := e.table(a.TableId(), jp.Right)
					if bl && ar {
						pairs = append(pairs, [2]*expression.GetField{b, a})
						continue
					}
				}
			}
			other *= e.sel(x, jp.Left)
		}
	}
	return pairs, other
}

func (e *estimator) joinRows(j memo.JoinRel) float64 {
	jp := j.JoinPrivate()
	l, r := e.rows(jp.Left), e.rows(jp.Right)
	pairs, other := e.equiKeys(jp)
	switch {
	case jp.Op.IsSemi(), jp.Op.IsAnti():
		frac := 0.5
		if len(pairs) > 0 {
			dl, dr := e.keyDistinct(pairs[0][0], jp.Left), e.keyDistinct(pairs[0][1], jp.Right)
			frac = math.Min(1, dr/dl)
		}
		if jp.Op.IsAnti() {
			return l * math.Max(1-frac, 0.01)
		}
		return l * frac
	}
	sel := other
	for _, p := range pairs {
		sel /= math.Max(e.keyDistinct(p[0], jp.Left), e.keyDistinct(p[1], jp.Right))
	}
	inner := l * r * sel
	switch {
	case jp.Op.IsFullOuter():
		return math.Max(inner, l+r)
	case jp.Op.IsLeftOuter():
		return math.Max(inner, l)
	}
	return inner
}

// read is what the operator above g pays to read it (PL-4): a source
// group's access, else nothing (the memo adds the group's own cost).
func (e *estimator) read(g *memo.ExprGroup) float64 {
	src, ok := g.Best.(memo.SourceRel)
	if !ok {
		return 0
	}
	switch n := src.(type) {
	case *memo.IndexScan:
		return e.scanCost(n)
	case *memo.TableAlias, *memo.TableScan:
		return e.tableRows(src) * costRow
	}
	return e.rows(g) * costRow
}

// Covering is a table that can tell whether a read through an index needs
// no primary-key lookup for the columns the statement reads.
type Covering interface {
	Covers(idx sql.Index) bool
}

// rowCost is one row's read through idx of src: a secondary index adds
// the primary-key lookup unless it covers the columns read (PL-3).
func rowCost(src memo.SourceRel, idx sql.Index) float64 {
	if strings.EqualFold(idx.ID(), "PRIMARY") {
		return costRow
	}
	if st, ok := statsOf(src); ok {
		if c, ok := st.(Covering); ok && c.Covers(idx) {
			return costRow
		}
	}
	return costRow + costFetch
}

// scanCost reads an index scan: its static ranges, or the whole index.
func (e *estimator) scanCost(scan *memo.IndexScan) float64 {
	idx := scan.Index.SqlIdx()
	if rr, ok := e.rangeRows(scan); ok {
		return costLookup + rr*rowCost(scan, idx)
	}
	return e.tableRows(scan) * rowCost(scan, idx)
}

// lookupCost is a lookup join's right side: a probe per left row and the
// rows per key through the lookup's index.
func (e *estimator) lookupCost(scan *memo.IndexScan, left float64, injective bool) float64 {
	idx := scan.Index.SqlIdx()
	perKey := 1.0
	if !injective {
		n := e.tableRows(scan)
		perKey = n / 10 // PL-2 without statistics
		if st, ok := statsOf(scan); ok {
			keys := min(len(scan.Table.Expressions()), len(IndexColumns(idx)))
			if d, ok := st.KeyDistinct(e.ctx, idx, keys); ok && d > 0 {
				perKey = n / d
			}
		}
		perKey = math.Max(perKey, 1)
	}
	return left*costLookup + left*perKey*rowCost(scan, idx)
}

func (e *estimator) joinCost(j memo.JoinRel) float64 {
	jp := j.JoinPrivate()
	l, r := e.rows(jp.Left), e.rows(jp.Right)
	out := e.rows(j.Group())
	switch n := j.(type) {
	case *memo.LookupJoin:
		return e.read(jp.Left) + e.lookupCost(n.Lookup, l, n.Injective) + out*costCPU
	case *memo.ConcatJoin:
		c := e.read(jp.Left) + out*costCPU
		for _, s := range n.Concat {
			c += e.lookupCost(s, l, false)
		}
		return c
	case *memo.HashJoin:
		if !hashable(n.LeftAttrs) || !hashable(n.RightAttrs) {
			return math.Inf(1) // PL-6
		}
		return e.read(jp.Left) + e.read(jp.Right) + r*costBuild + l*costProbe + out*costCPU
	case *memo.MergeJoin:
		if jp.Op.IsAnti() || jp.Op.IsExcludeNulls() {
			return math.Inf(1) // PL-8
		}
		if !mergeableKeys(jp.Filter) || distinctSide(n) {
			return math.Inf(1) // PL-10
		}
		return e.scanCost(n.InnerScan) + e.scanCost(n.OuterScan) + (l+r+out)*costCPU
	case *memo.RangeHeapJoin:
		return e.read(jp.Left) + e.read(jp.Right) + (l+r)*costBuild + out*costCPU
	}
	// A nested loop: the right side again for every left row.
	again := e.read(jp.Right) + jp.Right.Cost
	if jp.Op.IsPartial() {
		again /= 2 // stops at the first match
	}
	return e.read(jp.Left) + l*again + l*r*costCPU
}

// mergeableKeys reports whether a merge join's equalities compare keys of
// one type (PL-10): go-mysql-server's merge join over an INT index and an
// INT UNSIGNED one returned an EXISTS row once per match.
func mergeableKeys(filters []sql.Expression) bool {
	for _, f := range filters {
		eq, ok := f.(*expression.Equals)
		if !ok {
			continue
		}
		l, r := eq.Left().Type(), eq.Right().Type()
		if l.Type() != r.Type() {
			return false
		}
	}
	return true
}

// distinctSide reports whether a side of m is a group whose rows are made
// distinct when built (a semi-join go-mysql-server turned into an inner
// join: project(x) -> innerJoin(x, distinct(y))): its merge join reads
// the side's index scan, not the distinct rows, and
// `EXISTS (SELECT 1 FROM b WHERE a.k = b.k)` returned a row once per
// match (PL-10).
func distinctSide(m *memo.MergeJoin) bool {
	for _, g := range []*memo.ExprGroup{m.Left, m.Right} {
		if d := g.RelProps.Distinct; d == memo.HashDistinctOp || d == memo.SortedDistinctOp {
			return true
		}
	}
	return false
}

// hashable reports whether go-mysql-server's hash join matches keys as
// SQL equality does (PL-6): it hashes a string key's bytes, so a string
// under a collation where different bytes compare equal (case, accents,
// trailing spaces) would miss its matches.
func hashable(keys []sql.Expression) bool {
	for _, k := range keys {
		if st, ok := k.Type().(sql.StringType); ok {
			switch st.Collation() {
			case sql.Collation_binary, sql.Collation_utf8mb4_0900_bin:
			default:
				return false
			}
		}
	}
	return true
}

// changesRows reports an UPDATE or DELETE statement (PL-7).
func changesRows(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	return len(q) >= 6 && (strings.EqualFold(q[:6], "update") || strings.EqualFold(q[:6], "delete"))
}
