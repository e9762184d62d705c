package txn

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestWriteSetOrderModel: keys of every length around the 8-byte prefix
// the tree compares first, made of 0x00, 0x01 and 0xFF bytes (a short key
// and its extension by zeros share a prefix), keep bytes.Compare order in
// Ascend, Range both ways and Get, through savepoint rollbacks.
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
	model := map[string]string{}
	for op := 0; op < 5000; op++ {
		k := key()
		sp, saved := w.Savepoint(), maps.Clone(model)
		v := fmt.Sprint(op)
		w.Put(Write{Keyspace: uint32(op % 2), Key: k, Value: []byte(v)})
		model[fmt.Sprint(op%2)+"/"+string(k)] = v
		if rng.Intn(10) == 0 {
			w.RollbackTo(sp)
			model = saved
		}
		if g, ok := w.Get(uint32(op%2), k); ok != (model[fmt.Sprint(op%2)+"/"+string(k)] != "") || (ok && string(g.Value) != model[fmt.Sprint(op%2)+"/"+string(k)]) {
			t.Fatalf("op %d: get %q = %q %v", op, k, g.Value, ok)
		}
	}
	for ks := uint32(0); ks < 2; ks++ {
		var want []string
		for mk := range model {
			if strings.HasPrefix(mk, fmt.Sprint(ks)+"/") {
				want = append(want, mk[2:])
			}
		}
		sort.Strings(want)
		for _, rev := range []bool{false, true} {
			var got []string
			w.Range(ks, nil, nil, rev, func(c Write) bool {
				got = append(got, string(c.Key))
				return true
			})
			if rev {
				slices.Reverse(got)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("keyspace %d reverse=%v: %d keys out of order or missing (want %d)", ks, rev, len(got), len(want))
			}
		}
	}
}
