package engine

import (
	"bytes"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLogNeverOverflowsWithTinyRate: a write-heavy load writing at least
// four times an 8 MiB redo log's capacity with the background limiter at 5
// pages/s. The page cleaner must go past the limiter when the log fills
// (IO-2): every commit succeeds, the log never passes 7/8 of its capacity,
// the urgent path ran, pages written under the limiter stay within its
// rate, and everything reads back after a restart.
func TestLogNeverOverflowsWithTinyRate(t *testing.T) {
	dir := t.TempDir()
	const rate = 5.0
	opts := Options{Dir: dir, BufferPoolBytes: 8 << 20, LogCapacity: 8 << 20, IOLimiter: "5"}
	db, err := Open(opts)
	must(t, err)
	ks, err := db.CreateKeyspace("t")
	must(t, err)

	const keys, writers = 4000, 4
	var mu sync.Mutex
	model := map[int]int{} // key -> latest committed version
	var commits, maxUsed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	start := time.Now()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for v := 1; ; v++ {
				select {
				case <-stop:
					return
				default:
				}
				tx := db.Begin()
				// Each writer owns the keys = w mod writers, so the model
				// needs no lock ordering.
				touched := map[int]int{}
				for i := 0; i < 8; i++ {
					k := rng.Intn(keys/writers)*writers + w
					touched[k] = v
					if err := tx.Put(ks, []byte(fmt.Sprintf("k%06d", k)), value(k, v)); err != nil {
						tx.Rollback()
						errs <- err
						return
					}
				}
				if err := tx.Commit(); err != nil {
					errs <- fmt.Errorf("commit: %w", err)
					return
				}
				commits.Add(1)
				mu.Lock()
				for k, v := range touched {
					model[k] = v
				}
				mu.Unlock()
			}
		}(w)
	}
	watch := time.NewTicker(time.Millisecond)
	deadline := time.After(60 * time.Second) // a slow CI machine still gets there
	appended0 := db.Stats().Log.AppendBytes
loop:
	for {
		select {
		case <-watch.C:
			st := db.Stats()
			if u := st.LogUsedBytes; u > maxUsed.Load() {
				maxUsed.Store(u)
			}
			if st.Log.AppendBytes-appended0 >= 4*st.LogCapacityBytes {
				break loop
			}
		case err := <-errs:
			close(stop)
			t.Fatal(err)
		case <-deadline:
			break loop
		}
	}
	close(stop)
	wg.Wait()
	watch.Stop()
	elapsed := time.Since(start).Seconds()
	st := db.Stats()
	t.Logf("%d commits, %d MiB of redo in %.1fs; max log fill %.0f%%; limiter pages %d, urgent pages %d, log-space waits %d, reason %q",
		commits.Load(), (st.Log.AppendBytes-appended0)>>20, elapsed, 100*float64(maxUsed.Load())/float64(st.LogCapacityBytes),
		st.IO.BackgroundPages, st.IO.UrgentPages, st.LogSpaceWaits, st.IO.Reason)
	if st.Log.AppendBytes-appended0 < 4*st.LogCapacityBytes {
		t.Fatalf("only %d bytes of redo in %.0fs: the load did not run", st.Log.AppendBytes-appended0, elapsed)
	}
	if maxUsed.Load() > st.LogCapacityBytes*7/8+(64<<10) {
		t.Fatalf("log reached %d of %d bytes", maxUsed.Load(), st.LogCapacityBytes)
	}
	if st.IO.UrgentPages == 0 {
		t.Fatalf("the log filled %d times over without an urgent flush: %+v",
			commits.Load(), st.IO)
	}
	if limit := rate*elapsed + float64(burstPages(rate)) + 16; float64(st.IO.BackgroundPages) > limit {
		t.Fatalf("%d pages under a %.0f/s limiter in %.1fs (max %.0f)", st.IO.BackgroundPages, rate, elapsed, limit)
	}
	must(t, db.Close())

	db, err = Open(opts)
	must(t, err)
	defer db.Close()
	ks, err = db.Keyspace("t")
	must(t, err)
	tx := db.Begin()
	defer tx.Rollback()
	for k, v := range model {
		got, ok, err := tx.Get(ks, []byte(fmt.Sprintf("k%06d", k)))
		must(t, err)
		if !ok || !bytes.Equal(got, value(k, v)) {
			t.Fatalf("key %d: got %q, want version %d", k, got, v)
		}
	}
}

func value(k, v int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("%d.%d;", k, v)), 20) }

// burstPages mirrors iogov's burst: 100 ms of the rate, at least 16.
func burstPages(rate float64) int { return max(16, int(rate/10)) }

// TestCommitCheckpointFlushesWhatIsShort: a commit that finds the log 7/8
// full flushes the oldest pages until the log is back to 3/4 full (EN-5),
// not half of it; commits queued behind it look again under the lock and
// flush nothing once there is room (each flushing another half wrote
// nearly every dirty page while all commits waited). The limiter runs at 1
// page/s and the log stays below the urgent fill, so the page cleaner does
// not move the log meanwhile.
func TestCommitCheckpointFlushesWhatIsShort(t *testing.T) {
	db, err := Open(Options{Dir: t.TempDir(), BufferPoolBytes: 64 << 20, LogCapacity: 8 << 20, IOLimiter: "1"})
	must(t, err)
	defer db.Close()
	ks, err := db.CreateKeyspace("t")
	must(t, err)
	capacity := db.log.Capacity()
	for k := 0; db.log.Used() < capacity*7/10; {
		tx := db.Begin()
		for i := 0; i < 20; i, k = i+1, k+1 { // ascending keys: pages dirtied in log order
			must(t, tx.Put(ks, []byte(fmt.Sprintf("k%08d", k)), value(k, 1)))
		}
		must(t, tx.Commit())
	}
	used := db.log.Used()
	need := capacity*7/8 - used + 64<<10
	flushed := db.pool.Stats().PagesFlushed
	must(t, db.makeLogSpace(need))
	after, wrote := db.log.Used(), db.pool.Stats().PagesFlushed-flushed
	t.Logf("log %d -> %d of %d bytes, need %d, %d pages written", used, after, capacity, need, wrote)
	if after+need > capacity*3/4 {
		t.Fatalf("log at %d bytes after the commit's checkpoint: %d more do not fit under 3/4 of %d", after, need, capacity)
	}
	if after+need < capacity*3/4-capacity/16 {
		t.Fatalf("log at %d bytes after the commit's checkpoint: it flushed far past 3/4 of %d (need %d)", after, capacity, need)
	}
	if wrote == 0 {
		t.Fatal("no page written")
	}
	// The next commit in the queue finds room and writes nothing (the
	// cleaner may write one limiter burst meanwhile).
	flushed = db.pool.Stats().PagesFlushed
	must(t, db.makeLogSpace(need))
	if again := db.pool.Stats().PagesFlushed - flushed; again > int64(burstPages(1))+1 {
		t.Fatalf("a commit behind the first wrote %d more pages with room in the log", again)
	}
}
