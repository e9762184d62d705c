package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

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
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(key)+16), ks)
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
	b := stagePrefix(ks, key, true)
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

// stage is a transaction's staging keyspace and what it knows in memory
// (EN-9).
type stage struct {
	ks     *Keyspace
	dead   deadRanges
	spaces map[uint32]bool
	writes int // entries written
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
	ks   uint32
	key  []byte
	w    txn.Write
	pos  int64
	have bool
}

// get reads key's newest live staged change at or before position at.
func (tx *Tx) stagedGet(ksid uint32, key []byte, at int64) (txn.Write, bool, error) {
	st := tx.stage
	lo := stagePrefix(ksid, key, true)
	hi := append(append([]byte{}, lo[:len(lo)-1]...), 1)
	it := st.ks.tree.Scan(tx.db.pool, lo, hi, false)
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
}

// stageIter yields, in key order, each key's newest live staged change at
// or before a position, within [lo, hi) of one keyspace.
type stageIter struct {
	st      *stage
	it      *btree.Iterator
	at      int64
	reverse bool
	cur     stageEntry // the next entry to yield (cur.have), else the end
	done    bool
	err     error

	lastKey  []byte     // ascending: the key yielded last
	inGroup  bool       // descending: a key's entries are being read
	groupKey []byte     // descending: that key
	best     stageEntry // descending: its newest qualifying entry so far
}

func (tx *Tx) stagedRange(ksid uint32, lo, hi []byte, reverse bool, at int64) *stageIter {
	slo := binary.BigEndian.AppendUint32(nil, ksid)
	if lo != nil {
		slo = stagePrefix(ksid, lo, false)
	}
	shi := binary.BigEndian.AppendUint32(nil, ksid+1)
	if hi != nil {
		shi = stagePrefix(ksid, hi, false)
	}
	s := &stageIter{st: tx.stage, it: tx.stage.ks.tree.Scan(tx.db.pool, slo, shi, reverse), at: at, reverse: reverse}
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
		ok := pos <= s.at && s.st.dead.live(pos)
		e := stageEntry{ks: ks, key: key, pos: pos, w: txn.Write{Keyspace: ks, Key: key, Delete: del}, have: ok}
		if ok && !del {
			e.w.Value = clone(s.it.Value())
		}
		if !s.reverse {
			// Ascending: a key's newest entry comes first.
			if !ok || (s.lastKey != nil && bytes.Equal(s.lastKey, key)) {
				continue
			}
			s.lastKey = key
			s.cur = e
			return
		}
		// Descending: a key's entries come oldest first; its group ends
		// when the key changes.
		if s.inGroup && !bytes.Equal(s.groupKey, key) {
			prev := s.best
			s.groupKey, s.best = key, e
			if prev.have {
				s.cur = prev
				return
			}
			continue
		}
		s.inGroup, s.groupKey = true, key
		if ok {
			s.best = e
		}
	}
}

func (s *stageIter) close() { s.it.Close() }

// spill moves the write set into the staging keyspace (EN-9).
func (tx *Tx) spill() error {
	if tx.ws.Len() == 0 {
		return nil
	}
	db := tx.db
	if tx.stage == nil {
		ks, err := db.createStage()
		if err != nil {
			return err
		}
		tx.stage = &stage{ks: ks, spaces: map[uint32]bool{}}
	}
	st := tx.stage
	type entry struct{ k, v []byte }
	var entries []entry
	var err error
	tx.ws.Changes(func(i int, w txn.Write) bool {
		k := stageKey(w.Keyspace, w.Key, tx.base+int64(i)+1, w.Delete) // the position right after change i
		if len(k) > btree.MaxKey {
			err = fmt.Errorf("%w: a key of %d bytes is too long to stage", ErrTxnTooLarge, len(w.Key))
			return false
		}
		entries = append(entries, entry{k, w.Value})
		st.spaces[w.Keyspace] = true
		return true
	})
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].k, entries[j].k) < 0 })
	b := db.newBatcher()
	for _, e := range entries {
		t, err := b.next(len(e.k) + len(e.v))
		if err != nil {
			b.abort()
			return err
		}
		if err := st.ks.tree.Put(t, db.alloc, e.k, e.v); err != nil {
			b.abort()
			return err
		}
	}
	if _, err := b.finish(); err != nil {
		return err
	}
	st.writes += len(entries)
	tx.base = int64(tx.Savepoint())
	tx.ws.Reset()
	db.spills.Add(1)
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
func (db *DB) dropStage(ks *Keyspace, name []byte) error {
	db.ksMu.Lock()
	defer db.ksMu.Unlock()
	if err := db.moveDirEntry(name, pendingDrop(ks.id), encodeDirEntry(ks), false); err != nil {
		return err
	}
	return db.finishDrop(ks)
}

// encodeApply is the commit record's directory value: the staging
// keyspace's entry and the dead positions.
func encodeApply(ks *Keyspace, dead deadRanges) []byte {
	v := encodeDirEntry(ks)
	for _, d := range dead {
		v = binary.LittleEndian.AppendUint64(v, uint64(d[0]))
		v = binary.LittleEndian.AppendUint64(v, uint64(d[1]))
	}
	return v
}

func decodeApply(k, v []byte) (*Keyspace, deadRanges, error) {
	if len(v) < 12 || (len(v)-12)%16 != 0 {
		return nil, nil, fmt.Errorf("engine: apply entry %q of %d bytes is corrupt", k, len(v))
	}
	ks, err := decodeDirEntry(k, v[:12])
	if err != nil {
		return nil, nil, err
	}
	var dead deadRanges
	for r := v[12:]; len(r) > 0; r = r[16:] {
		dead = append(dead, [2]int64{int64(binary.LittleEndian.Uint64(r)), int64(binary.LittleEndian.Uint64(r[8:]))})
	}
	return ks, dead, nil
}

// commitStaged commits a staged transaction by rolling forward (EN-9).
func (tx *Tx) commitStaged(async bool) error {
	db := tx.db
	if err := tx.spill(); err != nil {
		return err
	}
	st := tx.stage
	db.bigMu.Lock()
	defer db.bigMu.Unlock()
	// The commit record.
	db.ksMu.Lock()
	err := db.moveDirEntry([]byte(st.ks.name), stageName(st.ks.id, true), encodeApply(st.ks, st.dead), false)
	db.ksMu.Unlock()
	if err != nil {
		return err
	}
	// From here on the transaction is committed: once the record is
	// durable (it precedes every batch below in the log), recovery
	// finishes the apply.
	spaces := make([]uint32, 0, len(st.spaces))
	for ks := range st.spaces {
		spaces = append(spaces, ks)
	}
	c := db.versions.BeginLarge(spaces)
	end, err := db.rollForward(st.ks, st.dead, c)
	tx.releaseLocks()
	tx.stage = nil
	if err != nil {
		// Its changes are partly in the trees: refuse commits until a
		// restart finishes the apply (EN-9).
		db.applyErr.Store(&err)
		return fmt.Errorf("engine: applying a committed transaction failed (recovery will finish it): %w", err)
	}
	db.commits.Add(1)
	db.stagedCommits.Add(1)
	if err := db.finishDropLocked(st.ks); err != nil {
		return err
	}
	if async {
		return nil
	}
	return db.log.WaitDurable(end)
}

// testApplyBatch, when set by a test, runs after each mini-transaction of
// a roll-forward (to cut the power in the middle of one).
var testApplyBatch func(db *DB, end page.LSN)

// rollForward applies the newest live entry of every staged key to the
// trees, in batches; the last mini-transaction also turns the apply entry
// into a pending drop of the staging keyspace (EN-9). c (nil during
// recovery) is published with it.
func (db *DB) rollForward(sks *Keyspace, dead deadRanges, c *mvcc.Commit) (page.LSN, error) {
	db.ksMu.RLock()
	defer db.ksMu.RUnlock()
	b := db.newBatcher()
	if testApplyBatch != nil {
		b.afterCommit = func(end page.LSN) { testApplyBatch(db, end) }
	}
	it := sks.tree.Scan(db.pool, nil, nil, false)
	var last []byte // the staging prefix of the key applied last
	var err error
	for err == nil && it.Next() {
		k := it.Key()
		ksid, key, pos, del, perr := parseStageKey(k)
		if perr != nil {
			err = perr
			break
		}
		if !dead.live(pos) {
			continue
		}
		prefix := k[:len(k)-9]
		if last != nil && bytes.Equal(prefix, last) {
			continue // an older change of a key applied already
		}
		last = append(last[:0], prefix...)
		target := db.byID[ksid]
		if target == nil {
			continue // dropped since (no metadata lock held it)
		}
		var t *mtr.Mtr
		if t, err = b.next(len(key) + len(it.Value())); err != nil {
			break
		}
		if del {
			_, err = target.tree.Delete(t, db.alloc, key)
		} else {
			err = target.tree.Put(t, db.alloc, key, it.Value())
		}
	}
	if err == nil {
		err = it.Err()
	}
	it.Close()
	if err == nil {
		var t *mtr.Mtr
		if t, err = b.next(64 << 10); err == nil {
			err = db.replaceDirEntry(t, stageName(sks.id, true), pendingDrop(sks.id), encodeDirEntry(sks))
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

// finishDropLocked is finishDrop under the keyspace latch.
func (db *DB) finishDropLocked(ks *Keyspace) error {
	db.ksMu.Lock()
	defer db.ksMu.Unlock()
	return db.finishDrop(ks)
}
