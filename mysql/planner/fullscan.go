package planner

import (
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// fetchShare is PL-9's break-even: a row read through a secondary index
// that does not cover the query (the entry, then the primary-key lookup)
// cost 5.4-6.7 rows of a full scan in bench/queries' orders table (1.05-1.31
// us against 0.196 us, ranges of 12-23% of 250,000 rows); a range
// estimated above a fifth of the table is read faster by the scan.
const fetchShare = 0.2

// LockingReads is what a table tells PL-9 about the statement: whether
// its reads lock the rows they read (a full scan would lock every row).
type LockingReads interface {
	LockingReads(ctx *sql.Context) bool
}

// Install wraps go-mysql-server's join and index planning with PL-9. It
// must run before the engine's analyzer is built (sqle.New copies the
// batch).
func Install() {
	installed.Do(func() {
		for i, r := range analyzer.OnceAfterDefault {
			if r.Id.String() == "optimizeJoins" {
				analyzer.OnceAfterDefault[i].Apply = fullScans(r.Apply)
			}
		}
	})
}

var installed sync.Once

// source is a single-table filter as the plan had it before index
// planning: the table (under its alias, if any) and the whole condition.
type source struct {
	table *plan.ResolvedTable
	alias *plan.TableAlias
	cond  sql.Expression
}

// fullScans is PL-9 around go-mysql-server's optimizeJoins, whose
// costedIndexScans turns every filter an index can answer into an index
// range, however much of the table the range holds.
func fullScans(optimize analyzer.RuleFunc) analyzer.RuleFunc {
	return func(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
		sources := map[sql.TableId]source{}
		transform.Inspect(n, func(n sql.Node) bool {
			f, ok := n.(*plan.Filter)
			if !ok {
				return true
			}
			s := source{cond: f.Expression}
			switch c := f.Child.(type) {
			case *plan.ResolvedTable:
				s.table = c
			case *plan.TableAlias:
				s.alias = c
				s.table, _ = c.Child.(*plan.ResolvedTable)
			}
			if s.table != nil && s.table.Id() != 0 {
				sources[s.table.Id()] = s
			}
			return true
		})
		out, same, err := optimize(ctx, a, n, scope, sel, qFlags)
		if err != nil || len(sources) == 0 || changesRows(ctx.Query()) {
			return out, same, err
		}
		scanned, changed, err := revertRanges(ctx, out, sources)
		if err != nil || !changed {
			return out, same, err
		}
		return scanned, transform.NewTree, nil
	}
}

// revertRanges replaces, top-down, each static secondary-index range PL-9
// finds too wide by a scan of its table under the source's whole filter
// (the filter go-mysql-server kept above the range is part of it).
func revertRanges(ctx *sql.Context, n sql.Node, sources map[sql.TableId]source) (sql.Node, bool, error) {
	if r, ok := scanInstead(ctx, n, sources); ok {
		return r, true, nil
	}
	if _, ok := n.(*plan.JoinNode); ok {
		// A join's inputs are the memo's choice: a merge join reads its
		// index scans for their order.
		return n, false, nil
	}
	children := n.Children()
	if len(children) == 0 {
		return n, false, nil
	}
	var changed bool
	next := make([]sql.Node, len(children))
	for i, c := range children {
		r, ch, err := revertRanges(ctx, c, sources)
		if err != nil {
			return n, false, err
		}
		next[i], changed = r, changed || ch
	}
	if !changed {
		return n, false, nil
	}
	r, err := n.WithChildren(next...)
	return r, err == nil, err
}

// scanInstead matches [Filter] -> [TableAlias] -> static IndexedTableAccess
// of a recorded source and returns the source's Filter over its table
// when PL-9 prefers the scan.
func scanInstead(ctx *sql.Context, n sql.Node, sources map[sql.TableId]source) (sql.Node, bool) {
	m := n
	if f, ok := m.(*plan.Filter); ok {
		m = f.Child
	}
	if ta, ok := m.(*plan.TableAlias); ok {
		m = ta.Child
	}
	ita, ok := m.(*plan.IndexedTableAccess)
	if !ok || !ita.IsStatic() {
		return nil, false
	}
	src, ok := sources[ita.Id()]
	if !ok || !preferScan(ctx, src.table.UnderlyingTable(), ita) {
		return nil, false
	}
	var t sql.Node = src.table
	if src.alias != nil {
		t = src.alias
	}
	return plan.NewFilter(src.cond, t), true
}

// preferScan is PL-9's choice for a static range of ita over table t.
func preferScan(ctx *sql.Context, t sql.Table, ita *plan.IndexedTableAccess) bool {
	idx := ita.Index()
	if idx == nil || strings.EqualFold(idx.ID(), "PRIMARY") || idx.IsFullText() || idx.IsSpatial() {
		return false
	}
	var st Statistics
	for t != nil {
		var ok bool
		if st, ok = t.(Statistics); ok {
			break
		}
		w, ok := t.(sql.TableWrapper)
		if !ok {
			return false
		}
		t = w.Underlying()
	}
	if st == nil {
		return false
	}
	if c, ok := st.(Covering); ok && c.Covers(idx) {
		return false
	}
	if l, ok := st.(LockingReads); !ok || l.LockingReads(ctx) {
		return false
	}
	lookup, err := ita.GetLookup(ctx, nil)
	if err != nil {
		return false
	}
	rows, _, err := st.RowCount(ctx)
	if err != nil || rows == 0 {
		return false
	}
	if k, n, ok := pointPrefix(ctx, lookup); ok {
		// Points on an index prefix: the average rows per key (ST-2,
		// cached) settles a range far below the share without a descent.
		if d, ok := st.KeyDistinct(ctx, idx, k); ok && d > 0 && float64(n)*float64(rows)/d < fetchShare*float64(rows)/2 {
			return false
		}
	}
	rr, ok := st.RangeRows(ctx, lookup)
	return ok && rr > fetchShare*float64(rows)
}

// pointPrefix reports the number k of leading index columns every range
// of lookup fixes to one value, and the number of ranges.
func pointPrefix(ctx *sql.Context, lookup sql.IndexLookup) (k, n int, ok bool) {
	ranges, isMySQL := lookup.Ranges.(sql.MySQLRangeCollection)
	if !isMySQL || len(ranges) == 0 {
		return 0, 0, false
	}
	k = -1
	for _, r := range ranges {
		p := 0
		for _, ce := range r {
			lb, lok := ce.LowerBound.(sql.Below)
			ub, uok := ce.UpperBound.(sql.Above)
			if !lok || !uok {
				break
			}
			if c, err := ce.Typ.Compare(ctx, lb.Key, ub.Key); err != nil || c != 0 {
				break
			}
			p++
		}
		if k < 0 || p < k {
			k = p
		}
	}
	return k, len(ranges), k > 0
}
