package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"strata/btree"
	"strata/memgov"
	"strata/mtr"
	"strata/mvcc"
	"strata/page"
	"strata/txn"
	"strata/wal"
)

// Tx is a transaction (EN-1..3). A Tx is used by one goroutine at a time.
type Tx struct {
	db   *DB
	id   txn.ID
	ws   *txn.WriteSet
	held []string
	done bool

	lockBytes int // memory of held's names and lock-table entries (EN-6)

	snap *mvcc.Snapshot // EN-8: nil reads the latest committed versions

	interrupt <-chan struct{} // closed: row-lock waits give up (ErrInterrupted)

	lockWait time.Duration // row-lock wait bound; 0: the engine's

	stage    *stage        // EN-9: the spilled changes, nil until the first spill
	base     int64         // EN-9: the journal position the write set starts at
	spilling *pendingSpill // EN-9: the write set a spill running in the background takes
	spillErr error         // EN-9: a spill failed: only Rollback is left

	// EN-10: per keyspace, whether the intention lock is held, the row
	// locks held, and whether the keyspace is locked whole instead.
	intents   []uint32
	rowLocks  map[uint32]int
	escalated map[uint32]bool
	lockTry   int // multiplier of the lock memory at which escalation is tried next

	seq Sequencer // EN-11: entries numbered in commit order, nil without
}

// Sequencer adds entries to a transaction's commit in commit order
// (EN-11). Entries runs under the apply latch, in the mini-transaction
// that commits the transaction, after its write set is in the trees; End
// reports, still under the latch, whether that mini-transaction committed
// (false: Entries may run again in a retry, or the commit failed) and the
// commit's version timestamp (what snapshots compare with, EN-8; 0 for a
// staged commit, whose timestamp comes later). Bytes bounds the size of
// the entries, for the commit's log-space estimate.
type Sequencer interface {
	Entries() ([]Entry, error)
	End(committed bool, ts uint64)
	Bytes() int
}

// Entry is one key and value a Sequencer puts.
type Entry struct {
	Keyspace   *Keyspace
	Key, Value []byte
}

// SnapshotTS is the version timestamp the transaction's snapshot reads
// at (EN-8); ok is false without a snapshot.
func (tx *Tx) SnapshotTS() (ts uint64, ok bool) {
	if tx.snap == nil {
		return 0, false
	}
	return tx.snap.TS, true
}

// SetSequencer makes s part of the transaction's commit (EN-11); a
// transaction without writes then commits s's entries alone.
func (tx *Tx) SetSequencer(s Sequencer) { tx.seq = s }

// Begin starts a transaction.
func (db *DB) Begin() *Tx {
	return &Tx{db: db, id: txn.ID(db.nextTxn.Add(1)), ws: txn.NewWriteSet()}
}

// ID is the transaction's identifier.
func (tx *Tx) ID() uint64 { return uint64(tx.id) }

func lockName(ks *Keyspace, key []byte) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], ks.id)
	return string(b[:]) + string(key)
}

func (tx *Tx) lock(ks *Keyspace, key []byte, mode txn.Mode) error {
	return tx.lockOrTry(ks, key, mode, false)
}

// lockOrTry takes the lock, waiting for it unless try is set (then
// ErrLockNotAvailable when it cannot be granted at once, TX-4).
func (tx *Tx) lockOrTry(ks *Keyspace, key []byte, mode txn.Mode, try bool) error {
	if tx.done {
		return ErrTxnDone
	}
	if tx.escalated[ks.id] { // EN-10: the keyspace is locked whole
		return nil
	}
	if !slices.Contains(tx.intents, ks.id) { // EN-10
		if err := tx.take(tableLockName(ks.id), txn.Shared, try); err != nil {
			return err
		}
		tx.intents = append(tx.intents, ks.id)
	}
	fresh, err := tx.takeFresh(lockName(ks, key), mode, try)
	if err != nil {
		return err
	}
	if fresh && mode == txn.Exclusive { // shared locks (reads) never escalate to an exclusive table lock
		if tx.rowLocks == nil {
			tx.rowLocks = map[uint32]int{}
		}
		n := tx.rowLocks[ks.id] + 1
		tx.rowLocks[ks.id] = n
		switch {
		case n >= tx.db.opts.LockEscalation && n&(n-1) == 0:
			tx.escalate(ks.id)
		case int64(tx.lockBytes) >= tx.escalateBytes():
			// Long keys: the locks' memory nears EN-6's bound before
			// their count reaches LockEscalation.
			tx.lockTry *= 2
			tx.escalate(ks.id)
		}
	}
	return tx.checkMemory()
}

func (tx *Tx) take(name string, mode txn.Mode, try bool) error {
	_, err := tx.takeFresh(name, mode, try)
	return err
}

func (tx *Tx) takeFresh(name string, mode txn.Mode, try bool) (fresh bool, err error) {
	if try {
		fresh, err = tx.db.locks.TryLock(tx.id, name, mode)
	} else {
		fresh, err = tx.db.locks.LockWaitInterruptible(tx.id, name, mode, tx.lockWait, tx.interrupt)
	}
	if err == nil && fresh {
		tx.held = append(tx.held, name)
		tx.lockBytes += len(name) + lockOverhead
	}
	return fresh, err
}

// escalateBytes is the lock memory at which the transaction next tries to
// escalate (EN-10): a quarter of MaxTxnMemory, doubling after each try.
func (tx *Tx) escalateBytes() int64 {
	if tx.lockTry == 0 {
		tx.lockTry = 1
	}
	return tx.db.opts.MaxTxnMemory / 4 * int64(tx.lockTry)
}

// tableLockName names a keyspace's lock (EN-10); row lock names begin with
// the keyspace id, whose first byte is never 0xFF.
func tableLockName(ks uint32) string {
	return string(binary.BigEndian.AppendUint32([]byte{0xFF}, ks))
}

// escalate tries, without waiting, to lock keyspace ks whole and drop the
// transaction's row locks in it (EN-10); when another transaction holds
// its intention lock, the row locks stay (tried again at twice as many).
func (tx *Tx) escalate(ks uint32) {
	if _, err := tx.db.locks.TryLock(tx.id, tableLockName(ks), txn.Exclusive); err != nil {
		return
	}
	if tx.escalated == nil {
		tx.escalated = map[uint32]bool{}
	}
	tx.escalated[ks] = true
	tx.db.escalations.Add(1)
	var prefix [4]byte
	binary.BigEndian.PutUint32(prefix[:], ks)
	kept := tx.held[:0]
	for _, name := range tx.held {
		if len(name) > 4 && name[:4] == string(prefix[:]) {
			tx.db.locks.Unlock(tx.id, name)
			tx.lockBytes -= len(name) + lockOverhead
			continue
		}
		kept = append(kept, name)
	}
	clear(tx.held[len(kept):])
	tx.held = kept
	delete(tx.rowLocks, ks)
}

// lockOverhead is a held lock's memory besides its name: the held slice's
// string header and the lock table's entry.
const lockOverhead = 160

// checkMemory enforces EN-6 after the transaction grew, spilling the
// write set when it passes the spill threshold (EN-9).
func (tx *Tx) checkMemory() error {
	if tx.ws.Len() >= memgov.MinRows || len(tx.held) >= memgov.MinRows {
		if err := memgov.Check(); err != nil {
			if tx.ws.Len() < memgov.MinRows {
				return fmt.Errorf("%w: %w", ErrTxnTooLarge, err)
			}
			return tx.spill(false)
		}
	}
	if int64(tx.ws.Bytes()) > tx.db.opts.SpillBytes || int64(tx.ws.Memory()+tx.pendingMemory()) > tx.db.opts.MaxTxnMemory/2 {
		if err := tx.spill(true); err != nil {
			return err
		}
	}
	n := int64(tx.ws.Memory() + tx.pendingMemory() + tx.lockBytes)
	if n > tx.db.opts.MaxTxnMemory && tx.spilling != nil {
		if err := tx.waitSpill(); err != nil {
			return err
		}
		n = int64(tx.ws.Memory() + tx.lockBytes)
	}
	if n > tx.db.opts.MaxTxnMemory {
		return fmt.Errorf("%w: its changes and locks take %d bytes, more than %d", ErrTxnTooLarge, n, tx.db.opts.MaxTxnMemory)
	}
	return nil
}

// pendingMemory is the memory of the write set a background spill is
// still writing (EN-9).
func (tx *Tx) pendingMemory() int {
	if p := tx.spilling; p != nil {
		return p.ws.Memory()
	}
	return 0
}

// ownWrite is the transaction's newest buffered change of key: in the
// write set, else in the one a background spill is writing (EN-9).
func (tx *Tx) ownWrite(ksid uint32, key []byte) (txn.Write, bool) {
	if w, ok := tx.ws.Get(ksid, key); ok {
		return w, true
	}
	if p := tx.spilling; p != nil {
		return p.ws.Get(ksid, key)
	}
	return txn.Write{}, false
}

// Get returns the value of key as this transaction sees it (EN-3, EN-8).
func (tx *Tx) Get(ks *Keyspace, key []byte) ([]byte, bool, error) {
	return tx.get(ks, key, false)
}

// GetCurrent reads key's latest committed version (or the transaction's
// own write) whatever its snapshot: a current read without a lock (EN-8).
func (tx *Tx) GetCurrent(ks *Keyspace, key []byte) ([]byte, bool, error) {
	return tx.get(ks, key, true)
}

// get reads key: the transaction's own write, else the committed value as
// of its snapshot, or the latest one when current is set (EN-8).
func (tx *Tx) get(ks *Keyspace, key []byte, current bool) ([]byte, bool, error) {
	return tx.getScanned(ks, key, current, nil)
}

// scanned is a value a current scan read, and the commit clock from
// before the scan began.
type scanned struct {
	clock uint64
	value []byte
}

// getScanned is get that, for a current read of a key a scan returned
// (sc), uses the scan's value instead of reading the tree when no commit
// has been published since the scan began.
func (tx *Tx) getScanned(ks *Keyspace, key []byte, current bool, sc *scanned) ([]byte, bool, error) {
	if tx.done {
		return nil, false, ErrTxnDone
	}
	if w, ok := tx.ownWrite(ks.id, key); ok {
		if w.Delete {
			return nil, false, nil
		}
		return w.Value, true, nil
	}
	if tx.stage != nil { // EN-9: a key that may be staged
		if err := tx.spillErr; err != nil {
			return nil, false, err
		}
		w, ok, err := tx.stagedGet(ks.id, key, math.MaxInt64)
		if err != nil || ok {
			return w.Value, ok && !w.Delete, err
		}
	}
	if sc != nil && current && tx.db.versions.Clock() == sc.clock {
		return sc.value, true, nil
	}
	if current || tx.snap == nil {
		return ks.tree.Get(tx.db.pool, key)
	}
	if err := tx.snapshotCheck(ks); err != nil {
		return nil, false, err
	}
	v, found, err := ks.tree.Get(tx.db.pool, key)
	if err != nil {
		return nil, false, err
	}
	old, existed, decided, err := tx.snap.Resolve(ks.id, key) // after the tree (MV-3)
	if err != nil || !decided {
		return v, found, err
	}
	return old, existed, nil
}

// GetForUpdate locks key exclusively, then reads it (the latest committed
// version, as the lock waits for any committing writer).
func (tx *Tx) GetForUpdate(ks *Keyspace, key []byte) ([]byte, bool, error) {
	if err := tx.lock(ks, key, txn.Exclusive); err != nil {
		return nil, false, err
	}
	return tx.get(ks, key, true)
}

// CommitClock is the timestamp of the newest published commit (mvcc
// MV-1); GetLockedScanned takes one read before a scan began.
func (tx *Tx) CommitClock() uint64 { return tx.db.versions.Clock() }

// GetLockedScanned is GetForUpdate (GetForShare when shared) of a key
// that a ScanCurrent begun after CommitClock returned clock yielded with
// value: when no commit has been published since, the value the scan read
// is still the latest committed one (a writer of the key commits before
// releasing its lock, which this call has just taken), so the tree is not
// searched again. Own writes made since are still seen.
func (tx *Tx) GetLockedScanned(ks *Keyspace, key []byte, shared bool, clock uint64, value []byte) ([]byte, bool, error) {
	mode := txn.Exclusive
	if shared {
		mode = txn.Shared
	}
	if err := tx.lock(ks, key, mode); err != nil {
		return nil, false, err
	}
	return tx.getScanned(ks, key, true, &scanned{clock, value})
}

// GetForShare locks key shared, then reads it.
func (tx *Tx) GetForShare(ks *Keyspace, key []byte) ([]byte, bool, error) {
	if err := tx.lock(ks, key, txn.Shared); err != nil {
		return nil, false, err
	}
	return tx.get(ks, key, true)
}

// TryGetLocked is GetForUpdate (GetForShare when shared) that does not
// wait: ErrLockNotAvailable when another transaction holds or awaits a
// conflicting lock (NOWAIT, SKIP LOCKED; txn TX-4).
func (tx *Tx) TryGetLocked(ks *Keyspace, key []byte, shared bool) ([]byte, bool, error) {
	mode := txn.Exclusive
	if shared {
		mode = txn.Shared
	}
	if err := tx.lockOrTry(ks, key, mode, true); err != nil {
		return nil, false, err
	}
	return tx.get(ks, key, true)
}

// Lock takes an exclusive row lock on key without reading it.
func (tx *Tx) Lock(ks *Keyspace, key []byte) error { return tx.lock(ks, key, txn.Exclusive) }

func clone(b []byte) []byte { return append([]byte{}, b...) }

// Put inserts or replaces key.
func (tx *Tx) Put(ks *Keyspace, key, value []byte) error {
	if err := checkEntry(key, value); err != nil {
		return err
	}
	if err := tx.lock(ks, key, txn.Exclusive); err != nil {
		return err
	}
	return tx.putLocked(ks, key, value)
}

// checkEntry refuses a key or value the B+tree cannot hold.
func checkEntry(key, value []byte) error {
	if len(key) > btree.MaxKey || len(value) > btree.MaxValue {
		return fmt.Errorf("%w: key %d bytes, value %d bytes", btree.ErrTooLarge, len(key), len(value))
	}
	return nil
}

// putLocked buffers the write of key, whose lock the transaction holds.
func (tx *Tx) putLocked(ks *Keyspace, key, value []byte) error {
	// One allocation holds the copies of both.
	buf := make([]byte, len(key)+len(value))
	copy(buf, key)
	copy(buf[len(key):], value)
	tx.ws.Put(txn.Write{Keyspace: ks.id, Key: buf[:len(key):len(key)], Value: buf[len(key):]})
	return tx.checkMemory()
}

// Insert adds key, failing with ErrKeyExists if it is present.
func (tx *Tx) Insert(ks *Keyspace, key, value []byte) error {
	if err := tx.lock(ks, key, txn.Exclusive); err != nil {
		return err
	}
	if _, found, err := tx.get(ks, key, true); err != nil {
		return err
	} else if found {
		return ErrKeyExists
	}
	if err := checkEntry(key, value); err != nil {
		return err
	}
	return tx.putLocked(ks, key, value) // locked above
}

// Delete removes key (a no-op if absent).
func (tx *Tx) Delete(ks *Keyspace, key []byte) error {
	if err := tx.lock(ks, key, txn.Exclusive); err != nil {
		return err
	}
	tx.ws.Put(txn.Write{Keyspace: ks.id, Key: clone(key), Delete: true})
	return tx.checkMemory()
}

// SetInterrupt makes row-lock waits give up with ErrInterrupted once ch is
// closed (the current statement's cancellation; nil: never).
func (tx *Tx) SetInterrupt(ch <-chan struct{}) { tx.interrupt = ch }

// SetLockWaitTimeout bounds this transaction's row-lock waits (0: the
// engine's LockWaitTimeout).
func (tx *Tx) SetLockWaitTimeout(d time.Duration) { tx.lockWait = d }

// Savepoint marks the buffered writes so far (for statement rollback): a
// position in the transaction's journal (EN-9).
func (tx *Tx) Savepoint() int { return int(tx.base) + tx.ws.Savepoint() }

// RollbackTo undoes the writes made after sp; locks stay held. Staged
// changes after sp are marked dead (EN-9).
func (tx *Tx) RollbackTo(sp int) {
	p := int64(sp)
	if p >= tx.base {
		tx.ws.RollbackTo(int(p - tx.base))
		return
	}
	_ = tx.waitSpill() // a failure stays for every later operation
	end := int64(tx.Savepoint())
	tx.stage.dead = append(tx.stage.dead, [2]int64{p, end})
	tx.ws.Reset()
	tx.base = end
}

// Writes is the number of changes this transaction holds (a key changed
// twice after a spill counts twice).
func (tx *Tx) Writes() int {
	n := tx.ws.Len()
	if tx.stage != nil {
		n += tx.stage.writes
	}
	if p := tx.spilling; p != nil {
		n += p.ws.Len()
	}
	return n
}

// Commit applies the write set atomically and, unless AsyncCommit, waits
// for it to be durable (EN-1, EN-2). On error nothing was applied.
func (tx *Tx) Commit() error { return tx.commit(tx.db.opts.AsyncCommit) }

// CommitDurable is Commit that waits for durability even under
// AsyncCommit (for changes acknowledged as durable whatever the server's
// commit mode, such as accounts and grants).
func (tx *Tx) CommitDurable() error { return tx.commit(false) }

func (tx *Tx) commit(async bool) error {
	if tx.done {
		return ErrTxnDone
	}
	defer tx.finish()
	if tx.ws.Len() == 0 && tx.stage == nil && tx.seq == nil {
		tx.db.commits.Add(1)
		return nil
	}
	if tx.db.closed.Load() {
		return ErrClosed
	}
	if p := tx.db.applyErr.Load(); p != nil {
		return fmt.Errorf("engine: a committed transaction could not be applied, restart to recover: %w", *p)
	}
	if err := tx.db.pool.FlushErr(); err != nil {
		// A page write failed: the data volume can no longer be trusted to
		// take the changes this commit would make dirty. Refuse writes.
		return fmt.Errorf("engine: data volume write failed earlier, refusing commits: %w", err)
	}
	if tx.stage != nil {
		return tx.commitStaged(async)
	}
	end, err := tx.db.apply(tx.ws, tx.seq)
	if errors.Is(err, ErrTxnTooLarge) {
		// Too large for one mini-transaction: commit by rolling forward
		// (EN-9).
		return tx.commitStaged(async)
	}
	tx.releaseLocks()
	if err != nil {
		return err
	}
	tx.db.commits.Add(1)
	if async {
		return nil
	}
	return tx.db.log.WaitDurable(end)
}

// Rollback drops the buffered writes and the locks.
func (tx *Tx) Rollback() {
	if tx.done {
		return
	}
	tx.db.rollbacks.Add(1)
	tx.finish()
}

func (tx *Tx) finish() {
	_ = tx.waitSpill()
	if st := tx.stage; st != nil {
		tx.stage = nil
		for _, r := range st.runs {
			if err := tx.db.dropStage(r.ks, []byte(r.ks.name), r.inline); err != nil {
				// Recovery drops it (EN-9); until then its pages are lost space.
				slog.Error("dropping a rolled-back transaction's staging keyspace", "err", err)
			}
		}
	}
	tx.releaseLocks()
	tx.snap.Release()
	tx.snap = nil
	tx.done = true
}

func (tx *Tx) releaseLocks() {
	for _, k := range tx.held {
		tx.db.locks.Unlock(tx.id, k)
	}
	tx.held = nil
	tx.lockBytes = 0
	tx.intents, tx.rowLocks, tx.escalated, tx.lockTry = nil, nil, nil, 0
}

// apply runs the write set as one mini-transaction and returns the LSN
// that makes it durable.
func (db *DB) apply(ws *txn.WriteSet, seq Sequencer) (page.LSN, error) {
	db.bigMu.RLock() // EN-9: no staged commit is applying
	defer db.bigMu.RUnlock()
	db.ksMu.RLock()
	defer db.ksMu.RUnlock()
	// Fault the leaves in before taking the apply latch, so that the
	// serial section rarely waits for the data volume.
	var err error
	var rh btree.ReadHint // keys ascend: each leaf is faulted in once (BT-9)
	ws.Ascend(func(w txn.Write) bool {
		ks := db.byID[w.Keyspace]
		if ks == nil {
			err = fmt.Errorf("%w: id %d", ErrNoKeyspace, w.Keyspace)
			return false
		}
		err = ks.tree.Touch(db.pool, w.Key, &rh)
		return err == nil
	})
	if err != nil {
		return 0, err
	}
	need := int64(ws.Bytes())*3 + 64<<10 // splits log whole new pages
	if seq != nil {
		need += int64(seq.Bytes()) * 2 // EN-11: the sequencer's entries, and their pages
	}
	for attempt := 0; ; attempt++ {
		if err := db.ensureLogSpace(need); err != nil {
			return 0, err
		}
		t := db.mtrs.Begin()
		c := db.versions.Begin() // under the apply latch (MV-1)
		collect := false
		t.OnEnd(func(committed bool) { // still under the latch (MV-1)
			if committed {
				collect = c.Publish()
			} else {
				c.Abort()
			}
			if seq != nil {
				seq.End(committed, c.TS) // EN-11
			}
		})
		maxPages := db.pool.Frames() / 2
		var h btree.Hint // BT-9: within this mini-transaction
		ws.Ascend(func(w txn.Write) bool {
			tree := db.byID[w.Keyspace].tree
			if c.Recording() { // MV-3: the before-image, before the change is visible
				old, existed, gerr := tree.GetIn(t, db.pool, w.Key)
				if gerr != nil {
					err = gerr
					return false
				}
				c.Record(w.Keyspace, w.Key, old, existed)
			}
			if w.Delete {
				h.Forget() // a merge may change the hinted path
				_, err = tree.Delete(t, db.alloc, w.Key)
			} else {
				err = tree.PutHint(t, db.alloc, w.Key, w.Value, &h)
			}
			if err == nil && t.Pages() > maxPages {
				err = ErrTxnTooLarge
			}
			return err == nil
		})
		if err == nil && seq != nil {
			err = db.putSequenced(t, seq, c) // EN-11: numbered in commit order
		}
		if err != nil {
			t.Abort()
			return 0, err
		}
		_, end, err := t.Commit()
		if collect {
			db.versions.Collect()
		}
		if errors.Is(err, wal.ErrLogFull) && attempt < 10 {
			continue
		}
		return end, err
	}
}

// putSequenced puts seq's entries in t (EN-11), recording before-images
// for snapshots as the write set's are (MV-3) when c is given.
func (db *DB) putSequenced(t *mtr.Mtr, seq Sequencer, c *mvcc.Commit) error {
	entries, err := seq.Entries()
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := checkEntry(e.Key, e.Value); err != nil {
			return err
		}
		tree := e.Keyspace.tree
		if c != nil && c.Recording() {
			old, existed, err := tree.GetIn(t, db.pool, e.Key)
			if err != nil {
				return err
			}
			c.Record(e.Keyspace.id, e.Key, old, existed)
		}
		if err := tree.Put(t, db.alloc, e.Key, e.Value); err != nil {
			return err
		}
	}
	return nil
}

// Scan returns an iterator over [lo, hi) of ks as this transaction sees it;
// hi nil means no upper bound. Close returns it for reuse.
func (tx *Tx) Scan(ks *Keyspace, lo, hi []byte, reverse bool) *Iterator {
	return tx.scan(ks, lo, hi, reverse, false)
}

// ScanCurrent is Scan of the latest committed versions whatever the
// transaction's snapshot (the row search of locking statements and
// unique checks, EN-8).
func (tx *Tx) ScanCurrent(ks *Keyspace, lo, hi []byte, reverse bool) *Iterator {
	return tx.scan(ks, lo, hi, reverse, true)
}

func (tx *Tx) scan(ks *Keyspace, lo, hi []byte, reverse, current bool) *Iterator {
	it := iterators.Get().(*Iterator)
	var src source = ks.tree.Scan(tx.db.pool, lo, hi, reverse)
	if tx.snap != nil && !current { // EN-8
		src = newSnapSource(src.(*btree.Iterator), tx.snap, ks.id, lo, hi, reverse)
	}
	*it = Iterator{tree: src, reverse: reverse, own: it.ownBuf[:0]}
	if tx.done {
		it.err = ErrTxnDone
		return it
	}
	if !current {
		if err := tx.snapshotCheck(ks); err != nil {
			it.err = err
			return it
		}
	}
	tx.ws.Range(ks.id, lo, hi, reverse, func(w txn.Write) bool {
		it.own = append(it.own, w)
		return true
	})
	if p := tx.spilling; p != nil { // EN-9: below the write set, the one being spilled
		it.own = mergeOwn(it.own, p.ws, ks.id, lo, hi, reverse)
	}
	it.ownBuf = it.own
	if tx.spillErr != nil {
		it.err = tx.spillErr
		return it
	}
	if tx.stage != nil && tx.stage.touches(ks.id, lo, hi) { // EN-9: the changes staged before the scan began
		it.staged = tx.stagedRange(ks.id, lo, hi, reverse, int64(tx.Savepoint()))
	}
	return it
}

// mergeOwn merges the changes of older (a write set being spilled) in
// [lo, hi) of keyspace ks into own (the newer write set's, in iteration
// order), own winning on equal keys.
func mergeOwn(own []txn.Write, older *txn.WriteSet, ks uint32, lo, hi []byte, reverse bool) []txn.Write {
	var old []txn.Write
	older.Range(ks, lo, hi, reverse, func(w txn.Write) bool {
		old = append(old, w)
		return true
	})
	if len(old) == 0 {
		return own
	}
	out := make([]txn.Write, 0, len(own)+len(old))
	i, j := 0, 0
	for i < len(own) || j < len(old) {
		c := -1
		switch {
		case i == len(own):
			c = 1
		case j < len(old):
			if c = bytes.Compare(own[i].Key, old[j].Key); reverse {
				c = -c
			}
		}
		switch {
		case c < 0:
			out = append(out, own[i])
			i++
		case c > 0:
			out = append(out, old[j])
			j++
		default:
			out = append(out, own[i])
			i++
			j++
		}
	}
	return out
}

// source is an ordered stream of committed entries: a tree scan, or one as
// of a snapshot (snapSource).
type source interface {
	Next() bool
	Key() []byte
	Value() []byte
	Err() error
	Close()
}

// Iterator merges the committed entries with the transaction's own
// buffered writes.
type Iterator struct {
	tree     source
	staged   *stagedMerge // EN-9: own staged writes, below own
	own      []txn.Write  // own writes not yet merged
	ownBuf   []txn.Write  // all of them (kept for reuse)
	reverse  bool
	treeOK   bool // the tree iterator is on an entry not yet returned
	advance  bool // the tree entry was returned: step past it first
	started  bool
	key, val []byte
	err      error
}

// Next advances; false at the end or on error.
func (it *Iterator) Next() bool {
	if it.err != nil {
		return false
	}
	if !it.started || it.advance {
		// Stepping may refill the tree iterator's buffer, which the key
		// and value returned last time point into: only now is it safe.
		it.started, it.advance = true, false
		it.treeOK = it.tree.Next()
	}
	for {
		w, hasOwn := it.peekOwn()
		if !it.treeOK && !hasOwn {
			it.err = it.tree.Err()
			if it.err == nil && it.staged != nil {
				it.err = it.staged.err
			}
			return false
		}
		var c int
		switch {
		case !it.treeOK:
			c = 1
		case !hasOwn:
			c = -1
		default:
			c = bytes.Compare(it.tree.Key(), w.Key)
			if it.reverse {
				c = -c
			}
		}
		if c < 0 { // tree entry comes first
			it.key, it.val = it.tree.Key(), it.tree.Value()
			it.advance = true
			return true
		}
		it.popOwn()
		if c == 0 {
			it.treeOK = it.tree.Next()
		}
		if w.Delete {
			continue
		}
		it.key, it.val = w.Key, w.Value
		return true
	}
}

// peekOwn is the next own write: the write set's, else (or, on the same
// key, below it) the staged one (EN-9).
func (it *Iterator) peekOwn() (txn.Write, bool) {
	if it.staged == nil || !it.staged.cur.have {
		if len(it.own) > 0 {
			return it.own[0], true
		}
		return txn.Write{}, false
	}
	if len(it.own) > 0 && it.ownFirst() <= 0 {
		return it.own[0], true
	}
	return it.staged.cur.w, true
}

// popOwn steps past the write peekOwn returned (and a staged write of the
// same key, which it hides).
func (it *Iterator) popOwn() {
	if it.staged == nil || !it.staged.cur.have {
		it.own = it.own[1:]
		return
	}
	if len(it.own) == 0 {
		it.staged.advance()
		return
	}
	c := it.ownFirst()
	if c <= 0 {
		it.own = it.own[1:]
	}
	if c >= 0 {
		it.staged.advance()
	}
}

// ownFirst compares the write set's next key with the staged one's in
// iteration order.
func (it *Iterator) ownFirst() int {
	c := bytes.Compare(it.own[0].Key, it.staged.cur.w.Key)
	if it.reverse {
		c = -c
	}
	return c
}

// Key is the current key; valid until Next.
func (it *Iterator) Key() []byte { return it.key }

// Value is the current value; valid until Next.
func (it *Iterator) Value() []byte { return it.val }

// Err is the error that ended the iteration.
func (it *Iterator) Err() error { return it.err }

// iterators recycles Iterators (Close) so range scans do not allocate.
var iterators = sync.Pool{New: func() any { return new(Iterator) }}

// Close releases the iterator for reuse: it and the keys and values it
// returned must not be used afterwards. Not closing one is allowed (it is
// garbage collected).
func (it *Iterator) Close() {
	if it.tree == nil {
		panic("engine: Iterator closed twice")
	}
	it.tree.Close()
	it.tree = nil
	if it.staged != nil {
		it.staged.close()
		it.staged = nil
	}
	clear(it.ownBuf[:cap(it.ownBuf)])
	it.own, it.ownBuf, it.key, it.val = nil, it.ownBuf[:0], nil, nil
	iterators.Put(it)
}
