package txn

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// wsModel is the write set's reference: the current value of each
// "keyspace/key", and per journal position the change it made.
type wsModel struct {
	cur     map[string]string
	changes []string // "keyspace/key=value" after change i
}

func (m *wsModel) rangeOf(ks uint32, lo, hi []byte) []string {
	var keys []string
	p := fmt.Sprint(ks) + "/"
	for mk := range m.cur {
		if k := mk[len(p):]; strings.HasPrefix(mk, p) && (lo == nil || k >= string(lo)) && (hi == nil || k < string(hi)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + m.cur[p+k]
	}
	return out
}

// TestWriteSetOrderModel: keys of every length around the 8-byte prefix
// the levels compare first, made of 0x00, 0x01 and 0xFF bytes (a short key
// and its extension by zeros share a prefix), keep bytes.Compare order in
// Ascend and in Range both ways with random bounds, taken while the write
// set grows (so that several sorted levels and an unsorted tail meet,
// WS-2), through savepoint rollbacks that remove keys and bring them back
// (WS-3); Get and AscendChanges agree with the model throughout.
func TestWriteSetOrderModel(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	alphabet := []byte{0x00, 0x01, 0xFF}
	key := func() []byte {
		k := make([]byte, rng.Intn(13))
		for i := range k {
			k[i] = alphabet[rng.Intn(3)]
		}
		return k
	}
	w := NewWriteSet()
	m := &wsModel{cur: map[string]string{}}
	check := func(op int) {
		ks := uint32(rng.Intn(2))
		var lo, hi []byte
		if rng.Intn(2) == 0 {
			lo = key()
		}
		if rng.Intn(2) == 0 {
			hi = key()
		}
		want := m.rangeOf(ks, lo, hi)
		for _, rev := range []bool{false, true} {
			var got []string
			w.Range(ks, lo, hi, rev, func(c Write) bool {
				got = append(got, string(c.Key)+"="+string(c.Value))
				return true
			})
			if rev {
				slices.Reverse(got)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("op %d: keyspace %d [%x, %x) reverse=%v: got %d entries, want %d", op, ks, lo, hi, rev, len(got), len(want))
			}
		}
	}
	for op := 0; op < 20000; op++ {
		k := key()
		ks := uint32(op % 2)
		mk := fmt.Sprint(ks) + "/" + string(k)
		sp, saved, savedChanges := w.Savepoint(), maps.Clone(m.cur), len(m.changes)
		v := fmt.Sprint(op)
		w.Put(Write{Keyspace: ks, Key: k, Value: []byte(v)})
		m.cur[mk] = v
		m.changes = append(m.changes, mk+"="+v)
		if rng.Intn(6) == 0 {
			w.RollbackTo(sp)
			m.cur, m.changes = saved, m.changes[:savedChanges]
		}
		if g, ok := w.Get(ks, k); ok != (m.cur[mk] != "") || (ok && string(g.Value) != m.cur[mk]) {
			t.Fatalf("op %d: get %q = %q %v", op, k, g.Value, ok)
		}
		if w.Len() != len(m.cur) {
			t.Fatalf("op %d: Len %d, model %d", op, w.Len(), len(m.cur))
		}
		if rng.Intn(50) == 0 {
			check(op)
		}
	}
	check(-1)
	// AscendChanges: every change of the journal once, with the value right
	// after it, in (keyspace, key) order, each key's newest first.
	got2 := make([]string, w.Savepoint())
	var prevKs uint32
	var prevKey []byte
	prevSeq, n := -1, 0
	w.AscendChanges(func(i int, c Write) bool {
		if n > 0 {
			switch d := bytes.Compare(prevKey, c.Key); {
			case c.Keyspace < prevKs, c.Keyspace == prevKs && d > 0:
				t.Fatalf("AscendChanges: %d/%x after %d/%x", c.Keyspace, c.Key, prevKs, prevKey)
			case c.Keyspace == prevKs && d == 0 && i >= prevSeq:
				t.Fatalf("AscendChanges: change %d of %x after change %d", i, c.Key, prevSeq)
			}
		}
		prevKs, prevKey, prevSeq = c.Keyspace, c.Key, i
		n++
		if got2[i] != "" {
			t.Fatalf("change %d reported twice", i)
		}
		got2[i] = fmt.Sprint(c.Keyspace) + "/" + string(c.Key) + "=" + string(c.Value)
		return true
	})
	if !slices.Equal(got2, m.changes) {
		t.Fatal("AscendChanges differ from the model's journal")
	}
}

// WS-4: once written, a write set serves concurrent readers (a spill
// writing it in the background while the statement reads it); run with
// -race.
func TestWriteSetConcurrentReaders(t *testing.T) {
	w := NewWriteSet()
	for i := 0; i < 5000; i++ {
		w.Put(Write{Keyspace: 1, Key: fmt.Appendf(nil, "k%05d", (i*7919)%5000), Value: []byte("v")})
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev []byte
			n := 0
			w.Range(1, nil, nil, false, func(c Write) bool {
				if prev != nil && bytes.Compare(prev, c.Key) >= 0 {
					t.Errorf("out of order: %s then %s", prev, c.Key)
				}
				prev = c.Key
				n++
				return true
			})
			if _, ok := w.Get(1, []byte("k04999")); !ok || n != 5000 {
				t.Errorf("reader saw %d keys", n)
			}
		}()
	}
	wg.Wait()
}
