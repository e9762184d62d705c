package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"strata/bufpool"
	"strata/mtr"
	"strata/page"
	"strata/pagestore"
	"strata/volume"
	"strata/wal"
)

// testAlloc hands out fresh pages and recycles freed ones (not logged: the
// tests here do not crash).
type testAlloc struct {
	next page.ID
	free []page.ID
	live map[page.ID]bool
}

func (a *testAlloc) Alloc(t *mtr.Mtr) (page.ID, []byte, error) {
	var id page.ID
	if n := len(a.free); n > 0 {
		id = a.free[n-1]
		a.free = a.free[:n-1]
	} else {
		id = a.next
		a.next++
	}
	pg, err := t.Init(id) // as the engine's (ALLOC-2): never read
	a.live[id] = true
	return id, pg, err
}

// Free leaves the page as it is, as the engine's allocator does (ALLOC-1).
func (a *testAlloc) Free(t *mtr.Mtr, id page.ID) error {
	if !a.live[id] {
		panic(fmt.Sprintf("double free of page %d", id))
	}
	delete(a.live, id)
	a.free = append(a.free, id)
	return nil
}

type env struct {
	log   *wal.Log
	pool  *bufpool.Pool
	mtrs  *mtr.Manager
	alloc *testAlloc
	tree  Tree
}

func newEnv(t testing.TB, poolPages int) *env {
	t.Helper()
	logVol := volume.NewMem("log", volume.MemOptions{})
	dataVol := volume.NewMem("data", volume.MemOptions{})
	lg, err := wal.Open(logVol, wal.Options{Capacity: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lg.Replay(func(page.LSN, byte, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	store, err := pagestore.New(dataVol, pagestore.Doublewrite, false)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := bufpool.New(store, nil, lg, bufpool.Options{Bytes: int64(poolPages) * page.Size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close(); lg.Close() })
	e := &env{log: lg, pool: pool, mtrs: mtr.NewManager(pool, lg), alloc: &testAlloc{next: pagestore.FirstDataPage, live: map[page.ID]bool{}}}
	m := e.mtrs.Begin()
	if e.tree, err = Create(m, e.alloc, 7); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Commit(); err != nil {
		t.Fatal(err)
	}
	return e
}

// reclaimLog checkpoints when the log is half full (the engine does this
// for real; these tests drive the tree directly).
func (e *env) reclaimLog(t testing.TB) {
	if e.log.Used() < e.log.Capacity()/2 {
		return
	}
	end := e.log.End()
	if err := e.log.WaitDurable(end); err != nil {
		t.Fatal(err)
	}
	if err := e.pool.FlushAll(); err != nil {
		t.Fatal(err)
	}
	if err := e.log.SetCheckpoint(end); err != nil {
		t.Fatal(err)
	}
}

func (e *env) put(t testing.TB, k, v []byte) {
	e.reclaimLog(t)
	m := e.mtrs.Begin()
	if err := e.tree.Put(m, e.alloc, k, v); err != nil {
		m.Abort()
		t.Fatal(err)
	}
	if _, _, err := m.Commit(); err != nil {
		t.Fatal(err)
	}
}

func (e *env) del(t testing.TB, k []byte) bool {
	m := e.mtrs.Begin()
	ok, err := e.tree.Delete(m, e.alloc, k)
	if err != nil {
		m.Abort()
		t.Fatal(err)
	}
	if _, _, err := m.Commit(); err != nil {
		t.Fatal(err)
	}
	return ok
}

func randKey(rng *rand.Rand, space int) []byte {
	n := rng.Intn(space)
	// Variable length keys sharing prefixes, so that separators vary.
	k := []byte(fmt.Sprintf("k%06d", n))
	return append(k, bytes.Repeat([]byte{byte(n)}, n%40)...)
}

func randVal(rng *rand.Rand) []byte {
	size := rng.Intn(300)
	switch rng.Intn(40) {
	case 0, 1:
		size = 1000 + rng.Intn(1900)
	case 2: // overflow chains of one to four pages
		size = 3000 + rng.Intn(60000)
	}
	v := make([]byte, size)
	rng.Read(v)
	return v
}

// TestModel runs random operations against the tree and an in-memory
// ordered map and compares every answer, with a tiny pool so that pages
// are evicted and re-read.
func TestModel(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, time.Now().UnixNano()} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewSource(seed))
			e := newEnv(t, 96)
			model := map[string][]byte{}
			space := 3000
			for i := 0; i < 12000; i++ {
				switch op := rng.Intn(100); {
				case op < 55:
					k, v := randKey(rng, space), randVal(rng)
					e.put(t, k, v)
					model[string(k)] = v
				case op < 80:
					k := randKey(rng, space)
					_, want := model[string(k)]
					if got := e.del(t, k); got != want {
						t.Fatalf("op %d: delete %q = %v, model %v", i, k, got, want)
					}
					delete(model, string(k))
				case op < 95:
					k := randKey(rng, space)
					v, ok, err := e.tree.Get(e.pool, k)
					if err != nil {
						t.Fatal(err)
					}
					mv, mok := model[string(k)]
					if ok != mok || !bytes.Equal(v, mv) {
						t.Fatalf("op %d: get %q = %v,%d bytes; model %v,%d bytes", i, k, ok, len(v), mok, len(mv))
					}
				default:
					checkScan(t, e, model, rng)
				}
				if i%2000 == 0 {
					n, err := e.tree.Check(e.pool)
					if err != nil {
						t.Fatalf("op %d: %v", i, err)
					}
					if n != len(model) {
						t.Fatalf("op %d: tree holds %d entries, model %d", i, n, len(model))
					}
				}
			}
			// Delete everything: merges must bring the tree back to one leaf.
			for k := range model {
				e.del(t, []byte(k))
			}
			if n, err := e.tree.Check(e.pool); err != nil || n != 0 {
				t.Fatalf("after deleting all: %d entries, %v", n, err)
			}
			m := e.mtrs.Begin()
			root, _ := m.Read(e.tree.Root)
			if !node(root).isLeaf() {
				t.Errorf("root is still internal (level %d) after deleting everything", node(root).level())
			}
			m.Abort()
		})
	}
}

func checkScan(t *testing.T, e *env, model map[string][]byte, rng *rand.Rand) {
	t.Helper()
	keys := make([]string, 0, len(model))
	for k := range model {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lo, hi []byte
	if rng.Intn(3) > 0 {
		lo = randKey(rng, 3000)
	}
	if rng.Intn(3) > 0 {
		hi = randKey(rng, 3000)
	}
	reverse := rng.Intn(2) == 0
	var want []string
	for _, k := range keys {
		if (lo == nil || k >= string(lo)) && (hi == nil || k < string(hi)) {
			want = append(want, k)
		}
	}
	if reverse {
		for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
			want[i], want[j] = want[j], want[i]
		}
	}
	// Iterators are recycled (Close): abandon one part-way first, so the
	// checked scan may reuse its buffers.
	if rng.Intn(2) == 0 {
		ab := e.tree.Scan(e.pool, lo, hi, !reverse)
		for i := rng.Intn(300); i > 0 && ab.Next(); i-- {
		}
		ab.Close()
	}
	it := e.tree.Scan(e.pool, lo, hi, reverse)
	defer it.Close()
	var got []string
	for it.Next() {
		got = append(got, string(it.Key()))
		if !bytes.Equal(it.Value(), model[string(it.Key())]) {
			t.Fatalf("scan: value of %q differs", it.Key())
		}
	}
	if it.Err() != nil {
		t.Fatal(it.Err())
	}
	if len(got) != len(want) {
		t.Fatalf("scan [%q,%q) reverse=%v: %d keys, want %d", lo, hi, reverse, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("scan [%q,%q) reverse=%v: key %d is %q, want %q", lo, hi, reverse, i, got[i], want[i])
		}
	}
}

// TestConcurrentReaders runs readers against a writer that splits and
// merges constantly. Keys "stable-*" are never touched by the writer, so
// every reader must always find them, and scans must be ordered.
func TestConcurrentReaders(t *testing.T) {
	e := newEnv(t, 128)
	const stable = 500
	for i := 0; i < stable; i++ {
		e.put(t, []byte(fmt.Sprintf("stable-%05d", i)), []byte(fmt.Sprint(i)))
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(r)))
			for !stop.Load() {
				i := rng.Intn(stable)
				v, ok, err := e.tree.Get(e.pool, []byte(fmt.Sprintf("stable-%05d", i)))
				if err != nil || !ok || string(v) != fmt.Sprint(i) {
					errs <- fmt.Errorf("reader %d: stable key %d: %v %v %q", r, i, ok, err, v)
					return
				}
				it := e.tree.Scan(e.pool, nil, nil, r%2 == 0)
				var prev []byte
				n := 0
				for it.Next() {
					if prev != nil && (bytes.Compare(prev, it.Key()) >= 0) != (r%2 == 0) {
						errs <- fmt.Errorf("reader %d: scan out of order: %q then %q", r, prev, it.Key())
						return
					}
					if bytes.HasPrefix(it.Key(), []byte("stable-")) {
						n++
					}
					prev = append(prev[:0], it.Key()...)
				}
				if it.Err() != nil || n != stable {
					errs <- fmt.Errorf("reader %d: scan saw %d stable keys, err %v", r, n, it.Err())
					return
				}
				it.Close()
			}
		}(r)
	}
	rng := rand.New(rand.NewSource(99))
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		k := []byte(fmt.Sprintf("churn-%05d", rng.Intn(4000)))
		if rng.Intn(3) == 0 {
			e.del(t, k)
		} else {
			e.put(t, k, randVal(rng))
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if _, err := e.tree.Check(e.pool); err != nil {
		t.Fatal(err)
	}
}

func TestTooLarge(t *testing.T) {
	e := newEnv(t, 64)
	m := e.mtrs.Begin()
	defer m.Abort()
	if err := e.tree.Put(m, e.alloc, make([]byte, MaxKey+1), nil); err == nil {
		t.Fatal("oversized key accepted")
	}
	if err := e.tree.Put(m, e.alloc, []byte("k"), make([]byte, MaxValue+1)); err == nil {
		t.Fatal("oversized value accepted")
	}
}

func BenchmarkGetHit(b *testing.B) {
	e := newEnv(b, 4096)
	for i := 0; i < 10000; i++ {
		e.put(b, []byte(fmt.Sprintf("key%08d", i)), make([]byte, 100))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, _ := e.tree.Get(e.pool, []byte(fmt.Sprintf("key%08d", i%10000))); !ok {
			b.Fatal("missing")
		}
	}
}

// testDropper commits a mini-transaction per batch (btree.Dropper).
type testDropper struct {
	e   *env
	cur *mtr.Mtr
}

func (d *testDropper) Next() (*mtr.Mtr, error) {
	if d.cur != nil {
		if _, _, err := d.cur.Commit(); err != nil {
			return nil, err
		}
	}
	d.cur = d.e.mtrs.Begin()
	return d.cur, nil
}

// TestDropInline: a tree without overflow values is dropped whole (every
// page back to the allocator exactly once) without reading its leaves,
// where Drop reads every one.
func TestDropInline(t *testing.T) {
	for _, inline := range []bool{false, true} {
		e := newEnv(t, 256)
		for i := 0; i < 30000; i++ { // long keys: parents of ~70 leaves
			e.put(t, []byte(fmt.Sprintf("%s%08d", bytes.Repeat([]byte{'k'}, 200), i)), bytes.Repeat([]byte{'v'}, 100))
		}
		pages := len(e.alloc.live)
		if err := e.pool.FlushAll(); err != nil {
			t.Fatal(err)
		}
		before := e.pool.Stats().Misses
		d := &testDropper{e: e}
		drop := e.tree.Drop
		if inline {
			drop = e.tree.DropInline
		}
		m, err := drop(d, e.alloc, 200)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := m.Commit(); err != nil {
			t.Fatal(err)
		}
		misses := e.pool.Stats().Misses - before
		if len(e.alloc.live) != 0 {
			t.Fatalf("inline=%v: %d of %d pages not freed", inline, len(e.alloc.live), pages)
		}
		if inline && misses > int64(pages)/8 {
			t.Fatalf("DropInline read %d pages of %d", misses, pages)
		}
		if !inline && misses < int64(pages)/2 {
			t.Fatalf("Drop read only %d pages of %d (the test no longer evicts the leaves)", misses, pages)
		}
		t.Logf("inline=%v: %d pages, %d read", inline, pages, misses)
	}
}

// BenchmarkGetIntKeys: point reads of 250,000 integer-like keys (a
// marker byte and 8 big-endian bytes, as the SQL layer's primary keys),
// three levels.
func BenchmarkGetIntKeys(b *testing.B) {
	e := newEnv(b, 8192)
	const n = 250000
	keys := make([][]byte, n)
	for i := range keys {
		k := make([]byte, 9)
		k[0] = 0x80
		binary.BigEndian.PutUint64(k[1:], uint64(i)*7)
		keys[i] = k
	}
	for lo := 0; lo < n; lo += 5000 {
		m := e.mtrs.Begin()
		for _, k := range keys[lo:min(lo+5000, n)] {
			if err := e.tree.Put(m, e.alloc, k, make([]byte, 40)); err != nil {
				b.Fatal(err)
			}
		}
		if _, _, err := m.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok, _ := e.tree.Get(e.pool, keys[(i*7919)%n]); !ok {
			b.Fatal("missing")
		}
	}
}

// TestReadAheadStaysInRange (BT-8): a long scan asks for leaves ahead, and a
// bounded scan, in either direction, asks only for leaves it then reads.
func TestReadAheadStaysInRange(t *testing.T) {
	e := newEnv(t, 4096)
	const n = 20000
	for i := 0; i < n; i++ {
		e.put(t, ik(i), bytes.Repeat([]byte{'v'}, 100))
	}
	var fences [][]byte // the leaves' low fences, from the full scan
	scan := func(lo, hi []byte, reverse bool) (asked, read map[page.ID]bool, rows int) {
		asked, read = map[page.ID]bool{}, map[page.ID]bool{}
		scanTrace = func(ahead []page.ID, leaf page.ID, low []byte) {
			for _, id := range ahead {
				asked[id] = true
			}
			if ahead == nil {
				read[leaf] = true
				if lo == nil && hi == nil && low != nil {
					fences = append(fences, append([]byte(nil), low...))
				}
			}
		}
		defer func() { scanTrace = nil }()
		it := e.tree.Scan(e.pool, lo, hi, reverse)
		defer it.Close()
		for it.Next() {
			rows++
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		return asked, read, rows
	}
	asked, read, rows := scan(nil, nil, false)
	if rows != n || len(asked) < len(read)/2 || len(fences) < 40 {
		t.Fatalf("full scan: %d rows, %d leaves read, %d asked ahead, %d fences", rows, len(read), len(asked), len(fences))
	}
	// Ranges ending (or, reversed, starting) exactly on a leaf's low fence,
	// which is the parent's separator: that leaf holds nothing of the range.
	at := func(f []byte) int { return int(binary.BigEndian.Uint64(f)) }
	ranges := [][2]int{{1000, 1300}, {5000, 5100}, {7777, 9999}, {n - 150, n},
		{at(fences[10]) - 120, at(fences[12])}, {at(fences[20]), at(fences[23]) + 5}, {at(fences[30]), at(fences[31])}}
	for _, reverse := range []bool{false, true} {
		for _, r := range ranges {
			hi := ik(r[1])
			if r[1] == n {
				hi = nil
			}
			asked, read, rows := scan(ik(r[0]), hi, reverse)
			if rows != r[1]-r[0] {
				t.Fatalf("scan [%d, %d) reverse=%v: %d rows", r[0], r[1], reverse, rows)
			}
			for id := range asked {
				if !read[id] {
					t.Errorf("scan [%d, %d) reverse=%v asked ahead for leaf %d it never read (%d asked, %d read)",
						r[0], r[1], reverse, id, len(asked), len(read))
				}
			}
		}
	}
}

func ik(i int) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, uint64(i))
	return k
}
