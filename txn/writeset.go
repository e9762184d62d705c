package txn

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"sort"
	"sync"
	"unsafe"
)

// Write is one buffered change: a new value, or a deletion.
type Write struct {
	Keyspace uint32
	seq      int32 // the journal index of the change that made it (AscendChanges)
	Key      []byte
	Value    []byte
	Delete   bool
}

// The write set (WS-n):
//
// WS-1 A key's entry (its slot) is found by hashing (keyspace, key): Put
// and Get cost one map probe, whatever the write set's size. Ordered
// access (Range, Ascend, AscendChanges) sorts what was added since
// the last ordered access, lazily: a large statement that never reads its
// own writes in order never sorts them.
//
// WS-2 Each slot is in exactly one sorted level (or the unsorted tail)
// from its first change on; levels are merged so that each is at least
// twice the size of the next newer one (at most log2(n) levels, each slot
// moved O(log n) times). Ordered reads merge the levels.
//
// WS-3 A rollback that undoes a key's first change removes its slot from
// the map and marks it dead; levels skip dead slots and drop them when
// merged (or all at once when they are most of the items). A later Put of
// the key makes a new slot.
//
// WS-4 Without Puts, any number of goroutines may read a write set at
// once: Get only reads the map; ordered reads sort the tail under the
// write set's mutex (the one that finds it non-empty), then only read.
//
// WS-5 The write set keeps, per keyspace, its live keys' count and the
// smallest and largest key ever put there (rollbacks leave the bounds):
// Get answers a key outside them without probing the map (a scan checks
// each row it reads for an own write, most of them far from any).

// slot is one key's current change; live is false once a rollback undid
// its first change (WS-3).
type slot struct {
	w    Write
	live bool
}

// space is what the write set knows of one keyspace (WS-5).
type space struct {
	ks     uint32
	live   int
	lo, hi []byte
}

// space returns the keyspace's entry, nil if the write set never held it.
func (w *WriteSet) space(ks uint32) *space {
	for i := range w.spaces {
		if w.spaces[i].ks == ks {
			return &w.spaces[i]
		}
	}
	return nil
}

// mapKey names a slot: key aliases the slot's key bytes (retained, never
// modified).
type mapKey struct {
	ks  uint32
	key string
}

// item is a slot in a level: the keyspace and the key's first 8 bytes
// (big endian, zero padded) beside the pointer, so that most comparisons
// of a sort or search read the level's items only, not each key.
type item struct {
	ks     uint32
	prefix uint64
	s      *slot
}

func keyPrefix(key []byte) uint64 {
	if len(key) >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// cmpItem orders by (keyspace, key): equal prefixes (zero padding makes a
// short key and its extension by zeros equal) fall back to the keys.
func cmpItem(a, b item) int { return cmpProbe(a, b.ks, b.prefix, b.s.w.Key) }

// cmpProbe compares an item with (ks, key), prefix the key's prefix.
func cmpProbe(a item, ks uint32, prefix uint64, key []byte) int {
	if a.ks != ks {
		return cmp.Compare(a.ks, ks)
	}
	if a.prefix != prefix {
		return cmp.Compare(a.prefix, prefix)
	}
	return bytes.Compare(a.s.w.Key, key)
}

// undo is a journal entry: the slot's change before this one (hadPrev),
// or none (the change was the key's first: undoing it removes the slot).
type undo struct {
	s       *slot
	prevVal []byte
	prevSeq int32
	size    int32 // the change's key and value bytes
	prevDel bool
	hadPrev bool
}

// WriteSet is a transaction's private buffer of changes, read by key or
// in (keyspace, key) order, with a journal so that a failed statement can
// be undone (savepoints).
type WriteSet struct {
	index   map[mapKey]*slot
	spaces  []space // WS-5
	slab    []slot  // slots are allocated from here, a chunk at a time
	chunk   int     // the last chunk's size
	journal []undo
	live    int
	maxKey  int // the longest key put (rollbacks leave it)
	bytes   int // keys and values, with 16 bytes of framing per change
	memory  int // what the write set holds in memory

	mu     sync.Mutex // WS-4: held while sorting the tail into the levels
	tail   []item     // slots added since the last ordered read
	levels [][]item   // oldest (largest) first, each sorted
	items  int        // in levels and tail, dead or alive
	dead   int        // dead items in levels and tail (WS-3)
}

// NewWriteSet returns an empty write set.
func NewWriteSet() *WriteSet { return &WriteSet{} }

// NewWriteSetSized returns an empty write set expecting about keys keys
// and changes changes.
func NewWriteSetSized(keys, changes int) *WriteSet {
	return &WriteSet{index: make(map[mapKey]*slot, keys), tail: make([]item, 0, keys), journal: make([]undo, 0, changes)}
}

// Len is the number of distinct keys written.
func (w *WriteSet) Len() int { return w.live }

// MaxKey is at least the length of the longest key in the write set.
func (w *WriteSet) MaxKey() int { return w.maxKey }

// Bytes estimates the size of the buffered keys and values (what a
// redo record of them takes).
func (w *WriteSet) Bytes() int { return w.bytes }

// Memory is what the write set holds in memory: keys, values, and per
// change its journal entry, per key its slot, map entry and level item
// (PutOverhead, ChangeOverhead). Changes undone by RollbackTo no longer
// count.
func (w *WriteSet) Memory() int { return w.memory }

const (
	// PutOverhead is the memory a Put of a key not yet in the write set
	// takes besides the key and value: its slot (72 bytes), map entry
	// (about 40 with the table's slack), level item (24, and as much again
	// while levels merge) and journal entry (48).
	PutOverhead = 208
	// ChangeOverhead is what a Put of a key already written takes: its
	// journal entry and slack.
	ChangeOverhead = 56
)

func keyString(key []byte) string { return unsafe.String(unsafe.SliceData(key), len(key)) }

// Put buffers a change (the slices are retained; callers pass copies).
func (w *WriteSet) Put(c Write) {
	c.seq = int32(len(w.journal))
	size := len(c.Key) + len(c.Value)
	w.maxKey = max(w.maxKey, len(c.Key))
	w.bytes += size + 16
	if w.index == nil {
		w.index = map[mapKey]*slot{}
	}
	s := w.index[mapKey{c.Keyspace, keyString(c.Key)}]
	if s != nil {
		w.journal = append(w.journal, undo{s: s, prevVal: s.w.Value, prevSeq: s.w.seq, prevDel: s.w.Delete, hadPrev: true, size: int32(size)})
		s.w.Value, s.w.Delete, s.w.seq = c.Value, c.Delete, c.seq
		w.memory += size + ChangeOverhead
		return
	}
	if len(w.slab) == 0 { // chunks grow from 4 slots to 256: small transactions allocate little
		w.chunk = min(max(2*w.chunk, 4), 256)
		w.slab = make([]slot, w.chunk)
	}
	sp := w.space(c.Keyspace)
	if sp == nil {
		w.spaces = append(w.spaces, space{ks: c.Keyspace, lo: c.Key, hi: c.Key})
		sp = &w.spaces[len(w.spaces)-1]
	} else if bytes.Compare(c.Key, sp.lo) < 0 {
		sp.lo = c.Key
	} else if bytes.Compare(c.Key, sp.hi) > 0 {
		sp.hi = c.Key
	}
	sp.live++
	s = &w.slab[0]
	w.slab = w.slab[1:]
	*s = slot{w: c, live: true}
	w.index[mapKey{c.Keyspace, keyString(c.Key)}] = s
	w.tail = append(w.tail, item{ks: c.Keyspace, prefix: keyPrefix(c.Key), s: s})
	w.items++
	w.live++
	w.journal = append(w.journal, undo{s: s, size: int32(size)})
	w.memory += size + PutOverhead
}

// Get returns the buffered change for key, if any.
func (w *WriteSet) Get(keyspace uint32, key []byte) (Write, bool) {
	if sp := w.space(keyspace); sp == nil || sp.live == 0 || bytes.Compare(key, sp.lo) < 0 || bytes.Compare(key, sp.hi) > 0 {
		return Write{}, false // WS-5
	}
	s := w.index[mapKey{keyspace, keyString(key)}]
	if s == nil {
		return Write{}, false
	}
	return s.w, true
}

// Savepoint marks the current state.
func (w *WriteSet) Savepoint() int { return len(w.journal) }

// RollbackTo undoes every change made after the savepoint.
func (w *WriteSet) RollbackTo(sp int) {
	for len(w.journal) > sp {
		u := w.journal[len(w.journal)-1]
		w.journal[len(w.journal)-1] = undo{}
		w.journal = w.journal[:len(w.journal)-1]
		w.bytes -= int(u.size) + 16
		s := u.s
		if u.hadPrev {
			w.memory -= int(u.size) + ChangeOverhead
			s.w.Value, s.w.Delete, s.w.seq = u.prevVal, u.prevDel, u.prevSeq
			continue
		}
		w.memory -= int(u.size) + PutOverhead
		delete(w.index, mapKey{s.w.Keyspace, keyString(s.w.Key)}) // WS-3
		w.space(s.w.Keyspace).live--
		s.live = false
		w.live--
		w.dead++
	}
}

// settle sorts the tail into the levels (WS-1, WS-2).
func (w *WriteSet) settle() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.tail) == 0 {
		return
	}
	if w.dead > w.items/2 { // WS-3: mostly dead: one level of the live ones
		all := make([]item, 0, w.live)
		for _, l := range append(w.levels, w.tail) {
			for _, it := range l {
				if it.s.live {
					all = append(all, it)
				}
			}
		}
		slices.SortFunc(all, cmpItem)
		w.levels, w.tail, w.items, w.dead = [][]item{all}, nil, len(all), 0
		return
	}
	l := w.tail
	w.tail = nil
	slices.SortFunc(l, cmpItem)
	for n := len(w.levels); n > 0 && len(w.levels[n-1]) <= 2*len(l); n = len(w.levels) {
		l = w.merge(w.levels[n-1], l)
		w.levels = w.levels[:n-1]
	}
	w.levels = append(w.levels, l)
}

// merge merges two sorted levels, dropping dead items (WS-3).
func (w *WriteSet) merge(a, b []item) []item {
	out := make([]item, 0, len(a)+len(b))
	keep := func(it item) {
		if it.s.live {
			out = append(out, it)
		} else {
			w.items--
			w.dead--
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if cmpItem(a[i], b[j]) <= 0 {
			keep(a[i])
			i++
		} else {
			keep(b[j])
			j++
		}
	}
	for ; i < len(a); i++ {
		keep(a[i])
	}
	for ; j < len(b); j++ {
		keep(b[j])
	}
	return out
}

// walk calls fn for the live items of the levels between each level's
// from and to (indexes), merged in order (descending if reverse).
func walk(levels [][]item, from, to []int, reverse bool, fn func(*Write) bool) {
	if len(levels) == 1 { // the common case: no merge
		l := levels[0]
		if reverse {
			for i := to[0] - 1; i >= from[0]; i-- {
				if l[i].s.live && !fn(&l[i].s.w) {
					return
				}
			}
			return
		}
		for i := from[0]; i < to[0]; i++ {
			if l[i].s.live && !fn(&l[i].s.w) {
				return
			}
		}
		return
	}
	pos := make([]int, len(levels)) // the next index of each level
	for i := range levels {
		if pos[i] = from[i]; reverse {
			pos[i] = to[i] - 1
		}
	}
	for {
		best := -1
		for i, l := range levels {
			if reverse && pos[i] < from[i] || !reverse && pos[i] >= to[i] {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			c := cmpItem(l[pos[i]], levels[best][pos[best]])
			if reverse && c > 0 || !reverse && c < 0 {
				best = i
			}
		}
		if best < 0 {
			return
		}
		it := levels[best][pos[best]]
		if reverse {
			pos[best]--
		} else {
			pos[best]++
		}
		if it.s.live && !fn(&it.s.w) {
			return
		}
	}
}

// Ascend calls fn for every buffered change in (keyspace, key) order.
func (w *WriteSet) Ascend(fn func(Write) bool) {
	w.settle()
	from, to := make([]int, len(w.levels)), make([]int, len(w.levels))
	for i, l := range w.levels {
		to[i] = len(l)
	}
	walk(w.levels, from, to, false, func(c *Write) bool { return fn(*c) })
}

// Range calls fn for the buffered changes of keyspace with lo <= key < hi
// (hi nil: no bound), ascending or descending.
func (w *WriteSet) Range(keyspace uint32, lo, hi []byte, reverse bool, fn func(Write) bool) {
	w.settle()
	if len(w.levels) == 0 {
		return
	}
	lo8 := keyPrefix(lo)
	var hi8 uint64
	if hi != nil {
		hi8 = keyPrefix(hi)
	}
	from, to := make([]int, len(w.levels)), make([]int, len(w.levels))
	for i, l := range w.levels {
		from[i] = sort.Search(len(l), func(j int) bool { return cmpProbe(l[j], keyspace, lo8, lo) >= 0 })
		to[i] = sort.Search(len(l), func(j int) bool {
			if hi == nil {
				return l[j].ks > keyspace
			}
			return cmpProbe(l[j], keyspace, hi8, hi) >= 0
		})
	}
	walk(w.levels, from, to, reverse, func(c *Write) bool { return fn(*c) })
}

// AscendChanges calls fn for every change in the journal (i its index)
// with the key's value right after that change: what a spill must keep so
// that any journal position can still be restored (engine EN-9). A key's
// latest value is in its slot, each earlier one in the journal entry of
// the change that replaced it. The order is (keyspace, key), each key's
// changes newest first: a spill's, without sorting the changes (WS-1).
func (w *WriteSet) AscendChanges(fn func(i int, after Write) bool) {
	var older map[*slot][]int32 // journal entries holding a key's earlier values, oldest first
	for j, u := range w.journal {
		if u.hadPrev {
			if older == nil {
				older = map[*slot][]int32{}
			}
			older[u.s] = append(older[u.s], int32(j))
		}
	}
	w.Ascend(func(c Write) bool {
		if !fn(int(c.seq), c) {
			return false
		}
		if older == nil {
			return true
		}
		// The slot of c: the map has it (a live key).
		s := w.index[mapKey{c.Keyspace, keyString(c.Key)}]
		js := older[s]
		for k := len(js) - 1; k >= 0; k-- {
			u := w.journal[js[k]]
			if !fn(int(u.prevSeq), Write{Keyspace: c.Keyspace, seq: u.prevSeq, Key: c.Key, Value: u.prevVal, Delete: u.prevDel}) {
				return false
			}
		}
		return true
	})
}

// Reset empties the write set and its journal.
func (w *WriteSet) Reset() { *w = WriteSet{} }
