package engine

import (
	"bytes"

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
	lo, hi  []byte
	reverse bool

	prev    []byte // bound of the next gap (exclusive), nil: the range's own
	started bool
	done    bool
	out     []mvcc.Entry // decided entries of the current gap, in order
	key     []byte
	val     []byte
	err     error
}

func (s *snapSource) Next() bool {
	for {
		if len(s.out) > 0 {
			e := s.out[0]
			s.out = s.out[1:]
			if !e.Existed {
				continue
			}
			s.key, s.val = e.Key, e.Val
			return true
		}
		if s.done || s.err != nil {
			return false
		}
		s.fill()
	}
}

// fill reads the next tree entry and the gap of versions up to it.
func (s *snapSource) fill() {
	treeOK := s.tree.Next()
	if !treeOK {
		if s.err = s.tree.Err(); s.err != nil {
			return
		}
		s.done = true
	}
	s.out = s.out[:0]
	started := s.started
	s.started = true
	if !s.snap.Needs(s.ks) { // MV-4, read after the tree: no version can decide this gap
		if treeOK {
			s.prev = append(s.prev[:0], s.tree.Key()...)
			s.out = append(s.out, mvcc.Entry{Key: s.tree.Key(), Val: s.tree.Value(), Existed: true})
		}
		return
	}
	lo, hi := s.lo, s.hi
	if !s.reverse {
		if started {
			lo = successor(s.prev)
		}
		if treeOK {
			hi = successor(s.tree.Key())
		}
	} else {
		if started {
			hi = s.prev
		}
		if treeOK {
			lo = s.tree.Key()
		}
	}
	entries, err := s.snap.Range(s.ks, lo, hi, s.reverse)
	if err != nil {
		s.err = err
		return
	}
	decided := false
	for _, e := range entries {
		if treeOK && bytes.Equal(e.Key, s.tree.Key()) {
			decided = true
		}
		s.out = append(s.out, e)
	}
	if treeOK {
		s.prev = append(s.prev[:0], s.tree.Key()...)
		if !decided {
			s.out = append(s.out, mvcc.Entry{Key: s.tree.Key(), Val: s.tree.Value(), Existed: true})
		}
	}
}

// successor is the smallest key after k.
func successor(k []byte) []byte { return append(append([]byte(nil), k...), 0) }

func (s *snapSource) Key() []byte   { return s.key }
func (s *snapSource) Value() []byte { return s.val }
func (s *snapSource) Err() error    { return s.err }
func (s *snapSource) Close()        { s.tree.Close() }
