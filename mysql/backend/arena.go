package backend

import (
	"time"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"strata/mysql/boxes"
	"strata/mysql/decimals"
)

// CODEC-13 A scan decodes DECIMAL and string values into memory taken
// from blocks (valueArena), not allocated per value: a DECIMAL's big.Int
// and its word (a decimals.Slab, DEC-2), a string's bytes. The values
// are go-mysql-server's ordinary decimal.Decimal and string, never
// written after they are handed out; a block stays alive while any value
// from it does (a retained MAX pins at most one block of each kind;
// blocks start small and double, so that a lookup decoding one row
// allocates little; the arena is the session's, shared by every scan and
// lookup of its statements). Per-value allocations were a quarter of the CPU of
// a scan filtering on a DECIMAL column. The interface values themselves
// and the rows holding them come from blocks too (package boxes, BOX-1..3):
// Go's boxing allocated once per column and row.
type valueArena struct {
	decimals.Slab
	boxes.Boxes
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

// boxes is the arena's Boxes; nil (Go's own boxing) for a nil arena.
func (a *valueArena) boxes() *boxes.Boxes {
	if a == nil {
		return nil
	}
	return &a.Boxes
}

// row returns a row of n nil values.
func (a *valueArena) row(n int) sql.Row { return a.boxes().Row(n) }

// typedInt is a signed integer column's value as its Go type, boxed from
// the arena's blocks.
func (a *valueArena) typedInt(c *colCodec, x int64) any {
	b := a.boxes()
	switch c.qt {
	case sqltypes.Int8:
		return b.Int8(int8(x))
	case sqltypes.Int16, sqltypes.Year:
		return b.Int16(int16(x))
	case sqltypes.Int24, sqltypes.Int32:
		return b.Int32(int32(x))
	}
	return b.Int64(x)
}

// typedUint is an unsigned integer (ENUM, SET, BIT) column's value as its
// Go type, boxed from the arena's blocks.
func (a *valueArena) typedUint(c *colCodec, x uint64) any {
	b := a.boxes()
	switch c.qt {
	case sqltypes.Uint8:
		return b.Uint8(uint8(x))
	case sqltypes.Uint16, sqltypes.Enum:
		return b.Uint16(uint16(x))
	case sqltypes.Uint24, sqltypes.Uint32:
		return b.Uint32(uint32(x))
	}
	return b.Uint64(x)
}

// boxDecimal, boxString and boxTime box a value from the arena's blocks.
func (a *valueArena) boxDecimal(d decimal.Decimal) any { return a.boxes().Decimal(d) }

func (a *valueArena) boxString(s string) any { return a.boxes().String(s) }

func (a *valueArena) boxTime(t time.Time) any { return a.boxes().Time(t) }
