// Package mvcc is the engine's version store: the committed values that
// commits overwrote, kept in memory while a snapshot may still read them,
// so that a transaction can read the database as of one instant while
// pages hold only the latest committed data (the engine's EN-1: no undo
// on disk, nothing new in the redo log). Its rules, cited where they apply:
//
// MV-1 Commits get timestamps in apply order (the engine applies one
// commit at a time, MTR-1). A commit's timestamp is published (Clock)
// after its changes are in the trees and before the apply latch passes to
// the next commit (mtr OnEnd), so timestamps are unique and published in
// order, and an aborted commit's versions go before another can record.
//
// MV-2 A snapshot is one timestamp S, the published clock when it was
// taken; it sees exactly the commits with timestamps <= S.
//
// MV-3 While any snapshot is open, a commit records, for every key it
// changes and before the change is visible in the tree, the key's
// previous committed value (or its absence) under the commit's timestamp.
// A snapshot reader reads the tree first and the store second: the value
// as of S is the before-image of the earliest version newer than S, else
// the tree's. A commit that found no snapshot open records nothing, and a
// snapshot taken meanwhile waits for that commit to publish (so it
// starts after it).
//
// MV-4 A keyspace remembers the newest version recorded for it; a read at
// S of a keyspace whose newest version is <= S needs no lookup.
//
// MV-5 Versions no open snapshot can need (timestamps <= the oldest open
// snapshot) are collected. Past the memory budget, every version is
// dropped and the horizon moves to the clock: a snapshot older than the
// horizon that needs a version gets ErrSnapshotTooOld (MySQL 1412).
//
// MV-6 A commit too large to record (the engine's staged commits, EN-9)
// begins with BeginLarge: it records nothing; the keyspaces it changes
// take its timestamp as their newest and as their horizon before any
// change is visible, so a snapshot older than it that reads them gets
// ErrSnapshotTooOld, and new snapshots wait until it publishes (MV-3).
//
// Tests: mvcc_test.go; the engine's model-based snapshot test.
package mvcc

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
)

// ErrSnapshotTooOld is returned to a snapshot whose versions were dropped
// (MV-5).
var ErrSnapshotTooOld = errors.New("mvcc: the snapshot's history was discarded (version store over its budget); retry the transaction")

type version struct {
	ts      uint64 // the commit that replaced this value
	val     []byte // the value before that commit
	existed bool
}

type chain struct {
	key []byte
	vs  []version // newest first
}

func lessChain(a, b *chain) bool { return bytes.Compare(a.key, b.key) < 0 }

type space struct {
	mu      sync.RWMutex
	chains  *btree.BTreeG[*chain]
	newest  atomic.Uint64 // MV-4
	horizon atomic.Uint64 // MV-6
}

// Store is the version store of one engine.
type Store struct {
	clock atomic.Uint64 // MV-1: the newest published commit

	mu            sync.Mutex
	published     *sync.Cond
	pending       bool // a commit is applying
	pendingRecord bool
	active        map[uint64]int // open snapshots by timestamp

	spaces sync.Map // uint32 -> *space; read without a lock on every snapshot read
	// made counts calls that created or may have created a space, each
	// before the space is used (Watch: a reader that finds it unchanged
	// need not look the map up again).
	made atomic.Uint64

	bytes   atomic.Int64
	peak    atomic.Int64
	budget  int64
	horizon atomic.Uint64 // MV-5
	commits int
}

// New returns an empty store; budget bounds its memory in bytes (0: none).
func New(budget int64) *Store {
	s := &Store{active: map[uint64]int{}, budget: budget}
	s.published = sync.NewCond(&s.mu)
	return s
}

// SetClock sets the clock after recovery (timestamps restart from it).
func (s *Store) SetClock(ts uint64) { s.clock.Store(ts) }

// Clock is the newest published commit timestamp.
func (s *Store) Clock() uint64 { return s.clock.Load() }

// Stats is the store's state.
type Stats struct {
	Bytes, Peak, Budget int64
	Snapshots           int
	Horizon, Clock      uint64
}

// Stats returns the store's state.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	n := 0
	for _, c := range s.active {
		n += c
	}
	s.mu.Unlock()
	return Stats{Bytes: s.bytes.Load(), Peak: s.peak.Load(), Budget: s.budget, Snapshots: n,
		Horizon: s.horizon.Load(), Clock: s.clock.Load()}
}

// Snapshot is an open snapshot (MV-2).
type Snapshot struct {
	TS     uint64
	store  *Store
	closed bool
}

// Snapshot opens a snapshot at the published clock (MV-2, MV-3).
func (s *Store) Snapshot() *Snapshot {
	s.mu.Lock()
	for s.pending && !s.pendingRecord {
		s.published.Wait()
	}
	ts := s.clock.Load()
	s.active[ts]++
	s.mu.Unlock()
	return &Snapshot{TS: ts, store: s}
}

// Release closes the snapshot; its versions may be collected.
func (sn *Snapshot) Release() {
	if sn == nil || sn.closed {
		return
	}
	sn.closed = true
	s := sn.store
	s.mu.Lock()
	if s.active[sn.TS]--; s.active[sn.TS] <= 0 {
		delete(s.active, sn.TS)
	}
	s.mu.Unlock()
	if s.bytes.Load() > 0 {
		s.collect()
	}
}

// Commit is one commit being applied (MV-1, MV-3).
type Commit struct {
	TS     uint64
	store  *Store
	record bool
	keys   []recorded
}

type recorded struct {
	ks  uint32
	key []byte
}

// Begin starts applying a commit; the engine calls it under its apply
// latch, so commits do not overlap.
func (s *Store) Begin() *Commit {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &Commit{TS: s.clock.Load() + 1, store: s, record: len(s.active) > 0}
	s.pending, s.pendingRecord = true, c.record
	return c
}

// BeginLarge starts a commit that records no versions (MV-6); spaces are
// the keyspaces it changes. Called as Begin, before any change is visible.
func (s *Store) BeginLarge(spaces []uint32) *Commit {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &Commit{TS: s.clock.Load() + 1, store: s}
	s.pending, s.pendingRecord = true, false
	for _, ks := range spaces {
		sp := s.space(ks, true)
		sp.horizon.Store(c.TS)
		sp.newest.Store(c.TS)
	}
	return c
}

// Recording reports whether the commit must record before-images.
func (c *Commit) Recording() bool { return c.record }

func (s *Store) space(ks uint32, create bool) *space {
	if v, ok := s.spaces.Load(ks); ok {
		return v.(*space)
	}
	if !create {
		return nil
	}
	v, _ := s.spaces.LoadOrStore(ks, &space{chains: btree.NewG(16, lessChain)})
	// Before the caller records a version in it, hence before the tree
	// change a reader could see (MV-3): a Watch reading the tree after
	// that sees the count moved.
	s.made.Add(1)
	return v.(*space)
}

// Record keeps key's value before this commit (MV-3); call it before the
// change is visible in the tree. old is retained.
func (c *Commit) Record(ks uint32, key, old []byte, existed bool) {
	if !c.record {
		return
	}
	sp := c.store.space(ks, true)
	k := append([]byte(nil), key...)
	sp.mu.Lock()
	ch, ok := sp.chains.Get(&chain{key: k})
	if !ok {
		ch = &chain{key: k}
		sp.chains.ReplaceOrInsert(ch)
	}
	ch.vs = append([]version{{ts: c.TS, val: old, existed: existed}}, ch.vs...)
	sp.newest.Store(c.TS)
	sp.mu.Unlock()
	c.keys = append(c.keys, recorded{ks, k})
	n := c.store.bytes.Add(int64(len(k) + len(old) + 96))
	if n > c.store.peak.Load() {
		c.store.peak.Store(n)
	}
}

// Publish makes the commit visible to new snapshots (MV-1), after its
// changes are in the trees and before the next commit begins (the engine
// calls it under its apply latch). It reports whether a collection is due
// (Collect, to run outside the latch).
func (c *Commit) Publish() (collect bool) {
	s := c.store
	s.mu.Lock()
	s.clock.Store(c.TS)
	s.pending = false
	s.published.Broadcast()
	s.commits++
	due := s.commits%256 == 0
	s.mu.Unlock()
	return due || (s.budget > 0 && s.bytes.Load() > s.budget)
}

// Collect drops the versions no open snapshot needs (MV-5).
func (s *Store) Collect() { s.collect() }

// Abort forgets a commit that was not applied (under the apply latch, as
// Publish).
func (c *Commit) Abort() {
	s := c.store
	for _, r := range c.keys {
		sp := s.space(r.ks, false)
		sp.mu.Lock()
		if ch, ok := sp.chains.Get(&chain{key: r.key}); ok && len(ch.vs) > 0 && ch.vs[0].ts == c.TS {
			s.bytes.Add(-int64(len(ch.key) + len(ch.vs[0].val) + 96))
			ch.vs = ch.vs[1:]
			if len(ch.vs) == 0 {
				sp.chains.Delete(ch)
			}
		}
		sp.mu.Unlock()
	}
	s.mu.Lock()
	s.pending = false
	s.published.Broadcast()
	s.mu.Unlock()
}

// resolve is the value as of ts from a chain: the before-image of the
// earliest version newer than ts (MV-3); ok false when none is newer.
func (ch *chain) resolve(ts uint64) (val []byte, existed, ok bool) {
	for i := len(ch.vs) - 1; i >= 0; i-- {
		if v := ch.vs[i]; v.ts > ts {
			return v.val, v.existed, true
		}
	}
	return nil, false, false
}

// Needs reports whether a read of keyspace ks at sn may need versions
// (MV-4); when false the tree's value is the snapshot's. Call it after
// reading the tree.
func (sn *Snapshot) Needs(ks uint32) bool {
	sp := sn.store.space(ks, false)
	return sp != nil && sp.newest.Load() > sn.TS
}

// Watch is a reader's handle on one keyspace's versions at a snapshot:
// Needs as Snapshot.Needs, without the keyspace's map lookup once its
// version space exists (spaces are never removed, and keyspace ids are
// not reused).
type Watch struct {
	sn   *Snapshot
	ks   uint32
	sp   *space
	made uint64 // Store.made when the space was last looked for and not found
}

// Watch returns a handle on keyspace ks's versions at sn.
func (sn *Snapshot) Watch(ks uint32) Watch { return Watch{sn: sn, ks: ks, made: ^uint64(0)} }

// Needs is Snapshot.Needs of the watched keyspace. While the keyspace has
// no version space, the map is looked up again only when a space may have
// been created since the last look (Store.made).
func (w *Watch) Needs() bool {
	if w.sp == nil {
		m := w.sn.store.made.Load()
		if m == w.made {
			return false
		}
		if w.sp = w.sn.store.space(w.ks, false); w.sp == nil {
			w.made = m
			return false
		}
	}
	return w.sp.newest.Load() > w.sn.TS
}

// tooOld reports whether versions sn needs in sp may have been dropped or
// never recorded (MV-5, MV-6).
func (sn *Snapshot) tooOld(sp *space) bool {
	return sn.TS < sn.store.horizon.Load() || sn.TS < sp.horizon.Load()
}

// Resolve corrects a value read from the tree (after the read) to the
// snapshot's: ok reports whether a version decided it (then val/existed
// are the snapshot's), else the tree's value stands.
func (sn *Snapshot) Resolve(ks uint32, key []byte) (val []byte, existed, ok bool, err error) {
	if !sn.Needs(ks) {
		return nil, false, false, nil
	}
	sp := sn.store.space(ks, false)
	if sn.tooOld(sp) {
		return nil, false, false, ErrSnapshotTooOld
	}
	sp.mu.RLock()
	defer sp.mu.RUnlock()
	ch, found := sp.chains.Get(&chain{key: key})
	if !found {
		return nil, false, false, nil
	}
	val, existed, ok = ch.resolve(sn.TS)
	return val, existed, ok, nil
}

// Entry is a key decided by a version in a range (Range).
type Entry struct {
	Key, Val []byte
	Existed  bool
}

// Range returns, in key order (descending if reverse), the keys in
// [lo, hi) of ks (nil: unbounded) whose value at the snapshot a version
// decides, with that value (MV-3). Call it after reading the tree over the
// same range.
func (sn *Snapshot) Range(ks uint32, lo, hi []byte, reverse bool) ([]Entry, error) {
	if !sn.Needs(ks) {
		return nil, nil
	}
	sp := sn.store.space(ks, false)
	if sn.tooOld(sp) {
		return nil, ErrSnapshotTooOld
	}
	sp.mu.RLock()
	defer sp.mu.RUnlock()
	var out []Entry
	visit := func(ch *chain) bool {
		if hi != nil && bytes.Compare(ch.key, hi) >= 0 {
			return reverse // ascending: past the range; descending: not yet in it
		}
		if lo != nil && bytes.Compare(ch.key, lo) < 0 {
			return !reverse
		}
		if v, existed, ok := ch.resolve(sn.TS); ok {
			out = append(out, Entry{Key: ch.key, Val: v, Existed: existed})
		}
		return true
	}
	if reverse {
		if hi == nil {
			sp.chains.Descend(visit)
		} else {
			sp.chains.DescendLessOrEqual(&chain{key: hi}, visit)
		}
	} else {
		sp.chains.AscendGreaterOrEqual(&chain{key: lo}, visit)
	}
	return out, nil
}

// collect drops versions no open snapshot needs, and everything past the
// budget (MV-5).
func (s *Store) collect() {
	s.mu.Lock()
	oldest := s.clock.Load()
	for ts := range s.active {
		oldest = min(oldest, ts)
	}
	if s.budget > 0 && s.bytes.Load() > s.budget {
		oldest = s.clock.Load()
		s.horizon.Store(oldest)
	}
	s.mu.Unlock()
	var spaces []*space
	s.spaces.Range(func(_, v any) bool {
		spaces = append(spaces, v.(*space))
		return true
	})
	for _, sp := range spaces {
		sp.mu.Lock()
		var empty []*chain
		sp.chains.Ascend(func(ch *chain) bool {
			n := len(ch.vs)
			for n > 0 && ch.vs[n-1].ts <= oldest {
				n--
				s.bytes.Add(-int64(len(ch.key) + len(ch.vs[n].val) + 96))
			}
			ch.vs = ch.vs[:n]
			if n == 0 {
				empty = append(empty, ch)
			}
			return true
		})
		for _, ch := range empty {
			sp.chains.Delete(ch)
		}
		sp.mu.Unlock()
	}
}
