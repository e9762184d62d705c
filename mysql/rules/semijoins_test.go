package rules

import (
	"math"
	"math/rand"
	"testing"
)

// TestIntSet (RULE-99): the key set answers membership as a Go map of the
// same values would, for dense keys (a bitmap), sparse ones (a map),
// values beyond int64, booleans, NULLs, and duplicates compacted while
// adding; a value of another type is an error, never a miss.
func TestIntSet(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	defer func(f int) { compactFloor = f }(compactFloor)
	compactFloor = 64
	for _, tc := range []struct {
		name string
		gen  func() any
	}{
		{"dense", func() any { return int32(r.Intn(5000) - 100) }},
		{"sparse", func() any { return r.Int63n(1<<40) - 1<<39 }},
		{"unsigned", func() any { return []any{uint64(math.MaxUint64), uint64(1 << 63), uint32(7), uint8(3)}[r.Intn(4)] }},
		{"mixed", func() any {
			return []any{nil, true, false, int8(-1), int64(math.MinInt64), int64(math.MaxInt64), uint64(math.MaxUint64)}[r.Intn(7)]
		}},
	} {
		s := intSet{compactAt: 64} // compacts many times
		want := map[orderedInt]bool{}
		for i := 0; i < 20000; i++ {
			v := tc.gen()
			if err := s.add(v); err != nil {
				t.Fatalf("%s: add %v: %v", tc.name, v, err)
			}
			if k, ok := orderedIntOf(v); ok {
				want[k] = true
			}
		}
		s.freeze()
		for i := 0; i < 20000; i++ {
			v := tc.gen()
			if i%2 == 0 {
				v = []any{int64(r.Intn(6000) - 200), r.Int63n(1<<41) - 1<<40, uint64(r.Uint32()), nil}[r.Intn(4)]
			}
			k, ok := orderedIntOf(v)
			got, err := s.has(v)
			if err != nil || got != (ok && want[k]) {
				t.Fatalf("%s: has(%v) = %v, %v; want %v", tc.name, v, got, err, ok && want[k])
			}
		}
	}
	var s intSet
	if err := s.add("1"); err == nil {
		t.Fatal("a string key was taken as NULL")
	}
	s.freeze()
	if _, err := s.has(1.5); err == nil {
		t.Fatal("a float probe was taken as a miss")
	}
}
