package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"strata/page"
)

// Node layout, after the common page header (page.HeaderSize bytes):
//
//	32 nslots u16     34 cellTop u16   36 garbage u16   38 flags u16
//	40 leftmost child u64 (internal nodes)
//	48 low fence cell offset u16       50 high fence cell offset u16
//	56 slot array: nslots x u16 cell offsets, sorted by key
//	   ... free space ...
//	cellTop .. Size: cells [klen u16][vlen u16][key][value], growing down
//
// A leaf's value is the user value; an internal node's value is the u64
// child page covering keys >= the cell's key (up to the next cell's key);
// keys below the first cell go to the leftmost child. Every node carries
// fence keys: it holds exactly the keys k with low <= k < high (flags mark
// an infinite fence). Readers use the fences to validate a node reached
// without holding its parent's latch.
const (
	offNSlots   = 32
	offCellTop  = 34
	offGarbage  = 36
	offFlags    = 38
	offLeftmost = 40
	offLowFence = 48
	offHighFnc  = 50
	slotsStart  = 56

	// ovfFlag in a cell's key length marks an overflow value reference.
	ovfFlag = 0x8000

	flagLowInf  = 1
	flagHighInf = 2

	// MaxKey is the largest key accepted.
	MaxKey = 1024
	// MaxCell is the largest key+value+4 accepted, so that any page holds
	// at least four cells beside its fences.
	MaxCell = 3000
)

type node []byte

func (n node) nslots() int       { return int(binary.LittleEndian.Uint16(n[offNSlots:])) }
func (n node) setNSlots(v int)   { binary.LittleEndian.PutUint16(n[offNSlots:], uint16(v)) }
func (n node) cellTop() int      { return int(binary.LittleEndian.Uint16(n[offCellTop:])) }
func (n node) setCellTop(v int)  { binary.LittleEndian.PutUint16(n[offCellTop:], uint16(v)) }
func (n node) garbage() int      { return int(binary.LittleEndian.Uint16(n[offGarbage:])) }
func (n node) setGarbage(v int)  { binary.LittleEndian.PutUint16(n[offGarbage:], uint16(v)) }
func (n node) flags() int        { return int(binary.LittleEndian.Uint16(n[offFlags:])) }
func (n node) setFlags(v int)    { binary.LittleEndian.PutUint16(n[offFlags:], uint16(v)) }
func (n node) leftmost() page.ID { return page.ID(binary.LittleEndian.Uint64(n[offLeftmost:])) }
func (n node) setLeftmost(id page.ID) {
	binary.LittleEndian.PutUint64(n[offLeftmost:], uint64(id))
}
func (n node) level() int     { return int(page.LevelOf(n)) }
func (n node) isLeaf() bool   { return page.LevelOf(n) == 0 }
func (n node) slot(i int) int { return int(binary.LittleEndian.Uint16(n[slotsStart+2*i:])) }
func (n node) setSlot(i, off int) {
	binary.LittleEndian.PutUint16(n[slotsStart+2*i:], uint16(off))
}

func (n node) cellAt(off int) (key, val []byte) {
	kl := int(binary.LittleEndian.Uint16(n[off:]) &^ ovfFlag)
	vl := int(binary.LittleEndian.Uint16(n[off+2:]))
	return n[off+4 : off+4+kl], n[off+4+kl : off+4+kl+vl]
}

func (n node) key(i int) []byte { k, _ := n.cellAt(n.slot(i)); return k }

// isOvf reports whether slot i's value is an overflow reference.
func (n node) isOvf(i int) bool {
	return binary.LittleEndian.Uint16(n[n.slot(i):])&ovfFlag != 0
}
func (n node) val(i int) []byte { _, v := n.cellAt(n.slot(i)); return v }

func (n node) child(i int) page.ID { // i in [0, nslots]: 0 = leftmost
	if i == 0 {
		return n.leftmost()
	}
	return page.ID(binary.LittleEndian.Uint64(n.val(i - 1)))
}

func (n node) lowFence() (key []byte, inf bool) {
	if n.flags()&flagLowInf != 0 {
		return nil, true
	}
	k, _ := n.cellAt(int(binary.LittleEndian.Uint16(n[offLowFence:])))
	return k, false
}

func (n node) highFence() (key []byte, inf bool) {
	if n.flags()&flagHighInf != 0 {
		return nil, true
	}
	k, _ := n.cellAt(int(binary.LittleEndian.Uint16(n[offHighFnc:])))
	return k, false
}

func (n node) freeSpace() int { return n.cellTop() - (slotsStart + 2*n.nslots()) }

// used is the number of bytes the live cells and slots take.
func (n node) used() int {
	return page.Size - n.cellTop() - n.garbage() + 2*n.nslots() - n.fenceBytes()
}

func (n node) fenceBytes() int {
	b := 0
	if k, inf := n.lowFence(); !inf {
		b += 4 + len(k)
	}
	if k, inf := n.highFence(); !inf {
		b += 4 + len(k)
	}
	return b
}

func cellSize(key, val []byte) int { return 4 + len(key) + len(val) }

// search returns the first slot whose key is >= key, and whether it is equal.
//
// BT-10 A node of more than searchLinear slots whose key has the width of
// its first and last keys, at most searchWidth bytes, is searched first
// where key should sit if the keys were spread evenly between the first
// and the last (8 bytes after their common prefix, as a number), then in steps
// doubling away from that probe until key is bracketed (at most
// searchGallop slots away), then by halving what remains: on keys as dense as
// a table's integer ids the answer is found in three or four probes near
// each other where halving takes eight to ten, each a read of a slot and
// of a cell elsewhere in the page. Every probe narrows [lo, hi) as
// halving would, so the answer is the same whatever the keys; only the
// number of probes depends on their spread.
func (n node) search(key []byte) (int, bool) {
	lo, hi := 0, n.nslots()
	if m, ok := n.guess(key, lo, hi); ok {
		if bytes.Compare(n.key(m), key) < 0 {
			lo = m + 1
			for d := 1; d <= searchGallop; d *= 2 {
				p := m + d
				if p >= hi {
					break
				}
				if bytes.Compare(n.key(p), key) >= 0 {
					hi = p
					break
				}
				lo = p + 1
			}
		} else {
			hi = m
			for d := 1; d <= searchGallop; d *= 2 {
				p := m - d
				if p < lo {
					break
				}
				if bytes.Compare(n.key(p), key) < 0 {
					lo = p + 1
					break
				}
				hi = p
			}
		}
	}
	lo = n.halve(key, lo, hi)
	return lo, lo < n.nslots() && bytes.Equal(n.key(lo), key)
}

// halve is the first slot in [lo, hi) whose key is >= key (hi if none),
// by binary search.
func (n node) halve(key []byte, lo, hi int) int {
	for lo < hi {
		m := (lo + hi) / 2
		if bytes.Compare(n.key(m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// searchWidth is the longest key BT-10 guesses for; the node's first and
// last keys must have its length too. Keys of fixed width (integers,
// dates, their combinations) spread about evenly within a leaf; text
// keys (digits, names) seldom do, and a bad guess costs probes.
const searchWidth = 16

// searchGallop bounds the distance of BT-10's last doubling step: a
// guess that far off (keys of fixed width that do not spread evenly as
// numbers, such as zero-padded decimal text) costs few probes before the
// halving.
const searchGallop = 4

// searchLinear is the number of slots below which search only halves.
const searchLinear = 16

// guess is BT-10's probe for key in slots [lo, hi); ok is false when
// BT-10 does not guess (few slots, keys of other widths).
func (n node) guess(key []byte, lo, hi int) (_ int, ok bool) {
	if hi-lo <= searchLinear || len(key) > searchWidth {
		return 0, false
	}
	first, last := n.key(lo), n.key(hi-1)
	if len(first) != len(key) || len(last) != len(key) {
		return 0, false
	}
	cp := 0
	for cp < len(first) && cp < len(last) && first[cp] == last[cp] {
		cp++
	}
	// Outside the shared prefix, key is below or above every slot.
	if c := bytes.Compare(key[:cp], first[:cp]); c < 0 {
		return lo, true
	} else if c > 0 {
		return hi - 1, true
	}
	a, b, v := word(first, cp), word(last, cp), word(key, cp)
	switch {
	case v <= a:
		return lo, true
	case v >= b:
		return hi - 1, true
	}
	return lo + int(float64(v-a)/float64(b-a)*float64(hi-1-lo)), true
}

// word is the 8 bytes of k from off on as a big-endian number (missing
// bytes zero).
func word(k []byte, off int) uint64 {
	if off+8 <= len(k) {
		return binary.BigEndian.Uint64(k[off:])
	}
	var w uint64
	for i := 0; i < 8; i++ {
		w <<= 8
		if off+i < len(k) {
			w |= uint64(k[off+i])
		}
	}
	return w
}

// childIndexGE is the child covering key (largest i with sep_i <= key).
func (n node) childIndexGE(key []byte) int {
	i, eq := n.search(key)
	if eq {
		return i + 1
	}
	return i
}

// childIndexLT is the child covering the keys just below key (largest i
// with sep_i < key); key nil means +infinity.
func (n node) childIndexLT(key []byte) int {
	if key == nil {
		return n.nslots()
	}
	i, _ := n.search(key)
	return i
}

// covers reports low <= key < high.
func (n node) covers(key []byte) bool {
	if lo, inf := n.lowFence(); !inf && bytes.Compare(key, lo) < 0 {
		return false
	}
	if hi, inf := n.highFence(); !inf && bytes.Compare(key, hi) >= 0 {
		return false
	}
	return true
}

// coversBelow reports low < key <= high (key nil: +infinity, needs high inf).
func (n node) coversBelow(key []byte) bool {
	if key == nil {
		_, inf := n.highFence()
		return inf
	}
	if lo, inf := n.lowFence(); !inf && bytes.Compare(lo, key) >= 0 {
		return false
	}
	if hi, inf := n.highFence(); !inf && bytes.Compare(key, hi) > 0 {
		return false
	}
	return true
}

// cell is a key/value pair copied out of a node.
type cell struct {
	key, val []byte
	ovf      bool // val is an overflow reference (overflow.go)
}

func (n node) cells() []cell {
	out := make([]cell, n.nslots())
	for i := range out {
		k, v := n.cellAt(n.slot(i))
		out[i] = cell{append([]byte(nil), k...), append([]byte(nil), v...), n.isOvf(i)}
	}
	return out
}

// splitScratch holds a copy of a node being split and the cells that
// point into it: a split reads every cell of a page it then rewrites in
// place, and one page copy replaces two allocations per cell.
type splitScratch struct {
	page  [page.Size]byte
	cells []cell
}

var splitScratches = sync.Pool{New: func() any { return new(splitScratch) }}

// cellsIn is cells() without copies of keys and values: the cells (and
// the fences) point into s's copy of n, valid until s is put back.
func (n node) cellsIn(s *splitScratch) ([]cell, fence, fence) {
	c := node(s.page[:len(n)])
	copy(c, n)
	out := s.cells[:0]
	for i := range c.nslots() {
		k, v := c.cellAt(c.slot(i))
		out = append(out, cell{k, v, c.isOvf(i)})
	}
	s.cells = out
	var lo, hi fence
	lo.key, lo.inf = c.lowFence()
	hi.key, hi.inf = c.highFence()
	return out, lo, hi
}

type fence struct {
	key []byte
	inf bool
}

func (n node) fences() (lo, hi fence) {
	k, inf := n.lowFence()
	lo = fence{append([]byte(nil), k...), inf}
	k, inf = n.highFence()
	hi = fence{append([]byte(nil), k...), inf}
	return
}

// build rewrites n from scratch. The caller guarantees the cells fit.
func (n node) build(id page.ID, keyspace uint32, level int, leftmost page.ID, lo, hi fence, cells []cell) {
	clear(n[page.RedoStart:])
	page.SetID(n, id)
	page.SetType(n, page.TypeBTree)
	page.SetLevel(n, uint8(level))
	page.SetKeyspace(n, keyspace)
	n.setLeftmost(leftmost)
	top := page.Size
	flags := 0
	putFence := func(f fence, inf int, at int) {
		if f.inf {
			flags |= inf
			return
		}
		top -= 4 + len(f.key)
		writeCell(n[top:], f.key, nil, false)
		binary.LittleEndian.PutUint16(n[at:], uint16(top))
	}
	putFence(lo, flagLowInf, offLowFence)
	putFence(hi, flagHighInf, offHighFnc)
	n.setFlags(flags)
	for i, c := range cells {
		top -= cellSize(c.key, c.val)
		writeCell(n[top:], c.key, c.val, c.ovf)
		n.setSlot(i, top)
	}
	n.setNSlots(len(cells))
	n.setCellTop(top)
	if n.freeSpace() < 0 {
		panic(fmt.Sprintf("btree: build of page %d overflows", id))
	}
}

func writeCell(b []byte, key, val []byte, ovf bool) {
	kl := uint16(len(key))
	if ovf {
		kl |= ovfFlag
	}
	binary.LittleEndian.PutUint16(b, kl)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(val)))
	copy(b[4:], key)
	copy(b[4+len(key):], val)
}

// capacityFor is the room for cells+slots in a node with these fences.
func capacityFor(lo, hi fence) int {
	c := page.Size - slotsStart
	if !lo.inf {
		c -= 4 + len(lo.key)
	}
	if !hi.inf {
		c -= 4 + len(hi.key)
	}
	return c
}

func cellsBytes(cells []cell) int {
	b := 0
	for _, c := range cells {
		b += cellSize(c.key, c.val) + 2
	}
	return b
}

// setHighFence gives n the high fence key, written below its cells (the
// caller checked the free space); the cells do not move (BT-6).
func (n node) setHighFence(key []byte) {
	top := n.cellTop() - (4 + len(key))
	writeCell(n[top:], key, nil, false)
	binary.LittleEndian.PutUint16(n[offHighFnc:], uint16(top))
	n.setFlags(n.flags() &^ flagHighInf)
	n.setCellTop(top)
}

// insertAt inserts a cell at slot i if it fits (compacting if needed).
func (n node) insertAt(i int, key, val []byte, ovf bool) bool {
	need := cellSize(key, val)
	if n.freeSpace() < need+2 {
		if n.freeSpace()+n.garbage() < need+2 {
			return false
		}
		n.compact()
	}
	top := n.cellTop() - need
	writeCell(n[top:], key, val, ovf)
	cnt := n.nslots()
	copy(n[slotsStart+2*(i+1):slotsStart+2*(cnt+1)], n[slotsStart+2*i:slotsStart+2*cnt])
	n.setSlot(i, top)
	n.setNSlots(cnt + 1)
	n.setCellTop(top)
	return true
}

// removeAt deletes slot i; its cell becomes garbage.
func (n node) removeAt(i int) {
	k, v := n.cellAt(n.slot(i))
	n.setGarbage(n.garbage() + cellSize(k, v))
	cnt := n.nslots()
	copy(n[slotsStart+2*i:], n[slotsStart+2*(i+1):slotsStart+2*cnt])
	n.setNSlots(cnt - 1)
	binary.LittleEndian.PutUint16(n[slotsStart+2*(cnt-1):], 0)
}

func (n node) compact() {
	lo, hi := n.fences()
	n.build(page.IDOf(n), page.KeyspaceOf(n), n.level(), n.leftmost(), lo, hi, n.cells())
}

// check verifies the node's internal invariants (used by Check and tests).
func (n node) check() error {
	if page.TypeOf(n) != page.TypeBTree {
		return fmt.Errorf("page %d: type %d is not a btree node", page.IDOf(n), page.TypeOf(n))
	}
	if n.freeSpace() < 0 {
		return fmt.Errorf("page %d: slot array overlaps cells", page.IDOf(n))
	}
	for i := 0; i < n.nslots(); i++ {
		k := n.key(i)
		if i > 0 && bytes.Compare(n.key(i-1), k) >= 0 {
			return fmt.Errorf("page %d: keys out of order at slot %d", page.IDOf(n), i)
		}
		if !n.covers(k) {
			return fmt.Errorf("page %d: key %x outside fences", page.IDOf(n), k)
		}
	}
	return nil
}
