package bpe

import (
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"sync"
	"testing"
	"time"

	"strata/page"
	"strata/volume"
)

// fakeSource is the data volume: the latest flushed version of each page.
type fakeSource struct {
	mu    sync.Mutex
	pages map[page.ID][]byte
	reads int
}

func (s *fakeSource) Read(id page.ID, buf []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	p, ok := s.pages[id]
	if !ok {
		return fmt.Errorf("no page %d", id)
	}
	copy(buf, p)
	return nil
}

func (s *fakeSource) put(id page.ID, version int) {
	p := volume.AlignedBuffer(page.Size)
	page.SetID(p, id)
	page.SetLSN(p, page.LSN(version))
	for i := 64; i < page.Size; i += 512 {
		p[i] = byte(version)
	}
	page.Seal(p)
	s.mu.Lock()
	s.pages[id] = p
	s.mu.Unlock()
}

func version(p []byte) int { return int(page.LSNOf(p)) }

func newCache(t *testing.T, src Source, vol volume.Volume, slots int, policy string) *Cache {
	t.Helper()
	c, err := Open(src, Options{Volume: vol, Bytes: int64(slots) * page.Size, Admission: policy, QueueLen: 8})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestNoStaleReads drives the pool's protocol from several goroutines,
// each owning a set of pages: a page out of the pool is read (pool ->
// BPE -> source), sometimes modified (Invalidate before the change, the
// new version flushed to the source), then evicted (Admit). Every read
// must return the latest version (BPE-2, BPE-3), with a slow BPE device so
// admissions are often queued or in flight when pages change.
func TestNoStaleReads(t *testing.T) {
	for _, v := range []struct {
		policy string
		lat    time.Duration
	}{{AdmitAll, 0}, {AdmitAll, 50 * time.Microsecond}, {AdmitSecond, 0}} {
		policy := v.policy
		src := &fakeSource{pages: map[page.ID][]byte{}}
		const pages = 400
		current := make([]int, pages)
		for id := 0; id < pages; id++ {
			src.put(page.ID(id), 1)
			current[id] = 1
		}
		dev := volume.NewFaulty(volume.NewMem("bpe", volume.MemOptions{}))
		dev.SetLatency(v.lat)
		c := newCache(t, src, dev, 64, policy)
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				rng := rand.New(rand.NewSource(int64(w)))
				buf := volume.AlignedBuffer(page.Size)
				for i := 0; i < 3000; i++ {
					id := page.ID(w + 4*rng.Intn(pages/4)) // goroutine w owns ids = w mod 4
					if err := c.Read(id, buf); err != nil {
						errs <- err
						return
					}
					if got := version(buf); got != current[id] {
						errs <- fmt.Errorf("%s: page %d: read version %d, latest %d", policy, id, got, current[id])
						return
					}
					if rng.Intn(3) == 0 { // modify in the pool, flush
						c.Invalidate(id)
						current[id]++
						page.SetLSN(buf, page.LSN(current[id]))
						src.put(id, current[id])
						src.Read(id, buf)
					}
					c.Admit(id, buf) // evict
					runtime.Gosched()
				}
			}(w)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		st := c.Stats()
		t.Logf("%s: hits %d misses %d admissions %d rejections %d evictions %d invalidations %d", policy,
			st.Hits, st.Misses, st.Admissions, st.Rejections, st.Evictions, st.Invalidations)
		if v.lat == 0 && (st.Hits == 0 || st.Admissions == 0 || st.Invalidations == 0 || st.Evictions == 0) {
			t.Fatalf("%s: the workload did not exercise the BPE: %+v", policy, st)
		}
		c.Close(0)
	}
}

// TestIndexMatchesMap checks the open-addressing index (with backward-shift
// deletion) against a map under random inserts and removes.
func TestIndexMatchesMap(t *testing.T) {
	c := &Cache{}
	c.resizeLocked(1000)
	model := map[uint32]int{}
	rng := rand.New(rand.NewSource(1))
	freeSlots := make([]int, 0, 1000)
	for s := 999; s >= 0; s-- {
		freeSlots = append(freeSlots, s)
	}
	for i := 0; i < 200000; i++ {
		id := uint32(rng.Intn(3000))
		if _, ok := model[id]; ok || len(freeSlots) == 0 {
			if ok {
				slot := model[id]
				if !c.remove(id) {
					t.Fatalf("remove %d failed", id)
				}
				delete(model, id)
				freeSlots = append(freeSlots, slot)
			}
			continue
		}
		slot := freeSlots[len(freeSlots)-1]
		freeSlots = freeSlots[:len(freeSlots)-1]
		c.insert(id, slot)
		model[id] = slot
		if i%1000 == 0 {
			for id, slot := range model {
				if got := c.lookup(id); got != slot {
					t.Fatalf("lookup %d = %d, want %d", id, got, slot)
				}
			}
			if c.used != len(model) {
				t.Fatalf("used %d, model %d", c.used, len(model))
			}
		}
	}
	for id := uint32(0); id < 3000; id++ {
		_, ok := model[id]
		if (c.lookup(id) >= 0) != ok {
			t.Fatalf("id %d: present %v", id, ok)
		}
	}
}

// TestDeviceFailureDisables: an I/O error on the BPE device disables it,
// logs once, and every read still returns the right page (BPE-5).
func TestDeviceFailureDisables(t *testing.T) {
	for _, kind := range []volume.OpKind{volume.OpRead, volume.OpWrite} {
		src := &fakeSource{pages: map[page.ID][]byte{}}
		for id := 0; id < 50; id++ {
			src.put(page.ID(id), 7)
		}
		dev := volume.NewFaulty(volume.NewMem("bpe", volume.MemOptions{}))
		c := newCache(t, src, dev, 32, AdmitAll)
		buf := volume.AlignedBuffer(page.Size)
		for id := 0; id < 20; id++ {
			c.Read(page.ID(id), buf)
			c.Admit(page.ID(id), buf)
		}
		waitFor(t, func() bool { return c.Stats().Admissions > 0 })
		dev.FailFrom(0, kind)
		for round := 0; round < 200 && c.Stats().Failures == 0; round++ {
			time.Sleep(time.Millisecond)
			for id := 0; id < 50; id++ {
				if err := c.Read(page.ID(id), buf); err != nil || version(buf) != 7 || page.IDOf(buf) != page.ID(id) {
					t.Fatalf("read %d after failure: %v", id, err)
				}
				c.Admit(page.ID(id), buf)
			}
		}
		st := c.Stats()
		if st.Enabled || st.Failures == 0 {
			t.Fatalf("kind %v: BPE still enabled after an I/O error: %+v", kind, st)
		}
		if err := c.Resize(1 << 20); err == nil {
			t.Fatal("resize of a failed BPE accepted")
		}
		c.Close(0)
	}
}

// TestCorruptSlotIsAMiss: a damaged slot fails its checksum and the read
// goes to the source (BPE-3).
func TestCorruptSlotIsAMiss(t *testing.T) {
	src := &fakeSource{pages: map[page.ID][]byte{}}
	src.put(5, 3)
	mem := volume.NewMem("bpe", volume.MemOptions{})
	c := newCache(t, src, mem, 8, AdmitAll)
	buf := volume.AlignedBuffer(page.Size)
	c.Read(5, buf)
	c.Admit(5, buf)
	waitFor(t, func() bool { return c.Stats().Admissions == 1 })
	c.mu.Lock()
	slot := c.lookup(5)
	c.mu.Unlock()
	junk := volume.AlignedBuffer(page.Size)
	mem.ReadAt(junk, int64(slot)*page.Size)
	junk[1000] ^= 0xFF
	mem.WriteAt(junk, int64(slot)*page.Size)
	before := src.reads
	if err := c.Read(5, buf); err != nil || version(buf) != 3 {
		t.Fatalf("read: %v", err)
	}
	if src.reads != before+1 || c.Stats().Hits != 0 {
		t.Fatalf("corrupt slot served: source reads %d -> %d, hits %d", before, src.reads, c.Stats().Hits)
	}
}

// TestResizeOnline: shrinking, disabling and growing while reads go on
// never serves a wrong page.
func TestResizeOnline(t *testing.T) {
	src := &fakeSource{pages: map[page.ID][]byte{}}
	for id := 0; id < 200; id++ {
		src.put(page.ID(id), id+1)
	}
	c := newCache(t, src, volume.NewMem("bpe", volume.MemOptions{}), 128, AdmitAll)
	stop := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		buf := volume.AlignedBuffer(page.Size)
		rng := rand.New(rand.NewSource(2))
		for {
			select {
			case <-stop:
				close(errs)
				return
			default:
			}
			id := page.ID(rng.Intn(200))
			if err := c.Read(id, buf); err != nil || version(buf) != int(id)+1 {
				errs <- fmt.Errorf("page %d: version %d, %v", id, version(buf), err)
				close(errs)
				return
			}
			c.Admit(id, buf)
		}
	}()
	for _, slots := range []int{64, 0, 16, 256, 8, 128} {
		time.Sleep(20 * time.Millisecond)
		if err := c.Resize(int64(slots) * page.Size); err != nil {
			t.Fatal(err)
		}
		if st := c.Stats(); st.Slots != int64(slots) || st.Used > st.Slots {
			t.Fatalf("after resize to %d: %+v", slots, st)
		}
	}
	time.Sleep(20 * time.Millisecond)
	close(stop)
	for err := range errs {
		t.Fatal(err)
	}
	if c.Stats().Hits == 0 {
		t.Fatal("no hits")
	}
}

// TestWarmRestart: the index persisted at Close is loaded at Open (and
// removed, BPE-6); without it (a crash) the BPE starts cold.
func TestWarmRestart(t *testing.T) {
	dir := t.TempDir()
	src := &fakeSource{pages: map[page.ID][]byte{}}
	for id := 0; id < 20; id++ {
		src.put(page.ID(id), 9)
	}
	open := func() *Cache {
		v, err := volume.OpenFile(dir+"/bpe", volume.FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Open(src, Options{Volume: v, Bytes: 64 * page.Size, IndexPath: dir + "/bpe.index"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := open()
	buf := volume.AlignedBuffer(page.Size)
	for id := 0; id < 20; id++ {
		c.Read(page.ID(id), buf)
		c.Admit(page.ID(id), buf)
	}
	waitFor(t, func() bool { return c.Stats().Admissions == 20 })
	if err := c.Close(7); err != nil {
		t.Fatal(err)
	}
	c = open()
	c.Warm(7)
	if used := c.Stats().Used; used != 20 {
		t.Fatalf("warm start: %d pages", used)
	}
	reads := src.reads
	for id := 0; id < 20; id++ {
		if err := c.Read(page.ID(id), buf); err != nil || version(buf) != 9 {
			t.Fatal(err)
		}
	}
	if src.reads != reads {
		t.Fatalf("warm BPE still read the source %d times", src.reads-reads)
	}
	c.Abandon() // a crash: no index written
	c = open()
	c.Warm(7)
	if used := c.Stats().Used; used != 0 {
		t.Fatalf("after a crash the BPE must start cold, has %d pages", used)
	}
	// An index saved at another epoch (the data changed, e.g. a restored
	// snapshot) is not used.
	for id := 0; id < 20; id++ {
		c.Read(page.ID(id), buf)
		c.Admit(page.ID(id), buf)
	}
	waitFor(t, func() bool { return c.Stats().Used == 20 })
	if err := c.Close(8); err != nil {
		t.Fatal(err)
	}
	c = open()
	c.Warm(9)
	if used := c.Stats().Used; used != 0 {
		t.Fatalf("index from epoch 8 loaded at epoch 9: %d pages", used)
	}
	c.Close(0)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if cond() {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}

var _ = errors.New
