package boxes

import (
	"fmt"
	"math/rand"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// BOX-1: every boxed value is the value Go's conversion makes: same
// dynamic type, ==, type switches, assertions, printing.
func TestBoxedValuesAreGoValues(t *testing.T) {
	if !enabled {
		t.Fatal("BOX-1's check at start failed: boxing is off")
	}
	var b Boxes
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		n := r.Int63() - r.Int63()
		tm := time.UnixMicro(n / 1000).UTC()
		d := decimal.New(n, -int32(r.Intn(10)))
		s := fmt.Sprint(n)
		pairs := [][2]any{
			{b.Int8(int8(n)), int8(n)}, {b.Int16(int16(n)), int16(n)}, {b.Int32(int32(n)), int32(n)},
			{b.Int64(n), n}, {b.Uint8(uint8(n)), uint8(n)}, {b.Uint16(uint16(n)), uint16(n)},
			{b.Uint32(uint32(n)), uint32(n)}, {b.Uint64(uint64(n)), uint64(n)}, {b.String(s), s},
			{b.Time(tm), tm},
		}
		for _, p := range pairs {
			if p[0] != p[1] || reflect.TypeOf(p[0]) != reflect.TypeOf(p[1]) || fmt.Sprint(p[0]) != fmt.Sprint(p[1]) {
				t.Fatalf("boxed %#v, Go's %#v", p[0], p[1])
			}
		}
		got, isDec := b.Decimal(d).(decimal.Decimal)
		if !isDec || !got.Equal(d) || got.String() != d.String() {
			t.Fatalf("boxed decimal %v, want %v", got, d)
		}
		switch v := b.Int32(int32(n)).(type) {
		case int32:
			if v != int32(n) {
				t.Fatalf("type switch gave %d, want %d", v, int32(n))
			}
		default:
			t.Fatalf("type switch took %T", v)
		}
	}
}

// BOX-2, BOX-3: values made later never change values or rows handed out
// earlier, through garbage collections; an append to a row copies it.
func TestValuesStay(t *testing.T) {
	var b Boxes
	type kept struct {
		row  []any
		want []any
	}
	var all []kept
	for i := 0; i < 3000; i++ {
		row := b.Row(3)
		row[0], row[1], row[2] = b.Int64(int64(i)), b.String(fmt.Sprint("s", i)), b.Decimal(decimal.New(int64(i), -2))
		all = append(all, kept{row, []any{int64(i), fmt.Sprint("s", i), decimal.New(int64(i), -2).String()}})
		if i%500 == 0 {
			runtime.GC()
		}
	}
	// An append to one row must not reach the next one.
	grown := append(all[0].row, "x")
	grown[0] = int64(-1)
	for i, k := range all {
		if len(k.row) != 3 || k.row[0] != k.want[0] || k.row[1] != k.want[1] || k.row[2].(decimal.Decimal).String() != k.want[2] {
			t.Fatalf("row %d is %v, want %v", i, k.row, k.want)
		}
	}
}
