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
//	MTR-5 A changed run of a page (not taken with Init) that equals the
//	      page's bytes before the mini-transaction shifted by an even
//	      number of bytes up to 16 (a slot array of 2-byte slots opened or
//	      closed by inserts or deletes) is logged as a move from its source
//	      offset, not as its bytes. Moves read the page as it was before
//	      the record: redo copies the page first when its entry is marked
//	      as holding moves.
//
// Redo payload (little endian): u32 page count, then per page: u64 page id,
// u16 range count (bit 15: the page's ranges include moves, MTR-5), and
// per range u16 offset, u16 length, bytes; an offset with bit 15 set is a
// zero fill of that length, without bytes (MTR-4); with bit 14 set, a move
// of that length from the u16 source offset that follows (MTR-5).
package mtr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

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
	// The apply latch's use (Stats): mini-transactions run, and the
	// nanoseconds they held it and waited for it.
	count, heldNanos, waitNanos atomic.Int64
	since                       time.Time // when the running mtr took the latch
}

// Stats is how much the apply latch (MTR-1) is used: at a rate of R
// mini-transactions per second, each holding it Held/Count on average,
// the latch is busy R*Held/Count of the time, and saturates at
// Count/Held per second.
type Stats struct {
	Count        int64
	Held, Waited time.Duration
}

// Stats returns the apply latch's counters.
func (m *Manager) Stats() Stats {
	return Stats{Count: m.count.Load(), Held: time.Duration(m.heldNanos.Load()), Waited: time.Duration(m.waitNanos.Load())}
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

// moveFrom marks a range offset as a move (MTR-5); hasMoves marks a page's
// range count.
const (
	moveFrom = 0x4000
	hasMoves = 0x8000
)

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
	start := time.Now()
	m.apply.Lock()
	m.since = time.Now()
	m.waitNanos.Add(int64(m.since.Sub(start)))
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
	t.m.count.Add(1)
	t.m.heldNanos.Add(int64(time.Since(t.m.since)))
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
			diffs[i] = append([]Range{{Off: page.RedoStart | zeroFill, Len: page.Size - page.RedoStart}}, Diff(zeroPage[:], w.f.Data())...)
		} else {
			diffs[i] = DiffMoves(*w.before, w.f.Data())
		}
		if len(diffs[i]) == 0 {
			continue
		}
		n++
		size += 10
		for _, r := range diffs[i] {
			size += 4
			switch {
			case r.Src != 0:
				size += 2
			case r.Off&zeroFill == 0:
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
		out = appendRanges(out, t.written[id].f.Data(), ranges)
	}
	return out
}

// appendRanges appends one page's range count and ranges, taking literal
// bytes from data (the page after the change).
func appendRanges(out, data []byte, ranges []Range) []byte {
	count := uint16(len(ranges))
	for _, r := range ranges {
		if r.Src != 0 {
			count |= hasMoves // MTR-5
			break
		}
	}
	out = binary.LittleEndian.AppendUint16(out, count)
	for _, r := range ranges {
		switch {
		case r.Src != 0:
			out = binary.LittleEndian.AppendUint16(out, uint16(r.Off|moveFrom))
			out = binary.LittleEndian.AppendUint16(out, uint16(r.Len))
			out = binary.LittleEndian.AppendUint16(out, uint16(r.Src))
		default:
			out = binary.LittleEndian.AppendUint16(out, uint16(r.Off))
			out = binary.LittleEndian.AppendUint16(out, uint16(r.Len))
			if r.Off&zeroFill == 0 {
				out = append(out, data[r.Off:r.Off+r.Len]...)
			}
		}
	}
	return out
}

// Range is a changed byte range of a page: its bytes, or, when Src is
// not 0, a move of the page's bytes before the change at [Src, Src+Len)
// (MTR-5; no move reads below page.RedoStart).
type Range struct{ Off, Len, Src int }

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
			out = append(out, Range{Off: lo, Len: hi - lo})
		}
		off = end
	}
	return out
}

// Moves (MTR-5): a move is tried on changed ranges of minMoveRange to
// maxMoveRange bytes (a shorter one saves little and is usually a cell
// rewritten: probing it cost 2% of a write workload's CPU; a rebuilt page
// changes as a whole and moves nothing), for shifts up to maxShift bytes,
// at positions minMove/2 apart, then further apart (up to maxStep) while
// none is found (a new cell of fresh bytes, a binary log entry: probing
// each 8 bytes of it cost 6% of write_only's CPU with the log on), and
// taken when it covers minMove bytes or more.
const (
	minMoveRange = 256
	maxMoveRange = 4096
	maxShift     = 16
	minMove      = 16
	maxStep      = 64
)

// DiffMoves is Diff with runs that equal before shifted by a few bytes
// logged as moves, and runs left unchanged inside a merged range dropped
// (MTR-5). Applying its ranges in order, each move reading before, turns
// before into after.
func DiffMoves(before, after []byte) []Range {
	ranges := Diff(before, after)
	var out []Range
	for _, r := range ranges {
		if r.Len < minMoveRange || r.Len > maxMoveRange {
			out = append(out, r)
			continue
		}
		out = splitMoves(before, after, r, out)
	}
	return out
}

// splitMoves appends r to out as literal ranges and moves (MTR-5).
func splitMoves(before, after []byte, r Range, out []Range) []Range {
	end := r.Off + r.Len
	lit := r.Off // start of the literal bytes not yet appended
	step := minMove / 2
	for p := r.Off; p < end; {
		d, n := shiftAt(before, after, p, end)
		if n == 0 {
			// A move starting in between is found at most step bytes
			// late; the step doubles up to maxStep while probes fail (a
			// fresh cell is literal throughout), so a move shorter than
			// maxStep+minMove in a long literal run may be logged as bytes.
			p += step
			step = min(2*step, maxStep)
			continue
		}
		step = minMove / 2
		if p > lit {
			out = append(out, Range{Off: lit, Len: p - lit})
		}
		if d != 0 {
			out = append(out, Range{Off: p, Len: n, Src: p - d})
		}
		p += n
		lit = p
	}
	if end > lit {
		out = append(out, Range{Off: lit, Len: end - lit})
	}
	return out
}

// shiftAt finds an even shift d (0 first: bytes unchanged) for which after from
// p equals before from p-d for at least minMove bytes before end, and
// returns it with the run's length; n is 0 when there is none.
func shiftAt(before, after []byte, p, end int) (d, n int) {
	if end-p < minMove {
		return 0, 0
	}
	// A word compared first: in a run of fresh bytes (a new cell) every
	// shift fails, mostly on its first word.
	head, probe := binary.LittleEndian.Uint64(after[p:]), after[p+8:p+minMove]
	for k := 0; k <= maxShift; k++ {
		d := (k + 1) / 2 * 2 // 0, 2, -2, 4, -4, ...: slot arrays move by 2-byte slots
		if k%2 == 0 {
			d = -d
		}
		src := p - d
		if src < page.RedoStart || src+minMove > page.Size || binary.LittleEndian.Uint64(before[src:]) != head ||
			string(before[src+8:src+minMove]) != string(probe) {
			continue
		}
		n := minMove
		for p+n < end && src+n < page.Size && after[p+n] == before[src+n] {
			n++
		}
		return d, n
	}
	return 0, 0
}

// ErrBadRecord is returned for a redo payload that does not parse.
var ErrBadRecord = errors.New("mtr: malformed redo record")

// applyRanges parses one page's ranges from p (count: the page's range
// count with its flags) and, if apply, applies them to data; it returns
// the rest of p. Moves read the page as it was before the first range
// (MTR-5).
func applyRanges(data, p []byte, count uint16, apply bool) ([]byte, error) {
	var before []byte
	if count&hasMoves != 0 && apply {
		before = make([]byte, page.Size)
		copy(before, data)
	}
	for r := 0; r < int(count&^hasMoves); r++ {
		if len(p) < 4 {
			return nil, ErrBadRecord
		}
		off, ln := int(binary.LittleEndian.Uint16(p)), int(binary.LittleEndian.Uint16(p[2:]))
		p = p[4:]
		fill, move := off&zeroFill != 0, off&moveFrom != 0 // MTR-4: no bytes follow; MTR-5: a source
		off &^= zeroFill | moveFrom
		if fill && move || off < page.RedoStart || off+ln > page.Size {
			return nil, ErrBadRecord
		}
		switch {
		case fill:
			if apply {
				clear(data[off : off+ln])
			}
		case move:
			if len(p) < 2 || count&hasMoves == 0 {
				return nil, ErrBadRecord
			}
			src := int(binary.LittleEndian.Uint16(p))
			p = p[2:]
			if src < page.RedoStart || src+ln > page.Size {
				return nil, ErrBadRecord
			}
			if apply {
				copy(data[off:off+ln], before[src:src+ln])
			}
		default:
			if len(p) < ln {
				return nil, ErrBadRecord
			}
			if apply {
				copy(data[off:off+ln], p[:ln])
			}
			p = p[ln:]
		}
	}
	return p, nil
}

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
		nr := binary.LittleEndian.Uint16(p[8:])
		p = p[10:]
		f, err := pool.Fix(id)
		if err != nil {
			return applied, fmt.Errorf("redo at lsn %d: %w", lsn, err)
		}
		f.Latch.Lock()
		data := f.Data()
		apply := page.LSNOf(data) < lsn
		p, err = applyRanges(data, p, nr, apply)
		if err != nil {
			f.Latch.Unlock()
			pool.Unfix(f)
			return applied, err
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
