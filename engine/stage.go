package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math"
	"time"

	"strata/btree"
	"strata/mtr"
	"strata/mvcc"
	"strata/page"
	"strata/txn"
)

// A staged transaction's changes (EN-9). Staging keys are
//
//	keyspace (4 bytes BE) | escaped key | 0x00 0x00 | ^position (8 bytes BE) | kind
//
// where the escape doubles no byte but 0x00 (0x00 -> 0x00 0xFF), so that
// staging order is (keyspace, key, newest position first) for keys of any
// length. kind is stagedPut or stagedDelete; the value is the new value.
const (
	stagedPut    = 1
	stagedDelete = 2
)

// Directory name prefixes of staging keyspaces: uncommitted, and
// committed (the apply record).
const (
	stagingPrefix = "\x00stage\x00"
	applyPrefix   = "\x00apply\x00"
)

func stageName(id uint32, applying bool) []byte {
	if applying {
		return binary.BigEndian.AppendUint32([]byte(applyPrefix), id)
	}
	return binary.BigEndian.AppendUint32([]byte(stagingPrefix), id)
}

// stagePrefix is the staging prefix of (keyspace, key) without the
// terminator (a range bound); full adds the terminator (one key's entries).
func stagePrefix(ks uint32, key []byte, full bool) []byte {
	return appendStagePrefix(make([]byte, 0, 4+len(key)+16), ks, key, full)
}

func appendStagePrefix(b []byte, ks uint32, key []byte, full bool) []byte {
	b = binary.BigEndian.AppendUint32(b, ks)
	for _, c := range key {
		b = append(b, c)
		if c == 0 {
			b = append(b, 0xFF)
		}
	}
	if full {
		b = append(b, 0, 0)
	}
	return b
}

func stageKey(ks uint32, key []byte, pos int64, del bool) []byte {
	return appendStageKey(make([]byte, 0, 4+len(key)+16), ks, key, pos, del)
}

// appendStageKey appends the staging key of change pos of (ks, key): its
// prefix, then the position descending (a key's newest change first).
func appendStageKey(b []byte, ks uint32, key []byte, pos int64, del bool) []byte {
	b = appendStagePrefix(b, ks, key, true)
	b = binary.BigEndian.AppendUint64(b, ^uint64(pos))
	if del {
		return append(b, stagedDelete)
	}
	return append(b, stagedPut)
}

// parseStageKey splits a staging key; key is a new slice.
func parseStageKey(k []byte) (ks uint32, key []byte, pos int64, del bool, err error) {
	if len(k) < 4+2+9 {
		return 0, nil, 0, false, fmt.Errorf("engine: staging key of %d bytes is corrupt", len(k))
	}
	ks = binary.BigEndian.Uint32(k)
	body := k[4 : len(k)-9]
	key = make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != 0 {
			key = append(key, c)
			continue
		}
		if i+1 >= len(body) {
			return 0, nil, 0, false, fmt.Errorf("engine: staging key is corrupt")
		}
		if body[i+1] == 0 {
			if i+2 != len(body) {
				return 0, nil, 0, false, fmt.Errorf("engine: staging key is corrupt")
			}
			break
		}
		key = append(key, 0)
		i++
	}
	tail := k[len(k)-9:]
	return ks, key, int64(^binary.BigEndian.Uint64(tail)), tail[8] == stagedDelete, nil
}

// stage is what a transaction has spilled (EN-9): one run per spill,
// each its own staging keyspace written in key order (so a spill only
// appends: it never reads pages of an earlier one), and the positions
// rolled back.
type stage struct {
	runs   []*run // oldest first; a later run holds later positions
	dead   deadRanges
	writes int // entries written
	// bounds are the runs' key bounds per keyspace, together: a key
	// outside them is in no run (most reads of a large statement).
	bounds map[uint32]*keyBounds
}

// addBounds widens the stage's bounds by a collected run's.
func (st *stage) addBounds(r *run) {
	if st.bounds == nil {
		st.bounds = map[uint32]*keyBounds{}
	}
	for ks, b := range r.bounds {
		cur := st.bounds[ks]
		if cur == nil {
			st.bounds[ks] = &keyBounds{lo: b.lo, hi: b.hi}
			continue
		}
		if bytes.Compare(b.lo, cur.lo) < 0 {
			cur.lo = b.lo
		}
		if bytes.Compare(b.hi, cur.hi) > 0 {
			cur.hi = b.hi
		}
	}
}

// run is one spill's staging keyspace and what is known of it in memory:
// per keyspace its lowest and highest staged key (scans outside them skip
// it), and a Bloom filter of its (keyspace, key)s (reads of a key it does
// not hold skip it).
type run struct {
	ks     *Keyspace
	bounds map[uint32]*keyBounds
	filter bloom
	inline bool // no entry needed an overflow chain: dropped without reading leaves
}

// covers reports whether the run may hold key of keyspace ks.
func (r *run) covers(ks uint32, key []byte) bool {
	return r.bounds[ks].covers(key) && r.filter.has(ks, key)
}

// spaces are the keyspaces the transaction staged changes of.
func (st *stage) spaces() []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	for _, r := range st.runs {
		for ks := range r.bounds {
			if !seen[ks] {
				seen[ks] = true
				out = append(out, ks)
			}
		}
	}
	return out
}

// touches reports whether any run holds keys of keyspace ks in [lo, hi).
func (st *stage) touches(ks uint32, lo, hi []byte) bool {
	for _, r := range st.runs {
		if r.bounds[ks].overlaps(lo, hi) {
			return true
		}
	}
	return false
}

// keyBounds are the lowest and highest key a run holds of a keyspace.
type keyBounds struct{ lo, hi []byte }

func (b *keyBounds) covers(key []byte) bool {
	return b != nil && bytes.Compare(key, b.lo) >= 0 && bytes.Compare(key, b.hi) <= 0
}

// overlaps reports whether [lo, hi) (nil: unbounded) meets the bounds.
func (b *keyBounds) overlaps(lo, hi []byte) bool {
	if b == nil {
		return false
	}
	if hi != nil && bytes.Compare(hi, b.lo) <= 0 {
		return false
	}
	return lo == nil || bytes.Compare(lo, b.hi) <= 0
}

// bloom is a Bloom filter of (keyspace, key)s: about 10 bits and 5 probes
// per key (1% false positives).
type bloom struct {
	seed maphash.Seed
	bits []uint64
}

const bloomProbes = 5

func newBloom(keys int) bloom {
	n := max((keys*10+63)/64, 1)
	return bloom{seed: maphash.MakeSeed(), bits: make([]uint64, n)}
}

func (b *bloom) hash(ks uint32, key []byte) (uint64, uint64) {
	h := maphash.Bytes(b.seed, key) ^ uint64(ks)*0x9E3779B97F4A7C15
	return h, h>>29 | h<<35 | 1
}

func (b *bloom) add(ks uint32, key []byte) {
	h, d := b.hash(ks, key)
	m := uint64(len(b.bits)) * 64
	for i := 0; i < bloomProbes; i++ {
		bit := h % m
		b.bits[bit/64] |= 1 << (bit % 64)
		h += d
	}
}

func (b *bloom) has(ks uint32, key []byte) bool {
	h, d := b.hash(ks, key)
	m := uint64(len(b.bits)) * 64
	for i := 0; i < bloomProbes; i++ {
		bit := h % m
		if b.bits[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
		h += d
	}
	return true
}

// deadRanges are the journal positions (from, to] rolled back.
type deadRanges [][2]int64

func (d deadRanges) live(pos int64) bool {
	for _, r := range d {
		if pos > r[0] && pos <= r[1] {
			return false
		}
	}
	return true
}

// stageEntry is the newest live entry of one key.
type stageEntry struct {
	w    txn.Write // Keyspace, Key, Value, Delete
	have bool
}

// compareEntries orders staged entries by (keyspace, key).
func compareEntries(a, b *stageEntry) int {
	if a.w.Keyspace != b.w.Keyspace {
		if a.w.Keyspace < b.w.Keyspace {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.w.Key, b.w.Key)
}

// stagedGet reads key's newest live staged change at or before position
// at: the newest run holding one.
func (tx *Tx) stagedGet(ksid uint32, key []byte, at int64) (txn.Write, bool, error) {
	st := tx.stage
	if !st.bounds[ksid].covers(key) {
		return txn.Write{}, false, nil
	}
	var lo, hi []byte
	for i := len(st.runs) - 1; i >= 0; i-- {
		r := st.runs[i]
		if !r.covers(ksid, key) {
			continue
		}
		if lo == nil {
			lo = stagePrefix(ksid, key, true)
			hi = append(append([]byte{}, lo[:len(lo)-1]...), 1)
		}
		w, ok, err := func() (txn.Write, bool, error) {
			it := r.ks.tree.Scan(tx.db.pool, lo, hi, false)
			defer it.Close()
			for it.Next() {
				_, _, pos, del, err := parseStageKey(it.Key())
				if err != nil {
					return txn.Write{}, false, err
				}
				if pos > at || !st.dead.live(pos) {
					continue
				}
				w := txn.Write{Keyspace: ksid, Key: clone(key), Delete: del}
				if !del {
					w.Value = clone(it.Value())
				}
				return w, true, nil
			}
			return txn.Write{}, false, it.Err()
		}()
		if err != nil || ok {
			return w, ok, err
		}
	}
	return txn.Write{}, false, nil
}

// stageIter yields, in (keyspace, key) order, each key's newest live
// change at or before a position in one run, within a range.
type stageIter struct {
	it      *btree.Iterator
	dead    deadRanges
	at      int64
	reverse bool
	cur     stageEntry // the next entry to yield (cur.have), else the end
	done    bool
	err     error

	last     stageEntry // ascending: the entry yielded last
	inGroup  bool       // descending: a key's entries are being read
	groupKey stageEntry // descending: that key
	best     stageEntry // descending: its newest qualifying entry so far
}

// stageRange is the staging key range of keyspace ksid's [lo, hi) (nil:
// unbounded).
func stageRange(ksid uint32, lo, hi []byte) (slo, shi []byte) {
	slo = binary.BigEndian.AppendUint32(nil, ksid)
	if lo != nil {
		slo = stagePrefix(ksid, lo, false)
	}
	shi = binary.BigEndian.AppendUint32(nil, ksid+1)
	if hi != nil {
		shi = stagePrefix(ksid, hi, false)
	}
	return slo, shi
}

func newStageIter(db *DB, r *run, dead deadRanges, slo, shi []byte, reverse bool, at int64) *stageIter {
	s := &stageIter{it: r.ks.tree.Scan(db.pool, slo, shi, reverse), dead: dead, at: at, reverse: reverse}
	s.advance()
	return s
}

// advance loads the next entry to yield into cur (cur.have false at the
// end or on error).
func (s *stageIter) advance() {
	s.cur = stageEntry{}
	for !s.done {
		if !s.it.Next() {
			s.done = true
			if s.err = s.it.Err(); s.err == nil && s.inGroup && s.best.have {
				s.cur = s.best
			}
			return
		}
		ks, key, pos, del, err := parseStageKey(s.it.Key())
		if err != nil {
			s.err, s.done = err, true
			return
		}
		ok := pos <= s.at && s.dead.live(pos)
		e := stageEntry{w: txn.Write{Keyspace: ks, Key: key, Delete: del}, have: ok}
		if ok && !del {
			e.w.Value = clone(s.it.Value())
		}
		if !s.reverse {
			// Ascending: a key's newest entry comes first.
			if !ok || (s.last.have && compareEntries(&s.last, &e) == 0) {
				continue
			}
			s.last = e
			s.cur = e
			return
		}
		// Descending: a key's entries come oldest first; its group ends
		// when the key changes.
		if s.inGroup && compareEntries(&s.groupKey, &e) != 0 {
			prev := s.best
			s.groupKey, s.best = e, e
			if prev.have {
				s.cur = prev
				return
			}
			continue
		}
		s.inGroup, s.groupKey = true, e
		if ok {
			s.best = e
		}
	}
}

func (s *stageIter) close() { s.it.Close() }

// stagedMerge yields each key's newest live staged change over all runs:
// a heap of the runs' iterators by (key in iteration order, newest run
// first on equal keys).
type stagedMerge struct {
	heap    []stagedHead
	reverse bool
	cur     stageEntry
	err     error
}

type stagedHead struct {
	s   *stageIter
	run int
}

func (tx *Tx) stagedRange(ksid uint32, lo, hi []byte, reverse bool, at int64) *stagedMerge {
	st := tx.stage
	slo, shi := stageRange(ksid, lo, hi)
	m := &stagedMerge{reverse: reverse}
	for i, r := range st.runs {
		if r.bounds[ksid].overlaps(lo, hi) {
			m.add(newStageIter(tx.db, r, st.dead, slo, shi, reverse, at), i)
		}
	}
	m.advance()
	return m
}

func (m *stagedMerge) add(s *stageIter, run int) {
	if s.err != nil && m.err == nil {
		m.err = s.err
	}
	if !s.cur.have {
		s.close()
		return
	}
	m.heap = append(m.heap, stagedHead{s, run})
	m.up(len(m.heap) - 1)
}

// less orders heads: the next key first, on equal keys the newer run.
func (m *stagedMerge) less(i, j int) bool {
	c := compareEntries(&m.heap[i].s.cur, &m.heap[j].s.cur)
	if m.reverse {
		c = -c
	}
	if c != 0 {
		return c < 0
	}
	return m.heap[i].run > m.heap[j].run
}

func (m *stagedMerge) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !m.less(i, p) {
			return
		}
		m.heap[i], m.heap[p] = m.heap[p], m.heap[i]
		i = p
	}
}

func (m *stagedMerge) down(i int) {
	for {
		l, best := 2*i+1, i
		if l < len(m.heap) && m.less(l, best) {
			best = l
		}
		if r := l + 1; r < len(m.heap) && m.less(r, best) {
			best = r
		}
		if best == i {
			return
		}
		m.heap[i], m.heap[best] = m.heap[best], m.heap[i]
		i = best
	}
}

// stepTop advances the top iterator and restores the heap.
func (m *stagedMerge) stepTop() {
	s := m.heap[0].s
	s.advance()
	if s.err != nil && m.err == nil {
		m.err = s.err
	}
	if !s.cur.have {
		s.close()
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
	}
	if len(m.heap) > 0 {
		m.down(0)
	}
}

// advance loads the next entry into cur: the top's, after which every
// run's entry of the same key (older) is skipped.
func (m *stagedMerge) advance() {
	m.cur = stageEntry{}
	if len(m.heap) == 0 || m.err != nil {
		return
	}
	m.cur = m.heap[0].s.cur
	m.stepTop()
	for len(m.heap) > 0 && m.err == nil && compareEntries(&m.heap[0].s.cur, &m.cur) == 0 {
		m.stepTop()
	}
}

func (m *stagedMerge) close() {
	for _, h := range m.heap {
		h.s.close()
	}
	m.heap = nil
}

// pendingSpill is a write set being written into a new run by another
// goroutine (EN-9), so that the statement producing the changes and the
// spill run on two cores. Until the transaction collects it (waitSpill),
// reads look in it after the write set; it is read-only.
type pendingSpill struct {
	ws   *txn.WriteSet
	base int64
	run  *run
	done chan struct{}
	// Set by the writer before done closes.
	n   int
	err error
}

// spill moves the write set into a new run (EN-9): in the background (the
// writes go on in a fresh write set meanwhile), or before returning. A
// spill still running is collected first.
func (tx *Tx) spill(background bool) error {
	if err := tx.waitSpill(); err != nil {
		return err
	}
	if tx.ws.Len() == 0 {
		return nil
	}
	db := tx.db
	// Refuse a key too long to stage while the write set is still intact
	// (the statement fails and is undone; the transaction goes on).
	var err error
	if n := tx.ws.MaxKey(); 2*n+15 > btree.MaxKey { // else no key can be too long: no sort here
		tx.ws.Ascend(func(w txn.Write) bool {
			if n := len(w.Key); 2*n+15 > btree.MaxKey && len(stagePrefix(w.Keyspace, w.Key, true))+9 > btree.MaxKey {
				err = fmt.Errorf("%w: a key of %d bytes is too long to stage", ErrTxnTooLarge, n)
			}
			return err == nil
		})
	}
	if err != nil {
		return err
	}
	ks, err := db.createStage()
	if err != nil {
		return err
	}
	if tx.stage == nil { // only now: a stage always has a run once collected
		tx.stage = &stage{}
	}
	p := &pendingSpill{ws: tx.ws, base: tx.base, run: &run{ks: ks}, done: make(chan struct{})}
	tx.base = int64(tx.Savepoint())
	tx.ws = txn.NewWriteSetSized(p.ws.Len(), p.ws.Savepoint()) // the next spill's size, most likely
	tx.spilling = p
	if background {
		go p.write(db)
		return nil
	}
	p.write(db)
	return tx.waitSpill()
}

// bulkFlush writes the oldest dirty pages, unpaced, while a spill or a
// roll-forward dirties pages faster than the page cleaner's governed pace
// (EN-9): evictions then find clean frames instead of writing
// synchronously in the statement's path. The writes are the large
// transaction's own, done ahead. It returns the function that stops it.
func (db *DB) bulkFlush() (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	limit := db.pool.DirtyLimit()
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-db.stop:
				return
			default:
			}
			if db.pool.Stats().Dirty > limit && db.pool.FlushErr() == nil {
				if db.pool.FlushOldest(128) == nil {
					continue
				}
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}

// testSpillWrite, when set by a test, runs as a spill begins writing (to
// hold it in the background while the transaction goes on).
var testSpillWrite func()

// write puts every change of the pending write set into its run, in key
// order, and fills in the run's bounds and filter.
func (p *pendingSpill) write(db *DB) {
	defer close(p.done)
	defer db.bulkFlush()()
	if testSpillWrite != nil {
		testSpillWrite()
	}
	bounds := map[uint32]*keyBounds{}
	filter := newBloom(p.ws.Len())
	var cur *keyBounds
	var curKs uint32
	var last []byte // the key of the previous change
	b := db.newBatcher()
	tree := p.run.ks.tree
	inline := true
	var kbuf []byte // the stage key, rebuilt per change (Put copies it)
	n := 0
	p.ws.AscendChanges(func(i int, w txn.Write) bool {
		if cur == nil || curKs != w.Keyspace || !bytes.Equal(last, w.Key) {
			if cur == nil || curKs != w.Keyspace { // each keyspace's first and last key
				cur, curKs = &keyBounds{lo: w.Key}, w.Keyspace
				bounds[w.Keyspace] = cur
			}
			cur.hi = w.Key
			filter.add(w.Keyspace, w.Key)
			last = w.Key
		}
		n++
		kbuf = appendStageKey(kbuf[:0], w.Keyspace, w.Key, p.base+int64(i)+1, w.Delete) // the position right after change i
		inline = inline && btree.Inline(kbuf, w.Value)
		t, err := b.next(len(kbuf) + len(w.Value))
		if err == nil {
			err = tree.Put(t, db.alloc, kbuf, w.Value) // ascending into a new tree (BT-6)
		}
		if err != nil {
			p.err = err
		}
		return err == nil
	})
	if p.err != nil {
		b.abort()
		return
	}
	if _, err := b.finish(); err != nil {
		p.err = err
		return
	}
	p.run.bounds, p.run.filter, p.run.inline = bounds, filter, inline
	p.n = n
}

// waitSpill collects the spill running in the background, if any. A
// failed spill lost changes of the transaction: every later operation
// but Rollback fails with its error.
func (tx *Tx) waitSpill() error {
	if tx.spillErr != nil {
		return tx.spillErr
	}
	p := tx.spilling
	if p == nil {
		return nil
	}
	<-p.done
	tx.spilling = nil
	tx.stage.runs = append(tx.stage.runs, p.run) // dropped with the others, even after a failure
	if p.err != nil {
		tx.spillErr = fmt.Errorf("engine: spilling the transaction's changes failed: %w", p.err)
		return tx.spillErr
	}
	tx.stage.writes += p.n
	tx.stage.addBounds(p.run)
	tx.db.spills.Add(1)
	return nil
}

// createStage makes a transaction's staging keyspace (not durable on
// return: its first entries' redo follows the directory change's).
func (db *DB) createStage() (*Keyspace, error) {
	db.ksMu.Lock()
	defer db.ksMu.Unlock()
	if err := db.ensureLogSpace(64 << 10); err != nil {
		return nil, err
	}
	t := db.mtrs.Begin()
	ks, err := db.newKeyspace(t, func(id uint32) string { return string(stageName(id, false)) })
	if err != nil {
		t.Abort()
		return nil, err
	}
	if _, _, err := t.Commit(); err != nil {
		return nil, err
	}
	return ks, nil
}

// dropStage removes a staging keyspace: its directory entry (by name)
// becomes a pending drop, then its pages are freed.
func (db *DB) dropStage(ks *Keyspace, name []byte, inline bool) error {
	db.ksMu.Lock()
	defer db.ksMu.Unlock()
	if err := db.moveDirEntry(name, pendingDrop(ks.id), encodeDirEntry(ks), false); err != nil {
		return err
	}
	return db.finishDropOf(ks, inline)
}

// encodeApply is the commit record's directory value: the runs'
// directory entries (a count, then 12 bytes each) and the dead positions.
func encodeApply(runs []*Keyspace, dead deadRanges) []byte {
	v := binary.LittleEndian.AppendUint32(nil, uint32(len(runs)))
	for _, ks := range runs {
		v = append(v, encodeDirEntry(ks)...)
	}
	for _, d := range dead {
		v = binary.LittleEndian.AppendUint64(v, uint64(d[0]))
		v = binary.LittleEndian.AppendUint64(v, uint64(d[1]))
	}
	return v
}

func decodeApply(k, v []byte) ([]*Keyspace, deadRanges, error) {
	bad := fmt.Errorf("engine: apply entry %q of %d bytes is corrupt", k, len(v))
	if len(v) < 4 {
		return nil, nil, bad
	}
	n := int(binary.LittleEndian.Uint32(v))
	if n == 0 || n > len(v)/12 || (len(v)-4-12*n)%16 != 0 {
		return nil, nil, bad
	}
	runs := make([]*Keyspace, n)
	for i := range runs {
		e := v[4+12*i : 4+12*(i+1)]
		ks, err := decodeDirEntry(stageName(binary.LittleEndian.Uint32(e), false), e)
		if err != nil {
			return nil, nil, err
		}
		runs[i] = ks
	}
	var dead deadRanges
	for r := v[4+12*n:]; len(r) > 0; r = r[16:] {
		dead = append(dead, [2]int64{int64(binary.LittleEndian.Uint64(r)), int64(binary.LittleEndian.Uint64(r[8:]))})
	}
	return runs, dead, nil
}

// keyspaces are the runs' staging keyspaces, oldest first.
func (st *stage) keyspaces() []*Keyspace {
	out := make([]*Keyspace, len(st.runs))
	for i, r := range st.runs {
		out[i] = r.ks
	}
	return out
}

// commitStaged commits a staged transaction by rolling forward (EN-9).
func (tx *Tx) commitStaged(async bool) error {
	db := tx.db
	if err := tx.spill(false); err != nil {
		return err
	}
	st := tx.stage
	runs := st.keyspaces()
	name := stageName(runs[0].id, true)
	db.bigMu.Lock()
	defer db.bigMu.Unlock()
	// The commit record: the runs' stage entries become one apply entry,
	// in one mini-transaction.
	db.ksMu.Lock()
	err := db.ensureLogSpace(64<<10 + int64(len(runs))*256)
	if err == nil {
		t := db.mtrs.Begin()
		if seq := tx.seq; seq != nil {
			t.OnEnd(func(committed bool) { seq.End(committed, 0) }) // EN-11
		}
		for _, ks := range runs {
			if _, err = db.dir.Delete(t, db.alloc, []byte(ks.name)); err != nil {
				break
			}
		}
		if err == nil {
			err = db.dir.Put(t, db.alloc, name, encodeApply(runs, st.dead))
		}
		if err == nil && tx.seq != nil {
			// EN-11: in the commit record; the sequencer's keyspace is read
			// current only, so no before-images are kept for it.
			err = db.putSequenced(t, tx.seq, nil)
		}
		if err != nil {
			t.Abort()
		} else {
			_, _, err = t.Commit()
		}
	}
	db.ksMu.Unlock()
	if err != nil {
		return err
	}
	// From here on the transaction is committed: once the record is
	// durable (it precedes every batch below in the log), recovery
	// finishes the apply.
	tx.stage = nil
	c := db.versions.BeginLarge(st.spaces())
	began := time.Now()
	end, err := db.rollForward(runs, name, st.dead, c)
	tx.releaseLocks()
	if err != nil {
		// Its changes are partly in the trees: refuse commits until a
		// restart finishes the apply (EN-9).
		db.applyErr.Store(&err)
		return fmt.Errorf("engine: applying a committed transaction failed (recovery will finish it): %w", err)
	}
	db.commits.Add(1)
	db.stagedCommits.Add(1)
	slog.Info("staged commit applied", "runs", len(runs), "changes", st.writes, "apply", time.Since(began).Round(time.Millisecond))
	db.dropRuns(st.runs)
	if async {
		return nil
	}
	return db.log.WaitDurable(end)
}

// testApplyBatch, when set by a test, runs after each mini-transaction of
// a roll-forward (to cut the power in the middle of one).
var testApplyBatch func(db *DB, end page.LSN)

// rollForward applies the newest live entry of every staged key, merged
// over the runs, to the trees in key order, in batches; the last
// mini-transaction also turns the apply entry (name) into pending drops
// of the runs (EN-9). c (nil during recovery) is published with it.
func (db *DB) rollForward(runs []*Keyspace, name []byte, dead deadRanges, c *mvcc.Commit) (page.LSN, error) {
	db.ksMu.RLock()
	defer db.ksMu.RUnlock()
	b := db.newBatcher()
	if testApplyBatch != nil {
		b.afterCommit = func(end page.LSN) { testApplyBatch(db, end) }
	}
	defer db.bulkFlush()()
	// The merge (reading the runs) runs in its own goroutine, ahead of
	// the applying one.
	batches, stop := make(chan mergedBatch, 4), make(chan struct{})
	go mergeRuns(db, runs, dead, batches, stop)
	var err error
	for mb := range batches {
		if err = mb.err; err != nil {
			break
		}
		for _, w := range mb.writes {
			target := db.byID[w.Keyspace]
			if target == nil {
				continue // dropped since (no metadata lock held it)
			}
			var t *mtr.Mtr
			if t, err = b.next(len(w.Key) + len(w.Value)); err != nil {
				break
			}
			if w.Delete {
				_, err = target.tree.Delete(t, db.alloc, w.Key)
			} else {
				err = target.tree.Put(t, db.alloc, w.Key, w.Value)
			}
			if err != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	close(stop)
	for range batches { // let the merge end
	}
	if err == nil {
		var t *mtr.Mtr
		if t, err = b.next(64<<10 + len(runs)*256); err == nil {
			_, err = db.dir.Delete(t, db.alloc, name)
			for _, ks := range runs {
				if err == nil {
					err = db.dir.Put(t, db.alloc, pendingDrop(ks.id), encodeDirEntry(ks))
				}
			}
			if err == nil && c != nil {
				pub := c
				t.OnEnd(func(committed bool) { // under the apply latch (MV-1)
					if committed {
						pub.Publish()
					} else {
						pub.Abort()
					}
				})
				c = nil
			}
		}
	}
	if err != nil {
		b.abort()
		if c != nil {
			c.Abort()
		}
		return 0, err
	}
	return b.finish()
}

// mergedBatch is a slice of a roll-forward's changes in key order, or the
// error that ended the merge.
type mergedBatch struct {
	writes []txn.Write
	err    error
}

// mergeRuns sends the newest live change of every staged key, merged over
// the runs, in batches; it closes out when done or when stop closes. It
// reads db.byID under the applier's hold of ksMu.
func mergeRuns(db *DB, runs []*Keyspace, dead deadRanges, out chan<- mergedBatch, stop <-chan struct{}) {
	defer close(out)
	m := &stagedMerge{}
	for i, ks := range runs {
		m.add(newStageIter(db, &run{ks: ks}, dead, nil, nil, false, math.MaxInt64), i)
	}
	defer m.close()
	send := func(mb mergedBatch) bool {
		select {
		case out <- mb:
			return true
		case <-stop:
			return false
		}
	}
	const batch = 1024
	ws := make([]txn.Write, 0, batch)
	for m.advance(); m.cur.have; m.advance() {
		// The applier will need the target leaves: read them ahead (BT-8),
		// every 16th key (a leaf holds dozens of entries).
		if len(ws)%16 == 0 {
			if target := db.byID[m.cur.w.Keyspace]; target != nil {
				target.tree.Prefetch(db.pool, m.cur.w.Key)
			}
		}
		if ws = append(ws, m.cur.w); len(ws) == batch {
			if !send(mergedBatch{writes: ws}) {
				return
			}
			ws = make([]txn.Write, 0, batch)
		}
	}
	if m.err != nil {
		send(mergedBatch{err: m.err})
		return
	}
	if len(ws) > 0 {
		send(mergedBatch{writes: ws})
	}
}

// testDropRun, when set by a test, runs before each run's free.
var testDropRun func()

// dropRuns frees a committed transaction's runs in the background: their
// pending drops are durable with the roll-forward's last mini-transaction,
// and a run not yet freed at Close or a crash is freed by the next Open
// (EN-9).
func (db *DB) dropRuns(runs []*run) {
	db.bgMu.Lock()
	defer db.bgMu.Unlock()
	if db.closed.Load() {
		return
	}
	db.dropping.Add(1)
	go func() {
		defer db.dropping.Done()
		for _, r := range runs {
			if testDropRun != nil {
				testDropRun()
			}
			select {
			case <-db.stop:
				return
			default:
			}
			if err := db.finishDropLocked(r.ks, r.inline); err != nil {
				slog.Error("freeing a committed transaction's staged changes failed (the next start frees them)", "err", err)
				return
			}
		}
	}()
}

// finishDropLocked is finishDropOf under the keyspace latch.
func (db *DB) finishDropLocked(ks *Keyspace, inline bool) error {
	db.ksMu.Lock()
	defer db.ksMu.Unlock()
	return db.finishDropOf(ks, inline)
}
