package backend

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/shopspring/decimal"
)

// randomValue returns a random value of the column's canonical kind, with
// many collisions and near-collisions (equal prefixes, case variants,
// trailing zeros) so that ties and prefix rules are exercised.
func randomValue(rng *rand.Rand, c colCodec) any {
	switch c.kind {
	case kInt:
		return int64(rng.Intn(41) - 20)
	case kUint:
		return uint64(rng.Intn(40))
	case kFloat64:
		return float64(rng.Intn(41)-20) / 4
	case kDecimal:
		return decimal.New(int64(rng.Intn(2001)-1000), int32(-rng.Intn(3)))
	case kString, kBytes:
		alphabet := []string{"a", "A", "b", "B", "é", "E", " ", "\x00", "z", "~", "\x7f", "ß", "中", "\uffff", "😀", "\U0010FFFF"}
		n := rng.Intn(5)
		s := ""
		for i := 0; i < n; i++ {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		if c.kind == kBytes {
			return []byte(s)
		}
		return s
	case kTime:
		return time.Unix(int64(rng.Intn(2000)-1000)*86400, int64(rng.Intn(3))*1000).UTC()
	}
	panic("kind")
}

// testCodec is the codec of a column of type typStr (ParseColumnTypeString's
// syntax) in a table of key format keyFormat, and the type.
func testCodec(t testing.TB, typStr string, keyFormat int) (colCodec, sql.Type) {
	t.Helper()
	typ, err := planbuilder.ParseColumnTypeString(typStr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tableColCodec(typ, keyFormat)
	if err != nil {
		t.Fatal(err)
	}
	return c, typ
}

// TestKeyOrderMatchesCompare checks CODEC-1: byte order of encoded keys is
// go-mysql-server's order, for each type and collation, and prefixes of
// tuples stay prefixes (CODEC-2, self-delimiting columns).
func TestKeyOrderMatchesCompare(t *testing.T) {
	ctx := context.Background()
	for _, typStr := range []string{"bigint", "int unsigned", "double", "decimal(10,2)", "datetime(6)",
		"varchar(20) COLLATE utf8mb4_0900_bin", "varchar(20) COLLATE utf8mb4_general_ci",
		"varchar(20) COLLATE utf8mb4_0900_ai_ci", "varbinary(20)"} {
		c, typ := testCodec(t, typStr, 0)
		for _, dense := range []bool{false, true} { // CODEC-3 and CODEC-12
			c.dense = dense && c.weight != nil
			rng := rand.New(rand.NewSource(1))
			for i := 0; i < 3000; i++ {
				a, b := randomValue(rng, c), randomValue(rng, c)
				if rng.Intn(10) == 0 {
					a = nil
				}
				// NULL sorts first in an index (as MySQL and GMS range cuts
				// have it; GMS's Compare puts it last).
				want, err := typ.Compare(ctx, a, b)
				if err != nil {
					t.Fatal(err)
				}
				if a == nil {
					want = -1
				}
				ka, err := c.appendKey(ctx, nil, a)
				if err != nil {
					t.Fatalf("%s: encode %v: %v", typStr, a, err)
				}
				kb, _ := c.appendKey(ctx, nil, b)
				if got := bytes.Compare(ka, kb); got != want {
					t.Fatalf("%s: compare(%q, %q) = %d, keys compare %d (%x vs %x)", typStr, a, b, want, got, ka, kb)
				}
				// Self-delimiting: a following column never changes the order.
				if n, err := c.skipKey(append(ka, 0xFF, 0x00)); err != nil || n != len(ka) {
					t.Fatalf("%s: skipKey(%x) = %d, %v", typStr, ka, n, err)
				}
				if want != 0 {
					if got := bytes.Compare(append(ka, 0xFF), append(kb, 0x00)); got != want {
						t.Fatalf("%s: tuple order broken for %q, %q", typStr, a, b)
					}
				}
			}
		}
	}
}

// CODEC-14: compareStrings orders two strings as their keys do, in both key
// formats, under binary, PAD SPACE and NO PAD collations and for CHAR
// (whose trailing spaces go), and gives up exactly where a key would fail.
func TestCompareStringsMatchesKeys(t *testing.T) {
	ctx := context.Background()
	for _, typStr := range []string{"varchar(20) COLLATE utf8mb4_0900_bin", "varchar(20) COLLATE utf8mb4_bin",
		"varchar(20) COLLATE utf8mb4_general_ci", "char(20) COLLATE utf8mb4_0900_ai_ci",
		"varchar(20) COLLATE utf8mb4_0900_ai_ci", "varchar(20) COLLATE utf8mb4_unicode_ci",
		"varchar(20) CHARACTER SET latin1 COLLATE latin1_swedish_ci"} {
		for _, keyFormat := range []int{0, keyFormatDenseWeights} {
			c, _ := testCodec(t, typStr, keyFormat)
			rng := rand.New(rand.NewSource(14))
			prefixes := 0
			for i := 0; i < 5000; i++ {
				a, b := randomValue(rng, c).(string), randomValue(rng, c).(string)
				switch rng.Intn(8) {
				case 0:
					b = a + strings.Repeat(" ", rng.Intn(3)) // CODEC-8's equal keys
				case 1:
					b = a + randomValue(rng, c).(string) // a prefix
				case 2:
					b = a + "\xff" // malformed after a common prefix
				}
				ka, errA := c.appendKey(ctx, nil, a)
				kb, errB := c.appendKey(ctx, nil, b)
				got, ok := c.compareStrings(a, b)
				if errA != nil || errB != nil {
					continue // a difference before the malformed byte may decide (checked below)
				}
				if !ok {
					t.Fatalf("%s (format %d): compareStrings(%q, %q) gave up on well-formed strings", typStr, keyFormat, a, b)
				}
				want := bytes.Compare(ka, kb)
				if got != want {
					t.Fatalf("%s (format %d): compareStrings(%q, %q) = %d, keys compare %d", typStr, keyFormat, a, b, got, want)
				}
				pa, okA := c.weightPrefix(a)
				pb, okB := c.weightPrefix(b)
				if okA && okB && pa != pb {
					prefixes++
					if (pa < pb) != (want < 0) {
						t.Fatalf("%s (format %d): prefixes of %q, %q are %x, %x, keys compare %d", typStr, keyFormat, a, b, pa, pb, want)
					}
				}
			}
			if !c.binColl && prefixes < 1000 {
				t.Fatalf("%s: only %d pairs decided by their prefixes", typStr, prefixes)
			}
			// Where the malformed part is reached, the comparison gives up.
			if !c.binColl {
				for _, p := range [][2]string{{"ab", "ab\xff"}, {"ab\xff", "ab"}, {"a\xffb", "a\xffb"}} {
					if _, ok := c.compareStrings(p[0], p[1]); ok {
						t.Fatalf("%s: compareStrings(%q, %q) compared a malformed string", typStr, p[0], p[1])
					}
				}
			}
		}
	}
}

// CODEC-14: the prefix's slots, pinned where the random pairs above rarely
// reach (a saturated weight's neighbours, the end after a zero weight).
func TestWeightPrefixSlots(t *testing.T) {
	c, _ := testCodec(t, "varchar(20) COLLATE utf8mb4_0900_ai_ci", keyFormatDenseWeights)
	w := func(r rune) uint64 { return uint64(c.weight(r)) }
	for s, want := range map[string]uint64{
		"":              0,
		"a0-":           (w('a')+1)<<48 | (w('0')+1)<<32 | (w('-')+1)<<16,
		"a\x00":         (w('a')+1)<<48 | 1<<32,
		"a0-ab":         (w('a')+1)<<48 | (w('0')+1)<<32 | (w('-')+1)<<16 | (w('a') + 1),
		"\uffffa":       0xFFFF << 48, // weight 128,026: saturated, nothing after
		"a\uffff\uffff": (w('a')+1)<<48 | 0xFFFF<<32,
	} {
		if got, ok := c.weightPrefix(s); !ok || got != want {
			t.Errorf("weightPrefix(%q) = %x, %v; want %x", s, got, ok, want)
		}
	}
	if _, ok := c.weightPrefix("a\xff"); ok {
		t.Errorf("weightPrefix of a malformed string")
	}
}

// CODEC-12: byte order of encoded weights is weight order across every
// class boundary, and weightLen reads back each length.
func TestWeightEncodingOrder(t *testing.T) {
	var ws []int32
	for _, base := range []int64{0, weight2Base, weight3Base, weight5Base, 1 << 30, math.MaxInt32} {
		for w := base - 2; w <= base+2 && w <= math.MaxInt32; w++ {
			ws = append(ws, int32(w))
		}
	}
	ws = append(ws, -1<<31, -7, 65, 7044)
	for _, a := range ws {
		ka := appendWeight(nil, a)
		if n := weightLen(ka[0]); n != len(ka) {
			t.Fatalf("weight %d: %x has length %d, weightLen %d", a, ka, len(ka), n)
		}
		if ka[0] == 0x00 {
			t.Fatalf("weight %d encodes with the terminator as lead byte", a)
		}
		for _, b := range ws {
			kb := appendWeight(nil, b)
			want := 0
			if a < b {
				want = -1
			} else if a > b {
				want = 1
			}
			if got := bytes.Compare(ka, kb); got != want {
				t.Fatalf("weights %d, %d: keys %x, %x compare %d", a, b, ka, kb, got)
			}
		}
	}
	for w, want := range map[int32]int{0: 1, 125: 1, 126: 2, weight3Base - 1: 2, weight3Base: 3, weight5Base - 1: 3, weight5Base: 5, -1: 5} {
		if n := len(appendWeight(nil, w)); n != want {
			t.Errorf("weight %d: %d bytes, want %d", w, n, want)
		}
	}
}

// TestRowRoundTrip checks CODEC-4: rows decode to the values written, and
// a row written before a column was added decodes with NULL for it.
func TestRowRoundTrip(t *testing.T) {
	ctx := context.Background()
	var cols []colCodec
	for _, s := range []string{"bigint", "int unsigned", "double", "decimal(10,2)", "datetime(6)",
		"varchar(20)", "varbinary(20)", "json", "tinyint", "float", "date"} {
		c, _ := testCodec(t, s, 0)
		cols = append(cols, c)
	}
	when := time.Date(2024, 2, 3, 4, 5, 6, 7000, time.UTC)
	row := sql.Row{int64(-5), uint32(7), 2.5, decimal.RequireFromString("12.30"), when, "héllo",
		[]byte{0, 1}, `{"a": [1, 2]}`, int8(-3), float32(1.5), when.Truncate(24 * time.Hour)}
	b, err := appendRow(ctx, nil, cols, row)
	if err != nil {
		t.Fatal(err)
	}
	got := make(sql.Row, len(cols))
	if err := decodeRow(ctx, b, cols, got); err != nil {
		t.Fatal(err)
	}
	for i := range cols {
		want, _, _ := cols[i].typ.Convert(ctx, row[i])
		if cmp, err := cols[i].typ.Compare(ctx, want, got[i]); err != nil || cmp != 0 {
			t.Errorf("column %d (%s): wrote %v, read %v (%T)", i, cols[i].typ, row[i], got[i], got[i])
		}
	}
	if got[3].(decimal.Decimal).String() != "12.3" || got[3].(decimal.Decimal).StringFixed(2) != "12.30" {
		t.Errorf("decimal scale: %v", got[3])
	}
	// One more column than was written: NULL.
	wider := append(append([]colCodec{}, cols...), cols[0])
	got = make(sql.Row, len(wider))
	if err := decodeRow(ctx, b, wider, got); err != nil || got[len(wider)-1] != nil {
		t.Fatalf("added column: %v %v", got[len(wider)-1], err)
	}
	// Corrupt rows are reported, never panic.
	for n := 0; n < len(b); n++ {
		decodeRow(ctx, b[:n], cols, got)
	}
	// Decoding a subset of the columns skips the others (nil) and gives
	// the chosen ones exactly as a full decode does, for every subset.
	full := make(sql.Row, len(cols))
	if err := decodeRow(ctx, b, cols, full); err != nil {
		t.Fatal(err)
	}
	for mask := 0; mask < 1<<len(cols); mask++ {
		need := make([]bool, len(cols))
		for i := range need {
			need[i] = mask&(1<<i) != 0
		}
		part := make(sql.Row, len(cols))
		for i := range part {
			part[i] = "stale"
		}
		if err := decodeColumns(ctx, b, cols, part, need, &valueArena{}); err != nil {
			t.Fatalf("mask %b: %v", mask, err)
		}
		for i := range cols {
			if !need[i] {
				if part[i] != nil {
					t.Fatalf("mask %b: skipped column %d is %v", mask, i, part[i])
				}
				continue
			}
			if cmp, err := cols[i].typ.Compare(ctx, full[i], part[i]); err != nil || cmp != 0 {
				t.Fatalf("mask %b: column %d is %v, full decode %v", mask, i, part[i], full[i])
			}
		}
	}
	for n := 0; n < len(b); n++ {
		decodeColumns(ctx, b[:n], cols, got, []bool{false, true, false, false, false, true, false, false, false, false, true}, nil)
	}
}

// TestParseStoredDecimal: the fast DECIMAL decoder gives exactly what
// decimal.NewFromString gives (value and exponent: "7.00" keeps its
// scale), and falls back to it past 18 digits.
func TestParseStoredDecimal(t *testing.T) {
	for _, s := range []string{"0", "7.00", "-7.00", "123.45", "-0.01", "0.000", "999999999999999999",
		"1234567890.12345678", "12345678901234567890.5", "-99999999999999999999999.999", "5."} {
		got, err := parseStoredDecimal([]byte(s))
		want, werr := decimal.NewFromString(s)
		if (err != nil) != (werr != nil) {
			t.Fatalf("%q: error %v, NewFromString %v", s, err, werr)
		}
		if err == nil && (!got.Equal(want) || got.Exponent() != want.Exponent() || got.String() != want.String()) {
			t.Errorf("%q: %s (exp %d), NewFromString %s (exp %d)", s, got, got.Exponent(), want, want.Exponent())
		}
	}
}

// BenchmarkStringKey encodes a sysbench c value (120 ASCII characters)
// under utf8mb4_0900_ai_ci in both key formats (CODEC-3, CODEC-12).
func BenchmarkStringKey(b *testing.B) {
	typ, err := planbuilder.ParseColumnTypeString("varchar(200) COLLATE utf8mb4_0900_ai_ci")
	if err != nil {
		b.Fatal(err)
	}
	s := "83868641912-28773972837-60736120486-75162659906-27563526494-20381887404-41576422241-93426793964-56405065102-33518432330"
	for _, dense := range []bool{false, true} {
		c, err := newColCodec(typ)
		if err != nil {
			b.Fatal(err)
		}
		c.dense = dense
		buf := make([]byte, 0, 1024)
		b.Run(map[bool]string{false: "CODEC-3", true: "CODEC-12"}[dense], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				buf, _ = c.appendKey(context.Background(), buf[:0], s)
			}
		})
	}
}

// CODEC-13: values decoded into an arena are the values decoded without
// one (DECIMAL value and exponent, strings), and stay so while the arena
// hands out the rest of its blocks and new ones.
func TestArenaValuesStay(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	var a valueArena
	var decs []decimal.Decimal
	var strs []string
	var raws [][]byte
	for i := 0; i < 5000; i++ {
		neg := ""
		if r.Intn(3) == 0 {
			neg = "-"
		}
		raw := []byte(fmt.Sprintf("%s%d.%02d", neg, r.Int63n(1e15), r.Intn(100)))
		if i%100 == 0 {
			raw = []byte("0.00")
		}
		d, err := parseStoredDecimalIn(&a, raw)
		if err != nil {
			t.Fatal(err)
		}
		decs, raws = append(decs, d), append(raws, raw)
		s := make([]byte, r.Intn(700))
		for j := range s {
			s[j] = byte('a' + r.Intn(26))
		}
		strs = append(strs, a.string(s))
		copy(s, "XXXXXXXX") // the caller's buffer is reused; the value is a copy
	}
	for i, d := range decs {
		want, _ := decimal.NewFromString(string(raws[i]))
		if !d.Equal(want) || d.Exponent() != want.Exponent() || d.String() != want.String() {
			t.Fatalf("%s decoded as %v (exp %d)", raws[i], d, d.Exponent())
		}
		if d.Add(decimal.New(1, 0)).Sub(decimal.New(1, 0)).Cmp(want) != 0 {
			t.Fatalf("%s: arithmetic on the arena value", raws[i])
		}
	}
	for i, s := range strs {
		if strings.Contains(s, "X") || (len(s) > 0 && (s[0] < 'a' || s[0] > 'z')) {
			t.Fatalf("string %d overwritten: %.20q", i, s)
		}
	}
}

// TestSkipVarintMatchesDecode: skipValue's varint skip (no decoding)
// accepts and measures exactly what binary.Uvarint does, overflow and
// truncation included.
func TestSkipVarintMatchesDecode(t *testing.T) {
	inputs := [][]byte{{}, {0x80}, {0x7f}, {0x80, 0x01}}
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 35, math.MaxUint64} {
		inputs = append(inputs, binary.AppendUvarint(nil, v))
	}
	over := bytes.Repeat([]byte{0xff}, 9)
	inputs = append(inputs, append(append([]byte{}, over...), 0x01), append(append([]byte{}, over...), 0x02), bytes.Repeat([]byte{0x80}, 11))
	for _, k := range []kind{kInt, kUint, kTime} {
		c := &colCodec{kind: k}
		for _, in := range inputs {
			_, want := binary.Uvarint(in)
			got, err := c.skipValue(in)
			if want <= 0 {
				if err == nil {
					t.Fatalf("kind %v: % x skipped %d bytes; binary.Uvarint refuses it", k, in, got)
				}
				continue
			}
			if err != nil || got != want {
				t.Fatalf("kind %v: % x: skip %d, %v; binary.Uvarint reads %d", k, in, got, err, want)
			}
		}
	}
}

// BenchmarkSortStrings sorts 100 sysbench c values (CHAR(120) under
// utf8mb4_0900_ai_ci) as an ORDER BY c range select does: by collation
// keys (before CODEC-14), by compareStrings, and by weight prefixes with
// compareStrings on ties (FP-14).
func BenchmarkSortStrings(b *testing.B) {
	c, _ := testCodec(b, "char(120) COLLATE utf8mb4_0900_ai_ci", keyFormatDenseWeights)
	rng := rand.New(rand.NewSource(1))
	vals := make([]string, 100)
	for i := range vals {
		var sb strings.Builder
		for g := 0; g < 10; g++ {
			if g > 0 {
				sb.WriteByte('-')
			}
			fmt.Fprintf(&sb, "%011d", rng.Int63n(1e11))
		}
		vals[i] = sb.String()
	}
	ctx := context.Background()
	b.Run("keys", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			keys := make([][]byte, len(vals))
			for j, v := range vals {
				keys[j], _ = c.appendKey(ctx, make([]byte, 0, 5*len(v)+2), v)
			}
			idx := make([]int, len(vals))
			for j := range idx {
				idx[j] = j
			}
			slices.SortFunc(idx, func(x, y int) int { return bytes.Compare(keys[x], keys[y]) })
		}
	})
	b.Run("compare", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			idx := make([]int, len(vals))
			for j := range idx {
				idx[j] = j
			}
			slices.SortFunc(idx, func(x, y int) int { r, _ := c.compareStrings(vals[x], vals[y]); return r })
		}
	})
	b.Run("prefix", func(b *testing.B) {
		type ent struct {
			p uint64
			i int
		}
		for i := 0; i < b.N; i++ {
			es := make([]ent, len(vals))
			for j, v := range vals {
				es[j].p, _ = c.weightPrefix(v)
				es[j].i = j
			}
			slices.SortFunc(es, func(x, y ent) int {
				if x.p != y.p {
					return cmp.Compare(x.p, y.p)
				}
				r, _ := c.compareStrings(vals[x.i], vals[y.i])
				return r
			})
		}
	})
}
