package rules

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"strata/mysql/scanfilter"
)

// RULE-95 A read-only query's table reads drop, before decoding them,
// stored rows the query is certain to discard (backend CODEC-14, package
// scanfilter): a WHERE conjunct over the table that compares an integer
// or DECIMAL column with an exact number (=, <, <=, >, >=, BETWEEN), and
// a top-N ordered first by such a column, which drops rows strictly worse
// than the worst it keeps once it holds its n rows. The filter and the
// top-N stay in the plan and see every row the checks pass (SF-1). A
// scan of 250,000 orders for `total BETWEEN 100 AND 200` decoded every
// row's total into a DECIMAL, boxed it and filtered it in go-mysql-server
// to keep 2,776; `ORDER BY total DESC, id LIMIT 10` decoded three columns
// of each row for a heap that takes almost none.

// scanCheckable is a table whose reads take scan checks (backend
// Table.WithScanChecks).
type scanCheckable interface {
	sql.Table
	WithScanChecks(conds []scanfilter.Cond) sql.Table
	ScanChecks() []scanfilter.Cond
	ColumnIndex(name string) int
}

func scanChecks(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !n.IsReadOnly() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.Filter:
			child, ok := withScanChecks(x.Child, func(alias string, tb scanCheckable) []scanfilter.Cond {
				return filterChecks(x.Expression, alias, tb, nil)
			})
			if !ok {
				return n, transform.SameTree, nil
			}
			nn, err := x.WithChildren(child)
			if err != nil {
				return n, transform.SameTree, nil
			}
			return nn, transform.NewTree, nil
		case *plan.TopN:
			if x.CalcFoundRows || len(x.Fields) == 0 {
				return n, transform.SameTree, nil
			}
			child, ok := topNBound(x.Fields[0], x.Child)
			if !ok {
				return n, transform.SameTree, nil
			}
			nn, err := x.WithChildren(child)
			if err != nil {
				return n, transform.SameTree, nil
			}
			return nn, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}

// withScanChecks returns n, a table (under an alias) with the checks
// make gives it, and whether it gave any.
func withScanChecks(n sql.Node, checks func(alias string, tb scanCheckable) []scanfilter.Cond) (sql.Node, bool) {
	switch x := n.(type) {
	case *plan.TableAlias:
		c, ok := withScanChecks1(x.Child, x.Name(), checks)
		if !ok {
			return n, false
		}
		nn, err := x.WithChildren(c)
		return nn, err == nil
	}
	return withScanChecks1(n, "", checks)
}

func withScanChecks1(n sql.Node, alias string, checks func(alias string, tb scanCheckable) []scanfilter.Cond) (sql.Node, bool) {
	var t sql.Table
	switch x := n.(type) {
	case *plan.ResolvedTable:
		t = x.Table
	case *plan.IndexedTableAccess:
		t = x.Table
	default:
		return n, false
	}
	tb, ok := t.(scanCheckable)
	if !ok {
		return n, false
	}
	if alias == "" {
		alias = n.(sql.Nameable).Name()
	}
	conds := checks(alias, tb)
	if len(conds) == 0 {
		return n, false
	}
	nt := tb.WithScanChecks(conds)
	if nt == sql.Table(tb) {
		return n, false
	}
	switch x := n.(type) {
	case *plan.ResolvedTable:
		nn, err := x.ReplaceTable(nt)
		return nn, err == nil
	case *plan.IndexedTableAccess:
		it, ok := nt.(sql.IndexedTable)
		if !ok {
			return n, false
		}
		nn := *x
		nn.Table = it
		return &nn, true
	}
	return n, false
}

// filterChecks appends to out the checks of e's conjuncts that compare a
// column of the table (alias) with an exact number.
func filterChecks(e sql.Expression, alias string, tb scanCheckable, out []scanfilter.Cond) []scanfilter.Cond {
	switch x := e.(type) {
	case *expression.And:
		out = filterChecks(x.LeftChild, alias, tb, out)
		return filterChecks(x.RightChild, alias, tb, out)
	case *decimalCompare: // the RULE-79/90 forms keep the comparison they replace
		return filterChecks(x.Expression, alias, tb, out)
	case *decimalBetween:
		return filterChecks(x.Between, alias, tb, out)
	case *intCompare:
		return filterChecks(x.Expression, alias, tb, out)
	case *opaqueSubquery:
		return filterChecks(x.not, alias, tb, out)
	case *stringCompare: // RULE-81
		return filterChecks(x.Expression, alias, tb, out)
	case *expression.Between:
		col := numericColumn(x.Val, alias, tb)
		lo, ok1 := checkNumber(x.Lower)
		hi, ok2 := checkNumber(x.Upper)
		if col < 0 || !ok1 || !ok2 {
			return out
		}
		return append(out, scanfilter.Cond{Col: col, Op: scanfilter.GE, Value: lo}, scanfilter.Cond{Col: col, Op: scanfilter.LE, Value: hi})
	}
	if col, sop, sq, ok := deferredComparison(e, alias, tb); ok {
		return append(out, scanfilter.Cond{Col: col, Op: sop, Deferred: &scanfilter.Bound{Key: deferredKey(col, sop, sq)}})
	}
	if col, lit, ok := stringEquality(e, alias, tb); ok {
		return append(out, scanfilter.Cond{Col: col, Op: scanfilter.EQ, IsStr: true, Str: lit})
	}
	op, ok := comparisonOp(e)
	if !ok || op == "<=>" {
		return out
	}
	l, r, _ := comparedOperands(e)
	v, ok := checkNumber(r)
	if !ok {
		if v, ok = checkNumber(l); !ok {
			return out
		}
		l, op = r, mirrored(op)
	}
	col := numericColumn(l, alias, tb)
	sop, ok := checkOp(op)
	if col < 0 || !ok {
		return out
	}
	return append(out, scanfilter.Cond{Col: col, Op: sop, Value: v})
}

// stringEquality splits e when it is a text column of the table equal to
// a string literal of the column's own type (RULE-73 types it so), which
// compares under the column's collation (SF-5).
func stringEquality(e sql.Expression, alias string, tb scanCheckable) (int, string, bool) {
	eq, ok := e.(*expression.Equals)
	if !ok {
		return 0, "", false
	}
	l, r := eq.Left(), eq.Right()
	lit, ok := r.(*expression.Literal)
	if !ok {
		if lit, ok = l.(*expression.Literal); !ok {
			return 0, "", false
		}
		l = r
	}
	gf, ok := l.(*expression.GetField)
	if !ok || !strings.EqualFold(gf.Table(), alias) {
		return 0, "", false
	}
	st, ok := gf.Type().(sql.StringType)
	if !ok || !types.IsTextOnly(st) || !types.TypesEqual(st, lit.Type()) {
		return 0, "", false
	}
	s, ok := lit.Value().(string)
	if !ok {
		return 0, "", false
	}
	col := tb.ColumnIndex(gf.Name())
	return col, s, col >= 0
}

func checkOp(op string) (scanfilter.Op, bool) {
	switch op {
	case "=":
		return scanfilter.EQ, true
	case "<":
		return scanfilter.LT, true
	case "<=":
		return scanfilter.LE, true
	case ">":
		return scanfilter.GT, true
	case ">=":
		return scanfilter.GE, true
	}
	return 0, false
}

// deferredComparison splits e when it compares a numeric column of the
// table with an uncorrelated, non-volatile scalar subquery of an integer
// or DECIMAL type (SF-4).
func deferredComparison(e sql.Expression, alias string, tb scanCheckable) (col int, op scanfilter.Op, sq *plan.Subquery, ok bool) {
	e = plainComparison(e)
	cop, ok := comparisonOp(e)
	if !ok || cop == "<=>" {
		return 0, 0, nil, false
	}
	l, r, _ := comparedOperands(e)
	sq, ok = r.(*plan.Subquery)
	if !ok {
		if sq, ok = l.(*plan.Subquery); !ok {
			return 0, 0, nil, false
		}
		l, cop = r, mirrored(cop)
	}
	t := sq.Type()
	if !sq.CanCacheResults() || !(types.IsInteger(t) && !types.IsYear(t) || types.IsDecimal(t)) {
		return 0, 0, nil, false
	}
	col = numericColumn(l, alias, tb)
	op, ok = checkOp(cop)
	return col, op, sq, col >= 0 && ok
}

// plainComparison is e without the wrappers of rules that evaluate it
// faster (RULE-79, RULE-90) or keep it out of semi-joins (RULE-45),
// which all keep the comparison they replace.
func plainComparison(e sql.Expression) sql.Expression {
	for {
		switch x := e.(type) {
		case *decimalCompare:
			e = x.Expression
		case *decimalPair:
			e = x.Expression
		case *intCompare:
			e = x.Expression
		case *opaqueSubquery:
			e = x.not
		default:
			return e
		}
	}
}

func deferredKey(col int, op scanfilter.Op, sq *plan.Subquery) string {
	return fmt.Sprintf("%d %d %s", col, op, sq.String())
}

// bindDeferred sets the deferred values (SF-4) of the table f filters
// from the subqueries of f as it runs; it reports whether every
// deferred check of the table got its value.
func bindDeferred(ctx *sql.Context, f *plan.Filter) bool {
	alias, tb := filteredTable(f.Child)
	if tb == nil {
		return true
	}
	slots := map[string]*scanfilter.Bound{}
	for _, c := range tb.ScanChecks() {
		if c.Deferred != nil {
			slots[c.Deferred.Key] = c.Deferred
			c.Deferred.Reset()
		}
	}
	if len(slots) == 0 {
		return true
	}
	bound, width := 0, rowWidth(f.Child)
	var walk func(e sql.Expression)
	walk = func(e sql.Expression) {
		if a, ok := e.(*expression.And); ok {
			walk(a.LeftChild)
			walk(a.RightChild)
			return
		}
		col, op, sq, ok := deferredComparison(e, alias, tb)
		if !ok {
			return
		}
		slot := slots[deferredKey(col, op, sq)]
		if slot == nil {
			return
		}
		// The subquery reads its columns past the outer row's (unused:
		// it is uncorrelated); its value is cached for the filter.
		v, err := sq.Eval(ctx, make(sql.Row, width))
		if err != nil {
			return // the filter meets the error again
		}
		if n, ok := numberOf(v); ok {
			slot.Set(n)
			bound++
		}
	}
	walk(f.Expression)
	return bound == len(slots)
}

// rowWidth is the length of n's rows: its schema's, and a PrependNode's
// row before them.
func rowWidth(n sql.Node) int {
	if p, ok := n.(*plan.PrependNode); ok {
		return len(p.Row) + rowWidth(p.Child)
	}
	return len(n.Schema())
}

// filteredTable is the table n reads (under an alias and the process
// tracker's wrapper) when it takes scan checks, and the name its rows go
// by.
func filteredTable(n sql.Node) (string, scanCheckable) {
	if p, ok := n.(*plan.PrependNode); ok {
		n = p.Child
	}
	alias := ""
	if ta, ok := n.(*plan.TableAlias); ok {
		alias, n = ta.Name(), ta.Child
	}
	var t sql.Table
	switch x := n.(type) {
	case *plan.ResolvedTable:
		if alias == "" {
			alias = x.Name()
		}
		t = x.Table
	case *plan.IndexedTableAccess:
		if alias == "" {
			alias = x.Name()
		}
		t = x.Table
	default:
		return "", nil
	}
	tb, ok := sql.GetUnderlyingTable(t).(scanCheckable)
	if !ok {
		return "", nil
	}
	return alias, tb
}

// numericColumn is the position in tb of the integer (not YEAR) or
// DECIMAL column e reads, when e is a column of the table alias, or -1.
func numericColumn(e sql.Expression, alias string, tb scanCheckable) int {
	gf, ok := e.(*expression.GetField)
	if !ok || !strings.EqualFold(gf.Table(), alias) {
		return -1
	}
	t := gf.Type()
	if !(types.IsInteger(t) && !types.IsYear(t)) && !types.IsDecimal(t) {
		return -1
	}
	return tb.ColumnIndex(gf.Name())
}

// checkNumber is e's value when e is a non-NULL integer or DECIMAL
// literal that fits int64 digits (SF-2).
func checkNumber(e sql.Expression) (scanfilter.Num, bool) {
	d, ok := exactLiteral(e)
	if !ok {
		return scanfilter.Num{}, false
	}
	return numberOf(d)
}

// numberOf is v as an exact number, when it is an integer or DECIMAL of
// int64 digits (1E+3 has the scale -3).
func numberOf(v any) (scanfilter.Num, bool) {
	m, exp, ok := digits(v)
	return scanfilter.Num{M: m, Scale: -exp}, ok
}

// topNBound returns n with a bound for a top-N ordered first by f on the
// table it reads, when f is an integer or DECIMAL column of that table
// and n reaches the table through projections that pass the column,
// filters and memory checks only.
func topNBound(f sql.SortField, n sql.Node) (sql.Node, bool) {
	col := f.Column
	if k, ok := col.(*decimalSortKey); ok { // RULE-79's key compares exactly too
		col = k.Expression
	}
	gf, ok := col.(*expression.GetField)
	if !ok {
		return n, false
	}
	var rebuild func(n sql.Node) (sql.Node, bool)
	rebuild = func(n sql.Node) (sql.Node, bool) {
		switch x := n.(type) {
		case *plan.Project:
			if !passesColumn(x.Projections, gf) {
				return n, false
			}
		case *plan.Filter, *memoryChecked:
		default:
			return withScanChecks(n, func(alias string, tb scanCheckable) []scanfilter.Cond {
				for _, c := range tb.ScanChecks() {
					if c.Bound != nil {
						return nil // one per table
					}
				}
				col := numericColumn(gf, alias, tb)
				if col < 0 {
					return nil
				}
				op := scanfilter.LE // ascending: rows above the worst kept cannot enter
				if f.Order == sql.Descending {
					op = scanfilter.GE
				}
				// RULE-82's order: NULL first in ascending order under
				// NullsFirst, and in descending order otherwise.
				nullFirst := (f.Order == sql.Descending) != (f.NullOrdering == sql.NullsFirst)
				return []scanfilter.Cond{{Col: col, Op: op, Bound: &scanfilter.Bound{}, NullFirst: nullFirst}}
			})
		}
		c, ok := rebuild(n.Children()[0])
		if !ok {
			return n, false
		}
		nn, err := n.WithChildren(c)
		return nn, err == nil
	}
	return rebuild(n)
}

// passesColumn reports whether projections pass column gf as itself: a
// bare column of that table and name, and nothing else by its name.
func passesColumn(projections []sql.Expression, gf *expression.GetField) bool {
	found := false
	for _, p := range projections {
		if !strings.EqualFold(p.String(), gf.String()) && !strings.EqualFold(nameOf(p), gf.Name()) {
			continue
		}
		pg, ok := p.(*expression.GetField)
		if !ok || !strings.EqualFold(pg.Table(), gf.Table()) || !strings.EqualFold(pg.Name(), gf.Name()) {
			return false
		}
		found = true
	}
	return found
}

func nameOf(e sql.Expression) string {
	if n, ok := e.(sql.Nameable); ok {
		return n.Name()
	}
	return ""
}

// scanBound is the bound a top-N over n sets (RULE-95), or nil: the one
// of the table n reads through the nodes topNBound passes.
func scanBound(n sql.Node) *scanfilter.Bound {
	for {
		switch n.(type) {
		case *plan.Project, *plan.Filter, *memoryChecked:
			n = n.Children()[0]
			continue
		}
		break
	}
	_, tb := filteredTable(n)
	if tb == nil {
		return nil
	}
	for _, c := range tb.ScanChecks() {
		if c.Bound != nil {
			return c.Bound
		}
	}
	return nil
}
