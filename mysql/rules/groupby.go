package rules

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// RULE-80 A GROUP BY with grouping expressions finds each row's group by
// the exact bytes of its key in a Go map: per expression, NULL, or a
// string type's collation weight string (what go-mysql-server hashed),
// or the value's text as fmt's %v prints it (what it hashed otherwise),
// each length-prefixed. Groups, their aggregation buffers (the same
// buffers: FIRST for a plain column) and their order (first seen first)
// are go-mysql-server's. Its grouping iterator hashed every key through
// fmt.Fprintf into a fresh xxhash and kept the groups in a locked cache
// by that 64-bit hash: 45% of `GROUP BY customer_id` over 250,000 rows
// (and two keys with one hash were one group). The GroupBy stays in the
// plan; Exec runs it with groupIter. When the grouping columns lead an
// index that covers what the table gives, the table is read through that
// index, so rows of one group come together and most rows find their
// group as the last row's, without the map.
func fastGroupings(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		g, ok := n.(*plan.GroupBy)
		if !ok || len(g.GroupByExprs) == 0 {
			return n, transform.SameTree, nil
		}
		child := orderedGroupSource(ctx, g)
		if child == nil {
			return n, transform.SameTree, nil
		}
		ng, err := g.WithChildren(child)
		if err != nil {
			return n, transform.SameTree, nil
		}
		return ng, transform.NewTree, nil
	})
}

// Exec builds the row iterators of every plan (the server installs it as
// the analyzer's ExecBuilder, and the rules' own nodes build their
// children with it): go-mysql-server's builder, with the nodes strata
// runs itself taken first (RULE-80's GROUP BY, RULE-82's top-N, RULE-83's
// sort, RULE-84's DISTINCT, RULE-86's index lookups, RULE-87's hash
// lookups). The plan keeps
// go-mysql-server's nodes, which its validation reads (aggregations
// under a *plan.GroupBy whose parent is a Project, Having or Sort).
var Exec = rowexec.NewOverrideBuilder(overrides{})

type overrides struct{}

func (overrides) Build(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	var run func(child sql.RowIter) (sql.RowIter, error)
	switch x := n.(type) {
	case *plan.GroupBy: // RULE-80
		if len(x.GroupByExprs) == 0 {
			if a := newScanAgg(ctx, x); a != nil { // RULE-96
				return &scanAggIter{a: a}, nil
			}
			return nil, nil
		}
		run = func(child sql.RowIter) (sql.RowIter, error) {
			return &groupIter{child: child, selected: x.SelectedExprs, groupBy: x.GroupByExprs, index: map[string]int{}, last: -1}, nil
		}
		if ig, ok := newIndexGroups(ctx, x, row).(*indexGroupsIter); ok { // RULE-97
			ig.fallback = func() (sql.RowIter, error) {
				child, err := Exec.Build(ctx, n.Children()[0], row)
				if err != nil {
					return nil, err
				}
				return run(child)
			}
			return ig, nil
		}
	case *plan.TopN: // RULE-82
		if x.CalcFoundRows {
			return nil, nil
		}
		run = func(child sql.RowIter) (sql.RowIter, error) {
			it, err := newTopNIter(ctx, x, child)
			if err == nil {
				it.bound = scanBound(x.Child) // RULE-95
			}
			return it, err
		}
	case *plan.Distinct: // RULE-84
		run = func(child sql.RowIter) (sql.RowIter, error) {
			return &distinctIter{child: child, seen: map[string]struct{}{}, ints: map[int64]struct{}{}}, nil
		}
	case *plan.Sort: // RULE-83
		run = func(child sql.RowIter) (sql.RowIter, error) {
			return &sortIter{child: child, fields: x.SortFields}, nil
		}
	case *plan.TableAlias: // RULE-86
		if ita, ok := x.Child.(*plan.IndexedTableAccess); ok {
			return lookupRows(ctx, ita, row, nil)
		}
		return nil, nil
	case *plan.IndexedTableAccess: // RULE-86
		return lookupRows(ctx, x, row, nil)
	case *plan.HashLookup: // RULE-87
		return hashedRows(ctx, x, row)
	case *plan.JoinNode: // RULE-102
		return newJoinRows(ctx, x, row)
	case *plan.Filter: // RULE-95's deferred checks take their values as the filter runs
		bindDeferred(ctx, x)
		return nil, nil
	default:
		return nil, nil
	}
	child, err := Exec.Build(ctx, n.Children()[0], row)
	if err != nil {
		return nil, err
	}
	return run(child)
}

// integerColumn reports whether schema's column name is an integer (not
// YEAR): the backend reads only those from an index entry (IX-3).
func integerColumn(schema sql.Schema, name string) bool {
	for _, c := range schema {
		if strings.EqualFold(c.Name, name) {
			return types.IsInteger(c.Type) && !types.IsYear(c.Type)
		}
	}
	return false
}

// orderedGroupSource returns g's child reading its table through an index
// whose leading columns are the grouping columns, when g groups by
// columns of one table read whole (optionally filtered) and that index
// covers every column the table gives (backend IX-3: integer columns of
// the index and the primary key, read without the row).
// Rows of one group then come one after another, and groupIter finds
// most rows' group without the map (RULE-80); the groups still come
// out in the order first seen (now the index's). nil when it does not
// apply.
func orderedGroupSource(ctx *sql.Context, g *plan.GroupBy) sql.Node {
	// The path to the table: memory checks and filters above it.
	var path []sql.Node
	n := g.Child
	for {
		switch x := n.(type) {
		case *memoryChecked, *plan.Filter:
			path = append(path, x)
			n = x.Children()[0]
			continue
		}
		break
	}
	var alias *plan.TableAlias
	if ta, ok := n.(*plan.TableAlias); ok {
		alias, n = ta, ta.Child
	}
	rt, ok := n.(*plan.ResolvedTable)
	if !ok {
		return nil
	}
	name := rt.Name()
	if alias != nil {
		name = alias.Name()
	}
	grouped := map[string]bool{}
	for _, e := range g.GroupByExprs {
		gf, ok := e.(*expression.GetField)
		if !ok || !strings.EqualFold(gf.Table(), name) {
			return nil
		}
		grouped[strings.ToLower(gf.Name())] = true
	}
	pt, ok := rt.UnderlyingTable().(sql.ProjectedTable)
	if !ok || pt.Projections() == nil {
		return nil
	}
	ia, ok := rt.UnderlyingTable().(sql.IndexAddressableTable)
	if !ok {
		return nil
	}
	indexes, err := ia.GetIndexes(ctx)
	if err != nil {
		return nil
	}
	var pk []string
	schema := rt.Schema()
	if pkt, ok := rt.UnderlyingTable().(sql.PrimaryKeyTable); ok {
		schema = pkt.PrimaryKeySchema().Schema
	}
	for _, c := range schema {
		if c.PrimaryKey {
			pk = append(pk, strings.ToLower(c.Name))
		}
	}
	for _, idx := range indexes {
		if idx.IsSpatial() || idx.IsFullText() {
			continue
		}
		if oi, ok := idx.(sql.OrderedIndex); !ok || oi.Order() == sql.IndexOrderNone {
			continue
		}
		cols := idx.Expressions()
		if len(cols) < len(grouped) {
			continue
		}
		covered := map[string]bool{}
		lead := true
		for j, c := range cols {
			c = strings.ToLower(c[strings.LastIndexByte(c, '.')+1:])
			if j < len(grouped) && (!grouped[c] || idx.PrefixLengths() != nil && j < len(idx.PrefixLengths()) && idx.PrefixLengths()[j] != 0) {
				lead = false
				break
			}
			covered[c] = true
		}
		if !lead {
			continue
		}
		for _, c := range pk {
			covered[c] = true
		}
		all := true
		for _, c := range pt.Projections() {
			if !covered[strings.ToLower(c)] || !integerColumn(schema, c) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		rang := make(sql.MySQLRange, len(cols))
		for j, cet := range idx.ColumnExpressionTypes() {
			rang[j] = sql.AllRangeColumnExpr(cet.Type)
		}
		ita, err := plan.NewStaticIndexedAccessForTableNode(ctx, rt, sql.IndexLookup{Index: idx, Ranges: sql.MySQLRangeCollection{rang}})
		if err != nil {
			continue
		}
		var out sql.Node = ita
		if alias != nil {
			if out, err = alias.WithChildren(ita); err != nil {
				return nil
			}
		}
		for i := len(path) - 1; i >= 0; i-- {
			if out, err = path[i].WithChildren(out); err != nil {
				return nil
			}
		}
		return out
	}
	return nil
}

type groupIter struct {
	child    sql.RowIter
	selected []sql.Expression
	groupBy  []sql.Expression
	index    map[string]int // a key's group
	groups   groupBuffers
	rows     sql.Row // the rest of the block the next output row is cut from
	computed bool
	pos      int
	key      []byte
	prev     []byte     // the key of group last
	last     int        // the last row's group, or -1
	ws       byteWriter // a string's weights
	// While each new group's key is above the one before (input in
	// grouping order, as RULE-80's index reads give), no key can have
	// been seen: groups are made without the map, their keys kept in one
	// arena, and the map is built from them when a key does not rise.
	unsorted  bool
	keys      []byte // the groups' keys, one after another
	keyEnds   []int
	curInt    int64 // the row's key as an integer (curIsInt), for one integer column
	curIsInt  bool
	lastInt   int64 // the last new group's integer key (lastIsInt)
	lastIsInt bool
	vals      []any // the row's grouping values
	lastVals  []any // the grouping values the last key was built from
}

// rises reports whether i.key, the key of a row not in the last row's
// group, is above the last group made: numerically for integer keys, by
// bytes otherwise (keys of one kind compare in one total order, so a
// rising key is new).
func (i *groupIter) rises() bool {
	n := len(i.keyEnds)
	if n == 0 {
		return true
	}
	if i.curIsInt && i.lastIsInt {
		return i.curInt > i.lastInt
	}
	start := 0
	if n > 1 {
		start = i.keyEnds[n-2]
	}
	return bytes.Compare(i.key, i.keys[start:i.keyEnds[n-1]]) > 0
}

// indexKeys builds the map from the groups' keys (the input stopped
// rising).
func (i *groupIter) indexKeys() {
	i.unsorted = true
	start := 0
	for g, end := range i.keyEnds {
		i.index[string(i.keys[start:end])] = g
		start = end
	}
	i.keys, i.keyEnds = nil, nil
}

func (i *groupIter) Next(ctx *sql.Context) (sql.Row, error) {
	if !i.computed {
		i.computed = true
		if err := i.compute(ctx); err != nil {
			return nil, err
		}
	}
	if i.pos >= i.groups.n {
		return nil, io.EOF
	}
	b := i.groups.get(i.pos)
	i.pos++
	if len(i.rows) < len(b) { // rows carved from blocks, never reused
		i.rows = make(sql.Row, len(b)*256)
	}
	out := i.rows[:len(b):len(b)]
	i.rows = i.rows[len(b):]
	for j, buf := range b {
		v, err := buf.Eval(ctx)
		if err != nil {
			return nil, err
		}
		out[j] = v
	}
	return out, nil
}

func (i *groupIter) compute(ctx *sql.Context) error {
	for {
		row, err := i.child.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		same, err := i.evalGroup(ctx, row)
		if err != nil {
			return err
		}
		g, ok := i.last, same // the last row's values: its group, no key
		if !same {
			if err := i.appendKey(ctx); err != nil {
				return err
			}
			i.lastVals = append(i.lastVals[:0], i.vals...)
			ok = i.last >= 0 && bytes.Equal(i.key, i.prev) // the last row's group: no map
		}
		if !ok && !i.unsorted && !i.rises() {
			i.indexKeys()
		}
		if !ok && i.unsorted {
			g, ok = i.index[string(i.key)]
		}
		if !ok {
			b := i.groups.add(len(i.selected))
			for j, e := range i.selected {
				if a, ok := e.(sql.Aggregation); ok {
					b[j], err = a.NewBuffer()
				} else { // a plain column: FIRST, as go-mysql-server's
					b[j], err = aggregation.NewFirst(e).NewBuffer()
				}
				if err != nil {
					return err
				}
			}
			g = i.groups.n - 1
			if i.unsorted {
				i.index[string(i.key)] = g
			} else {
				i.keys = append(i.keys, i.key...)
				i.keyEnds = append(i.keyEnds, len(i.keys))
				i.lastInt, i.lastIsInt = i.curInt, i.curIsInt
			}
		}
		if g != i.last {
			i.last = g
			i.prev, i.key = i.key, i.prev
		}
		for _, b := range i.groups.get(g) {
			if err := b.Update(ctx, row); err != nil {
				return err
			}
		}
	}
}

// evalGroup sets i.vals to row's grouping values and reports whether
// they are the last row's exactly (the same integers or strings, or both
// NULL): then so is its group, whose key need not be built (RULE-80; the
// key's collation weights were a tenth of join-100's CPU).
func (i *groupIter) evalGroup(ctx *sql.Context, row sql.Row) (bool, error) {
	i.vals = i.vals[:0]
	same := i.last >= 0 && len(i.lastVals) == len(i.groupBy)
	for j, e := range i.groupBy {
		v, err := e.Eval(ctx, row)
		if err != nil {
			return false, err
		}
		i.vals = append(i.vals, v)
		same = same && sameValue(v, i.lastVals[j])
	}
	return same, nil
}

// sameValue reports a and b the same integer or string, or both NULL;
// false for anything else (the key decides).
func sameValue(a, b any) bool {
	switch a.(type) {
	case nil, int64, int32, int16, int8, uint64, uint32, uint16, uint8, string:
		return a == b // the same dynamic type and value
	}
	return false
}

// appendKey sets i.key to the grouping key of i.vals (RULE-80).
func (i *groupIter) appendKey(ctx *sql.Context) error {
	k := i.key[:0]
	i.curIsInt = false
	for j, e := range i.groupBy {
		v := i.vals[j]
		if len(i.groupBy) == 1 {
			i.curInt, i.curIsInt = intValue(v)
		}
		if v == nil {
			k = append(k, 0)
			continue
		}
		if st, ok := e.Type().(sql.StringType); ok {
			s, err := types.ConvertToString(ctx, v, st, nil)
			if err != nil {
				return err
			}
			if st.Collation().PadAttribute() == "PAD SPACE" {
				// 'a' and 'a ' are one group (RULE-26's equality)
				s = strings.TrimRight(s, " ")
			}
			w := &i.ws
			if w.b, err = appendWeightString(w.b[:0], st.Collation(), s); err != nil {
				return err
			}
			k = append(k, 1)
			k = binary.AppendUvarint(k, uint64(len(w.b)))
			k = append(k, w.b...)
			continue
		}
		k = append(k, 2)
		at := len(k)
		k = append(k, 0, 0) // the text's length, set below
		k = appendValueText(k, v)
		n := len(k) - at - 2
		if n > 0xFFFF {
			return fmt.Errorf("grouping key value of %d bytes", n)
		}
		binary.BigEndian.PutUint16(k[at:], uint16(n))
	}
	i.key = k
	return nil
}

// appendValueText appends v as fmt's %v prints it.
func appendValueText(b []byte, v any) []byte {
	switch x := v.(type) {
	case int64:
		return strconv.AppendInt(b, x, 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case int16:
		return strconv.AppendInt(b, int64(x), 10)
	case int8:
		return strconv.AppendInt(b, int64(x), 10)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10)
	case string:
		return append(b, x...)
	case decimal.Decimal:
		return append(b, x.String()...)
	}
	return fmt.Appendf(b, "%v", v)
}

type byteWriter struct{ b []byte }

func (w *byteWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

func (i *groupIter) Close(ctx *sql.Context) error {
	for _, c := range i.groups.chunks {
		for _, b := range c {
			if b != nil {
				b.Dispose()
			}
		}
	}
	i.groups, i.index = groupBuffers{}, nil
	return i.child.Close(ctx)
}

// groupBuffers holds the groups' aggregation buffers, k per group, in
// chunks of groupChunk groups: appending one group neither allocates its
// own slice nor copies the groups before it (one growing slice of
// slices was 10% of a GROUP BY making 50,000 groups).
type groupBuffers struct {
	chunks [][]sql.AggregationBuffer
	k, n   int
}

const groupChunk = 1024

// add makes room for one more group of k buffers (k is the same for
// every group) and returns it.
func (g *groupBuffers) add(k int) []sql.AggregationBuffer {
	g.k = k
	at := g.n % groupChunk
	if at == 0 {
		g.chunks = append(g.chunks, make([]sql.AggregationBuffer, groupChunk*k))
	}
	g.n++
	c := g.chunks[len(g.chunks)-1]
	return c[at*k : (at+1)*k : (at+1)*k]
}

// get is group i's buffers.
func (g *groupBuffers) get(i int) []sql.AggregationBuffer {
	at := i % groupChunk
	return g.chunks[i/groupChunk][at*g.k : (at+1)*g.k : (at+1)*g.k]
}

// RULE-84 SELECT DISTINCT (plan.Distinct; a DISTINCT over strings
// compared by collation is RULE-7's GROUP BY) keeps the rows whose values,
// as fmt's %v prints them (what go-mysql-server hashed), it has not
// returned yet, by exact bytes in a Go map; NULL is its own value.
// go-mysql-server printed every row through fmt.Fprintf into xxhash and
// kept the 64-bit hashes in a locked cache (two rows with one hash: one
// row). Run by Exec.
type distinctIter struct {
	child sql.RowIter
	seen  map[string]struct{}
	ints  map[int64]struct{} // a one-column row of a signed integer
	key   []byte
}

// intKey is v as the key of a one-column row of a signed integer (its
// text, %v, is its value's).
func intKey(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case int:
		return int64(x), true
	}
	return 0, false
}

func (d *distinctIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		row, err := d.child.Next(ctx)
		if err != nil {
			return nil, err
		}
		if len(row) == 1 { // one integer column: its value is the key
			if x, ok := intKey(row[0]); ok {
				if _, dup := d.ints[x]; dup {
					continue
				}
				d.ints[x] = struct{}{}
				return row, nil
			}
		}
		k := d.key[:0]
		for _, v := range row {
			if v, err = sql.UnwrapAny(ctx, v); err != nil {
				return nil, err
			}
			if v == nil {
				k = append(k, 0)
				continue
			}
			k = append(k, 2)
			at := len(k)
			k = append(k, 0, 0, 0, 0)
			k = appendValueText(k, v)
			binary.BigEndian.PutUint32(k[at:], uint32(len(k)-at-4))
		}
		d.key = k
		if _, dup := d.seen[string(k)]; dup {
			continue
		}
		d.seen[string(k)] = struct{}{}
		return row, nil
	}
}

func (d *distinctIter) Close(ctx *sql.Context) error {
	d.seen, d.ints = nil, nil
	return d.child.Close(ctx)
}

// intValue is v as an int64 when it is a signed integer (intKey), or an
// unsigned one that fits (rises compares such keys as numbers).
func intValue(v any) (int64, bool) {
	if x, ok := intKey(v); ok {
		return x, true
	}
	switch x := v.(type) {
	case uint32:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}
