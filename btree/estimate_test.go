package btree

import (
	"bytes"
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
// full leaves behind (BT-6), not half-empty ones, and their splits log
// little more than the entries (a full leaf rebuilt for its new fence was
// logged whole: 203 bytes of redo per 109-byte entry, 173 now); random
// order still splits in half.
func TestAscendingInsertsFillLeaves(t *testing.T) {
	e := newEnv(t, 4096)
	const n, valLen = 20000, 100
	redo := int64(0)
	for i := 0; i < n; i++ {
		before := e.log.End()
		e.put(t, []byte(fmt.Sprintf("k%08d", i)), bytes.Repeat([]byte{byte(i)}, valLen))
		redo += int64(e.log.End() - before)
	}
	// An entry's own redo: its cell and slot, the node header's counts,
	// the ranges' and the record's framing (~65 bytes); the splits (one
	// per ~140 entries) add a new leaf's zero fill and bytes and a fence.
	if perEntry := float64(redo) / n; perEntry > 9+valLen+80 {
		t.Errorf("%.0f bytes of redo per ascending entry of %d bytes: the splits log whole pages", perEntry, 9+valLen)
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

// TestPositionAndSample: Position places a key at its share of the key
// order (within a few percent on 60,000 sequential keys); two keys in one
// leaf get that leaf and their slots; SampleLeaf hands over one leaf's
// keys in order.
func TestPositionAndSample(t *testing.T) {
	e := newEnv(t, 4096)
	const total = 60000
	for i := 0; i < total; i++ {
		e.put(t, []byte(fmt.Sprintf("k%08d", i)), make([]byte, 40))
	}
	for _, i := range []int{0, 5000, 30000, 59999} {
		f, _, _, err := e.tree.Position(e.pool, []byte(fmt.Sprintf("k%08d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if want := float64(i) / total; f < want-0.03 || f > want+0.03 {
			t.Errorf("position of key %d: %.4f, want about %.4f", i, f, want)
		}
	}
	if f, _, _, _ := e.tree.Position(e.pool, nil); f != 1 {
		t.Errorf("position of +infinity: %v", f)
	}
	_, l1, s1, _ := e.tree.Position(e.pool, []byte(fmt.Sprintf("k%08d", 100)))
	_, l2, s2, _ := e.tree.Position(e.pool, []byte(fmt.Sprintf("k%08d", 103)))
	if l1 == l2 && s2-s1 != 3 {
		t.Errorf("slots %d and %d in one leaf for keys 3 apart", s1, s2)
	}
	for i := 0; i < 5; i++ {
		var keys []string
		if err := e.tree.SampleLeaf(e.pool, func(k []byte) { keys = append(keys, string(k)) }); err != nil {
			t.Fatal(err)
		}
		if len(keys) == 0 {
			t.Fatal("empty sampled leaf")
		}
		for j := 1; j < len(keys); j++ {
			if keys[j-1] >= keys[j] {
				t.Fatalf("sampled keys out of order: %q, %q", keys[j-1], keys[j])
			}
		}
	}
}
