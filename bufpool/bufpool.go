// Package bufpool owns the DRAM page cache: a fixed array of 16 KiB frames
// allocated at open, a sharded page table, CLOCK eviction with usage counts,
// dirty tracking and the flushing of dirty pages.
//
// Rules (cited in code as BP-n):
//
//	BP-1 A pin keeps a frame's identity: a pinned frame is never evicted or
//	     reused. Pins are taken under the page-table shard latch.
//	BP-2 The content latch (Frame.Latch) is separate from the pin: readers
//	     hold it shared, the one writer exclusive, and never across volume
//	     I/O of another page. Latches are only taken on pinned frames.
//	BP-3 WAL rule: a dirty page is written only after the log is durable up
//	     to the page's LSN (Flush waits on the LogSyncer first).
//	BP-4 A frame's recLSN is the LSN of the first change not yet on the
//	     volume; MinRecLSN is therefore a safe redo start point. A change
//	     that lands while a flush of the frame is in flight sets the next
//	     recLSN, so the flush cannot mark it clean.
//	BP-5 Only clean, unpinned frames are evicted; eviction of a clean page
//	     offers it to the EvictHook (the buffer pool extension).
//	BP-6 Prefetch is a hint: pages named are read in the background by
//	     16 workers (parallel reads keep a cloud volume's queue busy while
//	     a scan consumes the page before), each loaded as a miss would be
//	     and unpinned at once; a full queue drops requests, and pages
//	     present are skipped. Callers still Fix as usual.
//	BP-7 The scans for dirty frames (MinRecLSN, the flush candidates) read
//	     each frame's unclean flag, which mirrors the dirty bit, and take
//	     the frame's mutex only when it is set: a 1 GiB pool has 65,536
//	     frames, and locking each one on every cleaner tick cost 2.5% of a
//	     write workload's CPU.
//	BP-8 The frames' memory is faulted in at start, in the background, by
//	     madvise(MADV_POPULATE_WRITE) in 64 MiB steps (the kernel maps the
//	     pages without touching their content, so frames in use meanwhile
//	     are safe): the first use of a frame otherwise paid its page faults
//	     on the write path (a new B+tree page cleared in a commit's apply
//	     section, 160 us each on a fresh 1 GiB pool). Kernels without it
//	     (before 5.14) fault frames in on first use, as before.
//
//	BP-9 While the redo log is not under pressure (below iogov.HighLogFill)
//	     the page cleaner writes cold pages first: dirty frames by CLOCK
//	     usage, then by recLSN. A hot page written oldest-first is dirtied
//	     again at once, so in a small pool those writes were mostly wasted
//	     (8 x 150k rows, 64M pool: 2.3 page writes per write_only
//	     transaction, ~96% of them the cleaner's urgent ones; read_write
//	     2.33 against 2.62-2.70 page writes per transaction with the order
//	     below outside urgent plans). With the log under pressure the order
//	     is the checkpoint's: oldest recLSN first. (Cold first only in
//	     urgent plans was chosen when the dirty limit was 50% and read-ahead
//	     ran past scans, which left read_write fewer clean frames at 9x and
//	     18x the pool; with BT-8 and the 80% limit, read I/Os per
//	     transaction measured the same or lower.)
//
// Lock order: shard latch -> Frame.mu. Frame.Latch is never taken while a
// shard latch or Frame.mu is held.
package bufpool

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"strata/page"
	"strata/pagestore"
	"strata/volume"
)

const (
	numShards   = 64
	maxUsage    = 5
	flushBatch  = 64
	minFrames   = 64
	sweepFactor = 4 // eviction sweeps this many times the pool before flushing synchronously
)

// LogSyncer is the part of the redo log the pool needs for the WAL rule.
type LogSyncer interface {
	WaitDurable(lsn page.LSN) error
}

// PageSource reads verified pages on a miss (the page store, or the BPE in
// front of it).
type PageSource interface {
	Read(id page.ID, buf []byte) error
}

// noPage marks a frame that holds no page.
const noPage = ^page.ID(0)

// ErrNoFrame is returned when every frame is pinned.
var ErrNoFrame = errors.New("bufpool: all frames pinned")

// Frame is one page-sized slot of the pool.
type Frame struct {
	id    atomic.Uint64 // page.ID; InvalidID when free
	data  []byte
	pin   atomic.Int32
	usage atomic.Int32
	// Latch protects data (BP-2).
	Latch sync.RWMutex

	loaded  chan struct{} // closed when data is valid (or loadErr set)
	loadErr error
	orphan  atomic.Bool // left the table after a failed load; freed by the last Unfix
	// unclean mirrors mu.dirty: the eviction sweep passes over dirty
	// frames without taking a latch (tryEvict decides under them).
	unclean atomic.Bool

	mu struct {
		sync.Mutex
		dirty         bool
		recLSN        page.LSN
		flushing      bool
		pendingRecLSN page.LSN
	}
}

// ID is the page held by the frame.
func (f *Frame) ID() page.ID { return page.ID(f.id.Load()) }

// Data is the page content; read it under Latch (shared), write it under
// Latch (exclusive).
func (f *Frame) Data() []byte { return f.data }

// Options configure a pool.
type Options struct {
	Bytes int64 // pool size; at least minFrames pages
	// EvictHook, if set, receives clean pages as they are evicted (BP-5),
	// while the page is still in the page table (so no newer version of it
	// can exist yet). It must copy data before returning and must not block.
	EvictHook func(id page.ID, data []byte)
	// DirtyHook, if set, is told when a clean page becomes dirty, before the
	// change can be read by anyone (the BPE drops its copy).
	DirtyHook func(id page.ID)
	// MaxDirtyPct starts background flushing above this share of dirty frames.
	MaxDirtyPct int
	// NoBackgroundFlusher leaves flushing to the caller (the engine's page
	// cleaner, paced by package iogov); eviction still flushes when it must.
	NoBackgroundFlusher bool
}

// Stats are cumulative counters.
type Stats struct {
	Frames, Dirty                                       int64
	Hits, Misses, Evictions, PagesFlushed, FlushBatches int64
	SyncFlushes                                         int64
	// Dirtied counts clean pages turning dirty (the rate the flushing must
	// match in steady state).
	Dirtied int64
	// Prefetched counts pages read ahead of use (BP-6).
	Prefetched int64
}

type shard struct {
	mu    sync.Mutex
	table map[page.ID]*Frame
}

// Pool is the buffer pool.
type Pool struct {
	src    PageSource
	store  *pagestore.Store
	log    LogSyncer
	frames []Frame
	shards [numShards]shard
	hand   atomic.Uint64
	opts   Options

	freeMu sync.Mutex
	free   []*Frame

	flushMu sync.Mutex // one flush at a time
	// flushImages are page-image buffers reused by flushes (flushImage), under flushMu.
	flushImages [][]byte
	dirty       atomic.Int64
	flushErr    atomic.Pointer[error]

	hits, misses, evictions, flushed, batches, syncFlushes, dirtied, prefetched atomic.Int64

	ahead chan page.ID // BP-6

	stop chan struct{}
	wg   sync.WaitGroup
}

// New allocates the frames and starts the background flusher.
func New(store *pagestore.Store, src PageSource, log LogSyncer, opts Options) (*Pool, error) {
	n := int(opts.Bytes / page.Size)
	if n < minFrames {
		return nil, fmt.Errorf("buffer pool of %d bytes is below the minimum of %d pages", opts.Bytes, minFrames)
	}
	if opts.MaxDirtyPct <= 0 || opts.MaxDirtyPct > 90 {
		opts.MaxDirtyPct = 80 // the engine's default, iogov.DefaultMaxDirtyPct
	}
	if src == nil {
		src = store
	}
	p := &Pool{src: src, store: store, log: log, frames: make([]Frame, n), opts: opts, stop: make(chan struct{})}
	slab := volume.AlignedBuffer(n * page.Size)
	go prefault(slab) // BP-8
	p.free = make([]*Frame, 0, n)
	for i := range p.frames {
		f := &p.frames[i]
		f.data = slab[i*page.Size : (i+1)*page.Size : (i+1)*page.Size]
		f.id.Store(uint64(noPage))
		p.free = append(p.free, f)
	}
	for i := range p.shards {
		p.shards[i].table = make(map[page.ID]*Frame)
	}
	p.ahead = make(chan page.ID, 256)
	for range prefetchWorkers {
		p.wg.Add(1)
		go p.prefetcher()
	}
	if !opts.NoBackgroundFlusher {
		p.wg.Add(1)
		go p.backgroundFlusher()
	}
	return p, nil
}

// prefault maps slab's pages (BP-8), stopping at the first error (a
// kernel without MADV_POPULATE_WRITE).
func prefault(slab []byte) {
	const step = 64 << 20
	pageSize := uintptr(os.Getpagesize())
	start := (uintptr(unsafe.Pointer(unsafe.SliceData(slab))) + pageSize - 1) &^ (pageSize - 1)
	off := int(start - uintptr(unsafe.Pointer(unsafe.SliceData(slab))))
	for ; off < len(slab); off += step {
		end := min(off+step, len(slab))
		end -= int(uintptr(end-off) % pageSize)
		if end <= off {
			return
		}
		if err := unix.Madvise(slab[off:end], unix.MADV_POPULATE_WRITE); err != nil {
			return
		}
	}
}

func (p *Pool) shardOf(id page.ID) *shard {
	return &p.shards[(uint64(id)*0x9E3779B97F4A7C15)>>58]
}

// Frames is the number of frames.
func (p *Pool) Frames() int { return len(p.frames) }

// Fix pins page id, reading it on a miss, and returns its frame (BP-1).
func (p *Pool) Fix(id page.ID) (*Frame, error) { return p.fix(id, true) }

// FixNew pins page id without reading it: the frame is zeroed. For pages
// beyond the allocated high-water mark, whose volume content is irrelevant.
func (p *Pool) FixNew(id page.ID) (*Frame, error) { return p.fix(id, false) }

func (p *Pool) fix(id page.ID, read bool) (*Frame, error) {
	s := p.shardOf(id)
	s.mu.Lock()
	if f, ok := s.table[id]; ok {
		f.pin.Add(1)
		s.mu.Unlock()
		return p.awaitHit(f)
	}
	s.mu.Unlock()

	f, err := p.victim()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if g, ok := s.table[id]; ok { // somebody loaded it meanwhile
		g.pin.Add(1) // BP-1: under the shard latch
		s.mu.Unlock()
		p.release(f)
		return p.awaitHit(g)
	}
	f.id.Store(uint64(id))
	f.pin.Store(1)
	f.usage.Store(1)
	f.loaded = make(chan struct{})
	f.loadErr = nil
	s.table[id] = f
	s.mu.Unlock()

	if read {
		p.misses.Add(1) // a read from the source (FixNew reads nothing)
		err = p.src.Read(id, f.data)
	} else {
		clear(f.data)
	}
	if err != nil {
		s.mu.Lock()
		delete(s.table, id)
		f.id.Store(uint64(noPage))
		f.orphan.Store(true)
		s.mu.Unlock()
		f.loadErr = err
		close(f.loaded)
		p.Unfix(f)
		return nil, err
	}
	close(f.loaded)
	return f, nil
}

// awaitHit finishes a fix of a frame found in the table (already pinned):
// it bumps the usage count and waits for the frame's load.
func (p *Pool) awaitHit(f *Frame) (*Frame, error) {
	if u := f.usage.Load(); u < maxUsage {
		f.usage.Store(u + 1)
	}
	<-f.loaded
	if f.loadErr != nil {
		err := f.loadErr
		p.Unfix(f)
		return nil, err
	}
	p.hits.Add(1)
	return f, nil
}

// Unfix drops a pin taken by Fix.
func (p *Pool) Unfix(f *Frame) {
	n := f.pin.Add(-1)
	if n < 0 {
		panic(fmt.Sprintf("bufpool: unpin of unpinned frame (page %d)", f.ID()))
	}
	if n == 0 && f.orphan.Load() && f.orphan.CompareAndSwap(true, false) {
		p.release(f)
	}
}

func (p *Pool) release(f *Frame) {
	p.freeMu.Lock()
	p.free = append(p.free, f)
	p.freeMu.Unlock()
}

// victim returns a frame that is in no table and unpinned (BP-5).
func (p *Pool) victim() (*Frame, error) {
	p.freeMu.Lock()
	if n := len(p.free); n > 0 {
		f := p.free[n-1]
		p.free = p.free[:n-1]
		p.freeMu.Unlock()
		return f, nil
	}
	p.freeMu.Unlock()
	for attempt := 0; attempt < 100; attempt++ {
		limit := sweepFactor * len(p.frames)
		for i := 0; i < limit; i++ {
			f := &p.frames[p.hand.Add(1)%uint64(len(p.frames))]
			if f.pin.Load() > 0 {
				continue
			}
			if u := f.usage.Load(); u > 0 {
				f.usage.Store(u - 1)
				continue
			}
			if f.unclean.Load() {
				continue
			}
			if f.tryEvict(p) {
				p.evictions.Add(1)
				return f, nil
			}
		}
		// Everything unpinned is dirty: flush the oldest synchronously.
		p.syncFlushes.Add(1)
		if err := p.FlushOldest(flushBatch); err != nil {
			return nil, err
		}
		if attempt > 10 {
			time.Sleep(time.Millisecond)
		}
	}
	return nil, ErrNoFrame
}

func (f *Frame) tryEvict(p *Pool) bool {
	id := page.ID(f.id.Load())
	if id == noPage {
		return false
	}
	s := p.shardOf(id)
	s.mu.Lock()
	if s.table[id] != f || f.pin.Load() > 0 {
		s.mu.Unlock()
		return false
	}
	f.mu.Lock()
	dirty := f.mu.dirty || f.mu.flushing
	f.mu.Unlock()
	if dirty {
		s.mu.Unlock()
		return false
	}
	if p.opts.EvictHook != nil {
		p.opts.EvictHook(id, f.data)
	}
	delete(s.table, id)
	f.id.Store(uint64(noPage))
	s.mu.Unlock()
	return true
}

// MarkDirty records that the page in f (latched exclusively by the caller)
// now carries a change logged at lsn (BP-4).
func (p *Pool) MarkDirty(f *Frame, lsn page.LSN) {
	f.mu.Lock()
	becameDirty := !f.mu.dirty
	if becameDirty {
		f.mu.dirty = true
		f.unclean.Store(true)
		f.mu.recLSN = lsn
		p.dirty.Add(1)
		p.dirtied.Add(1)
	}
	if f.mu.flushing && f.mu.pendingRecLSN == 0 {
		f.mu.pendingRecLSN = lsn
	}
	f.mu.Unlock()
	if becameDirty && p.opts.DirtyHook != nil {
		p.opts.DirtyHook(page.ID(f.id.Load()))
	}
}

// pinIfCached pins f if it still holds a page (for flushers walking frames).
func (p *Pool) pinIfCached(f *Frame) bool {
	id := page.ID(f.id.Load())
	if id == noPage {
		return false
	}
	s := p.shardOf(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.table[id] != f {
		return false
	}
	f.pin.Add(1)
	return true
}

// MinRecLSN is the smallest recLSN of any dirty frame, or 0 if none (BP-4).
// Frames whose unclean flag is off are passed over without their mutex
// (BP-7): a frame dirtied before the caller read the log end has it on
// (MarkDirty sets it in the mini-transaction the caller waited for), and
// one dirtied since has a recLSN above that end.
func (p *Pool) MinRecLSN() page.LSN {
	var min page.LSN
	for i := range p.frames {
		f := &p.frames[i]
		if !f.unclean.Load() {
			continue
		}
		f.mu.Lock()
		if f.mu.dirty && (min == 0 || f.mu.recLSN < min) {
			min = f.mu.recLSN
		}
		f.mu.Unlock()
	}
	return min
}

type dirtyFrame struct {
	f      *Frame
	recLSN page.LSN
	usage  int32 // CLOCK usage when scanned (BP-9)
}

func (p *Pool) dirtyFrames(below page.LSN) []dirtyFrame {
	var out []dirtyFrame
	for i := range p.frames {
		f := &p.frames[i]
		if !f.unclean.Load() { // BP-7: clean, or dirtied after this scan began
			continue
		}
		f.mu.Lock()
		if f.mu.dirty && !f.mu.flushing && (below == 0 || f.mu.recLSN < below) {
			out = append(out, dirtyFrame{f, f.mu.recLSN, f.usage.Load()})
		}
		f.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].recLSN < out[j].recLSN })
	return out
}

// FlushOldest writes up to n dirty pages with the oldest recLSN.
func (p *Pool) FlushOldest(n int) error {
	// The oldest may be latched by a running mini-transaction (a large
	// one holds hundreds): pass over them to the next oldest rather than
	// give up (an eviction that found nothing to flush fails, ErrNoFrame).
	_, _, err := p.flushUpTo(p.dirtyFrames(0), n)
	return err
}

// FlushOldestPaced writes up to n dirty pages, oldest recLSN first (cold
// first: the least used first, BP-9), in batches of up to batch pages,
// from one scan of the pool. Before each batch it calls admit with the
// batch size; false stops. Frames that cannot be flushed now (latched by a
// running mini-transaction, already in flight) are passed over for the
// next. It returns the pages written.
func (p *Pool) FlushOldestPaced(n, batch int, cold bool, admit func(int) bool) (int, error) {
	d := p.dirtyFrames(0)
	if cold {
		sort.SliceStable(d, func(i, j int) bool { return d[i].usage < d[j].usage })
	}
	written := 0
	for len(d) > 0 && written < n {
		size := min(batch, n-written)
		if !admit(size) {
			break
		}
		w, used, err := p.flushUpTo(d, size)
		written += w
		d = d[used:]
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// FlushBefore writes every page dirtied before lsn (0: every dirty page).
func (p *Pool) FlushBefore(lsn page.LSN) error {
	d := p.dirtyFrames(lsn)
	for len(d) > 0 {
		n := min(len(d), 4*flushBatch)
		if _, err := p.flush(d[:n]); err != nil {
			return err
		}
		d = d[n:]
	}
	return nil
}

// FlushAll writes every dirty page.
func (p *Pool) FlushAll() error {
	for p.dirty.Load() > 0 {
		if err := p.FlushBefore(0); err != nil {
			return err
		}
		if len(p.dirtyFrames(0)) == 0 && p.dirty.Load() > 0 {
			time.Sleep(time.Millisecond) // another flush of those frames is in flight
		}
	}
	return nil
}

// flush writes a set of dirty frames: copy under shared latch, wait for the
// log (BP-3), write through the page store, then mark clean (BP-4).
func (p *Pool) flush(d []dirtyFrame) (int, error) {
	n, _, err := p.flushUpTo(d, len(d))
	return n, err
}

// flushUpTo takes candidates from d in order until limit frames are being
// written (skipping frames that cannot be flushed now) and writes them. It
// returns the pages written and how many candidates it consumed.
func (p *Pool) flushUpTo(d []dirtyFrame, limit int) (int, int, error) {
	if len(d) == 0 || limit <= 0 {
		return 0, 0, nil
	}
	if e := p.flushErr.Load(); e != nil {
		return 0, 0, *e
	}
	p.flushMu.Lock()
	defer p.flushMu.Unlock()
	var frames []*Frame
	var images [][]byte
	var maxLSN page.LSN
	consumed := len(d)
	for i, df := range d {
		if len(frames) == limit {
			consumed = i
			break
		}
		f := df.f
		if !p.pinIfCached(f) {
			continue
		}
		// A frame latched exclusively is being changed by the running
		// mini-transaction, which may be the caller itself (eviction inside
		// an mtr): skip it rather than wait.
		if !f.Latch.TryRLock() {
			p.Unfix(f)
			continue
		}
		f.mu.Lock()
		if !f.mu.dirty || f.mu.flushing {
			f.mu.Unlock()
			f.Latch.RUnlock()
			p.Unfix(f)
			continue
		}
		f.mu.flushing = true
		f.mu.pendingRecLSN = 0
		f.mu.Unlock()
		img := p.flushImage(len(images))
		copy(img, f.data)
		f.Latch.RUnlock()
		if page.IDOf(img) != f.ID() {
			panic(fmt.Sprintf("bufpool: frame for page %d holds page %d", f.ID(), page.IDOf(img)))
		}
		if l := page.LSNOf(img); l > maxLSN {
			maxLSN = l
		}
		frames = append(frames, f)
		images = append(images, img)
	}
	if len(frames) == 0 {
		return 0, consumed, nil
	}
	err := p.log.WaitDurable(maxLSN + 1) // BP-3
	if err == nil {
		err = p.store.WriteBatch(images)
	}
	for _, f := range frames {
		f.mu.Lock()
		f.mu.flushing = false
		if err == nil {
			if f.mu.pendingRecLSN == 0 {
				f.mu.dirty = false
				f.unclean.Store(false)
				f.mu.recLSN = 0
				p.dirty.Add(-1)
			} else {
				f.mu.recLSN = f.mu.pendingRecLSN
			}
		}
		f.mu.pendingRecLSN = 0
		f.mu.Unlock()
		p.Unfix(f)
	}
	if err != nil {
		err = fmt.Errorf("flush: %w", err)
		p.flushErr.Store(&err)
		return 0, consumed, err
	}
	p.flushed.Add(int64(len(frames)))
	p.batches.Add(1)
	return len(frames), consumed, nil
}

// keptFlushImages is how many page-image buffers the pool keeps between
// flushes (1 MiB); a larger flush allocates the rest.
const keptFlushImages = 64

// flushImage is the buffer of a flush's i-th page image. Under flushMu:
// the page store keeps no image after WriteBatch, so the last flush's
// buffers are free.
func (p *Pool) flushImage(i int) []byte {
	if i < len(p.flushImages) {
		return p.flushImages[i]
	}
	img := volume.AlignedBuffer(page.Size)
	if i < keptFlushImages {
		p.flushImages = append(p.flushImages, img)
	}
	return img
}

// DirtyLimit is the dirty-frame count past which background flushing
// starts (Options.MaxDirtyPct of the frames).
func (p *Pool) DirtyLimit() int64 { return int64(len(p.frames) * p.opts.MaxDirtyPct / 100) }

// FlushErr is the sticky error of a failed page write, if any.
func (p *Pool) FlushErr() error {
	if e := p.flushErr.Load(); e != nil {
		return *e
	}
	return nil
}

func (p *Pool) backgroundFlusher() {
	defer p.wg.Done()
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		limit := p.DirtyLimit()
		for p.dirty.Load() > limit && p.FlushErr() == nil {
			select {
			case <-p.stop:
				return
			default:
			}
			if p.FlushOldest(flushBatch) != nil {
				break
			}
		}
	}
}

// Stats returns a snapshot of the counters.
func (p *Pool) Stats() Stats {
	return Stats{Frames: int64(len(p.frames)), Dirty: p.dirty.Load(), Hits: p.hits.Load(), Misses: p.misses.Load(),
		Evictions: p.evictions.Load(), PagesFlushed: p.flushed.Load(), FlushBatches: p.batches.Load(),
		SyncFlushes: p.syncFlushes.Load(), Dirtied: p.dirtied.Load(), Prefetched: p.prefetched.Load()}
}

// prefetchWorkers is how many page reads Prefetch keeps in flight (16: a
// staged commit's merge of 35 runs applied 10% faster than with 4).
const prefetchWorkers = 16

// Prefetch asks for pages to be read in the background (BP-6).
func (p *Pool) Prefetch(ids ...page.ID) {
	for _, id := range ids {
		if p.resident(id) {
			continue
		}
		select {
		case p.ahead <- id:
		default:
			return
		}
	}
}

func (p *Pool) resident(id page.ID) bool {
	s := p.shardOf(id)
	s.mu.Lock()
	_, ok := s.table[id]
	s.mu.Unlock()
	return ok
}

func (p *Pool) prefetcher() {
	defer p.wg.Done()
	for {
		select {
		case <-p.stop:
			return
		case id := <-p.ahead:
			if p.resident(id) {
				continue
			}
			if f, err := p.fix(id, true); err == nil { // an error is the reader's to see
				p.prefetched.Add(1)
				p.Unfix(f)
			}
		}
	}
}

// Close stops the background flusher, if any. It does not flush.
func (p *Pool) Close() {
	close(p.stop)
	p.wg.Wait()
}
