package rules

import (
	"container/heap"
	"io"
	"sort"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/iters"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"strata/mysql/scanfilter"
)

// RULE-82 A top-N (ORDER BY ... LIMIT n, plan.TopN) without
// SQL_CALC_FOUND_ROWS keeps its n best rows in a heap whose worst row is
// on top: each row's sort keys are evaluated once, and a row no better
// than the worst kept is dropped after one comparison. Rows equal on
// every sort key keep their input order (the first n of a stable sort).
// go-mysql-server's top-N pushed every row into its heap and popped the
// worst, re-evaluating the sort keys of both rows in each of the ~2 log n
// comparisons (half of `ORDER BY total DESC, id LIMIT 10` over 250,000
// rows). Keys compare exactly as go-mysql-server's Sorter compares them
// (each field's type, direction and NULL ordering). Run by Exec.
type topNIter struct {
	sortedRows
	child  sql.RowIter
	fields []sql.SortField
	limit  int64
	kept   topHeap
	bound  *scanfilter.Bound // RULE-95: the first key's bound on the scan below, or nil
}

// sortedRows hands out the rows of out in order, computing them on the
// first call (RULE-82, RULE-83).
type sortedRows struct {
	out  []topEntry
	pos  int
	done bool
}

func (o *sortedRows) next(ctx *sql.Context, compute func(*sql.Context) error) (sql.Row, error) {
	if !o.done {
		o.done = true
		if err := compute(ctx); err != nil {
			return nil, err
		}
	}
	if o.pos >= len(o.out) {
		return nil, io.EOF
	}
	o.pos++
	return o.out[o.pos-1].row, nil
}

// sortKeys appends the values of fields on row to keys.
func sortKeys(ctx *sql.Context, fields []sql.SortField, row sql.Row, keys []any) ([]any, error) {
	for _, sf := range fields {
		v, err := sf.Column.Eval(ctx, row)
		if err != nil {
			return nil, sql.ErrUnableSort.Wrap(err)
		}
		keys = append(keys, v)
	}
	return keys, nil
}

type topEntry struct {
	row  sql.Row
	keys []any
	seq  int64
}

// topHeap is a max-heap: the worst kept row on top.
type topHeap struct {
	entries []topEntry
	fields  []sql.SortField
	ctx     *sql.Context
	err     error
}

func (h *topHeap) Len() int           { return len(h.entries) }
func (h *topHeap) Swap(i, j int)      { h.entries[i], h.entries[j] = h.entries[j], h.entries[i] }
func (h *topHeap) Less(i, j int) bool { return h.compare(&h.entries[i], &h.entries[j]) > 0 }
func (h *topHeap) Push(x any)         { h.entries = append(h.entries, x.(topEntry)) }
func (h *topHeap) Pop() any {
	e := h.entries[len(h.entries)-1]
	h.entries = h.entries[:len(h.entries)-1]
	return e
}

// compare orders a before b (-1) as go-mysql-server's Sorter.Less
// would, then by input order.
func (h *topHeap) compare(a, b *topEntry) int {
	if h.err != nil {
		return 0
	}
	for i, sf := range h.fields {
		av, bv := a.keys[i], b.keys[i]
		if sf.Order == sql.Descending {
			av, bv = bv, av
		}
		switch {
		case av == nil && bv == nil:
			continue
		case av == nil:
			if sf.NullOrdering == sql.NullsFirst {
				return -1
			}
			return 1
		case bv == nil:
			if sf.NullOrdering != sql.NullsFirst {
				return -1
			}
			return 1
		}
		c, err := sf.Column.Type().Compare(h.ctx, av, bv)
		if err != nil {
			h.err = err
			return 0
		}
		if c != 0 {
			return c
		}
	}
	switch {
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

func newTopNIter(ctx *sql.Context, n *plan.TopN, child sql.RowIter) (*topNIter, error) {
	limit, err := iters.GetInt64Value(ctx, n.Limit)
	if err != nil {
		return nil, err
	}
	return &topNIter{child: child, fields: n.Fields, limit: limit, kept: topHeap{fields: n.Fields, ctx: ctx}}, nil
}

func (t *topNIter) Next(ctx *sql.Context) (sql.Row, error) { return t.next(ctx, t.compute) }

func (t *topNIter) compute(ctx *sql.Context) error {
	h := &t.kept
	h.ctx = ctx
	if t.bound != nil {
		t.bound.Reset() // SF-3: a plan run again starts unbounded
		defer t.bound.Reset()
	}
	var seq int64
	var spare []any // the keys of the last dropped row, reused
	for {
		row, err := t.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		seq++
		if t.limit <= 0 {
			continue // LIMIT 0 reads its input, as go-mysql-server's did
		}
		keys := spare[:0]
		if keys == nil {
			keys = make([]any, 0, len(t.fields))
		}
		if keys, err = sortKeys(ctx, t.fields, row, keys); err != nil {
			return err
		}
		e := topEntry{row: row, keys: keys, seq: seq}
		spare = nil
		if int64(h.Len()) < t.limit {
			heap.Push(h, e)
			if int64(h.Len()) == t.limit {
				t.setBound()
			}
		} else if h.compare(&e, &h.entries[0]) < 0 {
			spare = h.entries[0].keys
			h.entries[0] = e
			heap.Fix(h, 0)
			t.setBound()
		} else {
			spare = keys
		}
		if h.err != nil {
			return h.err
		}
	}
	t.out = h.entries
	sort.Slice(t.out, func(i, j int) bool { return h.compare(&t.out[i], &t.out[j]) < 0 })
	return h.err
}

// setBound makes the worst kept row's first key the scan's bound
// (RULE-95, SF-3); a NULL or a number the bound cannot hold leaves it
// unset.
func (t *topNIter) setBound() {
	if t.bound == nil {
		return
	}
	if v, ok := numberOf(t.kept.entries[0].keys[0]); ok {
		t.bound.Set(v)
	} else {
		t.bound.Reset()
	}
}

func (t *topNIter) Close(ctx *sql.Context) error {
	t.out, t.kept.entries = nil, nil
	return t.child.Close(ctx)
}

// RULE-83 ORDER BY without LIMIT (plan.Sort) evaluates each row's sort
// keys once and sorts the rows by them, ties in input order (a stable
// sort), comparing as go-mysql-server's Sorter (RULE-82's compare).
// go-mysql-server's sort evaluated both rows' keys in every one of its
// n log n comparisons. Run by Exec.
type sortIter struct {
	sortedRows
	child  sql.RowIter
	fields []sql.SortField
}

func (s *sortIter) Next(ctx *sql.Context) (sql.Row, error) { return s.next(ctx, s.compute) }

func (s *sortIter) compute(ctx *sql.Context) error {
	var seq int64
	for {
		row, err := s.child.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		seq++
		keys, err := sortKeys(ctx, s.fields, row, make([]any, 0, len(s.fields)))
		if err != nil {
			return err
		}
		s.out = append(s.out, topEntry{row: row, keys: keys, seq: seq})
	}
	h := &topHeap{fields: s.fields, ctx: ctx}
	sort.Slice(s.out, func(i, j int) bool { return h.compare(&s.out[i], &s.out[j]) < 0 })
	return h.err
}

func (s *sortIter) Close(ctx *sql.Context) error {
	s.out = nil
	return s.child.Close(ctx)
}
