package engine

import (
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"strata/mvcc"
)

// TestSnapshotReadsMatchModel (EN-8, mvcc MV-1..5): writers commit random
// changes while readers open snapshots, read keys and ranges in both
// directions and make writes of their own; every read equals a model of
// the database taken when the snapshot opened, plus the reader's own
// writes. Commits and snapshot openings are ordered by one mutex so the
// model knows what each snapshot must see; everything else (applying,
// reading, collecting versions) runs concurrently.
func TestSnapshotReadsMatchModel(t *testing.T) {
	db, err := Open(Options{Dir: t.TempDir(), BufferPoolBytes: 2 << 20, LogCapacity: 32 << 20, AsyncCommit: true,
		LockWaitTimeout: 200 * time.Millisecond})
	must(t, err)
	defer db.Close()
	ks, err := db.CreateKeyspace("t")
	must(t, err)
	key := func(i int) string { return fmt.Sprintf("k%03d", i) }

	var mu sync.Mutex
	model := map[string]string{}
	stop := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	var commits int64
	var reads atomic.Int64
	errc := make(chan error, 16)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for n := 0; time.Now().Before(stop); n++ {
				tx := db.Begin()
				changes := map[string]*string{}
				ok := true
				for i := 0; i < 1+rng.Intn(6); i++ {
					k := key(rng.Intn(120))
					if rng.Intn(4) == 0 {
						if err := tx.Delete(ks, []byte(k)); err != nil {
							ok = false
							break
						}
						changes[k] = nil
					} else {
						v := fmt.Sprintf("v%d-%d-%d", seed, n, i)
						if err := tx.Put(ks, []byte(k), []byte(v)); err != nil {
							ok = false
							break
						}
						changes[k] = &v
					}
				}
				if !ok {
					tx.Rollback()
					continue
				}
				mu.Lock()
				if err := tx.Commit(); err != nil {
					mu.Unlock()
					errc <- err
					return
				}
				for k, v := range changes {
					if v == nil {
						delete(model, k)
					} else {
						model[k] = *v
					}
				}
				commits++
				mu.Unlock()
			}
		}(int64(w))
	}
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(100 + seed))
			for time.Now().Before(stop) {
				mu.Lock()
				tx := db.Begin()
				tx.SetSnapshot()
				want := make(map[string]string, len(model))
				for k, v := range model {
					want[k] = v
				}
				mu.Unlock()
				for step := 0; step < 20; step++ {
					time.Sleep(time.Duration(rng.Intn(300)) * time.Microsecond) // let commits land
					switch rng.Intn(4) {
					case 0: // own write (no commit)
						k := key(150 + rng.Intn(20))
						if rng.Intn(2) == 0 {
							v := fmt.Sprint("own", step)
							if tx.Put(ks, []byte(k), []byte(v)) == nil {
								want[k] = v
							}
						} else if tx.Delete(ks, []byte(k)) == nil {
							delete(want, k)
						}
					case 1:
						k := key(rng.Intn(170))
						v, found, err := tx.Get(ks, []byte(k))
						reads.Add(1)
						if err != nil {
							errc <- err
							return
						}
						if w, ok := want[k]; found != ok || string(v) != w {
							errc <- fmt.Errorf("get %s at snapshot: %q %v, want %q %v", k, v, found, w, ok)
							return
						}
					default:
						lo, hi := rng.Intn(170), rng.Intn(170)
						if lo > hi {
							lo, hi = hi, lo
						}
						reverse := rng.Intn(2) == 0
						var exp []string
						for k, v := range want {
							if k >= key(lo) && k < key(hi) {
								exp = append(exp, k+"="+v)
							}
						}
						sort.Strings(exp)
						if reverse {
							for i, j := 0, len(exp)-1; i < j; i, j = i+1, j-1 {
								exp[i], exp[j] = exp[j], exp[i]
							}
						}
						it := tx.Scan(ks, []byte(key(lo)), []byte(key(hi)), reverse)
						var got []string
						for it.Next() {
							got = append(got, string(it.Key())+"="+string(it.Value()))
						}
						err := it.Err()
						it.Close()
						reads.Add(1)
						if err != nil {
							errc <- err
							return
						}
						if fmt.Sprint(got) != fmt.Sprint(exp) {
							errc <- fmt.Errorf("scan [%s, %s) reverse=%v at snapshot:\n got %v\nwant %v", key(lo), key(hi), reverse, got, exp)
							return
						}
					}
				}
				tx.Rollback()
			}
		}(int64(r))
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	st := db.Versions()
	t.Logf("%d commits, %d snapshot reads; version store peak %d bytes, now %d with %d snapshots open", commits, reads.Load(), st.Peak, st.Bytes, st.Snapshots)
	if commits < 50 || reads.Load() < 50 {
		t.Fatalf("too little happened: %d commits, %d reads", commits, reads.Load())
	}
	if st.Snapshots != 0 || st.Bytes != 0 {
		t.Fatalf("after every snapshot closed: %+v (versions must be collected)", st)
	}
}

// MV-5: past the version budget a snapshot that needs dropped history
// fails with ErrSnapshotTooOld; one that does not keeps reading; and a
// keyspace created after a snapshot cannot be read through it.
func TestSnapshotTooOld(t *testing.T) {
	db, err := Open(Options{Dir: t.TempDir(), BufferPoolBytes: 2 << 20, LogCapacity: 32 << 20, AsyncCommit: true, VersionBudget: 64 << 10})
	must(t, err)
	defer db.Close()
	a, _ := db.CreateKeyspace("a")
	b, _ := db.CreateKeyspace("b")
	put := func(ks *Keyspace, k, v string) {
		tx := db.Begin()
		must(t, tx.Put(ks, []byte(k), []byte(v)))
		must(t, tx.Commit())
	}
	put(a, "x", "1")
	put(b, "y", "1")
	old := db.Begin()
	old.SetSnapshot()
	defer old.Rollback()
	for i := 0; i < 2000; i++ { // ~200 KiB of history in a
		put(a, "x", fmt.Sprintf("%0100d", i))
	}
	if _, _, err := old.Get(a, []byte("x")); !errors.Is(err, mvcc.ErrSnapshotTooOld) {
		t.Fatalf("read of dropped history: %v", err)
	}
	if v, _, err := old.Get(b, []byte("y")); err != nil || string(v) != "1" {
		t.Fatalf("read needing no history: %q %v", v, err)
	}
	c, _ := db.CreateKeyspace("c")
	if _, _, err := old.Get(c, []byte("z")); !errors.Is(err, ErrSnapshotTooOld) {
		t.Fatalf("keyspace created after the snapshot: %v", err)
	}
}

// TestGetLockedScanned: a locking read of a scanned key uses the scan's
// value only while no commit has been published since the scan began;
// after one it reads the latest version, and own writes always win.
func TestGetLockedScanned(t *testing.T) {
	db, err := Open(Options{Dir: t.TempDir(), BufferPoolBytes: 2 << 20, LogCapacity: 32 << 20, AsyncCommit: true})
	must(t, err)
	defer db.Close()
	ks, err := db.CreateKeyspace("t")
	must(t, err)
	w := db.Begin()
	must(t, w.Put(ks, []byte("a"), []byte("1")))
	must(t, w.Put(ks, []byte("b"), []byte("1")))
	must(t, w.Commit())

	tx := db.Begin()
	defer tx.Rollback()
	clock := tx.CommitClock()
	// No commit since: the scanned value (here a marker) is used.
	v, ok, err := tx.GetLockedScanned(ks, []byte("a"), false, clock, []byte("scanned"))
	must(t, err)
	if !ok || string(v) != "scanned" {
		t.Fatalf("quiet: got %q %v, want the scanned value", v, ok)
	}
	// Another transaction commits a change of b: the clock moved, so the
	// latest version is read.
	o := db.Begin()
	must(t, o.Put(ks, []byte("b"), []byte("2")))
	must(t, o.Commit())
	v, ok, err = tx.GetLockedScanned(ks, []byte("b"), false, clock, []byte("1"))
	must(t, err)
	if !ok || string(v) != "2" {
		t.Fatalf("after a commit: got %q %v, want 2", v, ok)
	}
	// Own writes come first whatever the clock.
	must(t, tx.Delete(ks, []byte("a")))
	if _, ok, err = tx.GetLockedScanned(ks, []byte("a"), true, tx.CommitClock(), []byte("1")); err != nil || ok {
		t.Fatalf("own delete: found %v, %v", ok, err)
	}
}
