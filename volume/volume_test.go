package volume

import (
	"bytes"
	"errors"
	"math/rand"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func fill(n int, b byte) []byte {
	p := AlignedBuffer(n)
	for i := range p {
		p[i] = b
	}
	return p
}

func TestFileDirectRoundTrip(t *testing.T) {
	v, err := OpenFile(filepath.Join(t.TempDir(), "vol"), FileOptions{Direct: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.WriteAt(fill(8192, 7), 4096); err != nil {
		t.Fatal(err)
	}
	if err := v.Sync(); err != nil {
		t.Fatal(err)
	}
	got := fill(16384, 1)
	if err := v.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[:4096], make([]byte, 4096)) || !bytes.Equal(got[4096:12288], bytes.Repeat([]byte{7}, 8192)) ||
		!bytes.Equal(got[12288:], make([]byte, 4096)) {
		t.Fatal("read back differs (holes and past-EOF must read as zeros)")
	}
	if err := v.WriteAt(make([]byte, 100), 0); err == nil {
		t.Fatal("unaligned write accepted")
	}
	t.Logf("atomic write unit reported by statx: %d", v.AtomicWriteUnit())
}

func TestStripedLayout(t *testing.T) {
	a, b := NewMem("a", MemOptions{}), NewMem("b", MemOptions{})
	s, err := NewStriped([]Volume{a, b}, 8192)
	if err != nil {
		t.Fatal(err)
	}
	p := AlignedBuffer(32768)
	for i := range p {
		p[i] = byte(i / 4096) // block number
	}
	if err := s.WriteAt(p, 0); err != nil {
		t.Fatal(err)
	}
	// stripe units of 2 blocks alternate: blocks 0,1 -> a; 2,3 -> b; 4,5 -> a; 6,7 -> b
	check := func(v *Mem, off int64, want byte) {
		got := AlignedBuffer(4096)
		v.ReadAt(got, off)
		if got[0] != want {
			t.Fatalf("%s at %d holds block %d, want %d", v.Name(), off, got[0], want)
		}
	}
	check(a, 0, 0)
	check(a, 4096, 1)
	check(b, 0, 2)
	check(b, 8192, 6)
	check(a, 8192, 4)
	back := AlignedBuffer(32768)
	if err := s.ReadAt(back, 0); err != nil || !bytes.Equal(back, p) {
		t.Fatalf("striped read back differs: %v", err)
	}
	if _, err := NewStriped([]Volume{a}, 1000); err == nil {
		t.Fatal("unaligned stripe unit accepted")
	}
}

// TestMemCrash: synced data always survives; with an atomic unit, a chunk
// is never partially applied.
func TestMemCrash(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		m := NewMem("m", MemOptions{AtomicWriteUnit: 16384})
		m.WriteAt(fill(16384, 1), 0)
		m.Sync()
		m.WriteAt(fill(32768, 2), 0)
		c := m.Crash(rng, true)
		if err := m.WriteAt(fill(4096, 3), 0); !errors.Is(err, ErrClosed) {
			t.Fatal("crashed volume still accepts writes")
		}
		got := AlignedBuffer(32768)
		c.ReadAt(got, 0)
		for chunk := 0; chunk < 2; chunk++ {
			part := got[chunk*16384 : (chunk+1)*16384]
			first := part[0]
			if !bytes.Equal(part, bytes.Repeat([]byte{first}, 16384)) {
				t.Fatalf("seed %d: atomic chunk %d torn", seed, chunk)
			}
			if chunk == 0 && first != 1 && first != 2 {
				t.Fatalf("seed %d: synced data lost", seed)
			}
		}
	}
	// Without an atomic unit, tearing does happen.
	torn := false
	for seed := int64(0); seed < 50 && !torn; seed++ {
		m := NewMem("m", MemOptions{})
		m.WriteAt(fill(16384, 2), 0)
		got := AlignedBuffer(16384)
		m.Crash(rand.New(rand.NewSource(seed)), true).ReadAt(got, 0)
		torn = bytes.Contains(got, []byte{2}) && bytes.Contains(got, []byte{0})
	}
	if !torn {
		t.Fatal("no torn write in 50 crashes without an atomic unit")
	}
}

func TestFaultyInjects(t *testing.T) {
	f := NewFaulty(NewMem("m", MemOptions{}))
	f.InjectErrorAt(1, OpAll)
	buf := AlignedBuffer(4096)
	if err := f.WriteAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	if err := f.ReadAt(buf, 0); !errors.Is(err, ErrInjected) {
		t.Fatalf("op 1: %v", err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.FailFrom(f.Ops(), OpSync)
	if err := f.Sync(); !errors.Is(err, ErrInjected) {
		t.Fatal("FailFrom did not fail the sync")
	}
}

// rate runs workers doing I/O of size n for d and returns ops/s and MiB/s.
func rate(t *testing.T, c *Cloud, n int, write bool, d time.Duration) (float64, float64) {
	var ops atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	start := time.Now()
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			buf := AlignedBuffer(n)
			for i := 0; time.Now().Before(stop); i++ {
				off := int64((w*1000+i)%512) * int64(n)
				var err error
				if write {
					err = c.WriteAt(buf, off)
				} else {
					err = c.ReadAt(buf, off)
				}
				if err != nil {
					t.Error(err)
					return
				}
				ops.Add(1)
			}
		}(w)
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	return float64(ops.Load()) / el, float64(ops.Load()) * float64(n) / (1 << 20) / el
}

// TestCloudCaps: the emulated volume holds its IOPS and bandwidth caps
// within 5%, and charges I/O in 256 KiB chunks.
func TestCloudCaps(t *testing.T) {
	c := NewCloud(NewMem("m", MemOptions{}), CloudProfile{IOPS: 2000, MBps: 1000, BaseLatency: 200 * time.Microsecond})
	iops, _ := rate(t, c, 16384, false, 2*time.Second)
	if iops < 1900 || iops > 2100 {
		t.Fatalf("16 KiB reads at %.0f IOPS, cap 2000", iops)
	}
	c = NewCloud(NewMem("m", MemOptions{}), CloudProfile{IOPS: 100000, MBps: 50, BaseLatency: 200 * time.Microsecond})
	_, mbps := rate(t, c, 1<<20, false, 2*time.Second)
	if mbps < 47.5 || mbps > 52.5 {
		t.Fatalf("1 MiB reads at %.1f MiB/s, cap 50", mbps)
	}
	before := c.Stats().Units
	c.WriteAt(AlignedBuffer(1<<20), 0)
	if u := c.Stats().Units - before; u != 4 {
		t.Fatalf("a 1 MiB I/O cost %d units, want 4 (256 KiB chunks)", u)
	}
}

func TestCloudBurstCredits(t *testing.T) {
	p := CloudProfile{IOPS: 500, BurstIOPS: 2000, BurstCreditIOs: 1500, MBps: 1000, BaseLatency: 100 * time.Microsecond}
	c := NewCloud(NewMem("m", MemOptions{}), p)
	// Credits 1500 drain at 2000-500/s: about one second of burst.
	burst, _ := rate(t, c, 4096, false, 800*time.Millisecond)
	rate(t, c, 4096, false, 400*time.Millisecond)
	base, _ := rate(t, c, 4096, false, time.Second)
	if burst < 1800 || base > 650 {
		t.Fatalf("burst %.0f IOPS then %.0f: want ~2000 while credits last, ~500 after", burst, base)
	}
}

func TestProfiles(t *testing.T) {
	for _, n := range []string{"gp2-1t", "gp3", "io1-6k", "essd-pl1"} {
		if _, err := LookupProfile(n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := LookupProfile("floppy"); err == nil {
		t.Fatal("unknown profile accepted")
	}
}
