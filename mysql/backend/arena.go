package backend

import (
	"math/big"
	"unsafe"

	"github.com/shopspring/decimal"
)

// CODEC-13 A scan decodes DECIMAL and string values into memory taken
// from blocks (valueArena), not allocated per value: a DECIMAL's big.Int
// and its word, a string's bytes. The values are go-mysql-server's
// ordinary decimal.Decimal and string, never written after they are
// handed out; a block stays alive while any value from it does (a
// retained MAX pins at most one block of each kind; blocks start small
// and double, so that a lookup decoding one row allocates little). Per-value
// allocations were a quarter of the CPU of a scan filtering on a DECIMAL
// column. A decimal.Decimal is made from its big.Int without a copy
// through its memory layout (a *big.Int and an int32 exponent, checked
// at start: when shopspring/decimal's layout differs, every value is
// made by decimal.New instead).
type valueArena struct {
	ints   []big.Int
	words  []big.Word
	bytes  []byte
	nInts  int // the next blocks' sizes, doubling from small ones so
	nBytes int // that a lookup decoding one row allocates little
}

const (
	arenaInts   = 256      // at most, per block
	arenaBytes  = 16 << 10 // at most, per block
	arenaMaxStr = 512      // longer strings are allocated on their own
)

// decimalLayout mirrors shopspring/decimal's Decimal.
type decimalLayout struct {
	value *big.Int
	exp   int32
}

var decimalLayoutOK = func() bool {
	if unsafe.Sizeof(decimal.Decimal{}) != unsafe.Sizeof(decimalLayout{}) {
		return false
	}
	l := decimalLayout{value: big.NewInt(-12345), exp: -2}
	d := *(*decimal.Decimal)(unsafe.Pointer(&l))
	return d.Exponent() == -2 && d.Coefficient().Int64() == -12345 && d.String() == "-123.45"
}()

// decimal returns m * 10^exp, as decimal.New(m, exp) does.
func (a *valueArena) decimal(m int64, exp int32) decimal.Decimal {
	if a == nil || !decimalLayoutOK {
		return decimal.New(m, exp)
	}
	if len(a.ints) == 0 {
		a.nInts = min(max(2*a.nInts, 4), arenaInts)
		a.ints, a.words = make([]big.Int, a.nInts), make([]big.Word, a.nInts)
	}
	z := &a.ints[0]
	w := a.words[:1:1]
	a.ints, a.words = a.ints[1:], a.words[1:]
	u := uint64(m)
	if m < 0 {
		u = -u
	}
	if u != 0 && uint64(big.Word(u)) == u { // a 64-bit word holds it
		w[0] = big.Word(u)
		z.SetBits(w)
	} else if u != 0 {
		z.SetInt64(m) // 32-bit words: the allocating path
		m = 0
	}
	if m < 0 {
		z.Neg(z)
	}
	l := decimalLayout{value: z, exp: exp}
	return *(*decimal.Decimal)(unsafe.Pointer(&l))
}

// string returns a copy of raw.
func (a *valueArena) string(raw []byte) string {
	if a == nil || len(raw) > arenaMaxStr {
		return string(raw)
	}
	if len(raw) == 0 {
		return ""
	}
	if cap(a.bytes)-len(a.bytes) < len(raw) {
		a.nBytes = min(max(2*a.nBytes, 64, len(raw)), arenaBytes)
		a.bytes = make([]byte, 0, max(a.nBytes, len(raw)))
	}
	off := len(a.bytes)
	a.bytes = append(a.bytes, raw...)
	return unsafe.String(&a.bytes[off], len(raw))
}
