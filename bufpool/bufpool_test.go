package bufpool

import (
	"sync"
	"testing"

	"strata/page"
	"strata/pagestore"
	"strata/volume"
)

// fakeLog records the LSN the pool waited for, and checks the WAL rule
// from the volume side: a page write may only carry an LSN already waited for.
type fakeLog struct {
	mu      sync.Mutex
	durable page.LSN
}

func (l *fakeLog) WaitDurable(lsn page.LSN) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.durable = max(l.durable, lsn)
	return nil
}

type walCheck struct {
	volume.Volume
	log *fakeLog
	t   *testing.T
}

func (w walCheck) WriteAt(p []byte, off int64) error {
	for i := 0; i < len(p); i += page.Size {
		pg := p[i : i+page.Size]
		w.log.mu.Lock()
		d := w.log.durable
		w.log.mu.Unlock()
		if l := page.LSNOf(pg); l >= d && l != 0 {
			w.t.Errorf("page %d written with LSN %d, log durable only to %d (BP-3)", page.IDOf(pg), l, d)
		}
	}
	return w.Volume.WriteAt(p, off)
}

func newPool(t *testing.T, frames int) (*Pool, *fakeLog) {
	lg := &fakeLog{}
	store, err := pagestore.New(walCheck{volume.NewMem("d", volume.MemOptions{}), lg, t}, pagestore.Doublewrite, false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(store, nil, lg, Options{Bytes: int64(frames) * page.Size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, lg
}

func dirty(t *testing.T, p *Pool, id page.ID, lsn page.LSN, b byte) {
	f, err := p.Fix(id)
	if err != nil {
		t.Fatal(err)
	}
	f.Latch.Lock()
	page.SetID(f.Data(), id)
	page.SetType(f.Data(), page.TypeBTree)
	f.Data()[page.HeaderSize] = b
	page.SetLSN(f.Data(), lsn)
	p.MarkDirty(f, lsn)
	f.Latch.Unlock()
	p.Unfix(f)
}

// TestEvictionKeepsContent: many more pages than frames, each dirtied with
// a marker; pinned pages are never evicted; every page reads back right.
func TestEvictionKeepsContent(t *testing.T) {
	p, _ := newPool(t, 64)
	pinned, err := p.Fix(pagestore.FirstDataPage)
	if err != nil {
		t.Fatal(err)
	}
	const n = 500
	for i := 0; i < n; i++ {
		id := pagestore.FirstDataPage + 1 + page.ID(i)
		dirty(t, p, id, page.LSN(100+i), byte(i))
	}
	for i := 0; i < n; i++ {
		id := pagestore.FirstDataPage + 1 + page.ID(i)
		f, err := p.Fix(id)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Data()[page.HeaderSize]; got != byte(i) {
			t.Fatalf("page %d: marker %d, want %d", id, got, byte(i))
		}
		p.Unfix(f)
	}
	if pinned.ID() != pagestore.FirstDataPage {
		t.Fatal("a pinned frame was reused")
	}
	p.Unfix(pinned)
	st := p.Stats()
	if st.Evictions == 0 || st.PagesFlushed == 0 {
		t.Fatalf("no eviction or flush happened: %+v", st)
	}
	if err := p.FlushAll(); err != nil {
		t.Fatal(err)
	}
	if p.Stats().Dirty != 0 || p.MinRecLSN() != 0 {
		t.Fatal("dirty pages left after FlushAll")
	}
}

// TestConcurrentFix: goroutines fix overlapping pages in a small pool (run
// with -race); a frame always holds the page it was fixed for.
func TestConcurrentFix(t *testing.T) {
	p, _ := newPool(t, 64)
	for i := 0; i < 200; i++ {
		dirty(t, p, pagestore.FirstDataPage+page.ID(i), page.LSN(i+1), byte(i))
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				k := (i*31 + g*17) % 200
				id := pagestore.FirstDataPage + page.ID(k)
				f, err := p.Fix(id)
				if err != nil {
					t.Error(err)
					return
				}
				f.Latch.RLock()
				if page.IDOf(f.Data()) != id || f.Data()[page.HeaderSize] != byte(k) {
					t.Errorf("frame for page %d holds page %d", id, page.IDOf(f.Data()))
				}
				f.Latch.RUnlock()
				p.Unfix(f)
			}
		}(g)
	}
	wg.Wait()
}

// TestEvictionPassesOverLatchedOldest: the oldest dirty pages are latched by
// a running mini-transaction (which cannot unlatch until it has a frame);
// eviction flushes younger dirty pages instead of failing with ErrNoFrame.
func TestEvictionPassesOverLatchedOldest(t *testing.T) {
	p, _ := newPool(t, 128)
	var held []*Frame
	for i := 0; i < 100; i++ { // the oldest, latched and pinned as an mtr holds them
		id := pagestore.FirstDataPage + page.ID(i)
		dirty(t, p, id, page.LSN(10+i), 1)
		f, err := p.Fix(id)
		if err != nil {
			t.Fatal(err)
		}
		f.Latch.Lock()
		held = append(held, f)
	}
	for i := 0; i < 28; i++ { // younger dirty pages fill the rest
		dirty(t, p, pagestore.FirstDataPage+1000+page.ID(i), page.LSN(1000+i), 2)
	}
	// Every frame is now pinned or dirty: a new page needs a flush that
	// passes over the 100 latched ones.
	f, err := p.Fix(pagestore.FirstDataPage + 5000)
	if err != nil {
		t.Fatalf("eviction with the oldest dirty pages latched: %v", err)
	}
	p.Unfix(f)
	for _, f := range held {
		f.Latch.Unlock()
		p.Unfix(f)
	}
}

// TestCleanerWritesColdPagesFirst (BP-9): with cold set, the cleaner's
// pages are the least used dirty ones, whatever their recLSN; without it,
// the oldest.
func TestCleanerWritesColdPagesFirst(t *testing.T) {
	for _, cold := range []bool{true, false} {
		p, _ := newPool(t, 64)
		// Pages 0-9 dirtied first (oldest) and used often; 10-19 later, cold.
		for i := 0; i < 20; i++ {
			dirty(t, p, pagestore.FirstDataPage+page.ID(i), page.LSN(100+i), byte(i))
		}
		for i := 0; i < 10; i++ {
			f, err := p.Fix(pagestore.FirstDataPage + page.ID(i))
			if err != nil {
				t.Fatal(err)
			}
			f.usage.Store(maxUsage)
			p.Unfix(f)
		}
		n, err := p.FlushOldestPaced(10, 10, cold, func(int) bool { return true })
		if err != nil || n != 10 {
			t.Fatalf("cold %v: wrote %d, %v", cold, n, err)
		}
		for i := 0; i < 20; i++ {
			f, err := p.Fix(pagestore.FirstDataPage + page.ID(i))
			if err != nil {
				t.Fatal(err)
			}
			f.mu.Lock()
			clean := !f.mu.dirty
			f.mu.Unlock()
			p.Unfix(f)
			if want := (i >= 10) == cold; clean != want {
				t.Fatalf("cold %v: page %d (usage %s) clean %v, want %v", cold, i, map[bool]string{true: "high", false: "none"}[i < 10], clean, want)
			}
		}
	}
}
