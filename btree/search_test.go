package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"strata/page"
)

// searchNode builds a leaf of keys (sorted, distinct) with values of vlen
// bytes.
func searchNode(t testing.TB, keys [][]byte, vlen int) node {
	n := node(make([]byte, page.Size))
	cells := make([]cell, len(keys))
	for i, k := range keys {
		cells[i] = cell{key: k, val: make([]byte, vlen)}
	}
	if cellsBytes(cells) > capacityFor(fence{inf: true}, fence{inf: true}) {
		t.Fatalf("%d keys do not fit a page", len(keys))
	}
	n.build(page.ID(100), 1, 0, 0, fence{inf: true}, fence{inf: true}, cells)
	return n
}

// keySets are key distributions a search meets: dense and sparse
// integers, composite keys, strings with long shared prefixes, random
// bytes of mixed lengths, and the empty key.
func keySets(rng *rand.Rand) map[string][][]byte {
	sets := map[string][][]byte{}
	ints := func(name string, n int, step func(i int) uint64) {
		var ks [][]byte
		for i := 0; i < n; i++ {
			ks = append(ks, binary.BigEndian.AppendUint64([]byte{1}, step(i)))
		}
		sets[name] = ks
	}
	ints("dense", 300, func(i int) uint64 { return uint64(1000 + i) })
	ints("sparse", 300, func(i int) uint64 { return uint64(i*i*i) * 7919 })
	ints("skewed", 300, func(i int) uint64 {
		if i < 290 {
			return uint64(i)
		}
		return 1 << 60 >> (299 - i)
	})
	var comp [][]byte
	for o := 0; o < 100; o++ {
		for l := 0; l < 3; l++ {
			comp = append(comp, binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32([]byte{1}, uint32(5000+o*7)), uint32(l)))
		}
	}
	sets["composite"] = comp
	var strs [][]byte
	for i := 0; i < 200; i++ {
		strs = append(strs, []byte(fmt.Sprintf("customer-name-with-a-long-prefix %06d", i*13)))
	}
	sets["prefixed"] = strs
	seen := map[string]bool{"": true}
	rnd := [][]byte{{}}
	for len(rnd) < 300 {
		k := make([]byte, rng.Intn(12))
		rng.Read(k)
		if !seen[string(k)] {
			seen[string(k)] = true
			rnd = append(rnd, k)
		}
	}
	sets["random"] = rnd
	for name, ks := range sets {
		sort.Slice(ks, func(i, j int) bool { return bytes.Compare(ks[i], ks[j]) < 0 })
		sets[name] = ks
	}
	return sets
}

// TestSearchMatchesHalving (BT-10): the guessing search answers as a plain
// binary search for keys present, absent between, below and above all, on
// every distribution and node size.
func TestSearchMatchesHalving(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	for name, all := range keySets(rng) {
		for _, size := range []int{0, 1, 2, 17, 40, len(all)} {
			keys := all[:size]
			n := searchNode(t, keys, 8)
			probes := [][]byte{{}, {0}, {0xff, 0xff}, nil}
			for _, k := range all {
				probes = append(probes, k, append(append([]byte{}, k...), 0))
				if len(k) > 0 {
					probes = append(probes, k[:len(k)-1])
				}
			}
			for i := 0; i < 200; i++ {
				k := make([]byte, rng.Intn(10))
				rng.Read(k)
				probes = append(probes, k)
			}
			for _, p := range probes {
				want := sort.Search(len(keys), func(i int) bool { return bytes.Compare(keys[i], p) >= 0 })
				wantEq := want < len(keys) && bytes.Equal(keys[want], p)
				got, eq := n.search(p)
				if got != want || eq != wantEq {
					t.Fatalf("%s/%d: search(%x) = %d, %v; want %d, %v", name, size, p, got, eq, want, wantEq)
				}
			}
		}
	}
}

// BenchmarkSearch: searches of present keys in full leaves, each search
// in one of 4,096 copies of the leaf (64 MiB, beyond the CPU caches, as
// a buffer pool's pages are), per distribution; "-halving" is the search
// before BT-10.
func BenchmarkSearch(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	for _, name := range []string{"dense", "sparse", "composite", "prefixed", "random"} {
		keys := keySets(rng)[name]
		n := searchNode(b, keys, 24)
		nodes := make([]node, 4096)
		for i := range nodes {
			nodes[i] = append(node(nil), n...)
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, eq := nodes[(i*131)%len(nodes)].search(keys[(i*7919)%len(keys)]); !eq {
					b.Fatal("missing key")
				}
			}
		})
		b.Run(name+"-halving", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				n, k := nodes[(i*131)%len(nodes)], keys[(i*7919)%len(keys)]
				if lo := n.halve(k, 0, n.nslots()); !bytes.Equal(n.key(lo), k) {
					b.Fatal("missing key")
				}
			}
		})
	}
}
