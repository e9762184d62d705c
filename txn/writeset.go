package txn

import (
	"bytes"
	"encoding/binary"

	"github.com/google/btree"
)

// Write is one buffered change: a new value, or a deletion.
type Write struct {
	Keyspace uint32
	seq      int32 // the journal index of the change that made it (Changes)
	Key      []byte
	Value    []byte
	Delete   bool
}

func lessWrite(a, b *Write) bool {
	if a.Keyspace != b.Keyspace {
		return a.Keyspace < b.Keyspace
	}
	return bytes.Compare(a.Key, b.Key) < 0
}

// item is a write in the tree: the keyspace and the key's first 8 bytes
// (big endian, zero padded) beside the pointer, so that most comparisons
// of a search read the node's items only, not each write's key.
type item struct {
	ks     uint32
	prefix uint64
	w      *Write
}

func keyPrefix(key []byte) uint64 {
	if len(key) >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

func itemOf(w *Write) item { return item{ks: w.Keyspace, prefix: keyPrefix(w.Key), w: w} }

// lessItem orders as lessWrite: equal prefixes (zero padding makes a
// short key and its extension by zeros equal) fall back to the keys.
func lessItem(a, b item) bool {
	if a.ks != b.ks {
		return a.ks < b.ks
	}
	if a.prefix != b.prefix {
		return a.prefix < b.prefix
	}
	return bytes.Compare(a.w.Key, b.w.Key) < 0
}

// undo is a journal entry: the change's previous write of the key, or
// (hadPrev false) the change itself, to delete.
type undo struct {
	prev    *Write
	hadPrev bool
	size    int32 // the change's key and value bytes
}

// WriteSet is a transaction's private, ordered buffer of changes, with a
// journal so that a failed statement can be undone (savepoints).
type WriteSet struct {
	tree    *btree.BTreeG[item]
	probe   Write // Get's search key (no allocation per lookup)
	journal []undo
	bytes   int // keys and values, with 16 bytes of framing per change
	memory  int // what the write set holds in memory
}

// NewWriteSet returns an empty write set.
func NewWriteSet() *WriteSet {
	return &WriteSet{tree: btree.NewG(32, lessItem)}
}

// Len is the number of distinct keys written.
func (w *WriteSet) Len() int { return w.tree.Len() }

// Bytes estimates the size of the buffered keys and values (what a
// redo record of them takes).
func (w *WriteSet) Bytes() int { return w.bytes }

// Memory is what the write set holds in memory: keys, values, and per
// change its tree item and journal entry (PutOverhead). Changes undone by
// RollbackTo no longer count.
func (w *WriteSet) Memory() int { return w.memory }

// PutOverhead is the memory one Put takes besides its key and value: a
// Write (64 bytes) and its item in the tree (24), an undo journal entry
// (16) and the allocations' headers.
const PutOverhead = 144

// Put buffers a change (the slices are retained; callers pass copies).
func (w *WriteSet) Put(c Write) {
	c.seq = int32(len(w.journal))
	p := &c
	old, had := w.tree.ReplaceOrInsert(itemOf(p))
	size := len(c.Key) + len(c.Value)
	prev := old.w
	if !had {
		prev = p
	}
	w.journal = append(w.journal, undo{prev: prev, hadPrev: had, size: int32(size)})
	w.bytes += size + 16
	w.memory += size + PutOverhead
}

// Get returns the buffered change for key, if any. It searches with the
// write set's probe: one Get at a time (the transaction's goroutine).
func (w *WriteSet) Get(keyspace uint32, key []byte) (Write, bool) {
	w.probe = Write{Keyspace: keyspace, Key: key}
	it, ok := w.tree.Get(itemOf(&w.probe))
	w.probe.Key = nil
	if !ok {
		return Write{}, false
	}
	return *it.w, true
}

// Savepoint marks the current state.
func (w *WriteSet) Savepoint() int { return len(w.journal) }

// RollbackTo undoes every change made after the savepoint.
func (w *WriteSet) RollbackTo(sp int) {
	for len(w.journal) > sp {
		u := w.journal[len(w.journal)-1]
		w.journal = w.journal[:len(w.journal)-1]
		w.bytes -= int(u.size) + 16
		w.memory -= int(u.size) + PutOverhead
		if u.hadPrev {
			w.tree.ReplaceOrInsert(itemOf(u.prev))
		} else {
			w.tree.Delete(itemOf(u.prev))
		}
	}
}

// Ascend calls fn for every buffered change in (keyspace, key) order.
func (w *WriteSet) Ascend(fn func(Write) bool) {
	w.tree.Ascend(func(it item) bool { return fn(*it.w) })
}

// Range calls fn for the buffered changes of keyspace with lo <= key < hi
// (hi nil: no bound), ascending or descending.
func (w *WriteSet) Range(keyspace uint32, lo, hi []byte, reverse bool, fn func(Write) bool) {
	from := &Write{Keyspace: keyspace, Key: lo}
	if lo == nil {
		from.Key = []byte{}
	}
	var to *Write
	if hi == nil {
		to = &Write{Keyspace: keyspace + 1, Key: []byte{}}
	} else {
		to = &Write{Keyspace: keyspace, Key: hi}
	}
	if !reverse {
		w.tree.AscendRange(itemOf(from), itemOf(to), func(it item) bool { return fn(*it.w) })
		return
	}
	// DescendRange is (to, from]: walk down from just below `to`.
	w.tree.DescendLessOrEqual(itemOf(to), func(it item) bool {
		c := it.w
		if !lessWrite(c, to) {
			return true // skip `to` itself
		}
		if lessWrite(c, from) {
			return false
		}
		return fn(*c)
	})
}

// Changes calls fn for every change in the journal (i its index, in no
// particular order) with the key's value right after that change: what a
// spill must keep so that any journal position can still be restored
// (engine EN-9). A key's latest value is in the tree, each earlier one in
// the journal entry of the change that replaced it.
func (w *WriteSet) Changes(fn func(i int, after Write) bool) {
	ok := true
	w.tree.Ascend(func(it item) bool {
		ok = fn(int(it.w.seq), *it.w)
		return ok
	})
	for _, u := range w.journal {
		if !ok {
			return
		}
		if u.hadPrev {
			ok = fn(int(u.prev.seq), *u.prev)
		}
	}
}

// Reset empties the write set and its journal.
func (w *WriteSet) Reset() { *w = *NewWriteSet() }
