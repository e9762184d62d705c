// Package decimals owns Strata's allocation-free paths around
// shopspring/decimal, the DECIMAL value type go-mysql-server uses: a
// decimal.Decimal is a *big.Int coefficient and an int32 exponent, and
// its API copies the big.Int whenever it makes or reads one (two
// allocations per DECIMAL decoded from a row, two more per coefficient
// read by an exact SUM or comparison).
//
// Rules:
//
// DEC-1 Values are made and read through the type's memory layout (a
// *big.Int then an int32), checked once at start against the library's
// own constructor and accessors; when the layout differs, every function
// here takes the library's allocating path instead, with the same
// results.
// DEC-2 A value made here is never written afterwards, like every
// decimal.Decimal (the library treats its big.Int as immutable); its
// big.Int and word come from a Slab's blocks, which stay alive while any
// value from them does.
//
// Tested by TestLayout, TestSlabValues and TestDigits against the
// library's allocating paths.
package decimals

import (
	"math/big"
	"unsafe"

	"github.com/shopspring/decimal"
)

// layout mirrors decimal.Decimal (DEC-1).
type layout struct {
	value *big.Int
	exp   int32
}

var layoutOK = func() bool {
	if unsafe.Sizeof(decimal.Decimal{}) != unsafe.Sizeof(layout{}) {
		return false
	}
	l := layout{value: big.NewInt(-12345), exp: -2}
	d := *(*decimal.Decimal)(unsafe.Pointer(&l))
	if d.Exponent() != -2 || d.Coefficient().Int64() != -12345 || d.String() != "-123.45" {
		return false
	}
	back := (*layout)(unsafe.Pointer(&d))
	return back.value.Int64() == -12345 && back.exp == -2
}()

// Digits returns d as m x 10^exp when its coefficient fits an int64,
// without copying the coefficient (DEC-1).
func Digits(d decimal.Decimal) (m int64, exp int32, ok bool) {
	if !layoutOK {
		c := d.Coefficient()
		return c.Int64(), d.Exponent(), c.IsInt64()
	}
	l := (*layout)(unsafe.Pointer(&d))
	if l.value == nil { // the zero Decimal
		return 0, l.exp, true
	}
	if !l.value.IsInt64() {
		return 0, 0, false
	}
	return l.value.Int64(), l.exp, true
}

// Slab makes DECIMAL values whose big.Int and word come from blocks that
// double from small ones up to 256 values (DEC-2). The zero Slab is
// ready; a nil *Slab makes every value with decimal.New.
type Slab struct {
	ints  []big.Int
	words []big.Word
	n     int
}

const slabMax = 256

// New returns m x 10^exp, as decimal.New(m, exp) does.
func (s *Slab) New(m int64, exp int32) decimal.Decimal {
	if s == nil || !layoutOK {
		return decimal.New(m, exp)
	}
	if len(s.ints) == 0 {
		s.n = min(max(2*s.n, 4), slabMax)
		s.ints, s.words = make([]big.Int, s.n), make([]big.Word, s.n)
	}
	z := &s.ints[0]
	w := s.words[:1:1]
	s.ints, s.words = s.ints[1:], s.words[1:]
	u := uint64(m)
	if m < 0 {
		u = -u
	}
	switch {
	case u == 0:
	case uint64(big.Word(u)) == u: // a word holds it (64-bit words)
		w[0] = big.Word(u)
		z.SetBits(w)
		if m < 0 {
			z.Neg(z)
		}
	default:
		z.SetInt64(m)
	}
	l := layout{value: z, exp: exp}
	return *(*decimal.Decimal)(unsafe.Pointer(&l))
}
