package scanfilter

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

func rat(n Num) *big.Rat {
	r := new(big.Rat).SetInt64(n.M)
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(n.Scale))), nil))
	if n.Scale < 0 { // 1E+3: M x 10^3
		return r.Mul(r, p)
	}
	return r.Quo(r, p)
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// TestCompare checks Compare against big.Rat: decided answers are exact,
// and numbers that fit int64 at the common scale are always decided.
func TestCompare(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	mags := []int64{1, 10, 1000, 1e6, 1e12, 1e17, math.MaxInt64}
	num := func() Num {
		m := rng.Int63n(mags[rng.Intn(len(mags))])
		if rng.Intn(2) == 0 {
			m = -m
		}
		return Num{M: m, Scale: int32(rng.Intn(24) - 4)} // negative: numbers written with exponents
	}
	decided := 0
	for i := 0; i < 200000; i++ {
		a, b := num(), num()
		if rng.Intn(8) == 0 { // equal values at other scales
			b = Num{M: a.M * 10, Scale: a.Scale + 1}
			if a.M > math.MaxInt64/10 || a.M < -math.MaxInt64/10 {
				b = a
			}
		}
		r, ok := Compare(a, b)
		want := rat(a).Cmp(rat(b))
		if ok && r != want {
			t.Fatalf("Compare(%v, %v) = %d, want %d", a, b, r, want)
		}
		if ok {
			decided++
		}
		small := func(n Num) bool { return n.M < 1e6 && n.M > -1e6 && n.Scale < 12 && n.Scale >= 0 }
		if !ok && (a.Scale == b.Scale || small(a) && small(b)) {
			t.Fatalf("Compare(%v, %v) undecided", a, b)
		}
	}
	if decided < 100000 {
		t.Fatalf("only %d of 200000 decided", decided)
	}
}

// TestCondNulls: a comparison never holds for NULL; a bound passes NULL
// while unset and then only where NULL sorts first (SF-2, SF-3).
func TestCondNulls(t *testing.T) {
	c := Cond{Op: GE, Value: Num{M: 5}}
	if c.HoldsNull() {
		t.Fatal("a comparison holds for NULL")
	}
	b := &Bound{}
	last := Cond{Op: GE, Bound: b}
	first := Cond{Op: GE, Bound: b, NullFirst: true}
	if !last.HoldsNull() || !last.Holds(Num{M: -100}) {
		t.Fatal("an unset bound rejects")
	}
	b.Set(Num{M: 150, Scale: 1})
	if last.HoldsNull() || !first.HoldsNull() {
		t.Fatal("a set bound's NULL order ignored")
	}
	if last.Holds(Num{M: 14}) || !last.Holds(Num{M: 15}) || !last.Holds(Num{M: 1501, Scale: 2}) {
		t.Fatal("bound 15.0 with >=: wrong answers")
	}
	b.Reset()
	if !last.Holds(Num{M: 1}) {
		t.Fatal("reset bound rejects")
	}
}
