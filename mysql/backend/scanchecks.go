package backend

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"

	"strata/mysql/scanfilter"
)

// CODEC-14 A read may carry scan checks (mysql/scanfilter): comparisons
// of integer and DECIMAL columns with exact numbers, and a top-N's
// bound, made by the analyzer from the query (rules RULE-95). load
// evaluates them on the stored row (CODEC-4's encoding: the columns
// before a checked one are skipped, not decoded) once the row it returns
// is known (after a locking read's lock and IX-6's re-read), and drops a
// row that fails one without decoding it. A row read from an index entry
// (IX-3) is not checked: the query's own filter still sees it (SF-1).

// WithScanChecks returns the table whose reads drop rows failing conds
// before decoding them; conds on columns whose stored values the checks
// cannot read (not an integer or DECIMAL) are left out. It returns tb
// when none is left.
func (tb *Table) WithScanChecks(conds []scanfilter.Cond) sql.Table {
	var keep []scanfilter.Cond
	for _, c := range conds {
		if c.Col < 0 || c.Col >= len(tb.t.cols) {
			continue
		}
		cc := &tb.t.cols[c.Col]
		switch {
		case c.IsStr:
			if cc.kind != kString || c.Op != scanfilter.EQ {
				continue
			}
			if cc.char && !cc.padKey && strings.HasSuffix(c.Str, " ") {
				// A CHAR column's key drops a literal's trailing spaces
				// (CODEC-7), which a NO PAD comparison keeps.
				continue
			}
			key, err := cc.appendKey(context.Background(), nil, c.Str)
			if err != nil {
				continue
			}
			c.Key = key
			keep = append(keep, c)
		case cc.kind == kInt, cc.kind == kUint, cc.kind == kDecimal:
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return tb
	}
	nt := *tb
	nt.reads = readPlan{}
	nt.checks = append(append([]scanfilter.Cond{}, tb.checks...), keep...)
	sort.SliceStable(nt.checks, func(i, j int) bool { return nt.checks[i].Col < nt.checks[j].Col })
	return &nt
}

// ScanChecks are the table's checks (CODEC-14).
func (tb *Table) ScanChecks() []scanfilter.Cond { return tb.checks }

// ColumnIndex is the position of the named column in the table's full
// schema, or -1.
func (tb *Table) ColumnIndex(name string) int { return tb.t.sch.IndexOfColName(name) }

// passesChecks reports whether the stored row val passes every check in
// conds (sorted by column); an undecidable check passes (SF-1).
func passesChecks(val []byte, cols []colCodec, conds []scanfilter.Cond) bool {
	pass, _ := checkRow(val, cols, conds)
	return pass
}

// checkRow is passesChecks, and whether every check was decided (a
// passing row then satisfies every check; AGG-1 relies on it).
func checkRow(val []byte, cols []colCodec, conds []scanfilter.Cond) (pass, decided bool) {
	var cur rowCursor
	if !cur.start(val) {
		return true, false // decodeColumns reports the corruption
	}
	decided = true
	for len(conds) > 0 {
		col := conds[0].Col
		n := 1 // the checks of this column
		for n < len(conds) && conds[n].Col == col {
			n++
		}
		group := conds[:n]
		conds = conds[n:]
		null, ok := cur.seek(cols, col)
		if !ok {
			return true, false // added after the row was written, or corrupt
		}
		if null {
			for i := range group {
				if r, known := group[i].DecideNull(); !known {
					decided = false
				} else if !r {
					return false, true
				}
			}
			cur.next(0)
			continue
		}
		if cols[col].kind == kString { // SF-5
			l, k := binary.Uvarint(cur.b)
			if k <= 0 || uint64(len(cur.b)-k) < l {
				return true, false
			}
			raw := cur.b[k : k+int(l)]
			for i := range group {
				if eq, known := cols[col].keyEquals(raw, group[i].Key); !known {
					decided = false
				} else if !eq {
					return false, true
				}
			}
			cur.next(k + int(l))
			continue
		}
		v, sz, ok := storedNumber(&cols[col], cur.b)
		if sz == 0 {
			return true, false
		}
		for i := range group {
			if !ok {
				decided = false
			} else if r, known := group[i].Decide(v); !known {
				decided = false
			} else if !r {
				return false, true
			}
		}
		cur.next(sz)
	}
	return true, decided
}

// rowCursor walks a stored row's columns in order (CODEC-4) without
// decoding those it passes: b starts at column i's value.
type rowCursor struct {
	nulls, b  []byte
	stored, i int
}

// start puts c at the first column of the stored row val; false when
// its header is corrupt (a column count the NULL bitmap cannot hold).
func (c *rowCursor) start(val []byte) bool {
	n, k := binary.Uvarint(val)
	if k <= 0 || n > uint64(len(val)-k)*8 {
		return false
	}
	b := val[k:]
	nbytes := (int(n) + 7) / 8
	if len(b) < nbytes {
		return false
	}
	c.nulls, c.b, c.stored, c.i = b[:nbytes], b[nbytes:], int(n), 0
	return true
}

// seek skips to column col (at or after the current one) and reports
// whether it is NULL; ok is false when the row does not store it (a
// column added later) or a value before it is corrupt.
func (c *rowCursor) seek(codecs []colCodec, col int) (null, ok bool) {
	i, b := c.i, c.b // in registers through the loop
	for ; i < col; i++ {
		if i >= c.stored || i >= len(codecs) {
			return false, false
		}
		if c.nulls[i/8]&(1<<(i%8)) == 0 {
			sz, err := codecs[i].skipValue(b)
			if err != nil {
				return false, false
			}
			b = b[sz:]
		}
	}
	c.i, c.b = i, b
	if col >= c.stored || col >= len(codecs) {
		return false, false
	}
	return c.null(col), true
}

func (c *rowCursor) null(i int) bool { return c.nulls[i/8]&(1<<(i%8)) != 0 }

// next moves past the current column, whose value is sz bytes (0 for a
// NULL).
func (c *rowCursor) next(sz int) {
	c.b = c.b[sz:]
	c.i++
}

// AGG-1 A read-only aggregate over a whole table (no index range) may
// read the numbers of its integer and DECIMAL arguments straight from
// the stored rows that pass the table's checks (ScanNumbers), in the
// snapshot and row order a scan through PartitionRows would read; a row
// whose checks or values cannot be read from the stored bytes comes
// decoded as PartitionRows would return it. Locking reads, and tables
// read through an index lookup, are not scanned this way (ok false).

// CanScanNumbers reports whether ScanNumbers takes this read of cols
// (positions in the full schema) in the statement of ctx.
func (tb *Table) CanScanNumbers(ctx *sql.Context, cols []int) bool {
	if tb.lookup != nil {
		return false
	}
	for _, c := range cols {
		if c < 0 || c >= len(tb.t.cols) {
			return false
		}
		switch tb.t.cols[c].kind {
		case kInt, kUint, kDecimal:
		default:
			return false
		}
	}
	for _, c := range tb.checks {
		if c.Bound != nil {
			return false // a top-N's (none is above an aggregate)
		}
	}
	s, err := sessionOf(ctx)
	return err == nil && s.snapshotRead(ctx)
}

// ScanNumbers calls visit for each stored row of the table that passes
// its checks, with the numbers of cols (positions in the full schema)
// and a function that decodes the row as PartitionRows returns it; the
// read is one CanScanNumbers takes.
func (tb *Table) ScanNumbers(ctx *sql.Context, cols []int, visit func(r *scanfilter.NumberRow, decode func() (sql.Row, error)) error) error {
	if !tb.CanScanNumbers(ctx, cols) {
		return fmt.Errorf("backend: a read AGG-1 does not take")
	}
	s, err := sessionOf(ctx)
	if err != nil {
		return err
	}
	tx, err := s.engineTx()
	if err != nil {
		return err
	}
	s.consistentRead(ctx, tx) // SES-9
	part := &partition{ranges: []keyRange{{}}}
	ri := &rowIter{tb: tb, t: tb.t, s: s, tx: tx, part: part, arena: &s.arena}
	ri.need = ri.needed()
	order := make([]int, len(cols)) // cols by position
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return cols[order[i]] < cols[order[j]] })
	r := &scanfilter.NumberRow{Nums: make([]scanfilter.Num, len(cols)), State: make([]uint8, len(cols))}
	it := tx.Scan(tb.t.primary, nil, nil, false)
	defer it.Close()
	var n uint64
	defer func() { s.rowsRead.Add(n) }()
	var key, val []byte
	decode := func() (sql.Row, error) { // one closure for every row
		row, ok, err := ri.load(ctx, key, val)
		if err != nil {
			return nil, s.engineErr(err)
		}
		if !ok {
			return nil, errCorruptRow // it passed the checks load makes
		}
		return row, nil
	}
	for it.Next() {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		key, val = it.Key(), it.Value()
		pass, decided := checkRow(val, tb.t.cols, tb.checks)
		if !pass {
			continue
		}
		r.Decided = decided
		readNumbers(val, tb.t.cols, cols, order, r)
		if err := visit(r, decode); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return s.engineErr(err)
	}
	return nil
}

// readNumbers fills r with the numbers of cols (visited in order, by
// position) of the stored row val.
func readNumbers(val []byte, codecs []colCodec, cols, order []int, r *scanfilter.NumberRow) {
	for i := range r.State {
		r.State[i] = scanfilter.NumOther
	}
	var cur rowCursor
	if !cur.start(val) {
		return
	}
	for len(order) > 0 {
		col := cols[order[0]]
		n := 1 // the wanted columns at this position
		for n < len(order) && cols[order[n]] == col {
			n++
		}
		same := order[:n]
		order = order[n:]
		null, ok := cur.seek(codecs, col)
		if !ok {
			return
		}
		if null {
			for _, o := range same {
				r.State[o] = scanfilter.NumNull
			}
			cur.next(0)
			continue
		}
		v, sz, ok := storedNumber(&codecs[col], cur.b)
		if sz == 0 {
			return
		}
		if ok {
			for _, o := range same {
				r.Nums[o], r.State[o] = v, scanfilter.NumExact
			}
		}
		cur.next(sz)
	}
}

// storedNumber reads the integer or DECIMAL value at the start of b: its
// value (ok false when it is not an int64 of at most 18 digits), and
// its stored length (0: corrupt or another kind).
func storedNumber(c *colCodec, b []byte) (scanfilter.Num, int, bool) {
	switch c.kind {
	case kInt:
		x, k := binary.Varint(b)
		if k <= 0 {
			return scanfilter.Num{}, 0, false
		}
		return scanfilter.Num{M: x}, k, true
	case kUint:
		x, k := binary.Uvarint(b)
		if k <= 0 {
			return scanfilter.Num{}, 0, false
		}
		return scanfilter.Num{M: int64(x)}, k, x <= math.MaxInt64
	case kDecimal:
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return scanfilter.Num{}, 0, false
		}
		m, frac, ok := decimalDigits(b[k : k+int(l)])
		return scanfilter.Num{M: m, Scale: frac}, k + int(l), ok
	}
	return scanfilter.Num{}, 0, false
}

// decimalDigits reads a stored DECIMAL's text (parseStoredDecimal's
// format) as m x 10^-frac; ok is false past 18 digits or for any other
// text.
func decimalDigits(raw []byte) (m int64, frac int32, ok bool) {
	b := raw
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	digits, dot := 0, false
	for _, ch := range b {
		switch {
		case ch >= '0' && ch <= '9':
			if digits == 18 {
				return 0, 0, false
			}
			m = m*10 + int64(ch-'0')
			digits++
			if dot {
				frac++
			}
		case ch == '.' && !dot:
			dot = true
		default:
			return 0, 0, false
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if neg {
		m = -m
	}
	return m, frac, true
}

// AGG-2 A read-only GROUP BY whose grouping columns are the leading
// integer columns of a secondary index, read in index order without a
// filter, counting rows, may count each key prefix's index entries
// without decoding them (CountIndexGroups): the entries a covered read
// (IX-3) would return, in the same snapshot and order, one call per
// group with the group's key values typed as decodeColumns types them.

// CountIndexGroups calls visit for each group of the index lookup's
// entries by their first k columns: the columns' values (in index
// order) and the group's entry count. ok is false (nothing read) when
// the read is not one AGG-2 takes: a locking read, the primary key, a
// non-integer or prefix column among the k, a reverse or inexact range.
func (tb *Table) CountIndexGroups(ctx *sql.Context, lookup sql.IndexLookup, k int, visit func(vals []any, n int64) error) (ok bool, err error) {
	idx, isOurs := lookup.Index.(*Index)
	if !isOurs || idx.ix == nil || lookup.IsReverse || k <= 0 || k > len(idx.ix.cols) {
		return false, nil
	}
	ix := idx.ix
	for j := 0; j < k; j++ {
		if kd := tb.t.cols[ix.cols[j]].kind; kd != kInt && kd != kUint {
			return false, nil
		}
		if j < len(ix.def.Prefix) && ix.def.Prefix[j] != 0 {
			return false, nil
		}
	}
	s, err := sessionOf(ctx)
	if err != nil {
		return false, err
	}
	if !s.snapshotRead(ctx) {
		return false, nil
	}
	part, err := tb.lookupPartition(ctx, lookup)
	if err != nil {
		return false, err
	}
	if part.filter != nil {
		return false, nil
	}
	tx, err := s.engineTx()
	if err != nil {
		return false, err
	}
	s.consistentRead(ctx, tx) // SES-9
	var n, rows uint64
	defer func() { s.rowsRead.Add(rows); s.b.coveredReads.Add(rows) }()
	var prev []byte // the current group's key prefix
	var count int64
	vals := make([]any, k)
	emit := func() error {
		if count == 0 {
			return nil
		}
		b := prev
		for j := 0; j < k; j++ {
			c := &tb.t.cols[ix.cols[j]]
			if b[0] == keyNull {
				vals[j], b = nil, b[1:]
				continue
			}
			vals[j], b = c.intValue(binary.BigEndian.Uint64(b[1:9])), b[9:]
		}
		return visit(vals, count)
	}
	for _, r := range part.ranges {
		it := tx.Scan(ix.ks, r.lo, r.hi, false)
		for it.Next() {
			if n++; n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					it.Close()
					return true, err
				}
			}
			key := it.Key()
			off := 0
			for j := 0; j < k; j++ {
				m, err := tb.t.cols[ix.cols[j]].skipKey(key[off:])
				if err != nil || (m != 1 && m != 9) {
					it.Close()
					return true, errCorruptKey
				}
				off += m
			}
			rows++
			if count > 0 && bytes.Equal(prev, key[:off]) {
				count++
				continue
			}
			if err := emit(); err != nil {
				it.Close()
				return true, err
			}
			prev, count = append(prev[:0], key[:off]...), 1
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return true, s.engineErr(err)
		}
	}
	return true, emit()
}

// keyEquals reports whether the stored string raw has the index key key
// (SF-5); known is false when raw is no string the key encoding takes.
func (c *colCodec) keyEquals(raw, key []byte) (eq, known bool) {
	var buf [128]byte
	k := append(buf[:0], keyValue)
	s := ""
	if len(raw) > 0 {
		s = unsafe.String(&raw[0], len(raw)) // appendStringKey does not keep it
	}
	if c.char {
		s = strings.TrimRight(s, " ")
	}
	k, err := c.appendStringKey(k, s)
	if err != nil {
		return false, false
	}
	return bytes.Equal(k, key), true
}
