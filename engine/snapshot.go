package engine

import (
	"bytes"
	"sync"

	"strata/btree"
	"strata/mvcc"
)

// ErrSnapshotTooOld is returned to a snapshot read whose history is gone
// (mvcc MV-5) or of a keyspace created after the snapshot (EN-8); MySQL
// 1412.
var ErrSnapshotTooOld = mvcc.ErrSnapshotTooOld

// EN-8 A transaction may read through a snapshot (Tx.SetSnapshot): its
// plain reads (Get, Scan) see the commits up to the snapshot's timestamp
// plus its own writes; locking reads (GetForUpdate, GetForShare) and the
// existence check of Insert read the latest committed version, as
// InnoDB's current reads do. A keyspace created after the snapshot cannot
// be read through it (ErrSnapshotTooOld). Without a snapshot every read is
// of the latest committed version (EN-3).

// SetSnapshot makes the transaction's plain reads see the database as of
// now (EN-8), replacing any snapshot it had.
func (tx *Tx) SetSnapshot() {
	tx.snap.Release()
	tx.snap = tx.db.versions.Snapshot()
}

// ClearSnapshot returns the transaction to reading the latest versions.
func (tx *Tx) ClearSnapshot() {
	tx.snap.Release()
	tx.snap = nil
}

// HasSnapshot reports whether the transaction reads through a snapshot.
func (tx *Tx) HasSnapshot() bool { return tx.snap != nil }

// Versions is the version store's state (mvcc.Stats).
func (db *DB) Versions() mvcc.Stats { return db.versions.Stats() }

// snapshotCheck refuses a read of a keyspace younger than the snapshot.
func (tx *Tx) snapshotCheck(ks *Keyspace) error {
	if tx.snap != nil && ks.created > tx.snap.TS {
		return ErrSnapshotTooOld
	}
	return nil
}

// snapSource is a keyspace's committed entries in a range as of a
// snapshot (mvcc MV-3): the tree's entries, corrected or hidden by the
// versions newer than the snapshot, plus the keys that the tree no longer
// holds but the snapshot does. Between two tree entries, the versions of
// that gap are read after the tree entry that ends it.
type snapSource struct {
	tree    *btree.Iterator
	snap    *mvcc.Snapshot
	ks      uint32
	watch   mvcc.Watch // snap's versions of ks (MV-4's check per entry)
	lo, hi  []byte
	reverse bool

	prev      []byte // bound of the next gap (exclusive), nil: the range's own
	arena     []byte // the batch's keys and values, copied
	batch     []span
	batched   bool // versions exist: read in batches (fill)
	pending   bool // the tree iterator holds an entry not yet batched
	treeEnded bool // the tree iterator is exhausted
	started   bool
	done      bool
	out       []mvcc.Entry // decided entries of the current gap, in order
	outPos    int          // out[outPos:] are still to be returned
	key       []byte
	val       []byte
	err       error
}

func (s *snapSource) Next() bool {
	for {
		if s.outPos < len(s.out) {
			e := s.out[s.outPos]
			s.outPos++
			if !e.Existed {
				continue
			}
			s.key, s.val = e.Key, e.Val
			return true
		}
		if s.done || s.err != nil {
			return false
		}
		if !s.batched {
			// Until the keyspace has a version newer than the snapshot,
			// the tree's entries are the snapshot's (MV-4, checked after
			// each entry is read): hand them over without a copy.
			if !s.tree.Next() {
				if s.err = s.tree.Err(); s.err != nil {
					return false
				}
				if !s.watch.Needs() {
					s.done = true
					return false
				}
				// Versions appeared: the last gap may hold keys the
				// tree no longer has.
				s.batched, s.treeEnded = true, true
				continue
			}
			if !s.watch.Needs() {
				s.started = true
				s.prev = append(s.prev[:0], s.tree.Key()...)
				s.key, s.val = s.tree.Key(), s.tree.Value()
				return true
			}
			s.batched = true
			s.pending = true // the entry just read opens the first batch
		}
		s.fill()
	}
}

// batchSize is how many tree entries a snapshot scan reads before it
// looks up the versions of the gap they cover (one lookup per batch).
const batchSize = 32

// fill reads the next batch of tree entries, then the versions of the gap
// up to the batch's last key (read after the tree, MV-3), and merges them.
func (s *snapSource) fill() {
	s.arena, s.batch = s.arena[:0], s.batch[:0]
	for len(s.batch) < batchSize {
		if s.pending {
			s.pending = false
		} else if s.treeEnded || !s.tree.Next() {
			if s.err = s.tree.Err(); s.err != nil {
				return
			}
			s.done = true
			break
		}
		k, v := s.tree.Key(), s.tree.Value()
		off := len(s.arena)
		s.arena = append(append(s.arena, k...), v...)
		s.batch = append(s.batch, span{off, len(k), len(v)})
	}
	// The arena may have moved while it grew: slice it only now.
	s.out, s.outPos = s.out[:0], 0
	entry := func(b span) mvcc.Entry {
		return mvcc.Entry{Key: s.arena[b.off : b.off+b.k : b.off+b.k], Val: s.arena[b.off+b.k : b.off+b.k+b.v : b.off+b.k+b.v], Existed: true}
	}
	started := s.started
	s.started = true
	var last []byte
	if n := len(s.batch); n > 0 {
		last = entry(s.batch[n-1]).Key
	}
	if !s.watch.Needs() { // MV-4, read after the tree: no version decides this gap
		for _, b := range s.batch {
			s.out = append(s.out, entry(b))
		}
		s.prev = append(s.prev[:0], last...)
		return
	}
	lo, hi := s.lo, s.hi
	if !s.reverse {
		if started {
			lo = successor(s.prev)
		}
		if last != nil && !s.done {
			hi = successor(last)
		}
	} else {
		if started {
			hi = s.prev
		}
		if last != nil && !s.done {
			lo = last
		}
	}
	versions, err := s.snap.Range(s.ks, lo, hi, s.reverse)
	if err != nil {
		s.err = err
		return
	}
	// Merge: both are in scan order; a version decides its key.
	i, j := 0, 0
	for i < len(s.batch) || j < len(versions) {
		var c int
		switch {
		case i == len(s.batch):
			c = 1
		case j == len(versions):
			c = -1
		default:
			c = bytes.Compare(entry(s.batch[i]).Key, versions[j].Key)
			if s.reverse {
				c = -c
			}
		}
		switch {
		case c < 0:
			s.out = append(s.out, entry(s.batch[i]))
			i++
		case c > 0:
			s.out = append(s.out, versions[j])
			j++
		default:
			s.out = append(s.out, versions[j])
			i++
			j++
		}
	}
	if last != nil {
		s.prev = append(s.prev[:0], last...)
	}
}

// span locates a batched tree entry in the arena.
type span struct{ off, k, v int }

// successor is the smallest key after k.
func successor(k []byte) []byte { return append(append([]byte(nil), k...), 0) }

func (s *snapSource) Key() []byte   { return s.key }
func (s *snapSource) Value() []byte { return s.val }
func (s *snapSource) Err() error    { return s.err }

// snapSources keeps closed snapshot sources with their buffers: a scan of
// a hundred rows otherwise grows a new arena each time.
var snapSources = sync.Pool{New: func() any { return new(snapSource) }}

// maxPooledArena bounds the arena a pooled source keeps (a scan of large
// rows does not pin its arena for good).
const maxPooledArena = 256 << 10

func newSnapSource(tree *btree.Iterator, snap *mvcc.Snapshot, ks uint32, lo, hi []byte, reverse bool) *snapSource {
	s := snapSources.Get().(*snapSource)
	*s = snapSource{tree: tree, snap: snap, ks: ks, watch: snap.Watch(ks), lo: lo, hi: hi, reverse: reverse,
		arena: s.arena[:0], batch: s.batch[:0], out: s.out[:0], prev: s.prev[:0]}
	return s
}

// Close closes the tree iterator and returns s to the pool: the caller
// holds no key or value of it afterwards (Iterator.Close).
func (s *snapSource) Close() {
	s.tree.Close()
	arena := s.arena[:0]
	if cap(arena) > maxPooledArena {
		arena = nil
	}
	clear(s.out[:cap(s.out)]) // the versions' keys and values
	*s = snapSource{arena: arena, batch: s.batch[:0], out: s.out[:0], prev: s.prev[:0]}
	snapSources.Put(s)
}
