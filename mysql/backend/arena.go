package backend

import (
	"unsafe"

	"github.com/shopspring/decimal"

	"strata/mysql/decimals"
)

// CODEC-13 A scan decodes DECIMAL and string values into memory taken
// from blocks (valueArena), not allocated per value: a DECIMAL's big.Int
// and its word (a decimals.Slab, DEC-2), a string's bytes. The values
// are go-mysql-server's ordinary decimal.Decimal and string, never
// written after they are handed out; a block stays alive while any value
// from it does (a retained MAX pins at most one block of each kind;
// blocks start small and double, so that a lookup decoding one row
// allocates little). Per-value allocations were a quarter of the CPU of
// a scan filtering on a DECIMAL column.
type valueArena struct {
	decimals.Slab
	bytes  []byte
	nBytes int // the next block's size: doubling from a small one
}

const (
	arenaBytes  = 16 << 10 // at most, per block
	arenaMaxStr = 512      // longer strings are allocated on their own
)

// decimal returns m * 10^exp, as decimal.New(m, exp) does.
func (a *valueArena) decimal(m int64, exp int32) decimal.Decimal {
	if a == nil {
		return decimal.New(m, exp)
	}
	return a.Slab.New(m, exp)
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
