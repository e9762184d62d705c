package decimals

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/shopspring/decimal"
)

// DEC-1: the mirrored layout is the library's (else every path here
// would be the slow one, silently).
func TestLayout(t *testing.T) {
	if !layoutOK {
		t.Fatal("shopspring/decimal's layout is not the mirrored one")
	}
}

// DEC-2: values from a slab equal decimal.New's (value, exponent, text,
// arithmetic) and stay so while the slab hands out more.
func TestSlabValues(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var s Slab
	var got, want []decimal.Decimal
	for i := 0; i < 5000; i++ {
		m := r.Int63n(math.MaxInt64)
		switch i % 5 {
		case 0:
			m = -m
		case 1:
			m = 0
		case 2:
			m = math.MinInt64 + int64(i)
		}
		exp := -int32(r.Intn(10))
		got, want = append(got, s.New(m, exp)), append(want, decimal.New(m, exp))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.Equal(w) || g.Exponent() != w.Exponent() || g.String() != w.String() ||
			!g.Add(decimal.New(7, -1)).Equal(w.Add(decimal.New(7, -1))) {
			t.Fatalf("value %d: %v (exp %d), want %v (exp %d)", i, g, g.Exponent(), w, w.Exponent())
		}
	}
	var nilSlab *Slab
	if d := nilSlab.New(-5, -1); d.String() != "-0.5" {
		t.Fatalf("nil slab: %v", d)
	}
}

// DEC-1: Digits reads what Coefficient and Exponent give, and refuses a
// coefficient beyond int64.
func TestDigits(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 5000; i++ {
		d := decimal.New(r.Int63()-r.Int63(), -int32(r.Intn(8)))
		if i%7 == 0 {
			d = decimal.NewFromBigInt(new(big.Int).Lsh(big.NewInt(int64(i+1)), 70), -3)
		}
		m, exp, ok := Digits(d)
		c := d.Coefficient()
		if ok != c.IsInt64() || (ok && (m != c.Int64() || exp != d.Exponent())) {
			t.Fatalf("%v: Digits = %d, %d, %v", d, m, exp, ok)
		}
	}
	if m, _, ok := Digits(decimal.Decimal{}); !ok || m != 0 {
		t.Fatalf("zero Decimal: %d %v", m, ok)
	}
}
