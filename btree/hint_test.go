package btree

import (
	"bytes"
	"fmt"
	"math/rand"
	"sort"
	"testing"
)

// BT-9: runs of Puts through one Hint per mini-transaction (keys sorted,
// random, with Deletes forgetting it) leave the tree the model says, and
// Touch faults in the leaves of sorted keys without a wrong answer after
// the tree changed under its ReadHint.
func TestHintedRuns(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	e := newEnv(t, 96)
	model := map[string][]byte{}
	var rh ReadHint
	for run := 0; run < 300; run++ {
		keys := make([][]byte, 1+rng.Intn(60))
		for i := range keys {
			keys[i] = randKey(rng, 4000)
		}
		if run%3 != 0 { // most runs ascend, as a commit's write set does
			sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
		}
		e.reclaimLog(t)
		m := e.mtrs.Begin()
		var h Hint
		for _, k := range keys {
			if rng.Intn(8) == 0 {
				h.Forget()
				if _, err := e.tree.Delete(m, e.alloc, k); err != nil {
					t.Fatal(err)
				}
				delete(model, string(k))
				continue
			}
			v := randVal(rng)
			if err := e.tree.PutHint(m, e.alloc, k, v, &h); err != nil {
				t.Fatal(err)
			}
			model[string(k)] = v
		}
		if _, _, err := m.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys { // Touch after the tree changed: never an error
			if err := e.tree.Touch(e.pool, k, &rh); err != nil {
				t.Fatal(err)
			}
		}
		if run%50 == 0 {
			if n, err := e.tree.Check(e.pool); err != nil || n != len(model) {
				t.Fatalf("run %d: %d entries (model %d), %v", run, n, len(model), err)
			}
		}
	}
	if n, err := e.tree.Check(e.pool); err != nil || n != len(model) {
		t.Fatalf("%d entries (model %d), %v", n, len(model), err)
	}
	for k, v := range model {
		got, ok, err := e.tree.Get(e.pool, []byte(k))
		if err != nil || !ok || !bytes.Equal(got, v) {
			t.Fatalf("get %q: %v %v (%d bytes, want %d)", k, ok, err, len(got), len(v))
		}
	}
	checkScan(t, e, model, rng)
}

// BT-9: a hinted leaf that no longer covers the key is not used.
func TestHintOutsideLeaf(t *testing.T) {
	e := newEnv(t, 96)
	m := e.mtrs.Begin()
	var h Hint
	for i := 0; i < 3000; i++ { // ascending: many leaves, hint kept across them
		if err := e.tree.PutHint(m, e.alloc, []byte(fmt.Sprintf("a%05d", i)), bytes.Repeat([]byte{1}, 40), &h); err != nil {
			t.Fatal(err)
		}
	}
	// Now a key below the hinted (last) leaf.
	if err := e.tree.PutHint(m, e.alloc, []byte("a00000x"), []byte("v"), &h); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, err := e.tree.Check(e.pool); err != nil || n != 3001 {
		t.Fatalf("%d entries, %v", n, err)
	}
}

// BT-9: descending keys keep landing in the leftmost leaf, whose splits
// keep its page: the parents above it change (root and parent splits), so
// a hint kept across a split would insert separators into the wrong node.
func TestHintAcrossSplits(t *testing.T) {
	e := newEnv(t, 1024)
	m := e.mtrs.Begin()
	var h Hint
	pad := bytes.Repeat([]byte{'p'}, 700) // long separators: parents split often
	for i := 6000; i > 0; i-- {
		if err := e.tree.PutHint(m, e.alloc, append([]byte(fmt.Sprintf("d%05d", i)), pad...), []byte("v"), &h); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := m.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, err := e.tree.Check(e.pool); err != nil || n != 6000 {
		t.Fatalf("%d entries, %v", n, err)
	}
}
