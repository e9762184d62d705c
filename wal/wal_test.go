package wal

import (
	"bytes"
	"math/rand"
	"sync"
	"testing"
	"time"

	"strata/page"
	"strata/volume"
)

func openFresh(t *testing.T, vol volume.Volume, capacity int64) *Log {
	t.Helper()
	l, err := Open(vol, Options{Capacity: capacity})
	if err != nil {
		t.Fatal(err)
	}
	end, err := l.Replay(func(page.LSN, byte, []byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetCheckpoint(end); err != nil {
		t.Fatal(err)
	}
	return l
}

func replayAll(t *testing.T, vol volume.Volume) ([][]byte, *Log) {
	t.Helper()
	l, err := Open(vol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	end, err := l.Replay(func(_ page.LSN, typ byte, p []byte) error {
		if typ != TypeRedo {
			t.Fatalf("unexpected record type %d", typ)
		}
		got = append(got, append([]byte(nil), p...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetCheckpoint(end); err != nil {
		t.Fatal(err)
	}
	return got, l
}

func payload(i int) []byte {
	return bytes.Repeat([]byte{byte(i)}, 1+(i*37)%3000)
}

// TestGroupCommitAndReplay: concurrent appenders, all acknowledged records
// come back in order after a crash.
func TestGroupCommitAndReplay(t *testing.T) {
	mem := volume.NewMem("log", volume.MemOptions{})
	l := openFresh(t, mem, 8<<20)
	var wg sync.WaitGroup
	var mu sync.Mutex
	order := map[page.LSN]int{}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				id := w*1000 + i
				lsn, end, err := l.Append(TypeRedo, payload(id))
				if err != nil {
					t.Error(err)
					return
				}
				if err := l.WaitDurable(end); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order[lsn] = id
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	st := l.Stats()
	if st.Syncs >= st.Appends {
		t.Logf("no grouping happened: %d syncs for %d appends", st.Syncs, st.Appends)
	}
	crashed := mem.Crash(rand.New(rand.NewSource(1)), true)
	l.Close()
	got, l2 := replayAll(t, crashed)
	defer l2.Close()
	if len(got) != 800 {
		t.Fatalf("replayed %d records, want 800", len(got))
	}
}

// TestTornTailAndWrap: records appended without a sync may be lost or torn;
// replay stops cleanly at the first bad one and never returns garbage, also
// after the log wrapped around several times.
func TestTornTailAndWrap(t *testing.T) {
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		mem := volume.NewMem("log", volume.MemOptions{})
		l := openFresh(t, mem, 256<<10)
		var durable [][]byte
		n := 0
		for round := 0; round < 30; round++ {
			for i := 0; i < 1+rng.Intn(5); i++ {
				p := payload(n)
				n++
				_, end, err := l.Append(TypeRedo, p)
				if err == ErrLogFull {
					// checkpoint everything: nothing older is needed
					must(t, l.Flush())
					must(t, l.SetCheckpoint(l.End()))
					durable = nil
					_, end, err = l.Append(TypeRedo, p)
				}
				must(t, err)
				must(t, l.WaitDurable(end))
				durable = append(durable, p)
			}
		}
		// Unsynced tail: the writer may or may not get to it.
		for i := 0; i < 3; i++ {
			_, _, err := l.Append(TypeRedo, payload(n))
			if err == nil {
				n++
			}
		}
		crashed := mem.Crash(rng, true)
		l.Close()
		got, l2 := replayAll(t, crashed)
		if len(got) < len(durable) {
			t.Fatalf("seed %d: replayed %d records, %d were durable", seed, len(got), len(durable))
		}
		for i := range durable {
			if !bytes.Equal(got[i], durable[i]) {
				t.Fatalf("seed %d: record %d differs", seed, i)
			}
		}
		// After recovery the log keeps working and a second recovery sees
		// the new records (WAL-4).
		_, end, err := l2.Append(TypeRedo, []byte("after"))
		must(t, err)
		must(t, l2.WaitDurable(end))
		l2.Close()
		got2, l3 := replayAll(t, crashed.Crash(rng, false))
		l3.Close()
		if len(got2) < 1 || string(got2[len(got2)-1]) != "after" {
			t.Fatalf("seed %d: record appended after recovery lost (%d records)", seed, len(got2))
		}
	}
}

func TestLogFull(t *testing.T) {
	l := openFresh(t, volume.NewMem("log", volume.MemOptions{}), 64<<10)
	defer l.Close()
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, _, err = l.Append(TypeRedo, make([]byte, 4000))
	}
	if err != ErrLogFull {
		t.Fatalf("appending past capacity: %v, want ErrLogFull", err)
	}
}

func TestWriteErrorIsSticky(t *testing.T) {
	f := volume.NewFaulty(volume.NewMem("log", volume.MemOptions{}))
	l := openFresh(t, f, 1<<20)
	defer l.Close()
	f.FailFrom(f.Ops(), volume.OpAll)
	_, end, err := l.Append(TypeRedo, []byte("x"))
	must(t, err)
	if err := l.WaitDurable(end); err == nil {
		t.Fatal("WaitDurable succeeded on a dead volume")
	}
	if _, _, err := l.Append(TypeRedo, []byte("y")); err == nil {
		t.Fatal("append after a failed write succeeded")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func BenchmarkAppendSync(b *testing.B) {
	mem := volume.NewMem("log", volume.MemOptions{})
	l, _ := Open(mem, Options{Capacity: 64 << 20})
	l.Replay(func(page.LSN, byte, []byte) error { return nil })
	l.SetCheckpoint(l.End())
	defer l.Close()
	p := make([]byte, 200)
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, end, err := l.Append(TypeRedo, p)
			if err == ErrLogFull {
				l.Flush()
				l.SetCheckpoint(l.End())
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
			l.WaitDurable(end)
		}
	})
}

// WAL-5: on a fresh log the writer zeroes a chunk ahead of the file's end
// before the first group lands (so commits overwrite written blocks); the
// zeros read as the log's end after a crash, and reopening a log whose
// file ends inside the first lap zeroes only past its records.
// appendDurable appends payload(from) .. payload(to-1) and waits until
// they are durable; it returns the end of the last.
func appendDurable(t *testing.T, l *Log, from, to int) page.LSN {
	t.Helper()
	var end page.LSN
	for i := from; i < to; i++ {
		var err error
		if _, end, err = l.Append(TypeRedo, payload(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.WaitDurable(end); err != nil {
		t.Fatal(err)
	}
	return end
}

func TestZeroesAheadOfTheFirstLap(t *testing.T) {
	mem := volume.NewMem("log", volume.MemOptions{})
	l := openFresh(t, mem, 32<<20)
	appendDurable(t, l, 1, 2)
	if got, want := mem.Size(), int64(dataStart+zeroChunk); got != want {
		t.Fatalf("file size after the first group %d, want %d (zeroed a chunk ahead)", got, want)
	}
	// Fill past the first chunk (large groups extend the file themselves).
	end := appendDurable(t, l, 2, 3000)
	if mem.Size() < dataStart+int64(l.durable.Load()) {
		t.Fatalf("file size %d after %d bytes of records", mem.Size(), l.durable.Load())
	}
	crashed := mem.Crash(rand.New(rand.NewSource(5)), true)
	l.Close()
	got, l2 := replayAll(t, crashed)
	if len(got) != 2999 {
		t.Fatalf("replayed %d records, want 2999", len(got))
	}
	for i, p := range got {
		if !bytes.Equal(p, payload(i+1)) {
			t.Fatalf("record %d differs", i)
		}
	}
	// Reopened with records up to the file's end: appends after them keep
	// them (zeros only past the file's size).
	oldEnd := (int64(dataStart) + int64(end)) / blockSize * blockSize
	before := make([]byte, oldEnd-dataStart)
	if err := crashed.ReadAt(before, dataStart); err != nil {
		t.Fatal(err)
	}
	appendDurable(t, l2, 3000, 3100)
	l2.Close()
	after := make([]byte, len(before))
	if err := crashed.ReadAt(after, dataStart); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("the records written before reopening changed")
	}
	got, l3 := replayAll(t, crashed)
	defer l3.Close()
	if len(got) != 100 {
		t.Fatalf("replayed %d records appended after reopening, want 100", len(got))
	}
}

// slowSync is a volume whose syncs take d, as a cloud volume's do.
type slowSync struct {
	volume.Volume
	d time.Duration
}

func (s *slowSync) Sync() error {
	time.Sleep(s.d)
	return s.Volume.Sync()
}

// commitLoad runs committers that each append and wait for each record,
// every one after a pause of think plus up to think more (spread per
// committer; a lone committer never pauses), on a log whose syncs take
// syncTime; it returns the log's syncs, appends and waited-for groups.
func commitLoad(t *testing.T, opts Options, syncTime, think time.Duration, committers, each int) (syncs, appends, delayed int64) {
	t.Helper()
	vol := &slowSync{Volume: volume.NewMem("log", volume.MemOptions{}), d: syncTime}
	opts.Capacity = 16 << 20
	l, err := Open(vol, opts)
	must(t, err)
	end, err := l.Replay(func(page.LSN, byte, []byte) error { return nil })
	must(t, err)
	must(t, l.SetCheckpoint(end))
	us := int(think / time.Microsecond)
	var wg sync.WaitGroup
	errs := make(chan error, committers)
	for c := 0; c < committers; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if committers > 1 {
					time.Sleep(time.Duration(us+(c*977+i*331)%us) * time.Microsecond)
				}
				_, end, err := l.Append(1, payload(i))
				if err == nil {
					err = l.WaitDurable(end)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := l.Stats()
	must(t, l.Close())
	return st.Syncs, st.Appends, st.DelayedGroups
}

// TestCommitDelayGathersCommits (WAL-6): committers that arrive spread out
// (each works ~3 ms between commits, a sync takes 2 ms) share fewer syncs
// when the writer waits for more of them, and a lone committer never
// waits.
func TestCommitDelayGathersCommits(t *testing.T) {
	run := func(delay time.Duration, committers, each int) (syncs, appends, delayed int64) {
		return commitLoad(t, Options{MaxCommitDelay: delay}, 2*time.Millisecond, 2*time.Millisecond, committers, each)
	}
	s0, a0, d0 := run(-1, 8, 60)
	s1, a1, d1 := run(time.Millisecond, 8, 60)
	r0, r1 := float64(s0)/float64(a0), float64(s1)/float64(a1)
	t.Logf("8 committers: %.2f syncs per commit without the wait, %.2f with it (%d groups waited for)", r0, r1, d1)
	if d0 != 0 {
		t.Fatalf("%d groups waited for with the wait turned off", d0)
	}
	if d1 == 0 || r1 > 0.9*r0 {
		t.Fatalf("the wait did not gather commits: %.2f syncs per commit with it, %.2f without, %d groups waited for", r1, r0, d1)
	}
	if _, _, d := run(time.Millisecond, 1, 100); d != 0 {
		t.Fatalf("a lone committer's groups were waited for %d times", d)
	}
}

// TestBusyVolumeGathersSparseCommits: committers too sparse for WAL-6's wait
// (a short sync) share syncs when the volume reports itself short of IOPS
// (WAL-7); a lone committer on such a volume stops waiting once its waits
// gather nothing.
func TestBusyVolumeGathersSparseCommits(t *testing.T) {
	run := func(busy bool, committers, each int) (syncs, appends, delayed int64) {
		opts := Options{MaxCommitDelay: time.Millisecond, Busy: func() bool { return busy }}
		return commitLoad(t, opts, 200*time.Microsecond, 4*time.Millisecond, committers, each)
	}
	s0, a0, _ := run(false, 8, 60)
	s1, a1, d1 := run(true, 8, 60)
	r0, r1 := float64(s0)/float64(a0), float64(s1)/float64(a1)
	t.Logf("8 sparse committers: %.2f syncs per commit on an idle volume, %.2f on a busy one (%d groups waited for)", r0, r1, d1)
	if d1 == 0 || r1 > 0.8*r0 {
		t.Fatalf("a busy volume did not gather sparse commits: %.2f syncs per commit, %.2f when idle, %d groups waited for", r1, r0, d1)
	}
	if _, _, d := run(true, 1, 200); d > 40 {
		t.Fatalf("a lone committer on a busy volume waited for %d of 200 groups", d)
	}
}
