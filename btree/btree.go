// Package btree owns the B+tree: variable-length byte keys ordered by
// bytes.Compare (callers encode keys memcomparably) mapping to byte values,
// stored in slotted 16 KiB pages of the buffer pool.
//
// Concurrency (rules cited as BT-n):
//
//	BT-1 Writes run inside a mini-transaction (package mtr), one at a time.
//	     The writer reads pages without latching (nobody else modifies) and
//	     latches exclusively every page it changes until the mtr commits.
//	BT-2 Readers hold at most one page latch (shared) at a time and never
//	     wait for anything while holding it, so no latch order with the
//	     writer can deadlock. A reader that reaches a child after releasing
//	     the parent validates it: a B+tree node of this keyspace, at the
//	     expected level, whose fence keys cover the search key; otherwise it
//	     restarts from the root (the node was split, merged or freed).
//	BT-3 The root page of a tree never moves: root splits push the content
//	     down into two new children, and a root left with one child pulls
//	     that child's content up.
//	BT-4 Scans copy one leaf's worth of entries under the latch and resume
//	     from the leaf's fence key with a fresh descent, in either direction.
//	     A closed Iterator goes back to a pool with its buffers, so steady
//	     range scans do not allocate; keys and values it returned are dead
//	     once it is closed.
//	BT-6 A full leaf splits in half by bytes, except the rightmost leaf
//	     receiving a key above all others (ascending inserts, as an
//	     auto-increment primary key): it stays full and the new key starts
//	     the new right leaf, so a table loaded in key order fills its leaves
//	     instead of leaving every one half empty. The full leaf is not
//	     rebuilt: its cells stay in place and its new high fence goes below
//	     them, so the split logs the fence, not the page.
//	BT-7 Every node and overflow page read from a volume is checked for
//	     structure before use (validate.go): a page with a right checksum
//	     whose offsets lead outside it is refused as corrupt.
//	BT-8 A scan that has read two leaves asks the buffer pool to read the
//	     next few leaves of the same parent ahead (bufpool BP-6), so that a
//	     long scan waits for one read at a time at most rather than one per
//	     leaf. Only page ids are taken from the parent; every leaf is still
//	     validated when the scan reaches it (BT-2). Only leaves inside the
//	     scan's range are asked for (the parent's separators bound each
//	     child): sysbench's 100-row ranges span two or three leaves, and
//	     eight leaves read past their end were read for nothing and evicted
//	     pages still in use (8 x 150k rows, 64M pool: 3.5 prefetched pages
//	     per oltp_read_write transaction).
//	BT-9 A run of writes in key order inside one mini-transaction may pass
//	     a Hint: Put remembers the path to the leaf it changed, and the next
//	     Put whose key that leaf covers (checked on the page: a node of this
//	     keyspace, a leaf, fences around the key) starts there instead of at
//	     the root. A split forgets it, and a caller that deletes between two
//	     Puts must Forget it, since both change the parents the path names
//	     (a delete may merge leaves). A ReadHint does the same for
//	     Touch, which only faults leaves in (a stale one costs a read, never
//	     a wrong answer).
//	BT-10 A node search first probes where the key would sit if the keys
//	     were spread evenly (node.go search), then halves: same answer,
//	     fewer page reads on dense keys.
package btree

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"strata/bufpool"
	"strata/mtr"
	"strata/page"
)

var (
	// ErrTooLarge is returned for a key or entry above MaxKey/MaxCell.
	ErrTooLarge = errors.New("btree: key or value too large")
	// ErrDropped is returned when the tree's root is no longer a root of it.
	ErrDropped = errors.New("btree: tree dropped")
)

// Allocator hands out and takes back pages inside a mini-transaction.
type Allocator interface {
	// Alloc returns a fresh page, latched for writing by t.
	Alloc(t *mtr.Mtr) (page.ID, []byte, error)
	// Free returns page id to the free space.
	Free(t *mtr.Mtr, id page.ID) error
}

// Tree names one B+tree: its fixed root page and its keyspace id (stamped
// in every node for validation, BT-2).
type Tree struct {
	Root     page.ID
	Keyspace uint32
}

// Create allocates an empty tree.
func Create(t *mtr.Mtr, a Allocator, keyspace uint32) (Tree, error) {
	id, pg, err := a.Alloc(t)
	if err != nil {
		return Tree{}, err
	}
	node(pg).build(id, keyspace, 0, 0, fence{inf: true}, fence{inf: true}, nil)
	return Tree{Root: id, Keyspace: keyspace}, nil
}

func encChild(id page.ID) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(id)) }

type step struct {
	id    page.ID
	child int // index of the child taken (internal nodes)
}

// descend walks from the root to the leaf covering key (BT-1: no latches),
// appending the steps to path (a caller's buffer).
func (tr Tree) descend(t *mtr.Mtr, key []byte, path []step) ([]step, error) {
	id := tr.Root
	for {
		pg, err := t.Read(id)
		if err != nil {
			return nil, err
		}
		n := node(pg)
		if page.TypeOf(pg) != page.TypeBTree || page.KeyspaceOf(pg) != tr.Keyspace {
			return nil, fmt.Errorf("btree: page %d is not a node of keyspace %d: %w", id, tr.Keyspace, ErrDropped)
		}
		if n.isLeaf() {
			return append(path, step{id: id}), nil
		}
		ci := n.childIndexGE(key)
		path = append(path, step{id: id, child: ci})
		id = n.child(ci)
	}
}

func checkSizes(key, val []byte) error {
	if len(key) > MaxKey || len(val) > MaxValue {
		return fmt.Errorf("%w: key %d bytes (max %d), value %d bytes (max %d)", ErrTooLarge, len(key), MaxKey, len(val), MaxValue)
	}
	return nil
}

// Hint is the path of the last Put of a run (BT-9). Its zero value is
// empty; it must not outlive the mini-transaction it was used in.
type Hint struct {
	tree Tree
	path []step
	ok   bool
}

// Forget empties h.
func (h *Hint) Forget() { h.ok = false }

// pathFor returns h's path if its leaf covers key (BT-9).
func (h *Hint) pathFor(t *mtr.Mtr, tr Tree, key []byte) []step {
	if h == nil || !h.ok || h.tree != tr {
		return nil
	}
	pg, err := t.Read(h.path[len(h.path)-1].id)
	if err != nil {
		return nil
	}
	n := node(pg)
	if page.TypeOf(pg) != page.TypeBTree || page.KeyspaceOf(pg) != tr.Keyspace || !n.isLeaf() || !n.covers(key) {
		return nil
	}
	return h.path
}

// Put inserts or replaces key. Values too large for a cell go to an
// overflow chain (overflow.go).
func (tr Tree) Put(t *mtr.Mtr, a Allocator, key, val []byte) error {
	return tr.PutHint(t, a, key, val, nil)
}

// PutHint is Put starting from h's leaf when it covers key (BT-9); h may
// be nil.
func (tr Tree) PutHint(t *mtr.Mtr, a Allocator, key, val []byte, h *Hint) error {
	if err := checkSizes(key, val); err != nil {
		return err
	}
	path := h.pathFor(t, tr, key)
	if path == nil {
		var buf [8]step
		dst := buf[:0]
		if h != nil {
			h.ok = false
			dst = h.path[:0]
		}
		var err error
		if path, err = tr.descend(t, key, dst); err != nil {
			return err
		}
		if h != nil {
			h.tree, h.path, h.ok = tr, path, true
		}
	}
	leaf := path[len(path)-1]
	pg, err := t.Write(leaf.id)
	if err != nil {
		return err
	}
	n := node(pg)
	i, eq := n.search(key)
	if eq {
		if old := n.val(i); !n.isOvf(i) && !needsOverflow(key, val) && len(old) == len(val) {
			copy(old, val)
			return nil
		}
		if n.isOvf(i) {
			if err := freeChain(t, a, append([]byte(nil), n.val(i)...)); err != nil {
				return err
			}
		}
		n.removeAt(i)
	}
	ovf := needsOverflow(key, val)
	if ovf {
		if val, err = writeChain(t, a, tr.Keyspace, val); err != nil {
			return err
		}
	}
	if n.insertAt(i, key, val, ovf) {
		return nil
	}
	if h != nil {
		h.ok = false // BT-9: the split changes the parents
	}
	return tr.splitInsert(t, a, path, len(path)-1, i, cell{key, val, ovf})
}

// splitInsert inserts c at slot pos of the node path[depth], which is full,
// splitting it and, recursively, its ancestors.
func (tr Tree) splitInsert(t *mtr.Mtr, a Allocator, path []step, depth, pos int, c cell) error {
	id := path[depth].id
	pg, err := t.Write(id)
	if err != nil {
		return err
	}
	n := node(pg)
	scratch := splitScratches.Get().(*splitScratch)
	defer splitScratches.Put(scratch) // after the parents' splits, which read sep
	cells, lo, hi := n.cellsIn(scratch)
	cells = slices.Insert(cells, pos, c)
	scratch.cells = cells
	level, leftmost := n.level(), n.leftmost()
	if cellsBytes(cells) <= capacityFor(lo, hi) {
		n.build(id, tr.Keyspace, level, leftmost, lo, hi, cells)
		return nil
	}
	m := splitPoint(cells)
	appending := false
	if level == 0 && hi.inf && pos == len(cells)-1 && pos > 0 &&
		cellsBytes(cells[:pos]) <= capacityFor(lo, fence{key: cells[pos].key}) {
		m, appending = pos, true // BT-6: appending past the last key
	}
	var left, right []cell
	var sep []byte
	var rightLeftmost page.ID
	if level == 0 {
		left, right, sep = cells[:m], cells[m:], cells[m].key
	} else {
		left, right, sep = cells[:m], cells[m+1:], cells[m].key
		rightLeftmost = page.ID(binary.LittleEndian.Uint64(cells[m].val))
	}
	sepF := fence{key: sep}
	if depth == 0 { // BT-3: the root keeps its page
		aID, aPg, err := a.Alloc(t)
		if err != nil {
			return err
		}
		bID, bPg, err := a.Alloc(t)
		if err != nil {
			return err
		}
		node(aPg).build(aID, tr.Keyspace, level, leftmost, lo, sepF, left)
		node(bPg).build(bID, tr.Keyspace, level, rightLeftmost, sepF, hi, right)
		n.build(id, tr.Keyspace, level+1, aID, lo, hi, []cell{{sep, encChild(bID), false}})
		return nil
	}
	bID, bPg, err := a.Alloc(t)
	if err != nil {
		return err
	}
	if appending && n.freeSpace() >= 4+len(sep) {
		// BT-6: the leaf keeps its cells where they are and gains its high
		// fence below them; rebuilt, every cell would move by the fence's
		// size and the whole page be logged.
		n.setHighFence(sep)
	} else {
		n.build(id, tr.Keyspace, level, leftmost, lo, sepF, left)
	}
	node(bPg).build(bID, tr.Keyspace, level, rightLeftmost, sepF, hi, right)
	parent := path[depth-1]
	ppg, err := t.Write(parent.id)
	if err != nil {
		return err
	}
	pn := node(ppg)
	ppos := parent.child // the split node's slot: the new right sibling follows it
	if pn.insertAt(ppos, sep, encChild(bID), false) {
		return nil
	}
	return tr.splitInsert(t, a, path, depth-1, ppos, cell{sep, encChild(bID), false})
}

// splitPoint picks the cell index that halves the bytes, keeping both sides
// non-empty for leaves.
func splitPoint(cells []cell) int {
	total := cellsBytes(cells)
	acc := 0
	for i, c := range cells {
		acc += cellSize(c.key, c.val) + 2
		if acc >= total/2 {
			return min(max(i, 1), len(cells)-1)
		}
	}
	return len(cells) / 2
}

// Delete removes key; it reports whether the key existed.
func (tr Tree) Delete(t *mtr.Mtr, a Allocator, key []byte) (bool, error) {
	var buf [8]step
	path, err := tr.descend(t, key, buf[:0])
	if err != nil {
		return false, err
	}
	leaf := path[len(path)-1]
	pg, err := t.Read(leaf.id)
	if err != nil {
		return false, err
	}
	i, eq := node(pg).search(key)
	if !eq {
		return false, nil
	}
	if node(pg).isOvf(i) {
		if err := freeChain(t, a, append([]byte(nil), node(pg).val(i)...)); err != nil {
			return false, err
		}
	}
	if pg, err = t.Write(leaf.id); err != nil {
		return false, err
	}
	node(pg).removeAt(i)
	return true, tr.rebalance(t, a, path, len(path)-1)
}

// rebalance merges the node at path[depth] with a sibling when it is less
// than a quarter full and the pair fits in three quarters of a page.
func (tr Tree) rebalance(t *mtr.Mtr, a Allocator, path []step, depth int) error {
	id := path[depth].id
	pg, err := t.Read(id)
	if err != nil {
		return err
	}
	n := node(pg)
	if depth == 0 {
		return tr.collapseRoot(t, a)
	}
	if n.used() >= page.Size/4 {
		return nil
	}
	parent := path[depth-1]
	ppg, err := t.Read(parent.id)
	if err != nil {
		return err
	}
	pn := node(ppg)
	if pn.nslots() == 0 {
		return nil
	}
	li := parent.child
	if li >= pn.nslots() {
		li--
	}
	leftID, rightID := pn.child(li), pn.child(li+1)
	lpg, err := t.Write(leftID)
	if err != nil {
		return err
	}
	rpg, err := t.Write(rightID)
	if err != nil {
		return err
	}
	l, r := node(lpg), node(rpg)
	merged := l.cells()
	if !l.isLeaf() {
		merged = append(merged, cell{append([]byte(nil), pn.key(li)...), encChild(r.leftmost()), false})
	}
	merged = append(merged, r.cells()...)
	lo, _ := l.fences()
	_, hi := r.fences()
	if cellsBytes(merged) > capacityFor(lo, hi)*3/4 {
		return nil
	}
	l.build(leftID, tr.Keyspace, l.level(), l.leftmost(), lo, hi, merged)
	if err := a.Free(t, rightID); err != nil {
		return err
	}
	if ppg, err = t.Write(parent.id); err != nil {
		return err
	}
	node(ppg).removeAt(li)
	return tr.rebalance(t, a, path, depth-1)
}

// collapseRoot pulls the only child of an internal root up into it (BT-3).
func (tr Tree) collapseRoot(t *mtr.Mtr, a Allocator) error {
	for {
		pg, err := t.Read(tr.Root)
		if err != nil {
			return err
		}
		n := node(pg)
		if n.isLeaf() || n.nslots() > 0 {
			return nil
		}
		childID := n.leftmost()
		cpg, err := t.Read(childID)
		if err != nil {
			return err
		}
		c := node(cpg)
		level, leftmost, cells := c.level(), c.leftmost(), c.cells()
		if pg, err = t.Write(tr.Root); err != nil {
			return err
		}
		node(pg).build(tr.Root, tr.Keyspace, level, leftmost, fence{inf: true}, fence{inf: true}, cells)
		if err := a.Free(t, childID); err != nil {
			return err
		}
	}
}

// Dropper runs the mini-transactions of a long operation: Next commits the
// current one (if any) and begins a new one.
type Dropper interface {
	Next() (*mtr.Mtr, error)
}

// Drop frees every page of the tree, root included, committing a
// mini-transaction every batchPages pages so that a tree of any size can be
// dropped with a small pool. The caller has made the tree unreachable
// first. If a crash interrupts it, calling Drop again finishes the job:
// pages already freed (no longer a node or overflow page of this keyspace)
// are skipped. The caller commits the last mini-transaction.
func (tr Tree) Drop(d Dropper, a Allocator, batchPages int) (*mtr.Mtr, error) {
	return tr.drop(d, a, batchPages, false)
}

// DropInline is Drop for a tree the caller knows holds no overflow value
// (every cell fits, Inline): a parent of leaves frees them without reading
// or writing them, in the same mini-transaction as itself (marked freed),
// so that after a crash a parent still there has all its leaves (a later
// Drop reads them as usual). A drop of a tree of N leaves then reads and
// writes about N/300 pages.
func (tr Tree) DropInline(d Dropper, a Allocator, batchPages int) (*mtr.Mtr, error) {
	return tr.drop(d, a, batchPages, true)
}

// Inline reports whether key and val are stored in the leaf, without an
// overflow chain.
func Inline(key, val []byte) bool { return !needsOverflow(key, val) }

func (tr Tree) drop(d Dropper, a Allocator, batchPages int, inline bool) (*mtr.Mtr, error) {
	t, err := d.Next()
	if err != nil {
		return nil, err
	}
	mine := func(pg []byte) bool {
		typ := page.TypeOf(pg)
		return (typ == page.TypeBTree || typ == page.TypeOverflow) && page.KeyspaceOf(pg) == tr.Keyspace
	}
	// next ends the batch once it holds batchPages pages, read or written
	// (a resumed drop reads pages it then skips).
	next := func() (err error) {
		if t.Pinned() >= batchPages {
			t, err = d.Next()
		}
		return err
	}
	free := func(id page.ID) error {
		// Mark the page no longer of this keyspace before freeing it (the
		// allocator may leave a freed page as it is): a drop resumed after
		// a crash must not walk into it and free it twice.
		pg, err := t.Write(id)
		if err != nil {
			return err
		}
		page.SetType(pg, page.TypeFree)
		if err := a.Free(t, id); err != nil {
			return err
		}
		return next()
	}
	var walk func(id page.ID) error
	walk = func(id page.ID) error {
		pg, err := t.Read(id)
		if err != nil {
			return err
		}
		if !mine(pg) {
			return next() // freed by an interrupted earlier drop
		}
		n := node(pg)
		// Copy what we need: committing a batch unpins this page.
		var children []page.ID
		var chains [][]byte
		if !n.isLeaf() {
			for i := 0; i <= n.nslots(); i++ {
				children = append(children, n.child(i))
			}
		}
		for i := 0; n.isLeaf() && i < n.nslots(); i++ {
			if n.isOvf(i) {
				chains = append(chains, append([]byte(nil), n.val(i)...))
			}
		}
		if inline && n.level() == 1 && len(children)+2 <= batchPages {
			// The leaves and their parent in one mini-transaction.
			if t.Pinned()+len(children)+2 > batchPages {
				if t, err = d.Next(); err != nil {
					return err
				}
			}
			for _, c := range children {
				if err := a.Free(t, c); err != nil {
					return err
				}
			}
			return free(id)
		}
		for _, c := range children {
			if err := walk(c); err != nil {
				return err
			}
		}
		for _, ref := range chains {
			_, _, cid := parseRef(ref)
			for cid != page.InvalidID {
				cpg, err := t.Read(cid)
				if err != nil {
					return err
				}
				if !mine(cpg) || page.TypeOf(cpg) != page.TypeOverflow {
					break
				}
				next := page.ID(binary.LittleEndian.Uint64(cpg[ovfNext:]))
				if err := free(cid); err != nil {
					return err
				}
				cid = next
			}
		}
		return free(id)
	}
	return t, walk(tr.Root)
}

// Prefetch asks the pool to read the leaf holding key in the background
// (BT-8): the inner nodes are read on the way, the leaf is not waited for.
// A hint: a node that fails validation (BT-2) or is latched ends it.
func (tr Tree) Prefetch(pool *bufpool.Pool, key []byte) {
	id, level := tr.Root, -1
	for {
		f, err := pool.Fix(id)
		if err != nil {
			return
		}
		// Never wait for a latch: the caller may be feeding the writer
		// that holds it (the roll-forward's merge feeds its applier).
		if !f.Latch.TryRLock() {
			pool.Unfix(f)
			return
		}
		n := node(f.Data())
		ok := page.TypeOf(n) == page.TypeBTree && page.KeyspaceOf(n) == tr.Keyspace &&
			(level < 0 || n.level() == level) && n.covers(key) && !n.isLeaf()
		var child page.ID
		if ok {
			child, level = n.child(n.childIndexGE(key)), n.level()-1
		}
		f.Latch.RUnlock()
		pool.Unfix(f)
		if !ok {
			return
		}
		if level == 0 {
			pool.Prefetch(child)
			return
		}
		id = child
	}
}

// Get returns a copy of the value stored under key (BT-2).
func (tr Tree) Get(pool *bufpool.Pool, key []byte) ([]byte, bool, error) {
	for {
		var out []byte
		found, ovf := false, false
		err := tr.readLeaf(pool, key, false, nil, func(n node) {
			if i, eq := n.search(key); eq {
				out = append([]byte(nil), n.val(i)...)
				found, ovf = true, n.isOvf(i)
			}
		})
		if err != nil || !ovf {
			return out, found, err
		}
		v, err := readChain(pool, tr.Keyspace, out, nil) // BT-5
		if errors.Is(err, errChainMoved) {
			continue
		}
		return v, true, err
	}
}

// ReadHint is the fences of the leaf Touch last faulted in (BT-9).
type ReadHint struct {
	tree   Tree
	lo, hi fence
	ok     bool
}

// Touch faults in the leaf covering key (and its path), unless h's leaf
// covered it: a run of keys in order reads each leaf once.
func (tr Tree) Touch(pool *bufpool.Pool, key []byte, h *ReadHint) error {
	if h.ok && h.tree == tr && (h.lo.inf || bytes.Compare(key, h.lo.key) >= 0) &&
		(h.hi.inf || bytes.Compare(key, h.hi.key) < 0) {
		return nil
	}
	h.ok = false
	err := tr.readLeaf(pool, key, false, nil, func(n node) {
		k, inf := n.lowFence()
		h.lo = fence{append(h.lo.key[:0], k...), inf}
		k, inf = n.highFence()
		h.hi = fence{append(h.hi.key[:0], k...), inf}
	})
	h.tree, h.ok = tr, err == nil
	return err
}

// readLeaf finds the leaf covering key (below=false) or the keys just below
// key (below=true, key nil = +inf) and calls fn on it under a shared latch.
func (tr Tree) readLeaf(pool *bufpool.Pool, key []byte, below bool, ra *readAhead, fn func(n node)) error {
	for attempt := 0; ; attempt++ {
		if attempt > 1000000 {
			return fmt.Errorf("btree: descent of keyspace %d does not settle", tr.Keyspace)
		}
		id, level := tr.Root, -1
		for {
			f, err := pool.Fix(id)
			if err != nil {
				return err
			}
			f.Latch.RLock()
			n := node(f.Data())
			ok := page.TypeOf(n) == page.TypeBTree && page.KeyspaceOf(n) == tr.Keyspace &&
				(level < 0 || n.level() == level)
			if ok {
				if below {
					ok = n.coversBelow(key)
				} else {
					ok = n.covers(key)
				}
			}
			if !ok {
				f.Latch.RUnlock()
				pool.Unfix(f)
				if id == tr.Root {
					return ErrDropped
				}
				break // BT-2: restart from the root
			}
			if n.isLeaf() {
				if scanTrace != nil {
					lo, _ := n.lowFence()
					scanTrace(nil, id, lo)
				}
				fn(n)
				f.Latch.RUnlock()
				pool.Unfix(f)
				return nil
			}
			var ci int
			if below {
				ci = n.childIndexLT(key)
			} else {
				ci = n.childIndexGE(key)
			}
			child := n.child(ci)
			level = n.level() - 1
			var ahead []page.ID
			if level == 0 && ra != nil {
				ahead = ra.next(n, id, ci, below)
			}
			f.Latch.RUnlock()
			pool.Unfix(f)
			if len(ahead) > 0 {
				if scanTrace != nil {
					scanTrace(ahead, 0, nil)
				}
				pool.Prefetch(ahead...)
			}
			id = child
		}
	}
}

// readAhead picks the leaves a scan will read next (BT-8): from the second
// leaf on, the next readAheadLeaves children of the parent in the scan's
// direction, each asked for once.
type readAhead struct {
	leaves int     // leaves read
	parent page.ID // the parent asked about last
	upTo   int     // the last child index asked for under it
	ids    []page.ID
	lo, hi []byte // the scan's range: [lo, hi), nil unbounded
}

const readAheadLeaves = 8

// scanTrace, set by tests only, sees the leaves a scan asks to read ahead
// and (ahead nil) each leaf it reads, with the leaf's low fence.
var scanTrace func(ahead []page.ID, leaf page.ID, low []byte)

func (ra *readAhead) next(n node, parent page.ID, ci int, below bool) []page.ID {
	ra.leaves++
	if ra.leaves < 2 {
		return nil
	}
	ra.ids = ra.ids[:0]
	step, from := 1, ci+1
	if below {
		step, from = -1, ci-1
	}
	if parent == ra.parent && (ra.upTo-from)*step >= 0 {
		from = ra.upTo + step
	}
	last := ci + step*readAheadLeaves
	for i := from; (last-i)*step >= 0 && i >= 0 && i <= n.nslots(); i += step {
		// Child i holds the keys in [key(i-1), key(i)).
		if !below && ra.hi != nil && bytes.Compare(n.key(i-1), ra.hi) >= 0 {
			break // starts at or past the range's end
		}
		if below && ra.lo != nil && i < n.nslots() && bytes.Compare(n.key(i), ra.lo) <= 0 {
			break // ends at or before the range's start
		}
		ra.ids = append(ra.ids, n.child(i))
		ra.upTo = i
	}
	ra.parent = parent
	return ra.ids
}

// Iterator walks a key range [lo, hi) in either direction (BT-4).
type Iterator struct {
	tr      Tree
	pool    *bufpool.Pool
	lo, hi  []byte // hi nil: +inf
	reverse bool
	resume  []byte
	resInf  bool // reverse: resume from +inf
	done    bool
	arena   []byte
	lens    []int  // key length, value length, ...
	ovf     []bool // value is an overflow reference
	keys    [][]byte
	vals    [][]byte
	used    int // the most entries keys and vals held since the last Close
	pos     int
	err     error
	// fences holds the next leaf's fence key, alternating between two
	// buffers: resume points into one while a fill writes the other (a
	// retried fill, BT-5, still finds its resume key intact).
	fences [2][]byte
	fence  int
	ahead  readAhead // BT-8
}

// iterators recycles Iterators and their buffers (Close), so that range
// scans do not allocate in the steady state.
var iterators = sync.Pool{New: func() any { return new(Iterator) }}

// maxPooledArena: iterators whose arena grew beyond this (huge rows) are
// left to the garbage collector instead of pinning the memory.
const maxPooledArena = 1 << 20

// Scan returns an iterator over keys in [lo, hi); hi nil means no upper
// bound. Reverse walks from the highest key down. Close returns it for
// reuse; an iterator that is not closed is simply garbage collected.
func (tr Tree) Scan(pool *bufpool.Pool, lo, hi []byte, reverse bool) *Iterator {
	it := iterators.Get().(*Iterator)
	*it = Iterator{tr: tr, pool: pool, lo: lo, hi: hi, reverse: reverse, pos: -1,
		arena: it.arena[:0], lens: it.lens[:0], ovf: it.ovf[:0], keys: it.keys[:0], vals: it.vals[:0],
		fences: [2][]byte{it.fences[0][:0], it.fences[1][:0]}, ahead: readAhead{ids: it.ahead.ids[:0], lo: lo, hi: hi}}
	if reverse {
		it.resume, it.resInf = hi, hi == nil
	} else {
		it.resume = lo
		if it.resume == nil {
			it.resume = []byte{}
		}
	}
	return it
}

// Next advances; it returns false at the end or on error (see Err).
func (it *Iterator) Next() bool {
	it.pos++
	for it.pos >= len(it.keys) {
		if it.done || it.err != nil {
			return false
		}
		it.fill()
	}
	return true
}

// Key is the current key (valid until the next call to Next).
func (it *Iterator) Key() []byte { return it.keys[it.pos] }

// Value is the current value (valid until the next call to Next).
func (it *Iterator) Value() []byte { return it.vals[it.pos] }

// Err is the error that stopped the iteration, if any.
func (it *Iterator) Err() error { return it.err }

// Close releases the iterator for reuse: it and every key and value it
// returned must not be used afterwards.
func (it *Iterator) Close() {
	if it.pool == nil {
		panic("btree: Iterator closed twice")
	}
	it.pool, it.lo, it.hi, it.resume = nil, nil, nil, nil
	it.ahead.lo, it.ahead.hi = nil, nil
	if cap(it.arena) > maxPooledArena {
		return
	}
	// Only what this use filled holds references: a point lookup on an
	// iterator that once scanned whole leaves clears one entry, not the
	// buffers' capacity (4% of a lookup join's CPU).
	n := max(it.used, len(it.keys))
	clear(it.keys[:n])
	clear(it.vals[:n])
	it.used = 0
	iterators.Put(it)
}

func (it *Iterator) fill() {
	for {
		done, resume, resInf := it.done, it.resume, it.resInf
		err := it.fillOnce()
		if errors.Is(err, errChainMoved) { // BT-5: re-read the leaf
			it.done, it.resume, it.resInf = done, resume, resInf
			continue
		}
		if err != nil {
			it.err = err
		}
		return
	}
}

func (it *Iterator) fillOnce() error {
	it.used = max(it.used, len(it.keys))
	it.arena, it.lens, it.ovf, it.keys, it.vals, it.pos = it.arena[:0], it.lens[:0], it.ovf[:0], it.keys[:0], it.vals[:0], 0
	var next []byte
	var nextInf bool
	add := func(n node, i int) { // copies: the page is only latched inside readLeaf
		k, v := n.cellAt(n.slot(i))
		it.arena = append(it.arena, k...)
		it.arena = append(it.arena, v...)
		it.lens = append(it.lens, len(k), len(v))
		it.ovf = append(it.ovf, n.isOvf(i))
	}
	key := it.resume
	if it.reverse && it.resInf {
		key = nil
	}
	err := it.tr.readLeaf(it.pool, key, it.reverse, &it.ahead, func(n node) {
		if !it.reverse {
			i, _ := n.search(key)
			for ; i < n.nslots(); i++ {
				if it.hi != nil && bytes.Compare(n.key(i), it.hi) >= 0 {
					it.done = true
					return
				}
				add(n, i)
			}
			hk, inf := n.highFence()
			next, nextInf = append(it.fences[it.fence^1][:0], hk...), inf
			return
		}
		i := n.nslots()
		if key != nil {
			i, _ = n.search(key)
		}
		for i--; i >= 0; i-- {
			if it.lo != nil && bytes.Compare(n.key(i), it.lo) < 0 {
				it.done = true
				return
			}
			add(n, i)
		}
		lk, inf := n.lowFence()
		next, nextInf = append(it.fences[it.fence^1][:0], lk...), inf
	})
	if err != nil {
		return err
	}
	off := 0
	for i := 0; i < len(it.lens); i += 2 {
		kl, vl := it.lens[i], it.lens[i+1]
		it.keys = append(it.keys, it.arena[off:off+kl:off+kl])
		v := it.arena[off+kl : off+kl+vl : off+kl+vl]
		if it.ovf[i/2] {
			if v, err = readChain(it.pool, it.tr.Keyspace, v, nil); err != nil {
				return err
			}
		}
		it.vals = append(it.vals, v)
		off += kl + vl
	}
	switch {
	case it.done:
	case nextInf:
		it.done = true
	case !it.reverse && it.hi != nil && bytes.Compare(next, it.hi) >= 0:
		it.done = true
	case it.reverse && it.lo != nil && bytes.Compare(next, it.lo) <= 0:
		it.done = true
	default:
		it.fence ^= 1
		it.fences[it.fence] = next
		it.resume, it.resInf = next, false
	}
	return nil
}

// GetIn returns a copy of key's value as the mini-transaction t sees it,
// latching the leaf through t (a commit reads the before-images it
// records for snapshots this way, package mvcc's MV-3).
func (tr Tree) GetIn(t *mtr.Mtr, pool *bufpool.Pool, key []byte) ([]byte, bool, error) {
	var buf [8]step
	path, err := tr.descend(t, key, buf[:0])
	if err != nil {
		return nil, false, err
	}
	pg, err := t.Write(path[len(path)-1].id)
	if err != nil {
		return nil, false, err
	}
	n := node(pg)
	i, eq := n.search(key)
	if !eq {
		return nil, false, nil
	}
	v := append([]byte(nil), n.val(i)...)
	if !n.isOvf(i) {
		return v, true, nil
	}
	v, err = readChain(pool, tr.Keyspace, v, nil) // BT-5
	return v, true, err
}
