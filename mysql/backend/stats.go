package backend

// Planner statistics: what the cost-based join planner (mysql/planner)
// asks a table. None of it is exact and none of it is transactional: it
// steers plans, never answers queries.
//
// ST-1 Row count: sampled from the primary B+tree on first use (or the
//      estimate saved at clean shutdown), then moved by every insert and
//      delete (Table.RowCount); sampled again by ANALYZE TABLE.
// ST-2 Key distinct counts: for each index (and the primary key), the
//      number of distinct values of each prefix of its columns, estimated
//      from the keys of random leaves as InnoDB does (the share of
//      neighbouring keys whose prefixes differ, times the rows). Cached on
//      the index; taken again when the row count moved by more than a
//      tenth since, and by ANALYZE TABLE with more leaves.
// ST-3 Range rows: the entries of a static index lookup's key ranges,
//      from two descents per range (engine EstimateRange: exact inside one
//      leaf, else the share of the key order between the ends).

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"

	"strata/engine"
)

const (
	sampleLeaves  = 24  // ST-2 when the planner first asks
	analyzeLeaves = 128 // ST-2 on ANALYZE TABLE
)

// keyStats is one index's ST-2 estimate.
type keyStats struct {
	rows     int64     // the row count it was taken at
	distinct []float64 // distinct values of the first i+1 key columns
}

type keyStatsSlot struct {
	mu sync.Mutex // one sampler at a time
	p  atomic.Pointer[keyStats]
}

// keyColumns returns the keyspace, key columns and the stats slot of idx
// (nil ks: a keyless table's hidden key, no statistics).
func (t *table) keyColumns(idx *Index) (*engine.Keyspace, []int, *keyStatsSlot) {
	if idx.ix != nil {
		return idx.ix.ks, idx.ix.cols, &idx.ix.stats
	}
	if t.keyless() {
		return nil, nil, nil
	}
	return t.primary, t.pk, &t.pkStats
}

// KeyDistinct estimates the distinct values of the first prefix columns of
// idx (ST-2); ok is false for an index it has no statistics for.
func (tb *Table) KeyDistinct(ctx *sql.Context, idx sql.Index, prefix int) (float64, bool) {
	x, ok := idx.(*Index)
	if !ok || prefix < 1 {
		return 0, false
	}
	t := tb.t
	ks, cols, slot := t.keyColumns(x)
	if ks == nil || prefix > len(cols) {
		return 0, false
	}
	rows, _, err := tb.RowCount(ctx)
	if err != nil {
		return 0, false
	}
	if prefix == len(cols) && x.IsUnique() && x.ix == nil {
		return float64(max(rows, 1)), true
	}
	st := slot.p.Load()
	if st == nil || stale(st.rows, int64(rows)) {
		if st, err = t.sampleKeyStats(ks, cols, slot, int64(rows), sampleLeaves); err != nil {
			return 0, false
		}
	}
	return st.distinct[prefix-1], true
}

func stale(at, now int64) bool {
	d := now - at
	if d < 0 {
		d = -d
	}
	return d > 100 && d*10 > at
}

// sampleKeyStats takes ST-2 for the keyspace ks keyed by cols.
func (t *table) sampleKeyStats(ks *engine.Keyspace, cols []int, slot *keyStatsSlot, rows int64, leaves int) (*keyStats, error) {
	slot.mu.Lock()
	defer slot.mu.Unlock()
	if st := slot.p.Load(); st != nil && !stale(st.rows, rows) && leaves == sampleLeaves {
		return st, nil // another session took it meanwhile
	}
	changes := make([]int64, len(cols))
	var pairs int64
	var prev []byte
	var prevEnds, ends []int
	var bad error
	err := t.db.b.db.SampleKeys(ks, leaves, func(key []byte) {
		if key == nil { // a new leaf: no neighbour across leaves
			prev = prev[:0]
			return
		}
		ends = ends[:0]
		off := 0
		for _, o := range cols {
			n, err := t.cols[o].skipKey(key[off:])
			if err != nil {
				bad = err
				return
			}
			off += n
			ends = append(ends, off)
		}
		if len(prev) > 0 {
			pairs++
			for i := range cols {
				if !bytes.Equal(prev[:prevEnds[i]], key[:ends[i]]) {
					// a prefix differs, and so does every longer one
					for j := i; j < len(cols); j++ {
						changes[j]++
					}
					break
				}
			}
		}
		prev = append(prev[:0], key...)
		prevEnds = append(prevEnds[:0], ends...)
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, err
	}
	st := &keyStats{rows: rows, distinct: make([]float64, len(cols))}
	for i := range cols {
		d := float64(max(rows, 1))
		if pairs > 0 {
			d = 1 + float64(max(rows-1, 0))*float64(changes[i])/float64(pairs)
		}
		st.distinct[i] = d
	}
	slot.p.Store(st)
	return st, nil
}

// AnalyzeKeys samples the row count again (ST-1) and takes ST-2 again for
// every index of the table, from more leaves (ANALYZE TABLE).
func (tb *Table) AnalyzeKeys(ctx *sql.Context) error {
	if !tb.t.keyless() {
		// ST-1 again from 4 x 16 descents: an estimate saved by an
		// earlier run may be off (and only moves by the rows changed).
		var sum int64
		for i := 0; i < 4; i++ {
			n, err := tb.t.db.b.db.EstimateEntries(tb.t.primary)
			if err != nil {
				return err
			}
			sum += n
		}
		c := tb.t.ctr
		c.rowsMu.Lock()
		c.rows.Store((sum + 2) / 4)
		c.rowsCounted = true
		c.rowsMu.Unlock()
	}
	rows, _, err := tb.RowCount(ctx)
	if err != nil {
		return err
	}
	idxs, err := tb.GetIndexes(ctx)
	if err != nil {
		return err
	}
	for _, i := range idxs {
		x, ok := i.(*Index)
		if !ok {
			continue
		}
		if ks, cols, slot := tb.t.keyColumns(x); ks != nil {
			if _, err := tb.t.sampleKeyStats(ks, cols, slot, int64(rows), analyzeLeaves); err != nil {
				return err
			}
		}
	}
	return nil
}

// RangeRows estimates the rows a static lookup reads (ST-3).
func (tb *Table) RangeRows(ctx *sql.Context, lookup sql.IndexLookup) (float64, bool) {
	x, ok := lookup.Index.(*Index)
	if !ok {
		return 0, false
	}
	if lookup.IsEmptyRange {
		return 0, true
	}
	ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
	if !ok {
		return 0, false
	}
	t := tb.t
	ks, cols, _ := t.keyColumns(x)
	if ks == nil {
		return 0, false
	}
	var prefix []uint16
	if x.ix != nil {
		prefix = x.ix.def.Prefix
	}
	rows, _, err := tb.RowCount(ctx)
	if err != nil {
		return 0, false
	}
	var krs []keyRange
	for _, r := range ranges {
		kr, empty, _ := t.keyRange(ctx, cols, prefix, r)
		if !empty {
			krs = append(krs, kr)
		}
	}
	var n float64
	for _, kr := range mergeRanges(krs) {
		e, err := t.db.b.db.EstimateRange(ks, kr.lo, kr.hi, int64(rows))
		if err != nil {
			return 0, false
		}
		n += e
	}
	return n, true
}
