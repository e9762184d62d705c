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
