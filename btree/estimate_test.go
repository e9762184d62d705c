package btree

import (
	"fmt"
	"testing"
)

// TestEstimateEntries: exact on a single leaf, within 35% on a two-level
// tree (sequential keys, as an auto-increment primary key fills it).
func TestEstimateEntries(t *testing.T) {
	e := newEnv(t, 4096)
	for i := 0; i < 40; i++ {
		e.put(t, []byte(fmt.Sprintf("k%08d", i)), []byte("value"))
	}
	if n, err := e.tree.EstimateEntries(e.pool, 8); err != nil || n != 40 {
		t.Fatalf("single leaf: estimate %d, %v; want 40", n, err)
	}
	const total = 60000
	for i := 40; i < total; i++ {
		e.put(t, []byte(fmt.Sprintf("k%08d", i)), make([]byte, 60))
	}
	n, err := e.tree.EstimateEntries(e.pool, 32)
	if err != nil {
		t.Fatal(err)
	}
	if n < total*65/100 || n > total*135/100 {
		t.Fatalf("estimate %d for %d entries", n, total)
	}
	t.Logf("estimate %d for %d entries", n, total)
}

// TestAscendingInsertsFillLeaves: keys inserted in ascending order leave
// full leaves behind (BT-6), not half-empty ones; random order still
// splits in half.
func TestAscendingInsertsFillLeaves(t *testing.T) {
	e := newEnv(t, 4096)
	const n, valLen = 20000, 100
	for i := 0; i < n; i++ {
		e.put(t, []byte(fmt.Sprintf("k%08d", i)), make([]byte, valLen))
	}
	entryBytes := 4 + 9 + valLen + 2 // cell header, key, value, slot
	ideal := n * entryBytes / (16384 - 200)
	pages := len(e.alloc.live)
	t.Logf("%d ascending entries: %d pages, %d if every page were full", n, pages, ideal)
	if pages > ideal*115/100 {
		t.Fatalf("%d pages for %d ascending entries; full pages would take %d", pages, n, ideal)
	}
	it := e.tree.Scan(e.pool, nil, nil, false)
	got := 0
	for it.Next() {
		if want := fmt.Sprintf("k%08d", got); string(it.Key()) != want {
			t.Fatalf("entry %d: key %q, want %q", got, it.Key(), want)
		}
		got++
	}
	if it.Err() != nil || got != n {
		t.Fatalf("scan: %d entries, %v", got, it.Err())
	}
}
