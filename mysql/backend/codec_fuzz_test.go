package backend

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// fuzzCols is a row of every column family the codec handles.
func fuzzCols(t testing.TB) []colCodec {
	var cols []colCodec
	for _, typ := range []sql.Type{types.Int64, types.Uint64, types.Int8, types.Float64, types.MustCreateDecimalType(20, 5),
		types.MustCreateStringWithDefaults(sqltypes.VarChar, 100), types.Blob, types.Datetime, types.Date, types.Timestamp,
		types.Time, types.JSON, types.MustCreateEnumType([]string{"a", "b"}, sql.Collation_Default),
		types.MustCreateSetType([]string{"x", "y"}, sql.Collation_Default), types.MustCreateBitType(10), types.Year} {
		c, err := newColCodec(typ)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		cols = append(cols, c)
	}
	return cols
}

// FuzzDecodeRow: a stored row of any bytes decodes or fails with an
// error, never a panic (a damaged page or a codec bug must not take the
// server down), and decoding only some columns agrees with decoding all.
func FuzzDecodeRow(f *testing.F) {
	cols := fuzzCols(f)
	ctx := context.Background()
	row := sql.Row{int64(-5), uint64(7), int8(3), 1.5, nil, "héllo", []byte{0, 1}, nil, nil, nil, nil, nil, uint16(1), uint64(3), uint64(5), int16(2024)}
	if b, err := appendRow(ctx, nil, cols, row); err == nil {
		f.Add(b)
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		all := make(sql.Row, len(cols))
		errAll := decodeRow(ctx, b, cols, all)
		need := make([]bool, len(cols))
		for i := range need {
			need[i] = i%2 == 0
		}
		some := make(sql.Row, len(cols))
		errSome := decodeColumns(ctx, b, cols, some, need, &valueArena{})
		if errAll == nil && errSome == nil {
			for i := range cols {
				if need[i] && !equalValues(all[i], some[i]) {
					t.Fatalf("column %d: all %v, some %v", i, all[i], some[i])
				}
			}
		}
	})
}

func equalValues(a, b any) bool {
	ab, aok := a.([]byte)
	bb, bok := b.([]byte)
	if aok && bok {
		return bytes.Equal(ab, bb)
	}
	return fmt.Sprintf("%T %v", a, a) == fmt.Sprintf("%T %v", b, b)
}

// FuzzKeyOrder: memcomparable keys order as their values (CODEC rules):
// integers, and binary strings with their escaping, which must also skip
// exactly over what they wrote.
func FuzzKeyOrder(f *testing.F) {
	f.Add(int64(-1), int64(1), []byte("a\x00b"), []byte("a"))
	f.Add(int64(0), int64(-9223372036854775808), []byte{}, []byte{0, 0})
	f.Fuzz(func(t *testing.T, x, y int64, s, u []byte) {
		kx, ky := appendInt64Key(nil, x), appendInt64Key(nil, y)
		if got, want := bytes.Compare(kx, ky), cmp64(x, y); got != want {
			t.Fatalf("int keys %d %d compare %d", x, y, got)
		}
		ks, ku := appendEscapedBytes(nil, s), appendEscapedBytes(nil, u)
		if got, want := bytes.Compare(ks, ku), bytes.Compare(s, u); got != want {
			t.Fatalf("byte keys %q %q compare %d, want %d", s, u, got, want)
		}
		// A key column is a tag byte, then the escaped bytes.
		n, err := skipEscaped(append(append([]byte{keyValue}, ks...), 0xAB))
		if err != nil || n != 1+len(ks) {
			t.Fatalf("skip %q: %d, %v; wrote %d", s, n, err, len(ks))
		}
	})
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
