package pagestore

import (
	"errors"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"strata/page"
	"strata/volume"
)

func img(id page.ID, lsn page.LSN, fillByte byte) []byte {
	p := volume.AlignedBuffer(page.Size)
	for i := page.HeaderSize; i < page.Size; i++ {
		p[i] = fillByte
	}
	page.SetID(p, id)
	page.SetLSN(p, lsn)
	page.SetType(p, page.TypeBTree)
	return p
}

// TestDoublewriteRepairsTornPages: crash while a batch is written in place,
// tearing the writes; Recover must make every page of the batch verify.
func TestDoublewriteRepairsTornPages(t *testing.T) {
	for seed := int64(0); seed < 100; seed++ {
		rng := rand.New(rand.NewSource(seed))
		mem := volume.NewMem("d", volume.MemOptions{})
		f := volume.NewFaulty(mem)
		s, err := New(f, Doublewrite, false)
		if err != nil {
			t.Fatal(err)
		}
		ids := []page.ID{FirstDataPage, FirstDataPage + 1, FirstDataPage + 7}
		var batch [][]byte
		for _, id := range ids {
			batch = append(batch, img(id, 10, 1))
		}
		if err := s.WriteBatch(batch); err != nil {
			t.Fatal(err)
		}
		// Second version; the in-place writes are torn by the crash: fail
		// the final sync so they stay unsynced, then cut power.
		batch = nil
		for _, id := range ids {
			batch = append(batch, img(id, 20, 2))
		}
		f.InjectErrorAt(f.Ops()+2+int64(len(ids)), volume.OpSync)
		if err := s.WriteBatch(batch); err == nil {
			t.Fatal("expected the injected sync failure")
		}
		crashed := mem.Crash(rng, true)
		s2, _ := New(crashed, Doublewrite, false)
		if _, err := s2.Recover(); err != nil {
			t.Fatal(err)
		}
		buf := volume.AlignedBuffer(page.Size)
		for _, id := range ids {
			if err := s2.Read(id, buf); err != nil {
				t.Fatalf("seed %d: page %d after repair: %v", seed, id, err)
			}
			if l := page.LSNOf(buf); l != 10 && l != 20 {
				t.Fatalf("seed %d: page %d has LSN %d", seed, id, l)
			}
		}
	}
}

func TestReadDetectsCorruption(t *testing.T) {
	mem := volume.NewMem("d", volume.MemOptions{})
	s, _ := New(mem, Doublewrite, false)
	p := img(FirstDataPage, 5, 3)
	if err := s.WriteBatch([][]byte{p}); err != nil {
		t.Fatal(err)
	}
	raw := volume.AlignedBuffer(page.Size)
	mem.ReadAt(raw, int64(FirstDataPage)*page.Size)
	raw[1000] ^= 0xff
	mem.WriteAt(raw, int64(FirstDataPage)*page.Size)
	var ce *page.CorruptError
	if err := s.Read(FirstDataPage, volume.AlignedBuffer(page.Size)); !errors.As(err, &ce) || ce.ID != FirstDataPage {
		t.Fatalf("flipped byte: %v, want CorruptError for page %d", err, FirstDataPage)
	}
	// A page stored at the wrong place is caught by its id.
	mem.WriteAt(img(FirstDataPage+5, 1, 1), int64(FirstDataPage+1)*page.Size)
	if err := s.Read(FirstDataPage+1, volume.AlignedBuffer(page.Size)); err == nil {
		t.Fatal("misdirected page accepted")
	}
}

func TestAtomicModeRefusedWithoutGuarantee(t *testing.T) {
	if _, err := New(volume.NewMem("d", volume.MemOptions{}), Atomic, false); err == nil {
		t.Fatal("atomic mode accepted on a volume without atomic writes")
	}
	if _, err := New(volume.NewMem("d", volume.MemOptions{AtomicWriteUnit: page.Size}), Atomic, false); err != nil {
		t.Fatal(err)
	}
}

// seqVolume stamps each completed write and each sync's start and end
// with a global sequence number, and makes syncs slow, for PS-5's test.
type seqVolume struct {
	volume.Volume
	seq   atomic.Int64
	mu    sync.Mutex
	wrote map[int64]int64 // offset -> sequence of the write's completion
	syncs [][2]int64      // start, end
	delay time.Duration
}

func (v *seqVolume) WriteAt(p []byte, off int64) error {
	err := v.Volume.WriteAt(p, off)
	v.mu.Lock()
	v.wrote[off] = v.seq.Add(1)
	v.mu.Unlock()
	return err
}

func (v *seqVolume) Sync() error {
	start := v.seq.Add(1)
	time.Sleep(v.delay)
	err := v.Volume.Sync()
	end := v.seq.Add(1)
	v.mu.Lock()
	v.syncs = append(v.syncs, [2]int64{start, end})
	v.mu.Unlock()
	return err
}

// TestAtomicBatchesShareSyncs (PS-4, PS-5): concurrent batches in atomic
// mode each return only after a sync that began once all their writes
// were done and ended before the return, and batches share syncs (fewer
// syncs than batches).
func TestAtomicBatchesShareSyncs(t *testing.T) {
	mem := volume.NewMem("d", volume.MemOptions{AtomicWriteUnit: page.Size})
	v := &seqVolume{Volume: mem, wrote: map[int64]int64{}, delay: 2 * time.Millisecond}
	s, err := New(v, Atomic, false)
	if err != nil {
		t.Fatal(err)
	}
	const workers, batches = 8, 25
	var wg sync.WaitGroup
	var bad atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for b := 0; b < batches; b++ {
				var imgs [][]byte
				var offs []int64
				for i := 0; i < 4; i++ {
					id := FirstDataPage + page.ID(w*1000+b*4+i)
					imgs = append(imgs, img(id, 10, byte(b)))
					offs = append(offs, offset(id))
				}
				if err := s.WriteBatch(imgs); err != nil {
					t.Error(err)
					return
				}
				returned := v.seq.Add(1)
				v.mu.Lock()
				last := int64(0)
				for _, o := range offs {
					last = max(last, v.wrote[o])
				}
				covered := false
				for _, sy := range v.syncs {
					covered = covered || sy[0] > last && sy[1] < returned
				}
				v.mu.Unlock()
				if !covered {
					bad.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	if n := bad.Load(); n > 0 {
		t.Fatalf("%d of %d batches returned without a sync begun after their writes", n, workers*batches)
	}
	v.mu.Lock()
	n := len(v.syncs)
	v.mu.Unlock()
	t.Logf("%d batches, %d syncs", workers*batches, n)
	if n >= workers*batches {
		t.Fatalf("%d syncs for %d concurrent batches: none shared", n, workers*batches)
	}
}
