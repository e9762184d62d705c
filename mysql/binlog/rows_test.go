package binlog

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"
)

// decodeRow reads an image back with the wire library's row decoder
// (vitess CellValue, written from MySQL's format independently of this
// package): one text per column, "NULL" for NULL.
func decodeRow(t *testing.T, tb *Table, img []byte, nulls mysql.Bitmap) []string {
	t.Helper()
	var out []string
	pos := 0
	for i, c := range tb.Columns {
		if nulls.Bit(i) {
			out = append(out, "NULL")
			continue
		}
		styp := query.Type_VARCHAR // not binary: vitess pads those to the column's length
		switch c.Type {
		case mysql.TypeTiny, mysql.TypeShort, mysql.TypeInt24, mysql.TypeLong, mysql.TypeLongLong:
			styp = query.Type_INT64
		}
		v, n, err := mysql.CellValue(img, pos, c.Type, c.Meta, styp)
		if err != nil {
			t.Fatalf("column %d (type %d, meta %#x): %v", i, c.Type, c.Meta, err)
		}
		out = append(out, v.ToString())
		pos += n
	}
	if pos != len(img) {
		t.Fatalf("image of %d bytes, decoded %d", len(img), pos)
	}
	return out
}

func image(t *testing.T, tb *Table, row sql.Row) ([]byte, mysql.Bitmap) {
	t.Helper()
	img, err := tb.Image(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	nb := (len(tb.Columns) + 7) / 8
	nulls := mysql.NewServerBitmap(len(tb.Columns))
	for i := range tb.Columns {
		nulls.Set(i, img[i/8]&(1<<(i%8)) != 0)
	}
	return img[nb:], nulls
}

func mustTime(s string) time.Time {
	for _, f := range []string{"2006-01-02 15:04:05.999999", "2006-01-02"} {
		if v, err := time.Parse(f, s); err == nil {
			return v
		}
	}
	panic(s)
}

// TestColumnEncodings: every column type the server stores, encoded as a
// row image and read back by vitess's decoder, gives the value written
// (BL-8). A wrong length prefix, byte order, metadata or packing of any
// column shifts or garbles what follows it.
func TestColumnEncodings(t *testing.T) {
	coll := sql.Collation_utf8mb4_0900_ai_ci
	cases := []struct {
		typ  sql.Type
		v    any
		want string
	}{
		{types.Int8, int8(-5), "-5"},
		{types.Uint8, uint8(250), "-6"}, // read signed, as below
		{types.Int16, int16(-30000), "-30000"},
		{types.Uint16, uint16(65535), "-1"}, // the table map has no sign: vitess reads it signed
		{types.Int24, int32(-8388608), "-8388608"},
		{types.Int32, int32(-2147483648), "-2147483648"},
		{types.Int64, int64(-9000000000000000000), "-9000000000000000000"},
		{types.Uint64, uint64(18446744073709551615), "-1"},
		{types.Float32, float32(2.5), "2.5E+00"},
		{types.Float64, float64(-1.25), "-1.25E+00"},
		{types.MustCreateDecimalType(10, 2), decimal.RequireFromString("12.34"), "12.34"},
		{types.MustCreateDecimalType(10, 2), decimal.RequireFromString("-99999999.99"), "-99999999.99"},
		{types.MustCreateDecimalType(30, 10), decimal.RequireFromString("-12345678901234567890.0123456789"), "-12345678901234567890.0123456789"},
		{types.MustCreateDecimalType(5, 0), decimal.RequireFromString("-7"), "-7"},
		{types.MustCreateDecimalType(4, 4), decimal.RequireFromString("0.0001"), ".0001"}, // vitess's text
		{types.Date, mustTime("2024-02-29"), "2024-02-29"},
		{types.MustCreateDatetimeType(query.Type_DATETIME, 0), mustTime("2024-02-03 04:05:06"), "2024-02-03 04:05:06"},
		{types.MustCreateDatetimeType(query.Type_DATETIME, 3), mustTime("1999-12-31 23:59:59.789"), "1999-12-31 23:59:59.789"},
		{types.MustCreateDatetimeType(query.Type_DATETIME, 6), mustTime("2024-02-03 04:05:06.000001"), "2024-02-03 04:05:06.000001"},
		{types.MustCreateDatetimeType(query.Type_TIMESTAMP, 6), mustTime("2024-05-06 07:08:09.123456"), "2024-05-06 07:08:09.123456"},
		{types.MustCreateDatetimeType(query.Type_TIMESTAMP, 0), mustTime("2038-01-19 03:14:07"), "2038-01-19 03:14:07"},
		{types.Time, types.Timespan(-(12*3600 + 34*60 + 56) * 1e6), "-12:34:56"},
		{types.Time, types.Timespan((838*3600 + 59*60 + 59) * 1e6), "838:59:59"},
		{types.Year, int16(2024), "2024"},
		{types.MustCreateStringWithDefaults(query.Type_CHAR, 3), "abc", "abc"},
		{types.MustCreateString(query.Type_CHAR, 100, coll), strings.Repeat("é", 100), strings.Repeat("é", 100)},
		{types.MustCreateString(query.Type_VARCHAR, 20, coll), "ü€", "ü€"},
		{types.MustCreateString(query.Type_VARCHAR, 300, coll), strings.Repeat("x", 300), strings.Repeat("x", 300)},
		{types.MustCreateBinary(query.Type_VARBINARY, 10), []byte{0, 0xff}, "\x00\xff"},
		{types.Text, strings.Repeat("t", 60000), strings.Repeat("t", 60000)},
		{types.Blob, []byte("blob"), "blob"},
		{types.TinyText, "tiny", "tiny"},
		{types.MustCreateBitType(5), uint64(5), "\x05"},
		{types.MustCreateBitType(17), uint64(0x1abcd), "\x01\xab\xcd"},
		{types.JSON, types.JSONDocument{Val: map[string]any{"a": []any{1.0, "x"}}}, `{"a": [1, "x"]}`},
	}
	sch := sql.Schema{}
	row := sql.Row{}
	for i, c := range cases {
		sch = append(sch, &sql.Column{Name: fmt.Sprintf("c%d", i), Type: c.typ, Nullable: true})
		row = append(row, c.v)
	}
	// ENUM and SET go as their index and bitmask.
	enum := types.MustCreateEnumType([]string{"a", "b", "c"}, coll)
	set := types.MustCreateSetType([]string{"x", "y", "z"}, coll)
	sch = append(sch, &sql.Column{Name: "e", Type: enum}, &sql.Column{Name: "s", Type: set}, &sql.Column{Name: "n", Type: types.Int32, Nullable: true})
	row = append(row, uint16(2), uint64(5), nil)
	tb, err := NewTable(9, "d", "t", sch)
	if err != nil {
		t.Fatal(err)
	}
	img, nulls := image(t, tb, row)
	got := decodeRow(t, tb, img, nulls)
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%s: got %q, want %q", c.typ, trunc(got[i]), trunc(c.want))
		}
	}
	n := len(cases)
	if got[n] != "2" || got[n+1] != "5" || got[n+2] != "NULL" {
		t.Errorf("ENUM, SET, NULL: got %q", got[n:])
	}
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// TestDecimalsAndTemporalsRandom: random DECIMAL(p,s) values at every
// precision and scale, and DATETIME/TIMESTAMP values at every fractional
// precision, read back by vitess's decoder as written.
func TestDecimalsAndTemporalsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		p := 1 + rng.Intn(65)
		s := rng.Intn(min(p, 30) + 1)
		digits := make([]byte, p)
		for j := range digits {
			digits[j] = byte('0' + rng.Intn(10))
		}
		txt := string(digits[:p-s])
		if txt == "" {
			txt = "0"
		}
		if s > 0 {
			txt += "." + string(digits[p-s:])
		}
		if rng.Intn(2) == 0 {
			txt = "-" + txt
		}
		d := decimal.RequireFromString(txt)
		tb, err := NewTable(1, "d", "t", sql.Schema{{Name: "x", Type: types.MustCreateDecimalType(uint8(p), uint8(s))}})
		if err != nil {
			t.Fatal(err)
		}
		img, nulls := image(t, tb, sql.Row{d})
		// vitess writes a nine-digit group's leading zeros as spaces
		// and a zero integer part as nothing
		gotText := strings.ReplaceAll(decodeRow(t, tb, img, nulls)[0], " ", "0")
		if strings.TrimPrefix(gotText, "-") == "" {
			gotText = "0"
		}
		got, err := decimal.NewFromString(gotText)
		if err != nil || !got.Equal(d) {
			t.Fatalf("DECIMAL(%d,%d) %s: read back %q (image %x)", p, s, txt, gotText, img)
		}
		if !got.Equal(d) {
			t.Fatalf("DECIMAL(%d,%d) %s: read back %s", p, s, txt, got)
		}
	}
	for i := 0; i < 3000; i++ {
		fsp := rng.Intn(7)
		sec := rng.Int63n(2145916800) // to 2037
		us := rng.Int63n(1e6)
		for j := fsp; j < 6; j++ {
			us -= us % 10
			us /= 10
		}
		for j := fsp; j < 6; j++ {
			us *= 10
		}
		v := time.Unix(sec, us*1000).UTC()
		want := v.Format("2006-01-02 15:04:05")
		if fsp > 0 {
			want += fmt.Sprintf(".%06d", us)[:fsp+1]
		}
		for _, kind := range []query.Type{query.Type_DATETIME, query.Type_TIMESTAMP} {
			tb, err := NewTable(1, "d", "t", sql.Schema{{Name: "x", Type: types.MustCreateDatetimeType(kind, fsp)}})
			if err != nil {
				t.Fatal(err)
			}
			img, nulls := image(t, tb, sql.Row{v})
			if got := decodeRow(t, tb, img, nulls)[0]; got != want {
				t.Fatalf("%s(%d) %s: read back %s", kind, fsp, want, got)
			}
		}
	}
}

var _ = sqltypes.NULL
