// Package boxes owns the interface values (any) a scan hands to
// go-mysql-server: a row is a []any, and Go boxes every int32, string,
// time.Time or DECIMAL put into an interface with a heap allocation of
// its own (runtime.convT32, convTstring, convT), so a row of five columns
// cost six allocations (the slice too). A Boxes makes them from blocks.
//
// Rules:
//
// BOX-1 A boxed value is the ordinary interface value of its Go type: its
// type word is the one Go's own conversion writes (read once at start),
// its data word points at the value inside a block of that type, where
// the value is written once, before it is handed out, and never again
// (Go's own boxed values are immutable alike). The equivalence is checked
// at start (type switch, assertion, ==, reflect) for every type here;
// if any check fails every function boxes with Go's conversion instead.
// BOX-2 Blocks hold blockLen values and are never reused: a block stays
// alive while any value from it does, so a value a consumer retains (a
// group's key, a MAX) pins at most blockLen values' memory.
// BOX-3 A row is cut from a block of []any with its capacity equal to its
// length: a consumer's append copies it rather than writing over the
// next row.
//
// Tested by TestBoxedValuesAreGoValues (against Go's conversion), and
// TestValuesStay (values and rows neither overwritten nor shared).
package boxes

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"
)

// blockLen is the number of values per block (BOX-2).
const blockLen = 64

// eface is the memory layout of an empty interface.
type eface struct {
	typ, data unsafe.Pointer
}

func typeWord[T any]() unsafe.Pointer {
	var z T
	x := any(z)
	return (*eface)(unsafe.Pointer(&x)).typ
}

var (
	tInt8    = typeWord[int8]()
	tInt16   = typeWord[int16]()
	tInt32   = typeWord[int32]()
	tInt64   = typeWord[int64]()
	tUint8   = typeWord[uint8]()
	tUint16  = typeWord[uint16]()
	tUint32  = typeWord[uint32]()
	tUint64  = typeWord[uint64]()
	tString  = typeWord[string]()
	tTime    = typeWord[time.Time]()
	tDecimal = typeWord[decimal.Decimal]()
)

// box returns v boxed from the block *blk (BOX-1, BOX-2); *size is the
// length of the type's last block.
func box[T any](blk *[]T, size *uint8, typ unsafe.Pointer, v T) any {
	if !enabled {
		return v
	}
	if len(*blk) == 0 {
		*size = grow(*size)
		*blk = make([]T, *size)
	}
	p := &(*blk)[0]
	*blk = (*blk)[1:]
	*p = v
	var x any
	e := (*eface)(unsafe.Pointer(&x))
	e.typ, e.data = typ, unsafe.Pointer(p)
	return x
}

// grow is the length of a type's next block: the first is small (a
// lookup that decodes one row allocates little), each next one doubles,
// up to blockLen.
func grow(last uint8) uint8 { return min(max(2*last, 2), blockLen) }

// Boxes makes boxed values and rows from blocks. The zero Boxes is ready;
// a nil *Boxes boxes with Go's conversion. It is not safe for concurrent
// use.
type Boxes struct {
	sizes [12]uint8 // the last block's length per type (grow)
	i8    []int8
	i16   []int16
	i32   []int32
	i64   []int64
	u8    []uint8
	u16   []uint16
	u32   []uint32
	u64   []uint64
	str   []string
	tm    []time.Time
	dec   []decimal.Decimal
	rows  []any
}

func (b *Boxes) Int8(v int8) any {
	if b == nil {
		return v
	}
	return box(&b.i8, &b.sizes[0], tInt8, v)
}

func (b *Boxes) Int16(v int16) any {
	if b == nil {
		return v
	}
	return box(&b.i16, &b.sizes[1], tInt16, v)
}

func (b *Boxes) Int32(v int32) any {
	if b == nil {
		return v
	}
	return box(&b.i32, &b.sizes[2], tInt32, v)
}

func (b *Boxes) Int64(v int64) any {
	if b == nil {
		return v
	}
	return box(&b.i64, &b.sizes[3], tInt64, v)
}

func (b *Boxes) Uint8(v uint8) any {
	if b == nil {
		return v
	}
	return box(&b.u8, &b.sizes[4], tUint8, v)
}

func (b *Boxes) Uint16(v uint16) any {
	if b == nil {
		return v
	}
	return box(&b.u16, &b.sizes[5], tUint16, v)
}

func (b *Boxes) Uint32(v uint32) any {
	if b == nil {
		return v
	}
	return box(&b.u32, &b.sizes[6], tUint32, v)
}

func (b *Boxes) Uint64(v uint64) any {
	if b == nil {
		return v
	}
	return box(&b.u64, &b.sizes[7], tUint64, v)
}

func (b *Boxes) String(v string) any {
	if b == nil {
		return v
	}
	return box(&b.str, &b.sizes[8], tString, v)
}

func (b *Boxes) Time(v time.Time) any {
	if b == nil {
		return v
	}
	return box(&b.tm, &b.sizes[9], tTime, v)
}

func (b *Boxes) Decimal(v decimal.Decimal) any {
	if b == nil {
		return v
	}
	return box(&b.dec, &b.sizes[10], tDecimal, v)
}

// Row returns a row of n nil values (BOX-3).
func (b *Boxes) Row(n int) sql.Row {
	if b == nil || n > blockLen/2 {
		return make(sql.Row, n)
	}
	if len(b.rows) < n {
		b.sizes[11] = grow(b.sizes[11])
		b.rows = make([]any, n*int(b.sizes[11]))
	}
	r := b.rows[:n:n]
	b.rows = b.rows[n:]
	return r
}

// enabled is BOX-1's check at start: every type's boxed value behaves as
// Go's.
var enabled bool

func init() {
	enabled = true // box itself runs in the check
	enabled = check()
}

func check() bool {
	var b Boxes
	d := decimal.New(-12345, -2)
	tm := time.Date(2024, 2, 29, 12, 34, 56, 789000, time.UTC)
	pairs := [][2]any{
		{b.Int8(-7), int8(-7)}, {b.Int16(-300), int16(-300)}, {b.Int32(-70000), int32(-70000)},
		{b.Int64(-1 << 40), int64(-1 << 40)}, {b.Uint8(200), uint8(200)}, {b.Uint16(60000), uint16(60000)},
		{b.Uint32(4000000000), uint32(4000000000)}, {b.Uint64(1 << 63), uint64(1 << 63)},
		{b.String("boxed"), "boxed"}, {b.Time(tm), tm}, {b.Decimal(d), d},
	}
	for _, p := range pairs {
		got, want := p[0], p[1]
		if reflect.TypeOf(got) != reflect.TypeOf(want) || !reflect.DeepEqual(got, want) {
			return false
		}
		if _, isDec := want.(decimal.Decimal); !isDec && got != want {
			return false
		}
	}
	if got, isDec := pairs[10][0].(decimal.Decimal); !isDec || !got.Equal(d) || got.String() != "-123.45" {
		return false
	}
	if got, isTime := pairs[9][0].(time.Time); !isTime || !got.Equal(tm) {
		return false
	}
	switch s := pairs[8][0].(type) {
	case string:
		if s != "boxed" {
			return false
		}
	default:
		return false
	}
	return true
}
