// Package bpe owns the buffer pool extension: a second page tier on the
// local SSD that holds clean copies of pages evicted from the DRAM pool, so
// a pool miss is served by a fast local read instead of the cloud disk.
//
// Rules (cited in code as BPE-n):
//
//	BPE-1 Only clean pages enter the BPE, and only as they leave the pool
//	      (Admit is called while the evicted page is still in the pool's
//	      page table, so a newer version of the page cannot exist yet).
//	BPE-2 The BPE never holds a page older than the pool's or the data
//	      volume's: a page becoming dirty (Invalidate), and a new admission
//	      of the same page, drop its entry and cancel its queued or in-flight
//	      write before the change can be read by anyone.
//	BPE-3 A BPE read is served only if the slot holds the page id, the LSN
//	      recorded at admission and a valid checksum; anything else is a
//	      miss and the read goes to the data volume.
//	BPE-4 Writes into the BPE are asynchronous (one writer goroutine, a
//	      bounded queue of copies); a full queue rejects the admission,
//	      never blocks the evicting thread.
//	BPE-5 Any I/O error on the BPE device, a published slot reading back
//	      empty (file truncated) or the file being deleted or replaced
//	      disables the BPE (logged once); reads go to the data volume.
//	BPE-6 The index is persisted at a clean Close and removed when loaded,
//	      so it is used only after a clean shutdown, never after a crash.
//
// Memory: the index is an open-addressing hash of slot numbers (4 bytes
// per bucket, load <= 3/4) plus 9 bytes per slot (page id, LSN low bits,
// reference bit): about 14.5 bytes per 16 KiB slot, 0.35% of the pool for a
// BPE four times the pool.
package bpe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"strata/page"
	"strata/volume"
)

// Source reads pages the BPE does not hold (the page store).
type Source interface {
	Read(id page.ID, buf []byte) error
}

// Admission policies.
const (
	AdmitAll    = "all"    // every clean eviction is written
	AdmitSecond = "second" // a page is written on its second eviction (doorkeeper bitmap)
)

// Options configure a BPE.
type Options struct {
	Volume    volume.Volume          // the BPE device or file
	Truncate  func(size int64) error // shrinks the file (nil: not a file)
	IndexPath string                 // where the index is persisted at Close ("" = never)
	Bytes     int64                  // capacity; 0 = off
	Admission string                 // AdmitAll (default) or AdmitSecond
	QueueLen  int                    // queued copies (default 64)
	// Path, if set, is the BPE file: a watcher disables the BPE when the
	// file is deleted or replaced under it (BPE-5).
	Path   string
	Logger *slog.Logger
}

// Stats are cumulative counters plus the current size.
type Stats struct {
	Enabled                       bool
	Slots, Used                   int64
	IndexBytes                    int64
	Hits, Misses, Admissions      int64
	Rejections, Evictions         int64
	Invalidations, Failures       int64
	Retained                      int64                         // evicted pages whose identical copy was already held
	ReadLatency                   [len(latencyBounds) + 1]int64 // histogram buckets
	ReadLatencySumNanos, ReadsBPE int64
}

// latencyBounds are the upper bounds of the read latency histogram buckets.
var latencyBounds = [...]time.Duration{50 * time.Microsecond, 100 * time.Microsecond, 250 * time.Microsecond,
	500 * time.Microsecond, time.Millisecond, 2500 * time.Microsecond, 10 * time.Millisecond}

// LatencyBounds returns the histogram's bucket upper bounds.
func LatencyBounds() []time.Duration { return latencyBounds[:] }

type admission struct {
	id        uint32
	buf       []byte
	cancelled bool
	inFlight  bool // taken by the writer: its copy can no longer change
}

// Cache is a buffer pool extension.
type Cache struct {
	src  Source
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	vol      volume.Volume
	slots    int
	pageOf   []uint32 // page id + 1 held by each slot (0: empty)
	lsnOf    []uint32 // low 32 bits of the LSN admitted
	ref      []uint8  // CLOCK reference bits
	table    []int32  // open addressing: slot + 1 (0: empty bucket)
	used     int
	hand     int
	disabled bool
	door     []uint64 // AdmitSecond doorkeeper bitmap
	doorSet  int
	queue    []*admission
	pending  map[uint32]*admission // queued or in flight, by page id
	savedIdx []byte                // the index read at Open, until Warm
	free     [][]byte
	wake     chan struct{}
	closed   bool
	done     chan struct{}

	hits, misses, admissions, rejections, evictions, invalidations, failures atomic.Int64
	retained                                                                 atomic.Int64
	lat                                                                      [len(latencyBounds) + 1]atomic.Int64
	latSum, bpeReads                                                         atomic.Int64
}

// Open starts a BPE of opts.Bytes over opts.Volume in front of src. With a
// persisted index from a clean shutdown the BPE starts warm (BPE-6).
func Open(src Source, opts Options) (*Cache, error) {
	if opts.Admission == "" {
		opts.Admission = AdmitAll
	}
	if opts.Admission != AdmitAll && opts.Admission != AdmitSecond {
		return nil, fmt.Errorf("bpe: unknown admission policy %q (all or second)", opts.Admission)
	}
	if opts.QueueLen <= 0 {
		opts.QueueLen = 64
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Cache{src: src, opts: opts, log: opts.Logger, vol: opts.Volume, pending: map[uint32]*admission{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	for i := 0; i < opts.QueueLen; i++ {
		c.free = append(c.free, volume.AlignedBuffer(page.Size))
	}
	if opts.Bytes/page.Size > MaxSlots {
		return nil, fmt.Errorf("bpe: %d bytes is above the maximum of %d pages", opts.Bytes, MaxSlots)
	}
	c.resizeLocked(int(opts.Bytes / page.Size))
	c.readIndex() // always: a saved index is good for the next start only
	go c.writer()
	if opts.Path != "" {
		if fi, err := os.Stat(opts.Path); err == nil {
			go c.watch(fi)
		}
	}
	return c, nil
}

// watch disables the BPE if its file stops being the one opened (deleted,
// or replaced by another file): reads would still work on the unlinked
// file, but its space and the operator's intent say it is gone (BPE-5).
func (c *Cache) watch(opened os.FileInfo) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		fi, err := os.Stat(c.opts.Path)
		if err != nil || !os.SameFile(fi, opened) {
			c.fail(fmt.Errorf("bpe file %s deleted or replaced", c.opts.Path))
			return
		}
	}
}

// ---- index (open addressing, linear probing, backward-shift delete) ----

func hashID(id uint32) uint32 { return id * 0x9E3779B1 }

func (c *Cache) lookup(id uint32) int {
	if len(c.table) == 0 {
		return -1
	}
	mask := uint32(len(c.table) - 1)
	for i := hashID(id) & mask; ; i = (i + 1) & mask {
		s := c.table[i]
		if s == 0 {
			return -1
		}
		if c.pageOf[s-1] == id+1 {
			return int(s - 1)
		}
	}
}

func (c *Cache) insert(id uint32, slot int) {
	mask := uint32(len(c.table) - 1)
	i := hashID(id) & mask
	for c.table[i] != 0 {
		i = (i + 1) & mask
	}
	c.table[i] = int32(slot + 1)
	c.pageOf[slot] = id + 1
	c.used++
}

// remove drops id's entry; its slot becomes empty.
func (c *Cache) remove(id uint32) bool {
	if len(c.table) == 0 {
		return false
	}
	mask := uint32(len(c.table) - 1)
	i := hashID(id) & mask
	for {
		s := c.table[i]
		if s == 0 {
			return false
		}
		if c.pageOf[s-1] == id+1 {
			break
		}
		i = (i + 1) & mask
	}
	slot := int(c.table[i] - 1)
	c.pageOf[slot], c.ref[slot] = 0, 0
	c.used--
	// Backward-shift: move later entries of the probe run into the hole.
	j := i
	for {
		j = (j + 1) & mask
		s := c.table[j]
		if s == 0 {
			break
		}
		home := hashID(c.pageOf[s-1]-1) & mask
		// Move s into hole i if its home is not in (i, j].
		if (j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j)) {
			c.table[i] = s
			i = j
		}
	}
	c.table[i] = 0
	return true
}

// MaxSlots bounds the BPE's size: slot numbers live in int32 hash buckets.
const MaxSlots = 1<<31 - 1

// resizeLocked sets the slot count, keeping entries in slots that remain.
// The new arrays are allocated before any state changes.
func (c *Cache) resizeLocked(slots int) {
	if slots < 0 {
		slots = 0
	}
	if slots > MaxSlots {
		panic(fmt.Sprintf("bpe: %d slots above MaxSlots", slots)) // callers check
	}
	buckets := 0
	if slots > 0 {
		buckets = 1
		for buckets*3 < slots*4 {
			buckets <<= 1
		}
	}
	pageOf, lsnOf, ref, table := make([]uint32, slots), make([]uint32, slots), make([]uint8, slots), make([]int32, buckets)
	oldPage, oldLSN := c.pageOf, c.lsnOf
	c.slots = slots
	c.pageOf, c.lsnOf, c.ref, c.table = pageOf, lsnOf, ref, table
	c.used, c.hand = 0, 0
	for s := 0; s < len(oldPage) && s < slots; s++ {
		if oldPage[s] != 0 {
			c.insert(oldPage[s]-1, s)
			c.lsnOf[s] = oldLSN[s]
		}
	}
	c.door = make([]uint64, (slots+63)/64)
	c.doorSet = 0
}

// ---- read path ----

// Read implements the pool's page source: the BPE, then src (BPE-3).
func (c *Cache) Read(id page.ID, buf []byte) error {
	if uint64(id) >= 1<<32-1 {
		return c.src.Read(id, buf)
	}
	pid := uint32(id)
	c.mu.Lock()
	if c.disabled || c.slots == 0 {
		c.mu.Unlock()
		return c.src.Read(id, buf)
	}
	slot := c.lookup(pid)
	if slot < 0 {
		c.mu.Unlock()
		c.misses.Add(1)
		return c.src.Read(id, buf)
	}
	c.ref[slot] = 1
	lsn := c.lsnOf[slot]
	vol := c.vol
	c.mu.Unlock()

	start := time.Now()
	err := vol.ReadAt(buf, int64(slot)*page.Size)
	c.observe(time.Since(start))
	if err != nil {
		c.fail(fmt.Errorf("read slot %d: %w", slot, err))
		return c.src.Read(id, buf)
	}
	if page.IsZero(buf) || page.Verify(buf, id) != nil || uint32(page.LSNOf(buf)) != lsn {
		// Overwritten since the lookup, or damaged: drop it if still ours.
		c.mu.Lock()
		still := c.lookup(pid) == slot && c.lsnOf[slot] == lsn
		if still {
			c.remove(pid)
			c.invalidations.Add(1)
		}
		c.mu.Unlock()
		if still && page.IsZero(buf) {
			// A published slot reads back as zeros: the file was truncated
			// or replaced under us.
			c.fail(fmt.Errorf("slot %d of page %d reads back empty (file truncated or replaced?)", slot, id))
		}
		c.misses.Add(1)
		return c.src.Read(id, buf)
	}
	c.hits.Add(1)
	return nil
}

func (c *Cache) observe(d time.Duration) {
	i := 0
	for i < len(latencyBounds) && d > latencyBounds[i] {
		i++
	}
	c.lat[i].Add(1)
	c.latSum.Add(int64(d))
	c.bpeReads.Add(1)
}

// ---- admission and invalidation ----

// Admit offers a clean page leaving the pool (BPE-1). It copies data and
// returns at once (BPE-4).
func (c *Cache) Admit(id page.ID, data []byte) {
	if uint64(id) >= 1<<32-1 || page.IsZero(data) {
		return
	}
	pid := uint32(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.disabled || c.slots == 0 || c.closed {
		return
	}
	// The same version is already here (a page read from the BPE and
	// evicted unchanged: same id, same LSN, so same bytes): keep it.
	if slot := c.lookup(pid); slot >= 0 && c.lsnOf[slot] == uint32(page.LSNOf(data)) && c.pending[pid] == nil {
		c.ref[slot] = 1
		c.retained.Add(1)
		return
	}
	// The page about to be written replaces any older copy (BPE-2).
	if c.remove(pid) {
		c.invalidations.Add(1)
	}
	if a := c.pending[pid]; a != nil {
		if !a.inFlight {
			copy(a.buf, data) // still queued: write the newer copy instead
			return
		}
		a.cancelled = true
		delete(c.pending, pid)
	}
	if c.opts.Admission == AdmitSecond && !c.doorkeeper(pid) {
		c.rejections.Add(1)
		return
	}
	if len(c.free) == 0 {
		c.rejections.Add(1)
		return
	}
	buf := c.free[len(c.free)-1]
	c.free = c.free[:len(c.free)-1]
	copy(buf, data)
	a := &admission{id: pid, buf: buf}
	c.queue = append(c.queue, a)
	c.pending[pid] = a
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// doorkeeper reports whether pid was seen before, remembering it; the
// bitmap is cleared when half full (a frequency filter in the spirit of
// TinyLFU's doorkeeper).
func (c *Cache) doorkeeper(pid uint32) bool {
	if len(c.door) == 0 {
		return true
	}
	bit := hashID(pid) % uint32(len(c.door)*64)
	w, m := bit/64, uint64(1)<<(bit%64)
	if c.door[w]&m != 0 {
		return true
	}
	c.door[w] |= m
	if c.doorSet++; c.doorSet > len(c.door)*32 {
		clear(c.door)
		c.doorSet = 0
	}
	return false
}

// Invalidate drops the BPE copy of a page about to change in the pool
// (BPE-2); the pool calls it when a clean frame becomes dirty.
func (c *Cache) Invalidate(id page.ID) {
	if uint64(id) >= 1<<32-1 {
		return
	}
	pid := uint32(id)
	c.mu.Lock()
	if c.remove(pid) {
		c.invalidations.Add(1)
	}
	if a := c.pending[pid]; a != nil {
		a.cancelled = true
		delete(c.pending, pid)
	}
	c.mu.Unlock()
}

// writer writes queued copies into victim slots (CLOCK) and publishes them.
func (c *Cache) writer() {
	defer close(c.done)
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && !c.closed {
			c.mu.Unlock()
			<-c.wake
			c.mu.Lock()
		}
		if c.closed {
			c.mu.Unlock()
			return
		}
		a := c.queue[0]
		c.queue = c.queue[1:]
		if a.cancelled || c.disabled || c.slots == 0 {
			c.free = append(c.free, a.buf)
			c.mu.Unlock()
			continue
		}
		a.inFlight = true
		slot := c.victimLocked()
		vol := c.vol
		c.mu.Unlock()

		page.Seal(a.buf)
		err := vol.WriteAt(a.buf, int64(slot)*page.Size)

		c.mu.Lock()
		c.free = append(c.free, a.buf)
		if c.pending[a.id] == a {
			delete(c.pending, a.id)
		}
		switch {
		case err != nil:
			c.mu.Unlock()
			c.fail(fmt.Errorf("write slot %d: %w", slot, err))
			continue
		case a.cancelled || c.disabled || slot >= c.slots || c.pageOf[slot] != 0:
			// Invalidated while in flight, or the BPE changed size.
		default:
			if c.remove(a.id) {
				c.invalidations.Add(1)
			}
			c.insert(a.id, slot)
			c.lsnOf[slot] = uint32(page.LSNOf(a.buf))
			c.ref[slot] = 0
			c.admissions.Add(1)
		}
		c.mu.Unlock()
	}
}

// victimLocked picks a slot to write into, emptying it (CLOCK second
// chance over the reference bits).
func (c *Cache) victimLocked() int {
	for {
		s := c.hand
		c.hand = (c.hand + 1) % c.slots
		if c.pageOf[s] == 0 {
			return s
		}
		if c.ref[s] != 0 {
			c.ref[s] = 0
			continue
		}
		c.remove(c.pageOf[s] - 1)
		c.evictions.Add(1)
		return s
	}
}

// fail disables the BPE after an I/O error (BPE-5).
func (c *Cache) fail(err error) {
	c.mu.Lock()
	first := !c.disabled
	c.disabled = true
	c.failures.Add(1)
	for _, a := range c.pending {
		a.cancelled = true
	}
	c.pending = map[uint32]*admission{}
	c.resizeLocked(0)
	c.mu.Unlock()
	if first {
		c.log.Error("buffer pool extension disabled after an I/O error; serving from the data volume", "err", err)
	}
}

// ---- control ----

// Resize changes the capacity online: 0 turns the BPE off, a smaller size
// drops the pages beyond it, a larger one adds empty slots. A BPE disabled
// by an error stays off.
func (c *Cache) Resize(bytes int64) error {
	if bytes < 0 || bytes/page.Size > MaxSlots {
		return fmt.Errorf("bpe: size %d outside 0..%d bytes", bytes, int64(MaxSlots)*page.Size)
	}
	if c.opts.Path != "" && bytes > 0 {
		// The file must fit on its filesystem (it grows as slots are
		// written; a full disk would disable the BPE later).
		var fs unix.Statfs_t
		if err := unix.Statfs(filepath.Dir(c.opts.Path), &fs); err == nil {
			st, _ := os.Stat(c.opts.Path)
			have := int64(fs.Bavail) * int64(fs.Bsize)
			if st != nil {
				have += st.Size()
			}
			if bytes > have {
				return fmt.Errorf("bpe: size %d is more than the %d bytes available for %s", bytes, have, c.opts.Path)
			}
		}
	}
	slots := int(bytes / page.Size)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.disabled {
		return errors.New("bpe: disabled after an I/O error")
	}
	for id, a := range c.pending {
		if slots == 0 {
			a.cancelled = true
			delete(c.pending, id)
		}
	}
	c.resizeLocked(slots)
	c.opts.Bytes = int64(slots) * page.Size
	if c.opts.Truncate != nil {
		if err := c.opts.Truncate(c.opts.Bytes); err != nil {
			return err
		}
	}
	return nil
}

// Stats returns the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	st := Stats{Enabled: !c.disabled && c.slots > 0, Slots: int64(c.slots), Used: int64(c.used), IndexBytes: c.indexBytesLocked()}
	c.mu.Unlock()
	st.Hits, st.Misses, st.Admissions = c.hits.Load(), c.misses.Load(), c.admissions.Load()
	st.Rejections, st.Evictions = c.rejections.Load(), c.evictions.Load()
	st.Invalidations, st.Failures, st.Retained = c.invalidations.Load(), c.failures.Load(), c.retained.Load()
	for i := range c.lat {
		st.ReadLatency[i] = c.lat[i].Load()
	}
	st.ReadLatencySumNanos, st.ReadsBPE = c.latSum.Load(), c.bpeReads.Load()
	return st
}

func (c *Cache) indexBytesLocked() int64 {
	return int64(len(c.table))*4 + int64(c.slots)*9 + int64(len(c.door))*8
}

// Close stops the writer and, unless disabled, persists the index for a
// warm restart (BPE-6), stamped with epoch: the caller's identity of the
// data's state (the engine passes its log end after the final checkpoint).
// Queued admissions are dropped.
func (c *Cache) Close(epoch uint64) error { return c.close(true, epoch) }

// Abandon stops the writer without persisting the index, as a crash would.
func (c *Cache) Abandon() { c.close(false, 0) }

func (c *Cache) close(persist bool, epoch uint64) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	<-c.done
	var err error
	c.mu.Lock()
	if persist && !c.disabled && c.slots > 0 && c.opts.IndexPath != "" {
		if err = c.vol.Sync(); err == nil {
			err = c.saveIndexLocked(epoch)
		}
	}
	c.mu.Unlock()
	if cerr := c.vol.Close(); err == nil {
		err = cerr
	}
	return err
}

// ---- persisted index (BPE-6) ----

const indexMagic = "STRBPE02"

func (c *Cache) saveIndexLocked(epoch uint64) error {
	b := []byte(indexMagic)
	b = binary.LittleEndian.AppendUint64(b, epoch)
	b = binary.LittleEndian.AppendUint32(b, uint32(c.slots))
	b = binary.LittleEndian.AppendUint32(b, uint32(c.used))
	for s := 0; s < c.slots; s++ {
		if c.pageOf[s] != 0 {
			b = binary.LittleEndian.AppendUint32(b, uint32(s))
			b = binary.LittleEndian.AppendUint32(b, c.pageOf[s]-1)
			b = binary.LittleEndian.AppendUint32(b, c.lsnOf[s])
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	tmp := c.opts.IndexPath + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	f.Close()
	return os.Rename(tmp, c.opts.IndexPath)
}

// readIndex reads and deletes the persisted index, whatever the size: it
// describes the data as it was at the Close that wrote it, and is good for
// the next start only (a crash after this start must not reuse it).
func (c *Cache) readIndex() {
	if c.opts.IndexPath == "" {
		return
	}
	b, err := os.ReadFile(c.opts.IndexPath)
	os.Remove(c.opts.IndexPath)
	if err == nil && c.slots > 0 {
		c.savedIdx = b
	}
}

// Warm loads the index read at Open if it was saved with this epoch, i.e.
// the data has not changed since (BPE-6); otherwise, or if it is damaged,
// sized differently, or pages were admitted since Open, the BPE stays cold.
func (c *Cache) Warm(epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.savedIdx
	c.savedIdx = nil
	if len(b) == 0 {
		return
	}
	if len(b) < len(indexMagic)+20 || string(b[:len(indexMagic)]) != indexMagic {
		return
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		c.log.Warn("bpe index damaged; starting cold")
		return
	}
	p := body[len(indexMagic):]
	if saved := binary.LittleEndian.Uint64(p); saved != epoch {
		c.log.Info("bpe index is from another state of the data; starting cold", "saved_epoch", saved, "epoch", epoch)
		return
	}
	p = p[8:]
	slots, n := int(binary.LittleEndian.Uint32(p)), int(binary.LittleEndian.Uint32(p[4:]))
	p = p[8:]
	if slots != c.slots || len(p) != n*12 || c.used > 0 || len(c.pending) > 0 {
		return
	}
	for i := 0; i < n; i++ {
		s, id, lsn := binary.LittleEndian.Uint32(p), binary.LittleEndian.Uint32(p[4:]), binary.LittleEndian.Uint32(p[8:])
		p = p[12:]
		if int(s) < c.slots && c.pageOf[s] == 0 && c.lookup(id) < 0 {
			c.insert(id, int(s))
			c.lsnOf[s] = lsn
		}
	}
	c.log.Info("bpe warm start", "pages", c.used)
}
