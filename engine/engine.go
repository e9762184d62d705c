// Package engine is Strata's embedded storage engine API: it opens the
// volumes, runs crash recovery, owns named keyspaces (tables and indexes,
// each a B+tree) and runs transactions over them.
//
// Transaction design (cited as EN-n):
//
//	EN-1 A transaction buffers its writes privately (txn.WriteSet) under
//	     exclusive row locks. Commit applies the whole write set to the
//	     trees in one mini-transaction, i.e. one redo record: pages never
//	     hold uncommitted data and recovery is redo-only.
//	EN-2 A commit is acknowledged only after its redo record is durable
//	     (unless AsyncCommit). Its changes become visible to readers when the
//	     mini-transaction commits, which precedes durability by at most one
//	     group-commit; row locks are released at the same moment, so a later
//	     writer's record always follows in the log.
//	EN-3 Reads are READ COMMITTED: the latest committed version from the
//	     trees, overlaid with the transaction's own buffered writes.
//	EN-4 Recovery: repair torn pages from the doublewrite area, redo every
//	     record after the checkpoint (idempotent by page LSN), flush, and
//	     write a new checkpoint before anything else is logged (WAL-4).
//	EN-5 Checkpoints are fuzzy: the checkpoint LSN is the smallest recLSN
//	     of any dirty page, or the log end read while no mini-transaction
//	     runs; log space is reclaimed by flushing the oldest pages first.
//	     The data volume is synced before a checkpoint is written (pages
//	     written in atomic mode are durable only then, PS-4).
//	EN-6 A transaction's memory (its write set and row locks, counted with
//	     their per-entry overhead) is bounded by MaxTxnMemory: the change or
//	     lock that would pass it fails with ErrTxnTooLarge (MySQL 1206), as
//	     does any change while the process is over its memory budget
//	     (memgov.ErrOverBudget, MEM-3). A commit of a write set larger than
//	     a quarter of the redo log would fail anyway (WAL-3); the bound makes
//	     it fail before the memory is spent.
//	EN-7 One engine per volume directory: Open takes an exclusive lock in
//	     each directory it opens volume files in (log, data, BPE; package
//	     volume's LockDir, which names the holder's pid) before opening
//	     them, and holds it until Close (or Abandon, as a crash would drop it).
//	EN-8 Snapshot reads (snapshot.go, package mvcc): a transaction may
//	     read as of one commit timestamp; locking reads stay current.
//	EN-9 Transactions larger than memory (stage.go). When the write set
//	     passes the spill threshold (SpillBytes: a sixteenth of the log or
//	     half of MaxTxnMemory) it is handed to a goroutine that writes it
//	     as a new run (a private staging keyspace, directory name
//	     "\x00stage\x00"+id, never listed) in key order, while the
//	     transaction goes on in a fresh write set (two cores: the statement
//	     and the spill); reads look in the set being spilled after their
//	     own. One entry per change, keyed (keyspace, key, position), the
//	     position being the write-set journal's, so that a savepoint before
//	     a spill is still exact (a rollback marks the positions after it
//	     dead, in memory) and a scan sees exactly the changes made before it
//	     began. A run only appends (a spill never reads an earlier one's
//	     pages); reads check runs newest first, skipping those whose key
//	     bounds or Bloom filter exclude the key; scans merge the runs.
//	     Such a transaction (or one whose commit would pass a quarter of
//	     the log or half the pool) commits by rolling forward: its runs'
//	     directory entries become one "\x00apply\x00"+id entry listing them
//	     with the dead positions (the commit record, one mini-transaction;
//	     committed once it is durable), then the newest live entry of every
//	     key, merged over the runs by a goroutine ahead of the applier, is
//	     applied to the trees in key order in batches of mini-transactions,
//	     the last of which turns the apply entry into pending drops of the
//	     runs, whose pages a goroutine then frees (a Close or crash first:
//	     the next Open frees them). Re-applying final values is idempotent, so recovery (EN-4)
//	     finishes every apply entry from the start before anything else
//	     runs and drops every stage entry (a transaction that never
//	     committed). Pages of user keyspaces still hold only committed data
//	     (EN-1). While it applies, other commits and new snapshots wait
//	     (bigMu, mvcc MV-6), and snapshots older than it that read a
//	     keyspace it changes get 1412. While a spill or a roll-forward
//	     runs, the oldest dirty pages are written ahead once the pool is
//	     past its dirty limit (bulkFlush). Row locks stay in memory, bounded by
//	     EN-6, unless escalated (EN-10). A spill that fails (I/O, log)
//	     leaves the transaction able only to roll back.
//	EN-10 Lock escalation: every transaction takes a keyspace's intention
//	     lock (shared, on the keyspace's lock name) before its first row
//	     lock in it. A transaction holding LockEscalation exclusive row
//	     locks (reads taking shared ones never escalate) in one keyspace
//	     (rounded up to a power of two, and at each doubling after), or
//	     whose row locks take a quarter of MaxTxnMemory (long keys; then
//	     at each doubling), tries, without waiting, to take the lock of
//	     the keyspace it is locking in exclusively; granted (no other
//	     transaction holds or awaits a row lock there), it drops its row
//	     locks there and takes none more: a change of millions of rows
//	     then holds one lock. Not granted, it keeps its row locks. Other
//	     transactions wait at the intention lock (timeouts and deadlock
//	     detection as for rows).
//	EN-11 Sequenced entries (Tx.SetSequencer): a transaction may carry a
//	     Sequencer whose entries are computed under the apply latch, in the
//	     mini-transaction that commits it (for a staged commit, the commit
//	     record's), after the write set: numbers it assigns follow commit
//	     order and LSN order, and its entries are durable exactly when the
//	     transaction is (the binary log, package mysql/binlog, numbers its
//	     events so). A transaction with only a sequencer commits its
//	     entries alone.
//	EN-12 Online backup (backup.go): Backup copies the running database
//	     into a new data directory: the checkpoint is held at S (a floor
//	     setCheckpoint respects) while the data pages are copied verified,
//	     then the whole log is copied; recovery of the copy (Open) replays
//	     from S past the durable end read after the pages, so the copy is
//	     the database as of a moment during the backup.
package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"strata/bpe"
	"strata/btree"
	"strata/bufpool"
	"strata/iogov"
	"strata/mtr"
	"strata/mvcc"
	"strata/page"
	"strata/pagestore"
	"strata/txn"
	"strata/volume"
	"strata/wal"
)

const (
	dirKeyspace       = 1
	firstUserKeyspace = 2
	checkpointEvery   = time.Second
)

var (
	// ErrKeyExists is returned by Insert for a key that is present.
	ErrKeyExists = errors.New("engine: duplicate key")
	// ErrNoKeyspace is returned for an unknown keyspace name.
	ErrNoKeyspace = errors.New("engine: no such keyspace")
	// ErrKeyspaceExists is returned by CreateKeyspace for a taken name.
	ErrKeyspaceExists = errors.New("engine: keyspace exists")
	// ErrTxnTooLarge is returned when a transaction's changes do not fit in
	// half the buffer pool or a quarter of the redo log.
	ErrTxnTooLarge = errors.New("engine: transaction too large for the buffer pool or redo log")
	// ErrTxnDone is returned when a finished transaction is used.
	ErrTxnDone = errors.New("engine: transaction already committed or rolled back")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("engine: closed")
	// ErrInterrupted ends a row-lock wait of a killed statement (MySQL 1317).
	ErrInterrupted = txn.ErrInterrupted
	// Re-exported lock errors (MySQL 1213 and 1205).
	ErrDeadlock        = txn.ErrDeadlock
	ErrLockWaitTimeout = txn.ErrLockWaitTimeout
	// ErrLockNotAvailable: a lock TryGetLocked could not take at once.
	ErrLockNotAvailable = txn.ErrLockNotAvailable
)

// Keyspace is a named ordered key space (a table or an index).
type Keyspace struct {
	name    string
	id      uint32
	tree    btree.Tree
	created uint64 // the version clock when created (EN-8); 0 at open
}

// Name is the keyspace's name.
func (k *Keyspace) Name() string { return k.name }

// EstimateEntries estimates the committed entries of a keyspace from a few
// random root-to-leaf descents (a few dozen page reads, whatever its size).
func (db *DB) EstimateEntries(ks *Keyspace) (int64, error) {
	if db.closed.Load() {
		return 0, ErrClosed
	}
	return ks.tree.EstimateEntries(db.pool, 16)
}

// EstimateRange estimates the committed entries of ks with lo <= key < hi
// (hi nil: no upper bound), given total, the caller's estimate of all its
// entries: exact when both ends fall in one leaf, else the fraction of the
// key order between the two ends (btree Position) times total. Two
// descents, whatever the range's size.
func (db *DB) EstimateRange(ks *Keyspace, lo, hi []byte, total int64) (float64, error) {
	if db.closed.Load() {
		return 0, ErrClosed
	}
	if lo == nil {
		lo = []byte{}
	}
	flo, llo, slo, err := ks.tree.Position(db.pool, lo)
	if err != nil {
		return 0, err
	}
	fhi, lhi, shi, err := ks.tree.Position(db.pool, hi)
	if err != nil {
		return 0, err
	}
	if hi != nil && llo == lhi {
		return float64(max(shi-slo, 0)), nil
	}
	return max(fhi-flo, 0) * float64(total), nil
}

// SampleKeys calls fn with the keys of leaves random leaves of ks, each
// leaf's keys in order, first reporting the leaf's start (fn(nil)). fn
// must not keep a key.
func (db *DB) SampleKeys(ks *Keyspace, leaves int, fn func(key []byte)) error {
	if db.closed.Load() {
		return ErrClosed
	}
	for i := 0; i < leaves; i++ {
		fn(nil)
		if err := ks.tree.SampleLeaf(db.pool, fn); err != nil {
			return err
		}
	}
	return nil
}

// DB is an open engine.
type DB struct {
	opts     Options
	dirLocks []*volume.DirLock // EN-7
	versions *mvcc.Store       // EN-8
	logVol   *volume.Metered
	budget   *logBudget // WAL-7
	dataVol  *volume.Metered
	members  []*volume.Metered // each data volume of a stripe (or the one)
	gov      *iogov.Governor
	log      *wal.Log
	store    *pagestore.Store
	pool     *bufpool.Pool
	bpe      *bpe.Cache // nil without --bpe-path
	mtrs     *mtr.Manager
	alloc    allocator
	locks    *txn.LockManager
	dir      btree.Tree

	bigMu sync.RWMutex // EN-9: held by a staged commit while it applies

	ksMu   sync.RWMutex
	byName map[string]*Keyspace
	byID   map[uint32]*Keyspace

	nextTxn atomic.Uint64
	ckptMu  sync.Mutex
	// EN-12: while a backup copies, the checkpoint stays at or below this
	// LSN (0: no backup), so the records the copy needs are kept.
	backupFloor atomic.Uint64
	backupMu    sync.Mutex // one backup at a time
	stop        chan struct{}
	wg          sync.WaitGroup
	// dropping counts background frees of committed runs (EN-9); bgMu
	// orders their start with Close.
	dropping sync.WaitGroup
	bgMu     sync.Mutex
	closed   atomic.Bool

	commits, rollbacks, recoveredRecords atomic.Int64
	logSpaceWaits, cleanerErrs           atomic.Int64
	spills, stagedCommits, escalations   atomic.Int64          // EN-9, EN-10
	applyErr                             atomic.Pointer[error] // EN-9: a committed apply failed
}

// Open opens (creating if needed) the engine and recovers it.
func Open(opts Options) (*DB, error) {
	opts.fill()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	dirLocks, err := opts.lockDirs()
	if err != nil {
		return nil, err
	}
	logRaw, dataRaw, members, kernelAtomic, err := opts.openVolumes()
	if err != nil {
		unlockDirs(dirLocks)
		return nil, err
	}
	db := &DB{opts: opts, dirLocks: dirLocks, logVol: volume.NewMetered(logRaw), dataVol: volume.NewMetered(dataRaw), members: members,
		locks: txn.NewLockManager(opts.LockWaitTimeout), stop: make(chan struct{}),
		byName: map[string]*Keyspace{}, byID: map[uint32]*Keyspace{}, versions: mvcc.New(opts.VersionBudget)}
	if err := db.open(kernelAtomic); err != nil {
		db.closeVolumes()
		return nil, err
	}
	db.wg.Add(1)
	go db.checkpointer()
	if db.gov.Mode() != iogov.Off {
		db.wg.Add(1)
		go db.pageCleaner()
	}
	return db, nil
}

func (db *DB) open(kernelAtomic bool) error {
	mode := pagestore.Doublewrite
	switch db.opts.TornWriteProtection {
	case "atomic":
		mode = pagestore.Atomic
	case "":
		if db.dataVol.AtomicWriteUnit() >= page.Size {
			mode = pagestore.Atomic
		}
		slog.Info("torn-write protection chosen", "mode", mode.String(), "atomic_write_unit", db.dataVol.AtomicWriteUnit())
	}
	var err error
	if db.store, err = pagestore.New(db.dataVol, mode, kernelAtomic && mode == pagestore.Atomic); err != nil {
		return err
	}
	db.budget = newLogBudget(&db.opts)
	if db.log, err = wal.Open(db.logVol, wal.Options{Capacity: db.opts.LogCapacity, MaxCommitDelay: db.opts.MaxCommitDelay,
		Busy: db.budget.Busy}); err != nil {
		return err
	}
	if db.opts.MaxTxnMemory == 0 { // EN-6's default: the log's capacity, which is fixed at its creation
		db.opts.MaxTxnMemory = max(db.log.Capacity(), 16<<20)
	}
	if db.opts.SpillBytes == 0 { // EN-9: a commit of it still fits one mini-transaction (WAL-3)
		db.opts.SpillBytes = db.log.Capacity() / 16
	}
	if db.opts.LockEscalation == 0 { // EN-10
		db.opts.LockEscalation = 1 << 14
	}
	repaired, err := db.store.Recover() // EN-4
	if err != nil {
		return err
	}
	if len(repaired) > 0 {
		slog.Warn("repaired torn pages from the doublewrite area", "pages", repaired)
	}
	govMode, fixed, _ := iogov.ParseMode(db.opts.IOLimiter) // validated in Open
	db.gov = iogov.New(iogov.Config{Mode: govMode, FixedRate: fixed, MaxRate: db.opts.ioCapacity(mode),
		MaxDirtyPct: db.opts.MaxDirtyPct})
	if govMode != iogov.Off {
		slog.Info("background I/O limiter", "mode", govMode.String(), "start_pages_per_sec", db.gov.Status().Limit)
	}
	poolOpts := bufpool.Options{Bytes: db.opts.BufferPoolBytes, MaxDirtyPct: db.opts.MaxDirtyPct,
		NoBackgroundFlusher: govMode != iogov.Off}
	var src bufpool.PageSource
	if db.bpe, err = db.opts.openBPE(db.store); err != nil {
		return err
	}
	if db.bpe != nil {
		// A saved index is trusted only if the log's checkpoint is the one
		// it was saved at: the data volume is then the one the BPE copied
		// (not, say, a restored snapshot), and nothing was replayed yet.
		db.bpe.Warm(uint64(db.log.Checkpoint()))
		src, poolOpts.EvictHook, poolOpts.DirtyHook = db.bpe, db.bpe.Admit, db.bpe.Invalidate
		st := db.bpe.Stats()
		slog.Info("buffer pool extension", "slots", st.Slots, "index_bytes", st.IndexBytes,
			"index_pct_of_pool", fmt.Sprintf("%.2f", 100*float64(st.IndexBytes)/float64(db.opts.BufferPoolBytes)),
			"warm_pages", st.Used, "admission", db.opts.BPEAdmission)
	}
	if db.pool, err = bufpool.New(db.store, src, db.log, poolOpts); err != nil {
		return err
	}
	end, err := db.log.Replay(func(lsn page.LSN, typ byte, payload []byte) error {
		if typ != wal.TypeRedo {
			return nil
		}
		db.recoveredRecords.Add(1)
		_, err := mtr.Redo(db.pool, lsn, payload)
		return err
	})
	if err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	if err := db.pool.FlushAll(); err != nil {
		return fmt.Errorf("recovery flush: %w", err)
	}
	if err := db.store.Sync(); err != nil { // PS-4
		return fmt.Errorf("recovery flush: %w", err)
	}
	if err := db.log.SetCheckpoint(end); err != nil {
		return err
	}
	if n := db.recoveredRecords.Load(); n > 0 {
		slog.Info("recovery replayed the redo log", "records", n, "end_lsn", end)
	}
	db.mtrs = mtr.NewManager(db.pool, db.log)
	return db.loadCatalog()
}

// loadCatalog reads the meta page, bootstrapping a new volume, and the
// keyspace directory.
func (db *DB) loadCatalog() error {
	f, err := db.pool.Fix(pagestore.MetaPage)
	if err != nil {
		return err
	}
	f.Latch.RLock()
	fresh := page.TypeOf(f.Data()) == page.TypeZero
	f.Latch.RUnlock()
	db.pool.Unfix(f)
	if fresh {
		if err := db.bootstrap(); err != nil {
			return fmt.Errorf("bootstrap: %w", err)
		}
	}
	t := db.mtrs.Begin()
	m, err := t.Read(pagestore.MetaPage)
	if err == nil {
		err = checkMeta(m)
	}
	if err != nil {
		t.Abort()
		return err
	}
	db.dir = btree.Tree{Root: metaDirRoot(m), Keyspace: dirKeyspace}
	t.Abort()
	var pending, stages []*Keyspace
	type applying struct {
		name []byte
		runs []*Keyspace
		dead deadRanges
	}
	var applies []applying
	it := db.dir.Scan(db.pool, nil, nil, false)
	for it.Next() {
		if bytes.HasPrefix(it.Key(), []byte(applyPrefix)) { // EN-9: a committed staged transaction
			runs, dead, err := decodeApply(it.Key(), it.Value())
			if err != nil {
				it.Close()
				return err
			}
			applies = append(applies, applying{clone(it.Key()), runs, dead})
			continue
		}
		ks, err := decodeDirEntry(it.Key(), it.Value())
		if err != nil {
			it.Close()
			return err
		}
		if strings.HasPrefix(ks.name, stagingPrefix) {
			stages = append(stages, ks) // EN-9: never committed
			continue
		}
		if ks.name[0] == 0 {
			pending = append(pending, ks)
			continue
		}
		db.byName[ks.name], db.byID[ks.id] = ks, ks
	}
	if err := it.Err(); err != nil {
		return err
	}
	for _, a := range applies {
		slog.Info("finishing the apply of a committed transaction", "staging_runs", len(a.runs))
		if _, err := db.rollForward(a.runs, a.name, a.dead, nil); err != nil {
			return fmt.Errorf("recovery: %w", err)
		}
		for _, ks := range a.runs {
			if err := db.finishDrop(ks); err != nil {
				return err
			}
		}
	}
	for _, ks := range stages {
		slog.Info("dropping an uncommitted transaction's staging keyspace", "keyspace_id", ks.id)
		if err := db.dropStage(ks, []byte(ks.name), false); err != nil {
			return err
		}
	}
	for _, ks := range pending {
		slog.Info("finishing an interrupted keyspace drop", "keyspace_id", ks.id)
		if err := db.finishDrop(ks); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) bootstrap() error {
	t := db.mtrs.Begin()
	m, err := t.Write(pagestore.MetaPage)
	if err != nil {
		t.Abort()
		return err
	}
	initMeta(m)
	dir, err := btree.Create(t, db.alloc, dirKeyspace)
	if err != nil {
		t.Abort()
		return err
	}
	binary.LittleEndian.PutUint64(m[offDirRoot:], uint64(dir.Root))
	return db.commitDurable(t)
}

// commitDurable commits a catalog mini-transaction and waits until its
// redo is on the log volume.
func (db *DB) commitDurable(t *mtr.Mtr) error {
	_, end, err := t.Commit()
	if err != nil {
		return err
	}
	return db.log.WaitDurable(end)
}

func encodeDirEntry(ks *Keyspace) []byte {
	v := binary.LittleEndian.AppendUint32(nil, ks.id)
	return binary.LittleEndian.AppendUint64(v, uint64(ks.tree.Root))
}

// decodeDirEntry reads a catalog entry; one of another shape (a damaged
// catalog page whose checksum was recomputed, found by FuzzDamagedPage)
// is an error, not an out-of-range read.
func decodeDirEntry(k, v []byte) (*Keyspace, error) {
	if len(k) == 0 || len(v) != 12 {
		return nil, fmt.Errorf("engine: catalog entry %q of %d bytes is corrupt", k, len(v))
	}
	id := binary.LittleEndian.Uint32(v)
	return &Keyspace{name: string(k), id: id, tree: btree.Tree{Root: page.ID(binary.LittleEndian.Uint64(v[4:])), Keyspace: id}}, nil
}

// CreateKeyspace creates an empty keyspace; the change is durable on return.
func (db *DB) CreateKeyspace(name string) (*Keyspace, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	if name == "" || name[0] == 0 || len(name) > btree.MaxKey {
		return nil, fmt.Errorf("engine: invalid keyspace name %q", name)
	}
	db.bigMu.RLock() // EN-9: no staged commit holds the version clock (before ksMu)
	defer db.bigMu.RUnlock()
	db.ksMu.Lock()
	defer db.ksMu.Unlock()
	if _, ok := db.byName[name]; ok {
		return nil, fmt.Errorf("%w: %s", ErrKeyspaceExists, name)
	}
	if err := db.ensureLogSpace(64 << 10); err != nil {
		return nil, err
	}
	t := db.mtrs.Begin()
	// EN-8: the creation takes a version timestamp of its own, so every
	// snapshot taken before it is older than the keyspace.
	vc := db.versions.Begin()
	t.OnEnd(func(committed bool) { // under the apply latch (MV-1)
		if committed {
			vc.Publish()
		} else {
			vc.Abort()
		}
	})
	ks, err := db.newKeyspace(t, func(uint32) string { return name })
	if err != nil {
		t.Abort()
		return nil, err
	}
	ks.created = vc.TS
	if err := db.commitDurable(t); err != nil {
		return nil, err
	}
	db.byName[name], db.byID[ks.id] = ks, ks
	return ks, nil
}

// newKeyspace allocates a keyspace id, creates its tree and its
// directory entry under name(id), in t.
func (db *DB) newKeyspace(t *mtr.Mtr, name func(id uint32) string) (*Keyspace, error) {
	m, err := t.Write(pagestore.MetaPage)
	if err != nil {
		return nil, err
	}
	id := metaNextKS(m)
	binary.LittleEndian.PutUint32(m[offNextKS:], id+1)
	tree, err := btree.Create(t, db.alloc, id)
	if err != nil {
		return nil, err
	}
	ks := &Keyspace{name: name(id), id: id, tree: tree}
	return ks, db.dir.Put(t, db.alloc, []byte(ks.name), encodeDirEntry(ks))
}

// Keyspace looks a keyspace up by name.
func (db *DB) Keyspace(name string) (*Keyspace, error) {
	db.ksMu.RLock()
	defer db.ksMu.RUnlock()
	if ks, ok := db.byName[name]; ok {
		return ks, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNoKeyspace, name)
}

// Keyspaces lists the keyspace names in order.
func (db *DB) Keyspaces() []string {
	db.ksMu.RLock()
	defer db.ksMu.RUnlock()
	out := make([]string, 0, len(db.byName))
	for n := range db.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// pendingDrop names the directory entry that marks a keyspace whose pages
// are still being freed (names never start with a NUL byte).
func pendingDrop(id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte("\x00drop\x00"), id)
}

// moveDirEntry replaces directory entry from by to, valued val, in one
// mini-transaction (a rename, a drop becoming pending, a staged commit's
// record); durable on return when durable is set. Caller holds ksMu.
func (db *DB) moveDirEntry(from, to, val []byte, durable bool) error {
	if err := db.ensureLogSpace(64 << 10); err != nil {
		return err
	}
	t := db.mtrs.Begin()
	if err := db.replaceDirEntry(t, from, to, val); err != nil {
		t.Abort()
		return err
	}
	if durable {
		return db.commitDurable(t)
	}
	_, _, err := t.Commit()
	return err
}

// replaceDirEntry deletes directory entry from and puts to, in t.
func (db *DB) replaceDirEntry(t *mtr.Mtr, from, to, val []byte) error {
	if _, err := db.dir.Delete(t, db.alloc, from); err != nil {
		return err
	}
	return db.dir.Put(t, db.alloc, to, val)
}

// DropKeyspace deletes a keyspace; the name is gone durably on return and
// its pages are freed in batches. A crash while freeing leaves a pending
// drop entry in the directory, which the next Open finishes.
func (db *DB) DropKeyspace(name string) error {
	if db.closed.Load() {
		return ErrClosed
	}
	db.ksMu.Lock()
	defer db.ksMu.Unlock()
	ks, ok := db.byName[name]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoKeyspace, name)
	}
	if err := db.moveDirEntry([]byte(name), pendingDrop(ks.id), encodeDirEntry(ks), true); err != nil {
		return err
	}
	delete(db.byName, name)
	delete(db.byID, ks.id)
	return db.finishDrop(ks)
}

// batcher splits a long operation (a drop, a spill, a roll-forward) into
// mini-transactions of bounded redo and pages, making log space between
// them.
type batcher struct {
	db          *DB
	cur         *mtr.Mtr
	bytes       int
	maxBytes    int
	maxPages    int
	need        int64 // the log space made before each mini-transaction
	end         page.LSN
	afterCommit func(end page.LSN)
	gen         int // mini-transactions begun (a Hint lives in one, BT-9)
}

func (db *DB) newBatcher() *batcher {
	b := &batcher{db: db, maxBytes: int(db.log.Capacity() / 32), maxPages: max(db.pool.Frames()/8, 8)}
	// A change logs at most its bytes three times (splits log whole
	// pages), plus slack.
	b.need = int64(b.maxBytes)*3 + 64<<10
	return b
}

// next returns the mini-transaction to put about n bytes in.
func (b *batcher) next(n int) (*mtr.Mtr, error) {
	if b.cur != nil && (b.bytes+n > b.maxBytes || b.cur.Pages() > b.maxPages) {
		if err := b.commit(); err != nil {
			return nil, err
		}
	}
	if b.cur == nil {
		if err := b.begin(); err != nil {
			return nil, err
		}
	}
	b.bytes += n
	return b.cur, nil
}

// Next commits the open mini-transaction and begins another (btree.Dropper).
func (b *batcher) Next() (*mtr.Mtr, error) {
	if b.cur != nil {
		if err := b.commit(); err != nil {
			return nil, err
		}
	}
	if err := b.begin(); err != nil {
		return nil, err
	}
	return b.cur, nil
}

func (b *batcher) begin() error {
	if err := b.db.ensureLogSpace(b.need); err != nil {
		return err
	}
	b.cur, b.bytes = b.db.mtrs.Begin(), 0
	b.gen++
	return nil
}

func (b *batcher) commit() error {
	_, end, err := b.cur.Commit()
	b.cur = nil
	b.end = max(b.end, end)
	if err == nil && b.afterCommit != nil {
		b.afterCommit(b.end)
	}
	return err
}

func (b *batcher) abort() {
	if b.cur != nil {
		b.cur.Abort()
		b.cur = nil
	}
}

// finishDurable is finish, then the wait for the run to be durable.
func (b *batcher) finishDurable() error {
	end, err := b.finish()
	if err != nil {
		return err
	}
	return b.db.log.WaitDurable(end)
}

// finish commits the open mini-transaction; the LSN returned makes the
// whole run durable.
func (b *batcher) finish() (page.LSN, error) {
	if b.cur != nil {
		if err := b.commit(); err != nil {
			return 0, err
		}
	}
	return b.end, nil
}

// finishDrop frees the pages of a dropped keyspace and removes its pending
// drop entry.
func (db *DB) finishDrop(ks *Keyspace) error { return db.finishDropOf(ks, false) }

// finishDropOf is finishDrop; inline says the keyspace holds no overflow
// value (btree DropInline: its leaves are not read).
func (db *DB) finishDropOf(ks *Keyspace, inline bool) error {
	// A freed page logs its header and link (allocator Free); a page's
	// worth of redo per freed page stays the budget, an upper bound.
	const perPage, slack = page.Size + 1024, 32 << 10
	batch := int(min(int64(db.pool.Frames()/8), (db.log.Capacity()/4-slack)/perPage))
	batch = max(batch, 1)
	b := db.newBatcher()
	b.need = int64(batch)*perPage + slack
	drop := ks.tree.Drop
	if inline {
		drop = ks.tree.DropInline
	}
	t, err := drop(b, db.alloc, batch)
	if err == nil {
		_, err = db.dir.Delete(t, db.alloc, pendingDrop(ks.id))
	}
	if err != nil {
		b.abort()
		return fmt.Errorf("drop keyspace %s: %w", ks.name, err)
	}
	return b.finishDurable()
}

// LoadSorted puts entries, in strictly ascending key order, into the
// keyspace ks straight into its B+tree, in mini-transactions of many
// entries (an ascending load fills its leaves, btree BT-6): no
// transaction, write set, lock or version is involved, so ks must not be
// read or written by anyone until it returns (a new index before the
// catalog entry naming it commits; a crash before that leaves a valid
// tree no entry names, dropped at open with all its pages). Durable on
// return.
func (db *DB) LoadSorted(ks *Keyspace, entries func(yield func(key, val []byte) bool) error) error {
	if db.closed.Load() {
		return ErrClosed
	}
	db.bigMu.RLock() // EN-9: no staged commit is applying
	defer db.bigMu.RUnlock()
	b := db.newBatcher()
	var last []byte
	var perr error
	var h btree.Hint // BT-9, forgotten at each new mini-transaction
	gen := 0
	err := entries(func(key, val []byte) bool {
		if last != nil && bytes.Compare(key, last) <= 0 {
			perr = fmt.Errorf("keys out of order")
			return false
		}
		last = append(last[:0], key...)
		t, err := b.next(len(key) + len(val) + 64)
		if b.gen != gen {
			h.Forget()
			gen = b.gen
		}
		if err == nil {
			err = ks.tree.PutHint(t, db.alloc, key, val, &h)
		}
		perr = err
		return err == nil
	})
	if err == nil {
		err = perr
	}
	if err != nil {
		b.abort()
		return fmt.Errorf("load of keyspace %s: %w", ks.name, err)
	}
	return b.finishDurable()
}

// RenameKeyspace renames a keyspace; durable on return.
func (db *DB) RenameKeyspace(from, to string) error {
	db.ksMu.Lock()
	defer db.ksMu.Unlock()
	ks, ok := db.byName[from]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNoKeyspace, from)
	}
	if _, ok := db.byName[to]; ok {
		return fmt.Errorf("%w: %s", ErrKeyspaceExists, to)
	}
	nks := &Keyspace{name: to, id: ks.id, tree: ks.tree}
	if err := db.moveDirEntry([]byte(from), []byte(to), encodeDirEntry(nks), true); err != nil {
		return err
	}
	delete(db.byName, from)
	db.byName[to], db.byID[ks.id] = nks, nks
	return nil
}

// logSpaceWait bounds how long ensureLogSpace waits for checkpoints that
// make no progress before it fails with wal.ErrLogFull.
const logSpaceWait = 30 * time.Second

// ensureLogSpace makes room for a record of about need bytes (WAL-3),
// checkpointing if the log is more than 7/8 full. Call outside any mtr.
func (db *DB) ensureLogSpace(need int64) error {
	capacity := db.log.Capacity()
	if need > capacity/4 {
		return ErrTxnTooLarge
	}
	var deadline time.Time
	for i := 0; db.log.Used()+need > capacity*7/8; i++ {
		if i == 0 {
			db.logSpaceWaits.Add(1) // a foreground stall the page cleaner exists to avoid (IO-2)
			deadline = time.Now().Add(logSpaceWait)
		}
		used := db.log.Used()
		if err := db.makeLogSpace(need); err != nil {
			return err
		}
		if db.log.Used() >= used && db.log.Used()+need > capacity*7/8 {
			// The oldest pages are being written by another flush (the
			// cleaner's, a bulk flush's): wait for it, not retry at once.
			if time.Now().After(deadline) {
				return wal.ErrLogFull
			}
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}

func (db *DB) checkpointer() {
	defer db.wg.Done()
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
		}
		var err error
		switch {
		case db.gov.Mode() != iogov.Off:
			// The page cleaner flushes oldest first; the checkpoint
			// follows the oldest dirty page without writing any (EN-5).
			if db.log.Used() > db.log.Capacity()/16 {
				err = db.advanceCheckpoint()
			}
		case db.log.Used() > db.log.Capacity()/4:
			err = db.checkpoint(false)
		}
		if err != nil {
			slog.Error("checkpoint failed", "err", err)
		}
	}
}

// checkpoint advances the redo start point (EN-5). A full checkpoint
// flushes every dirty page first; otherwise the pages holding the oldest
// half of the used log are flushed.
func (db *DB) checkpoint(full bool) error {
	db.ckptMu.Lock()
	defer db.ckptMu.Unlock()
	if full {
		if err := db.pool.FlushAll(); err != nil {
			return err
		}
	} else {
		target := db.log.Checkpoint() + page.LSN(db.log.Used()/2)
		if err := db.pool.FlushBefore(target); err != nil {
			return err
		}
	}
	return db.setCheckpoint()
}

// makeLogSpace is a commit's own checkpoint when the log is 7/8 full
// (EN-5): under the checkpoint lock it looks again, and flushes only if the
// log is still short of need. Commits stall together and queue on that
// lock; each flushing another half of the log after the first had made
// room wrote nearly every dirty page while all of them waited (sysbench
// prepare: 8 queued commits, 11,000 pages, a 1.2 s stall).
func (db *DB) makeLogSpace(need int64) error {
	db.ckptMu.Lock()
	defer db.ckptMu.Unlock()
	used, capacity := db.log.Used(), db.log.Capacity()
	if used+need <= capacity*7/8 {
		return nil
	}
	// Flush only what brings the log back to 3/4 full: every commit waits
	// meanwhile, and the page cleaner, urgent at that fill (IO-2), goes on
	// with the rest while they run.
	reclaim := used + need - capacity*3/4
	if err := db.pool.FlushBefore(db.log.Checkpoint() + page.LSN(reclaim)); err != nil {
		return err
	}
	return db.setCheckpoint()
}

// advanceCheckpoint moves the checkpoint to the oldest dirty page without
// flushing any.
func (db *DB) advanceCheckpoint() error {
	db.ckptMu.Lock()
	defer db.ckptMu.Unlock()
	return db.setCheckpoint()
}

// setCheckpoint writes the checkpoint: the log end read while no
// mini-transaction runs, or the oldest recLSN if smaller (EN-5). Caller
// holds ckptMu.
func (db *DB) setCheckpoint() error {
	var end page.LSN
	db.mtrs.Exclusive(func() { end = db.log.End() })
	if err := db.log.WaitDurable(end); err != nil {
		return err
	}
	ckpt := end
	if m := db.pool.MinRecLSN(); m != 0 && m < ckpt {
		ckpt = m
	}
	if floor := page.LSN(db.backupFloor.Load()); floor != 0 && ckpt > floor {
		ckpt = floor // EN-12: a backup needs the log from floor on
	}
	if ckpt <= db.log.Checkpoint() {
		return nil // nothing to reclaim: spare the header write and its fsync
	}
	// Pages written before MinRecLSN was read are durable only after this
	// sync in atomic mode (PS-4); the log may forget their changes after it.
	if err := db.store.Sync(); err != nil {
		return err
	}
	return db.log.SetCheckpoint(ckpt)
}

// Checkpoint flushes every dirty page and moves the redo start to the end
// of the log.
func (db *DB) Checkpoint() error { return db.checkpoint(true) }

// stopBackground marks the engine closed and waits for its background
// work to end; false if it was closed already (Close, Abandon).
func (db *DB) stopBackground() bool {
	db.bgMu.Lock() // no background work starts after this (dropRuns)
	first := db.closed.CompareAndSwap(false, true)
	db.bgMu.Unlock()
	if !first {
		return false
	}
	close(db.stop)
	db.dropping.Wait()
	db.wg.Wait()
	return true
}

// Close checkpoints and closes the volumes.
func (db *DB) Close() error {
	if !db.stopBackground() {
		return nil
	}
	err := db.checkpoint(true)
	if e := db.store.Sync(); err == nil {
		// PS-4: a checkpoint that could not move (a backup holds it) did
		// not sync, and the BPE index saved below vouches for the volume.
		err = e
	}
	db.pool.Close()
	if db.bpe != nil {
		if err != nil {
			db.bpe.Abandon() // no clean checkpoint: the next start must be cold
		} else if e := db.bpe.Close(uint64(db.log.Checkpoint())); e != nil {
			slog.Warn("closing the buffer pool extension", "err", e)
		}
	}
	if e := db.log.Close(); err == nil {
		err = e
	}
	if e := db.closeVolumes(); err == nil {
		err = e
	}
	return err
}

func (db *DB) closeVolumes() error {
	err := db.dataVol.Close()
	if e := db.logVol.Close(); err == nil {
		err = e
	}
	unlockDirs(db.dirLocks)
	db.dirLocks = nil
	return err
}

// lockDirs takes the lock of every volume directory the engine opens
// files in (EN-7).
func (o *Options) lockDirs() ([]*volume.DirLock, error) {
	var dirs []string
	if o.LogVolume == nil && o.LogDir != "" {
		dirs = append(dirs, o.LogDir)
	}
	if o.DataVolume == nil {
		dirs = append(dirs, o.DataDirs...)
	}
	if o.BPEVolume == nil && o.BPEPath != "" {
		dirs = append(dirs, filepath.Dir(o.BPEPath))
	}
	var held []*volume.DirLock
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = d
		}
		if seen[abs] {
			continue
		}
		seen[abs] = true
		l, err := volume.LockDir(abs)
		if err != nil {
			unlockDirs(held)
			return nil, err
		}
		held = append(held, l)
	}
	return held, nil
}

func unlockDirs(ls []*volume.DirLock) {
	for _, l := range ls {
		l.Unlock()
	}
}

// Abandon stops background work without flushing or checkpointing, as a
// crash would (for tests that then crash the volumes).
func (db *DB) Abandon() {
	if !db.stopBackground() {
		return
	}
	db.pool.Close()
	if db.bpe != nil {
		db.bpe.Abandon()
	}
	db.log.Close()
	db.closeVolumes() // as the kernel does for a process that dies (and drops its file locks)
}

// ResizeBPE changes the buffer pool extension's size online (0: off).
func (db *DB) ResizeBPE(bytes int64) error {
	if db.bpe == nil {
		return errors.New("engine: no buffer pool extension configured (--bpe-path)")
	}
	return db.bpe.Resize(bytes)
}

// CheckIntegrity verifies every keyspace's B+tree and returns the number of
// entries per keyspace. Run it with no concurrent writers.
func (db *DB) CheckIntegrity() (map[string]int, error) {
	db.ksMu.RLock()
	defer db.ksMu.RUnlock()
	out := map[string]int{}
	used := map[page.ID]string{pagestore.MetaPage: "the meta page"}
	visit := func(owner string) func(page.ID) {
		return func(id page.ID) { used[id] = owner }
	}
	if _, err := db.dir.CheckPages(db.pool, visit("the directory")); err != nil {
		return nil, fmt.Errorf("directory: %w", err)
	}
	for name, ks := range db.byName {
		n, err := ks.tree.CheckPages(db.pool, visit("keyspace "+name))
		if err != nil {
			return nil, fmt.Errorf("keyspace %s: %w", name, err)
		}
		out[name] = n
	}
	return out, db.checkFreePages(used)
}

// checkFreePages verifies the free trunks and chain (ALLOC-1, ALLOC-2):
// every page listed once, below the high-water mark, and in no tree.
func (db *DB) checkFreePages(used map[page.ID]string) error {
	read := func(id page.ID) ([]byte, error) { // a copy of the page
		f, err := db.pool.Fix(id)
		if err != nil {
			return nil, err
		}
		defer db.pool.Unfix(f)
		f.Latch.RLock()
		defer f.Latch.RUnlock()
		return append([]byte(nil), f.Data()...), nil
	}
	m, err := read(pagestore.MetaPage)
	if err != nil {
		return err
	}
	high := metaHigh(m)
	free := map[page.ID]bool{}
	add := func(id page.ID, what string) error {
		switch {
		case id < pagestore.FirstDataPage || id >= high:
			return fmt.Errorf("free pages: %s %d is outside [%d, %d)", what, id, pagestore.FirstDataPage, high)
		case free[id]:
			return fmt.Errorf("free pages: %s %d is listed twice", what, id)
		case used[id] != "":
			return fmt.Errorf("free pages: %s %d is a page of %s", what, id, used[id])
		}
		free[id] = true
		return nil
	}
	for id := metaTrunk(m); id != page.InvalidID; {
		if err := add(id, "trunk"); err != nil {
			return err
		}
		tp, err := read(id)
		if err != nil {
			return err
		}
		if err := checkTrunk(tp, id); err != nil {
			return err
		}
		n := int(binary.LittleEndian.Uint32(tp[offTrunkCount:]))
		for i := 0; i < n; i++ {
			if err := add(page.ID(binary.LittleEndian.Uint64(tp[offTrunkIDs+8*i:])), "free page"); err != nil {
				return err
			}
		}
		id = page.ID(binary.LittleEndian.Uint64(tp[offTrunkNext:]))
	}
	for id := metaFree(m); id != page.InvalidID; {
		if err := add(id, "chained free page"); err != nil {
			return err
		}
		pg, err := read(id)
		if err != nil {
			return err
		}
		id = page.ID(binary.LittleEndian.Uint64(pg[offFreeNext:]))
	}
	return nil
}

// LogCapacity is the redo log's capacity in bytes.
func (db *DB) LogCapacity() int64 { return db.log.Capacity() }
