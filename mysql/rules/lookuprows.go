package rules

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// RULE-86 An index lookup (plan.IndexedTableAccess, under its table alias
// or not) whose table gives its rows for a lookup in one step (backend
// Table.LookupRows) is run through it: go-mysql-server built a partition
// iterator, a table iterator and two tracing wrappers around the backend's
// rows, for every outer row of a lookup join (a fifth of
// exists-returned's CPU with the lookup itself). Same lookup (the node's
// own GetLookup of the outer row), same rows; a table with virtual
// columns, or another kind of table, goes through go-mysql-server.
type lookupRower interface {
	LookupRows(ctx *sql.Context, lookup sql.IndexLookup) (sql.RowIter, error)
}

// equalLookuper is a table that finds the rows of an equality of integer
// keys without ranges (backend Table.LookupEqualRows, IX-7): RULE-86 asks
// it first for a lookup join's key values.
type equalLookuper interface {
	LookupEqualRows(ctx *sql.Context, index sql.Index, vals []any) (sql.RowIter, bool, error)
}

// lookupRows is RULE-86's iterator for ita under the outer row; nil, nil
// when go-mysql-server must build it. scratch, when not nil, holds the
// key values between calls (the backend keeps none of them).
func lookupRows(ctx *sql.Context, ita *plan.IndexedTableAccess, row sql.Row, scratch *[]any) (sql.RowIter, error) {
	lr, ok := ita.Table.(lookupRower)
	if !ok {
		return nil, nil
	}
	if _, virtual := plan.FindVirtualColumnTable(ita.Table); virtual {
		return nil, nil
	}
	if eq, ok := ita.Table.(equalLookuper); ok && !ita.IsStatic() && !slices.Contains(ita.NullMask(), true) {
		// An equality of integer keys: the backend encodes them itself.
		keys := ita.Expressions()
		var vals []any
		if scratch != nil && cap(*scratch) >= len(keys) {
			vals = (*scratch)[:len(keys)]
		} else {
			vals = make([]any, len(keys))
			if scratch != nil {
				*scratch = vals
			}
		}
		for i, e := range keys {
			v, err := e.Eval(ctx, row)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		if it, ok, err := eq.LookupEqualRows(ctx, ita.Index(), vals); ok || err != nil {
			return it, err
		}
	}
	lookup, err := ita.GetLookup(ctx, row)
	if err != nil {
		return nil, err
	}
	if !ita.IsStatic() {
		if lookup.IsEmptyRange, err = emptyLookup(ctx, ita, row, lookup.IsEmptyRange); err != nil {
			return nil, err
		}
	}
	return lr.LookupRows(ctx, lookup)
}

// emptyLookup reports whether a lookup is empty: go-mysql-server's
// builder marked every NULL key empty, though it had made the NULL range
// of a null-safe (<=>) key (`a LEFT JOIN b ON a.u <=> b.u` through b's
// index found no b row for a NULL a.u); and it converted each key to the
// index column's type, truncating or clamping it, so a key no value of
// the column equals (1.50 against an INT column, -1 against an UNSIGNED
// one) found the rows of another (RULE-86).
func emptyLookup(ctx *sql.Context, ita *plan.IndexedTableAccess, row sql.Row, marked bool) (bool, error) {
	mask := ita.NullMask()
	colTypes := ita.Index().ColumnExpressionTypes()
	keys := ita.Expressions()
	// The keys are evaluated again only when that can change the answer: a
	// NULL key marked empty under a null-safe mask, or a key of another
	// type than its numeric column (a lookup join's probe is a hot path).
	check := marked && slices.Contains(mask, true)
	for i, e := range keys {
		check = check || i < len(colTypes) && mayNotFit(e.Type(), colTypes[i].Type)
	}
	if !check {
		return marked, nil
	}
	for i, e := range keys {
		v, err := e.Eval(ctx, row)
		if err != nil {
			return true, err
		}
		if v == nil {
			if i >= len(mask) || !mask[i] {
				return true, nil
			}
			continue
		}
		if i < len(colTypes) && !keyFits(ctx, v, colTypes[i].Type) {
			return true, nil
		}
	}
	return false, nil
}

// mayNotFit reports whether a key of type k may hold a value no value of
// column type t equals: t an exact number, k another type (or precision).
func mayNotFit(k, t sql.Type) bool {
	return types.IsNumber(t) && !types.IsFloat(t) && !k.Equals(t)
}

// keyFits reports whether number v equals some value of column type t
// (anything that is not a number against a numeric column is left to
// the lookup).
func keyFits(ctx *sql.Context, v any, t sql.Type) bool {
	if !types.IsNumber(t) || types.IsFloat(t) {
		return true
	}
	d, ok := exactNumber(v)
	if !ok {
		return true
	}
	cv, _, err := t.Convert(ctx, v)
	if err != nil {
		return false
	}
	c, ok := exactNumber(cv)
	return !ok || c.Equal(d)
}

// RULE-87 A hash join's probe of its built table (plan.HashLookup, after
// go-mysql-server built the table on the first probe) hands out the
// table's rows as they are: go-mysql-server copied every matched row
// (sql.RowsToRowIter: a fifth of best-sellers' CPU in memmove), though its
// only consumers, the join iterators, copy the rows they combine and
// never write to them. Same key (the node's own GetHashKey of the probe
// row), same rows, same choice for joins that must see a NULL from a
// non-empty table.
func hashedRows(ctx *sql.Context, n *plan.HashLookup, row sql.Row) (sql.RowIter, error) {
	it, rows, err := probeHash(ctx, n, row)
	if it != nil || err != nil {
		return it, err
	}
	return &sharedRows{rows: rows}, nil
}

// probeHash is RULE-87's probe of n by row: the bucket's rows, or on the
// first probe the iterator that builds the table.
func probeHash(ctx *sql.Context, n *plan.HashLookup, row sql.Row) (sql.RowIter, []sql.Row, error) {
	n.Mutex.Lock()
	defer n.Mutex.Unlock()
	if n.Lookup == nil { // the first probe builds the table (RULE-93's keys)
		child, err := Exec.Build(ctx, n.Child, row)
		if err != nil {
			return nil, nil, err
		}
		return &hashBuilder{n: n, child: child, lookup: map[any][]sql.Row{}}, nil, nil
	}
	key, err := exactHashKey(ctx, n, n.LeftProbeKey, row, false)
	if err != nil {
		return nil, nil, err
	}
	rows := (*n.Lookup)[key]
	if len(rows) == 0 && n.JoinType.IsExcludeNulls() {
		// As go-mysql-server: any non-empty bucket, so the join can tell
		// an empty table from a miss.
		for _, r := range *n.Lookup {
			if len(r) > 0 {
				rows = r
				break
			}
		}
	}
	return nil, rows, nil
}

// RULE-93 A hash join's table (plan.HashLookup) is keyed by values that
// are equal exactly when SQL's equality holds: go-mysql-server used the
// value itself as a Go map key, so two equal DECIMALs (each holding its
// own *big.Int) never matched (`EXISTS (SELECT 1 FROM b WHERE a.de =
// b.de)` found one row of 24, a RIGHT JOIN on DECIMALs lost every
// match), and strings matched by bytes under case- and pad-insensitive
// collations. A key is converted to the probe side's type as before, then:
// a DECIMAL is its shortest text (1.50 and 1.5 alike), a string its
// collation's weights (without trailing spaces under PAD SPACE), a time
// its instant; a multi-column key is the sequence of those. A built row
// whose key the probe side's type cannot hold matches no probe.

// hashBuilder passes the child's rows through while it keys them, and
// installs the table when the child is exhausted (as go-mysql-server's
// builder: a plan may stop reading early).
type hashBuilder struct {
	n      *plan.HashLookup
	child  sql.RowIter
	lookup map[any][]sql.Row
}

func (h *hashBuilder) Next(ctx *sql.Context) (sql.Row, error) {
	r, err := h.child.Next(ctx)
	if err == io.EOF {
		h.n.Mutex.Lock()
		m := h.lookup
		h.n.Lookup = &m
		h.n.Mutex.Unlock()
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	key, err := exactHashKey(ctx, h.n, h.n.RightEntryKey, r, true)
	if err != nil {
		return nil, err
	}
	h.lookup[key] = append(h.lookup[key], r)
	return r, nil
}

func (h *hashBuilder) Close(ctx *sql.Context) error { return h.child.Close(ctx) }

// exactHashKey is RULE-93's key of e over row.
func exactHashKey(ctx *sql.Context, n *plan.HashLookup, e sql.Expression, row sql.Row, built bool) (any, error) {
	v, err := e.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	typ := n.LeftProbeKey.Type()
	v, _, err = typ.Convert(ctx, v)
	if types.ErrValueNotNil.Is(err) {
		return nil, nil // the probe side is NULL-typed, as go-mysql-server
	}
	if err != nil {
		if built {
			// A built row whose key the probe side's type cannot hold
			// (4294967295 against DECIMAL(6,2)) equals no probe key;
			// go-mysql-server failed the statement with 1264.
			return noMatch{}, nil
		}
		return nil, err
	}
	if vs, ok := v.([]any); ok {
		var tt []sql.Type
		if tup, ok := typ.(types.TupleType); ok {
			tt = tup
		}
		var b strings.Builder
		for i, x := range vs {
			var et sql.Type
			if i < len(tt) {
				et = tt[i]
			}
			k, err := exactKeyOf(x, et)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "%T:%v\x00", k, k)
		}
		return b.String(), nil
	}
	return exactKeyOf(v, typ)
}

// noMatch keys the built rows no probe can match (RULE-93).
type noMatch struct{}

// timeKey is a time's instant.
type timeKey struct {
	sec  int64
	nsec int
}

// exactKeyOf is one value's RULE-93 key under type t.
func exactKeyOf(v any, t sql.Type) (any, error) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x.String(), nil
	case []byte:
		return string(x), nil
	case time.Time:
		return timeKey{x.Unix(), x.Nanosecond()}, nil
	case string:
		st, ok := t.(sql.StringType)
		if !ok {
			return x, nil
		}
		coll := st.Collation()
		if coll.PadAttribute() == "PAD SPACE" {
			x = strings.TrimRight(x, " ")
		}
		if coll == sql.Collation_binary || coll == sql.Collation_utf8mb4_0900_bin {
			return x, nil
		}
		w, err := appendWeightString(nil, coll, x)
		return string(w), err
	}
	return v, nil
}

// sharedRows hands out rows without copying them (RULE-87).
type sharedRows struct {
	rows []sql.Row
	i    int
}

func (s *sharedRows) Next(*sql.Context) (sql.Row, error) {
	if s.i >= len(s.rows) {
		return nil, io.EOF
	}
	s.i++
	return s.rows[s.i-1], nil
}

func (s *sharedRows) Close(*sql.Context) error { return nil }
