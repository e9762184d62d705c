package engine

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"strata/volume"
)

// TestBPEModel runs a random read/update workload on a pool of 64 pages
// with a BPE of 256 pages over a data set of ~400 pages, from 4 goroutines
// (each owns the keys = w mod 4, interleaved on shared pages), checking
// every read against a model: no stale page is ever served, through
// hits, admissions, invalidations and BPE evictions; then a clean restart
// (warm BPE) and a crash (cold BPE) read everything back.
func TestBPEModel(t *testing.T) {
	dir := t.TempDir()
	bpePath := filepath.Join(dir, "bpe", "cache")
	open := func() *DB {
		db, err := Open(Options{Dir: dir, BufferPoolBytes: 1 << 20, LogCapacity: 32 << 20, DisableDirectIO: true,
			BPEPath: bpePath, BPEBytes: 4 << 20})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	ks, err := db.CreateKeyspace("t")
	if err != nil {
		t.Fatal(err)
	}
	const keys = 12000
	key := func(i int) []byte { return []byte(fmt.Sprintf("key%06d", i)) }
	val := func(i, v int) []byte { return []byte(fmt.Sprintf("%06d-%06d-%0300d", i, v, v)) }
	model := make([]int, keys)
	for i := 0; i < keys; i += 500 {
		tx := db.Begin()
		for j := i; j < i+500; j++ {
			tx.Put(ks, key(j), val(j, 0))
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			for n := 0; n < 4000; n++ {
				i := w + 4*rng.Intn(keys/4)
				tx := db.Begin()
				v, ok, err := tx.Get(ks, key(i))
				if err != nil || !ok || string(v) != string(val(i, model[i])) {
					tx.Rollback()
					errs <- fmt.Errorf("key %d: got %q (found %v, %v), want version %d", i, v, ok, err, model[i])
					return
				}
				if rng.Intn(4) == 0 {
					tx.Put(ks, key(i), val(i, model[i]+1))
					if err := tx.Commit(); err != nil {
						errs <- err
						return
					}
					model[i]++
				} else {
					tx.Rollback()
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := db.Stats()
	t.Logf("pool hits %d misses %d; bpe hits %d misses %d admissions %d evictions %d invalidations %d rejections %d, index %d B",
		st.Pool.Hits, st.Pool.Misses, st.BPE.Hits, st.BPE.Misses, st.BPE.Admissions, st.BPE.Evictions,
		st.BPE.Invalidations, st.BPE.Rejections, st.BPE.IndexBytes)
	if st.BPE.Hits == 0 || st.BPE.Evictions == 0 || st.BPE.Invalidations == 0 {
		t.Fatalf("workload did not exercise the BPE: %+v", st.BPE)
	}
	check := func(db *DB, what string) {
		tx := db.Begin()
		defer tx.Rollback()
		for i := 0; i < keys; i++ {
			v, ok, err := tx.Get(ks2(t, db), key(i))
			if err != nil || !ok || string(v) != string(val(i, model[i])) {
				t.Fatalf("%s: key %d: %q %v %v, want version %d", what, i, v, ok, err, model[i])
			}
		}
	}
	check(db, "before restart")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open()
	if used := db.Stats().BPE.Used; used == 0 {
		t.Fatal("clean restart: BPE cold")
	}
	check(db, "after a clean restart (warm BPE)")
	if db.Stats().BPE.Hits == 0 {
		t.Fatal("warm BPE served nothing")
	}
	db.Abandon() // crash: the index is not saved
	db = open()
	if used := db.Stats().BPE.Used; used != 0 {
		t.Fatalf("after a crash the BPE must start cold, holds %d pages", used)
	}
	check(db, "after a crash")
	db.Close()
}

func ks2(t *testing.T, db *DB) *Keyspace {
	ks, err := db.Keyspace("t")
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// TestBPEFileTruncated: the BPE file shrinking under the engine (deleted
// and recreated, truncated, disk full) makes reads fail or come back
// short; the BPE disables itself and every read stays right (BPE-5).
func TestBPEFileTruncated(t *testing.T) {
	dir := t.TempDir()
	bpePath := filepath.Join(dir, "bpe.cache")
	db, err := Open(Options{Dir: dir, BufferPoolBytes: 1 << 20, LogCapacity: 16 << 20, DisableDirectIO: true,
		BPEPath: bpePath, BPEBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ks, _ := db.CreateKeyspace("t")
	key := func(i int) []byte { return []byte(fmt.Sprintf("k%06d", i)) }
	for i := 0; i < 6000; i++ {
		tx := db.Begin()
		tx.Put(ks, key(i), make([]byte, 200))
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	scan := func() {
		tx := db.Begin()
		defer tx.Rollback()
		for i := 0; i < 6000; i += 7 {
			if v, ok, err := tx.Get(ks, key(i)); err != nil || !ok || len(v) != 200 {
				t.Fatalf("key %d: %v %v", i, ok, err)
			}
		}
	}
	scan()
	scan()
	if db.Stats().BPE.Hits == 0 {
		t.Fatal("no BPE hits before the truncation")
	}
	if err := os.Truncate(bpePath, 0); err != nil {
		t.Fatal(err)
	}
	scan()
	scan()
	st := db.Stats().BPE
	if st.Enabled || st.Failures == 0 {
		t.Fatalf("BPE still enabled after its file was truncated: %+v", st)
	}
}

// TestBPEFileDeleted: deleting the BPE file under the engine disables the
// BPE (BPE-5) and reads stay right.
func TestBPEFileDeleted(t *testing.T) {
	dir := t.TempDir()
	bpePath := filepath.Join(dir, "bpe.cache")
	db, err := Open(Options{Dir: dir, BufferPoolBytes: 1 << 20, LogCapacity: 16 << 20, DisableDirectIO: true,
		BPEPath: bpePath, BPEBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.Stats().BPE.Enabled {
		t.Fatal("BPE off")
	}
	os.Remove(bpePath)
	for i := 0; i < 100 && db.Stats().BPE.Enabled; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if st := db.Stats().BPE; st.Enabled || st.Failures == 0 {
		t.Fatalf("BPE still enabled after its file was deleted: %+v", st)
	}
}

// TestBPEResizeOnline grows, shrinks and disables the BPE under a reader.
func TestBPEResizeOnline(t *testing.T) {
	db, err := Open(Options{Dir: t.TempDir(), BufferPoolBytes: 1 << 20, LogCapacity: 16 << 20, DisableDirectIO: true,
		BPEVolume: volume.NewMem("bpe", volume.MemOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ks, _ := db.CreateKeyspace("t")
	for i := 0; i < 6000; i += 500 {
		tx := db.Begin()
		for j := i; j < i+500; j++ {
			tx.Put(ks, []byte(fmt.Sprintf("k%06d", j)), []byte(fmt.Sprintf("%0200d", j)))
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range []int64{4 << 20, 1 << 20, 0, 8 << 20} {
		if err := db.ResizeBPE(size); err != nil {
			t.Fatal(err)
		}
		// Admission is asynchronous: a starved writer queues or refuses
		// pages, so read passes repeat (each evicts and admits again) until
		// the BPE serves one, up to a bound.
		hits := db.Stats().BPE.Hits
		for pass := 0; pass < 50; pass++ {
			tx := db.Begin()
			for i := 0; i < 6000; i += 3 {
				v, ok, err := tx.Get(ks, []byte(fmt.Sprintf("k%06d", i)))
				if err != nil || !ok || string(v) != fmt.Sprintf("%0200d", i) {
					t.Fatalf("size %d key %d: %v %v", size, i, ok, err)
				}
			}
			tx.Rollback()
			if size == 0 || db.Stats().BPE.Hits > hits {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if st := db.Stats().BPE; st.Slots != size/16384 {
			t.Fatalf("size %d: %d slots", size, st.Slots)
		}
	}
	if db.Stats().BPE.Hits == 0 {
		t.Fatal("no hits")
	}
}
