package pagestore

import (
	"errors"
	"math/rand"
	"testing"

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

// TestAtomicBatchesDurableAtSync: in atomic mode a batch is readable at once
// but durable only after Sync (PS-4): a crash before it may keep the old
// page whole, never a torn one; after it, the new page survives every crash.
// Sync with nothing written issues no volume sync, and a failed sync fails
// every later write and sync (PS-5).
func TestAtomicBatchesDurableAtSync(t *testing.T) {
	id := FirstDataPage + 3
	lostSome := false
	for seed := int64(0); seed < 50; seed++ {
		mem := volume.NewMem("d", volume.MemOptions{AtomicWriteUnit: page.Size})
		s, err := New(mem, Atomic, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.WriteBatch([][]byte{img(id, 10, 1)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteBatch([][]byte{img(id, 20, 2)}); err != nil {
			t.Fatal(err)
		}
		if got := s.Stats().Syncs; got != 1 {
			t.Fatalf("atomic batches issued %d syncs, want 1 (the explicit one)", got)
		}
		buf := volume.AlignedBuffer(page.Size)
		if err := s.Read(id, buf); err != nil || page.LSNOf(buf) != 20 {
			t.Fatalf("read after write: lsn %d, %v", page.LSNOf(buf), err)
		}
		crashed := mem.Crash(rand.New(rand.NewSource(seed)), true)
		c, _ := New(crashed, Atomic, false)
		if err := c.Read(id, buf); err != nil {
			t.Fatalf("seed %d: page after crash: %v", seed, err)
		}
		switch page.LSNOf(buf) {
		case 10:
			lostSome = true
		case 20:
		default:
			t.Fatalf("seed %d: page lsn %d after crash", seed, page.LSNOf(buf))
		}

		mem2 := volume.NewMem("d", volume.MemOptions{AtomicWriteUnit: page.Size})
		s2, _ := New(mem2, Atomic, false)
		if err := s2.WriteBatch([][]byte{img(id, 30, 3)}); err != nil {
			t.Fatal(err)
		}
		if err := s2.Sync(); err != nil {
			t.Fatal(err)
		}
		c2, _ := New(mem2.Crash(rand.New(rand.NewSource(seed)), true), Atomic, false)
		if err := c2.Read(id, buf); err != nil || page.LSNOf(buf) != 30 {
			t.Fatalf("seed %d: synced page after crash: lsn %d, %v", seed, page.LSNOf(buf), err)
		}
	}
	if !lostSome {
		t.Fatal("no crash dropped an unsynced write: the test does not test PS-4")
	}

	mem := volume.NewMem("d", volume.MemOptions{AtomicWriteUnit: page.Size})
	f := volume.NewFaulty(mem)
	s, _ := New(f, Atomic, false)
	if err := s.Sync(); err != nil || s.Stats().Syncs != 0 {
		t.Fatalf("sync with nothing written: %v, %d volume syncs", err, s.Stats().Syncs)
	}
	if err := s.WriteBatch([][]byte{img(id, 10, 1)}); err != nil {
		t.Fatal(err)
	}
	f.FailFrom(f.Ops(), volume.OpSync)
	if err := s.Sync(); err == nil {
		t.Fatal("sync on a failing volume succeeded")
	}
	f.Reset()
	if err := s.WriteBatch([][]byte{img(id, 20, 2)}); err == nil {
		t.Fatal("write after a failed sync succeeded (PS-5)")
	}
	if err := s.Sync(); err == nil {
		t.Fatal("sync after a failed sync succeeded (PS-5)")
	}
}
