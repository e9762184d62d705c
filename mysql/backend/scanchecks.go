package backend

import (
	"encoding/binary"
	"math"
	"sort"

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
		switch tb.t.cols[c.Col].kind {
		case kInt, kUint, kDecimal:
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
	n, k := binary.Uvarint(val)
	if k <= 0 || n > uint64(len(val)-k)*8 {
		return true // decodeColumns reports the corruption
	}
	b := val[k:]
	stored := int(n)
	nbytes := (stored + 7) / 8
	if len(b) < nbytes {
		return true
	}
	nulls := b[:nbytes]
	b = b[nbytes:]
	ci := 0
	for i := 0; ci < len(conds); i++ {
		if i >= stored || i >= len(cols) {
			return true // added after the row was written
		}
		null := nulls[i/8]&(1<<(i%8)) != 0
		if conds[ci].Col > i {
			if !null {
				sz, err := cols[i].skipValue(b)
				if err != nil {
					return true
				}
				b = b[sz:]
			}
			continue
		}
		if null {
			for ; ci < len(conds) && conds[ci].Col == i; ci++ {
				if !conds[ci].HoldsNull() {
					return false
				}
			}
			continue
		}
		v, sz, ok := storedNumber(&cols[i], b)
		if sz == 0 {
			return true
		}
		for ; ci < len(conds) && conds[ci].Col == i; ci++ {
			if ok && !conds[ci].Holds(v) {
				return false
			}
		}
		b = b[sz:]
	}
	return true
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
