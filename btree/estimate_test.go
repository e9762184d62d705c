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
