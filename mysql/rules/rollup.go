package rules

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"strata/memgov"
)

// RollupMarker is the function the server writes for WITH ROLLUP: GROUP
// BY a, b WITH ROLLUP reaches the analyzer as GROUP BY a, b,
// strata_rollup() (the parser has no WITH ROLLUP).
const RollupMarker = "strata_rollup"

// rollups implements RULE-50: GROUP BY g1, ..., gk WITH ROLLUP returns
// the groups of g1..gk, and after each group of a prefix g1..gl (l < k)
// the super-aggregate row of that prefix, with g(l+1)..gk NULL, ending
// with the grand total; rows come in the order of the grouping values
// (NULLs first), each super-aggregate after its groups, as MySQL returns
// them. HAVING, ORDER BY and LIMIT apply to all rows as in MySQL. The
// grouping runs over the child's rows sorted in memory (memgov bounds
// them).
func rollups(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	n, same, err := transform.Node(n, rollupOf)
	if err != nil {
		return nil, same, err
	}
	// A marked GroupBy left over (not under a Project) would silently
	// drop the super-aggregate rows: refuse instead.
	left := transform.InspectUp(n, func(n sql.Node) bool {
		gb, ok := n.(*plan.GroupBy)
		if !ok {
			return false
		}
		_, marked := newRollup(gb)
		return marked
	})
	if left {
		return nil, same, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of Strata doesn't yet support 'WITH ROLLUP in this query'")
	}
	return n, same, nil
}

func rollupOf(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	{
		p, ok := n.(*plan.Project)
		if !ok {
			return n, transform.SameTree, nil
		}
		// The nodes between the Project and its GroupBy pass rows through.
		var chain []sql.Node
		var gb *plan.GroupBy
		for c := p.Child; gb == nil; {
			switch x := c.(type) {
			case *plan.GroupBy:
				gb = x
			case *plan.Sort, *plan.Having, *plan.Filter, *plan.Limit, *plan.Distinct, *plan.TopN, *memoryChecked:
				chain = append(chain, x)
				c = x.Children()[0]
			default:
				return n, transform.SameTree, nil
			}
		}
		r, ok := newRollup(gb)
		if !ok {
			return n, transform.SameTree, nil
		}
		// Above the rollup, a grouping expression reads the hidden column
		// that holds it (NULL in the rows that roll it up).
		hide := func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return transform.Expr(e, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				if _, ok := x.(*expression.GetField); ok {
					return x, transform.SameTree, nil // a grouping column: the level's own column is NULL already
				}
				for i, g := range r.groups {
					if x.String() == g.String() {
						return expression.NewGetField(len(gb.SelectedExprs)+i, g.Type(), x.String(), true), transform.NewTree, nil
					}
				}
				return x, transform.SameTree, nil
			})
		}
		var node sql.Node = r
		for i := len(chain) - 1; i >= 0; i-- {
			nc, err := chain[i].WithChildren(node)
			if err != nil {
				return nil, transform.SameTree, err
			}
			if nc, _, err = transform.OneNodeExprsWithNode(nc, func(_ sql.Node, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				return hide(e)
			}); err != nil {
				return nil, transform.SameTree, err
			}
			node = nc
		}
		np, err := p.WithChildren(node)
		if err != nil {
			return nil, transform.SameTree, err
		}
		np, _, err = transform.OneNodeExprsWithNode(np, func(_ sql.Node, e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			return hide(e)
		})
		if err != nil {
			return nil, transform.SameTree, err
		}
		return np, transform.NewTree, nil
	}
}

// newRollup makes the rollup of a GroupBy marked WITH ROLLUP: its rows
// are the GroupBy's columns, then one hidden column per grouping
// expression.
func newRollup(gb *plan.GroupBy) (*rollup, bool) {
	var groups []sql.Expression
	marked := false
	for _, g := range gb.GroupByExprs {
		if f, ok := g.(sql.FunctionExpression); ok && strings.EqualFold(f.FunctionName(), RollupMarker) {
			marked = true
			continue
		}
		groups = append(groups, g)
	}
	if !marked {
		return nil, false
	}
	levels := make([][]sql.Expression, len(groups)+1)
	for l := range levels {
		dropped := map[string]bool{}
		for _, g := range groups[l:] {
			dropped[g.String()] = true
		}
		for _, e := range gb.SelectedExprs {
			levels[l] = append(levels[l], nullDropped(e, dropped))
		}
		for i, g := range groups {
			if i < l {
				levels[l] = append(levels[l], g)
			} else {
				levels[l] = append(levels[l], expression.NewLiteral(nil, g.Type()))
			}
		}
	}
	return &rollup{UnaryNode: plan.UnaryNode{Child: gb.Child}, gb: gb, groups: groups, levels: levels}, true
}

// nullDropped is e with the grouping expressions a super-aggregate row
// leaves out replaced by NULL, outside aggregates.
func nullDropped(e sql.Expression, dropped map[string]bool) sql.Expression {
	if _, ok := e.(sql.Aggregation); ok {
		return e
	}
	out, _, err := transform.Expr(e, func(x sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if _, ok := x.(sql.Aggregation); ok {
			return x, transform.SameTree, nil
		}
		if dropped[x.String()] {
			return expression.NewLiteral(nil, x.Type()), transform.NewTree, nil
		}
		return x, transform.SameTree, nil
	})
	if err != nil {
		return e
	}
	return out
}

type rollup struct {
	plan.UnaryNode
	gb     *plan.GroupBy
	groups []sql.Expression
	levels [][]sql.Expression // per prefix length l = 0..k: the selected expressions
}

var _ sql.ExecSourceRel = (*rollup)(nil)

func (r *rollup) Schema() sql.Schema {
	sch := append(sql.Schema{}, r.gb.Schema()...)
	for _, g := range r.groups {
		sch = append(sch, &sql.Column{Name: g.String(), Type: g.Type(), Nullable: true})
	}
	return sch
}
func (r *rollup) IsReadOnly() bool { return r.Child.IsReadOnly() }
func (r *rollup) String() string   { return fmt.Sprintf("Rollup(%s)", r.gb.String()) }

func (r *rollup) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(r, len(children), 1)
	}
	nr := *r
	nr.Child = children[0]
	return &nr, nil
}

func (r *rollup) RowIter(ctx *sql.Context, parent sql.Row) (sql.RowIter, error) {
	it, err := Exec.Build(ctx, r.Child, parent)
	if err != nil {
		return nil, err
	}
	type keyed struct {
		key sql.Row
		row sql.Row
	}
	var rows []keyed
	for n := 0; ; n++ {
		row, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			it.Close(ctx)
			return nil, err
		}
		if n >= memgov.MinRows && n%64 == 0 && memgov.Check() != nil {
			it.Close(ctx)
			return nil, ErrOutOfMemory()
		}
		key := make(sql.Row, len(r.groups))
		for i, g := range r.groups {
			if key[i], err = g.Eval(ctx, row); err != nil {
				it.Close(ctx)
				return nil, err
			}
		}
		rows = append(rows, keyed{key, row})
	}
	if err := it.Close(ctx); err != nil {
		return nil, err
	}
	var sortErr error
	sort.SliceStable(rows, func(a, b int) bool {
		for i, g := range r.groups {
			c, err := compareNullsFirst(ctx, g.Type(), rows[a].key[i], rows[b].key[i])
			if err != nil {
				sortErr = err
				return false
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	if sortErr != nil {
		return nil, sortErr
	}
	var out []sql.Row
	if len(rows) > 0 {
		k := len(r.groups)
		bufs := make([][]sql.AggregationBuffer, k+1)
		reset := func(l int) error {
			bufs[l] = make([]sql.AggregationBuffer, len(r.levels[l]))
			for i, e := range r.levels[l] {
				var err error
				if a, ok := e.(sql.Aggregation); ok {
					bufs[l][i], err = a.NewBuffer()
				} else {
					bufs[l][i], err = aggregation.NewFirst(e).NewBuffer()
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
		emit := func(l int) error {
			row := make(sql.Row, len(bufs[l]))
			for i, b := range bufs[l] {
				v, err := b.Eval(ctx)
				if err != nil {
					return err
				}
				row[i] = v
				b.Dispose()
			}
			out = append(out, row)
			return reset(l)
		}
		for l := 0; l <= k; l++ {
			if err := reset(l); err != nil {
				return nil, err
			}
		}
		for n, kr := range rows {
			if n > 0 {
				d := k // the first grouping value that changed
				for i, g := range r.groups {
					if c, err := compareNullsFirst(ctx, g.Type(), rows[n-1].key[i], kr.key[i]); err != nil {
						return nil, err
					} else if c != 0 {
						d = i
						break
					}
				}
				for l := k; l > d; l-- {
					if err := emit(l); err != nil {
						return nil, err
					}
				}
			}
			for l := 0; l <= k; l++ {
				for _, b := range bufs[l] {
					if err := b.Update(ctx, kr.row); err != nil {
						return nil, err
					}
				}
			}
		}
		for l := k; l >= 0; l-- {
			if err := emit(l); err != nil {
				return nil, err
			}
		}
	}
	return sql.RowsToRowIter(out...), nil
}

// compareNullsFirst orders values of t with NULL before every value.
func compareNullsFirst(ctx *sql.Context, t sql.Type, a, b any) (int, error) {
	switch {
	case a == nil && b == nil:
		return 0, nil
	case a == nil:
		return -1, nil
	case b == nil:
		return 1, nil
	}
	return t.Compare(ctx, a, b)
}

// rollupMarker is strata_rollup(): a constant, only ever read as the
// marker.
func rollupMarker() sql.Function {
	return fn(RollupMarker, 0, 0, fixed(types.Int8), func(*sql.Context, []any) (any, error) { return int8(0), nil })
}
