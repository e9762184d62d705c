// Package mtr owns mini-transactions: the unit in which pages change and
// the redo log learns of it. An Mtr collects exclusive latches on the pages
// it writes, keeps a before-image of each, and at Commit logs one redo
// record holding the byte ranges that changed on every page (physical redo),
// stamps each page with the record's LSN and marks it dirty.
//
// Rules (cited as MTR-n):
//
//	MTR-1 One mtr runs at a time (Manager holds the apply latch from Begin
//	      to Commit/Abort). Log order is therefore page-change order, and the
//	      mtr may read pages without latching them: nobody else modifies.
//	MTR-2 A written page stays latched exclusively until Commit has logged
//	      its change and stamped its LSN, so no reader and no flusher sees
//	      an unlogged change; Abort restores the before-images instead.
//	MTR-3 A redo record is applied to a page only if the page LSN is below
//	      the record's LSN (idempotent redo); bytes [0, page.RedoStart) are
//	      never in a diff.
//	MTR-4 A page taken with Init is logged as zeros first, then its bytes
//	      that differ from zero: redo yields it exactly whatever the volume
//	      held, without the page being read or its old bytes logged.
//
// Redo payload (little endian): u32 page count, then per page: u64 page id,
// u16 range count, and per range u16 offset, u16 length, bytes; an offset
// with bit 15 set is a zero fill of that length, without bytes (MTR-4).
package mtr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"strata/bufpool"
	"strata/page"
	"strata/wal"
)

// Manager serializes mini-transactions (MTR-1).
type Manager struct {
	pool  *bufpool.Pool
	log   *wal.Log
	apply sync.Mutex
	bufs  sync.Pool
}

// NewManager returns a manager logging to log and changing pages of pool.
func NewManager(pool *bufpool.Pool, log *wal.Log) *Manager {
	m := &Manager{pool: pool, log: log}
	m.bufs.New = func() any { b := make([]byte, page.Size); return &b }
	return m
}

// Pool is the buffer pool the manager works on.
func (m *Manager) Pool() *bufpool.Pool { return m.pool }

// Exclusive runs fn while no mtr is active (used by checkpoints to read a
// log end that every dirty page is accounted for).
func (m *Manager) Exclusive(fn func()) {
	m.apply.Lock()
	defer m.apply.Unlock()
	fn()
}

type written struct {
	f      *bufpool.Frame
	before *[]byte
	init   bool // logged as a zero fill, then diffed against zeros (MTR-4)
}

// zeroFill marks a range offset as a zero fill (MTR-4).
const zeroFill = 0x8000

var zeroPage [page.Size]byte

// Mtr is an active mini-transaction.
type Mtr struct {
	m       *Manager
	pinned  map[page.ID]*bufpool.Frame
	written map[page.ID]*written
	order   []page.ID
	done    bool
	onEnd   func(committed bool)
}

// OnEnd registers fn to run when the mtr ends (committed or not), while it
// still holds the apply latch (MTR-1): what must follow the commit order,
// such as publishing a version timestamp, runs in it.
func (t *Mtr) OnEnd(fn func(committed bool)) { t.onEnd = fn }

// Begin starts a mini-transaction, waiting for the previous one to end.
func (m *Manager) Begin() *Mtr {
	m.apply.Lock()
	return &Mtr{m: m, pinned: map[page.ID]*bufpool.Frame{}, written: map[page.ID]*written{}}
}

// Read returns page id for reading; the pin lasts until the mtr ends.
func (t *Mtr) Read(id page.ID) ([]byte, error) {
	f, err := t.fix(id, true)
	if err != nil {
		return nil, err
	}
	return f.Data(), nil
}

func (t *Mtr) fix(id page.ID, read bool) (*bufpool.Frame, error) {
	if t.done {
		panic("mtr: use after end")
	}
	if f, ok := t.pinned[id]; ok {
		return f, nil
	}
	var f *bufpool.Frame
	var err error
	if read {
		f, err = t.m.pool.Fix(id)
	} else {
		f, err = t.m.pool.FixNew(id)
	}
	if err != nil {
		return nil, err
	}
	t.pinned[id] = f
	return f, nil
}

// Write returns page id latched exclusively for modification (MTR-2).
func (t *Mtr) Write(id page.ID) ([]byte, error) { return t.write(id, true) }

// Init returns page id latched for modification, zeroed from
// page.RedoStart on, without reading it from the volume; its redo starts
// with a zero fill (MTR-4), so any page (one reused from the free list)
// may be taken so, and only its new bytes are logged.
func (t *Mtr) Init(id page.ID) ([]byte, error) {
	pg, err := t.write(id, false)
	if err == nil {
		t.written[id].init = true
		clear(pg[page.RedoStart:])
	}
	return pg, err
}

func (t *Mtr) write(id page.ID, read bool) ([]byte, error) {
	if w, ok := t.written[id]; ok {
		return w.f.Data(), nil
	}
	_, cached := t.pinned[id]
	f, err := t.fix(id, read || cached)
	if err != nil {
		return nil, err
	}
	f.Latch.Lock()
	before := t.m.bufs.Get().(*[]byte)
	copy(*before, f.Data())
	t.written[id] = &written{f: f, before: before}
	t.order = append(t.order, id)
	return f.Data(), nil
}

// Pages is the number of pages written so far.
func (t *Mtr) Pages() int { return len(t.order) }

// Pinned is the number of pages the mtr holds pinned (read or written).
func (t *Mtr) Pinned() int { return len(t.pinned) }

// Commit logs the changes and releases everything. It returns the LSN of the
// redo record and the LSN past it (the durability point), both 0 if nothing
// changed.
func (t *Mtr) Commit() (lsn, end page.LSN, err error) {
	payload := t.encode()
	if payload != nil {
		lsn, end, err = t.m.log.Append(wal.TypeRedo, payload)
		if err != nil {
			t.Abort()
			return 0, 0, err
		}
		for _, id := range t.order {
			w := t.written[id]
			page.SetLSN(w.f.Data(), lsn)
			t.m.pool.MarkDirty(w.f, lsn)
		}
	}
	t.end(true)
	return lsn, end, nil
}

// Abort puts back the before-image of every written page and releases.
func (t *Mtr) Abort() {
	if t.done {
		return
	}
	for _, id := range t.order {
		w := t.written[id]
		copy(w.f.Data(), *w.before)
	}
	t.end(false)
}

// end runs the OnEnd hook, after the pages hold their final content and
// before the latches go, then releases.
func (t *Mtr) end(committed bool) {
	if fn := t.onEnd; fn != nil {
		t.onEnd = nil
		fn(committed)
	}
	t.release()
}

func (t *Mtr) release() {
	for _, id := range t.order {
		w := t.written[id]
		w.f.Latch.Unlock()
		t.m.bufs.Put(w.before)
	}
	for _, f := range t.pinned {
		t.m.pool.Unfix(f)
	}
	t.done = true
	t.pinned, t.written, t.order = nil, nil, nil
	t.m.apply.Unlock()
}

func (t *Mtr) encode() []byte {
	// Diff every page first, so that the record is allocated once (a
	// batch of a long operation logs megabytes).
	diffs := make([][]Range, len(t.order))
	size, n := 4, 0
	for i, id := range t.order {
		w := t.written[id]
		if w.init { // MTR-4
			diffs[i] = append([]Range{{page.RedoStart | zeroFill, page.Size - page.RedoStart}}, Diff(zeroPage[:], w.f.Data())...)
		} else {
			diffs[i] = Diff(*w.before, w.f.Data())
		}
		if len(diffs[i]) == 0 {
			continue
		}
		n++
		size += 10
		for _, r := range diffs[i] {
			size += 4
			if r.Off&zeroFill == 0 {
				size += r.Len
			}
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]byte, 4, size)
	binary.LittleEndian.PutUint32(out, uint32(n))
	for i, id := range t.order {
		ranges := diffs[i]
		if len(ranges) == 0 {
			continue
		}
		out = binary.LittleEndian.AppendUint64(out, uint64(id))
		out = binary.LittleEndian.AppendUint16(out, uint16(len(ranges)))
		data := t.written[id].f.Data()
		for _, r := range ranges {
			out = binary.LittleEndian.AppendUint16(out, uint16(r.Off))
			out = binary.LittleEndian.AppendUint16(out, uint16(r.Len))
			if r.Off&zeroFill == 0 {
				out = append(out, data[r.Off:r.Off+r.Len]...)
			}
		}
	}
	return out
}

// Range is a changed byte range of a page.
type Range struct{ Off, Len int }

const (
	diffWord  = 32 // compare granularity
	diffGap   = 16 // ranges closer than this merge
	diffBlock = 16 * diffWord
)

// Diff returns the ranges of after that differ from before, ignoring bytes
// [0, page.RedoStart) (MTR-3).
func Diff(before, after []byte) []Range {
	var out []Range
	for off := page.RedoStart; off < page.Size; {
		// Most of a page is unchanged: whole blocks of words compare equal
		// in one vectorized call (a word at a time was a tenth of a bulk
		// load's CPU). Blocks keep the word grid, so the ranges are the same.
		if blk := min(off+diffBlock, page.Size); string(before[off:blk]) == string(after[off:blk]) {
			off = blk
			continue
		}
		end := min(off+diffWord, page.Size)
		if string(before[off:end]) == string(after[off:end]) {
			off = end
			continue
		}
		// narrow to the exact differing bytes
		lo := off
		for before[lo] == after[lo] {
			lo++
		}
		hi := end
		for before[hi-1] == after[hi-1] {
			hi--
		}
		if k := len(out); k > 0 && lo-(out[k-1].Off+out[k-1].Len) < diffGap {
			out[k-1].Len = hi - out[k-1].Off
		} else {
			out = append(out, Range{lo, hi - lo})
		}
		off = end
	}
	return out
}

// ErrBadRecord is returned for a redo payload that does not parse.
var ErrBadRecord = errors.New("mtr: malformed redo record")

// Redo applies one redo record (MTR-3) to the pool. It runs during recovery
// only, single-threaded.
func Redo(pool *bufpool.Pool, lsn page.LSN, payload []byte) (applied int, err error) {
	if len(payload) < 4 {
		return 0, ErrBadRecord
	}
	n := int(binary.LittleEndian.Uint32(payload))
	p := payload[4:]
	for i := 0; i < n; i++ {
		if len(p) < 10 {
			return applied, ErrBadRecord
		}
		id := page.ID(binary.LittleEndian.Uint64(p))
		nr := int(binary.LittleEndian.Uint16(p[8:]))
		p = p[10:]
		f, err := pool.Fix(id)
		if err != nil {
			return applied, fmt.Errorf("redo at lsn %d: %w", lsn, err)
		}
		f.Latch.Lock()
		data := f.Data()
		apply := page.LSNOf(data) < lsn
		for r := 0; r < nr; r++ {
			if len(p) < 4 {
				f.Latch.Unlock()
				pool.Unfix(f)
				return applied, ErrBadRecord
			}
			off, ln := int(binary.LittleEndian.Uint16(p)), int(binary.LittleEndian.Uint16(p[2:]))
			p = p[4:]
			fill := off&zeroFill != 0 // MTR-4: no bytes follow
			off &^= zeroFill
			if off < page.RedoStart || off+ln > page.Size || !fill && len(p) < ln {
				f.Latch.Unlock()
				pool.Unfix(f)
				return applied, ErrBadRecord
			}
			if fill {
				if apply {
					clear(data[off : off+ln])
				}
				continue
			}
			if apply {
				copy(data[off:off+ln], p[:ln])
			}
			p = p[ln:]
		}
		if apply {
			page.SetLSN(data, lsn)
			pool.MarkDirty(f, lsn)
			applied++
		}
		f.Latch.Unlock()
		pool.Unfix(f)
	}
	return applied, nil
}
