package backend

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/shopspring/decimal"
)

// FPB-4: whenever a string is taken as converting to itself,
// go-mysql-server's Convert returns it in range and unchanged; and the
// shortcut does take plain strings within the limit.
func TestStringsConvertToThemselves(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(5))
	pieces := []string{"a", "Z", " ", "é", "中", "😀", "\xff", "\xc3", "0", "'"}
	for _, typStr := range []string{"char(5)", "varchar(5)", "char(5) CHARACTER SET latin1", "varchar(300) CHARACTER SET latin1",
		"tinytext", "text", "varchar(5) COLLATE utf8mb4_bin", "binary(5)", "varbinary(5)", "int", "decimal(5,2)"} {
		typ, err := planbuilder.ParseColumnTypeString(typStr)
		if err != nil {
			t.Fatal(err)
		}
		c, err := newColCodec(typ)
		if err != nil {
			t.Fatal(err)
		}
		taken := 0
		for i := 0; i < 4000; i++ {
			var b strings.Builder
			for n := rng.Intn(9); n > 0; n-- {
				b.WriteString(pieces[rng.Intn(len(pieces))])
			}
			if rng.Intn(50) == 0 {
				b.WriteString(strings.Repeat("x", 250+rng.Intn(10)))
			}
			s := b.String()
			if !c.convertsToItself(s) {
				continue
			}
			taken++
			got, inRange, err := typ.Convert(ctx, s)
			if err != nil || inRange != sql.InRange || got != s {
				t.Fatalf("%s: %q taken as itself, go-mysql-server gives %q %v %v", typStr, s, got, inRange, err)
			}
		}
		isString := c.kind == kString
		if isString != (taken > 0) {
			t.Errorf("%s: %d strings taken as themselves", typStr, taken)
		}
	}
}

// FPB-5: a plain decimal taken directly is the decimal go-mysql-server's
// Convert gives (digits and exponent), in range; and plain values within
// the column's scale and range are taken.
func TestPlainDecimalsAsConvert(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(6))
	for _, c := range []struct{ prec, scale int }{{8, 2}, {10, 0}, {5, 5}, {18, 4}, {12, 2}, {30, 2}} {
		typ, err := planbuilder.ParseColumnTypeString(fmt.Sprintf("decimal(%d,%d)", c.prec, c.scale))
		if err != nil {
			t.Fatal(err)
		}
		taken := 0
		for i := 0; i < 5000; i++ {
			var b strings.Builder
			if rng.Intn(3) == 0 {
				b.WriteByte('-')
			}
			for n := rng.Intn(c.prec - c.scale + 3); n >= 0; n-- {
				b.WriteByte(byte('0' + rng.Intn(10)))
			}
			if rng.Intn(3) > 0 {
				b.WriteByte('.')
				for n := rng.Intn(c.scale + 2); n > 0; n-- {
					b.WriteByte(byte('0' + rng.Intn(10)))
				}
			}
			s := b.String()
			d, ok := plainDecimal(s, c.prec, c.scale, false)
			if !ok {
				continue
			}
			taken++
			cv, inRange, err := typ.Convert(ctx, s)
			got, isDec := cv.(decimal.Decimal)
			if err != nil || inRange != sql.InRange || !isDec || got.String() != d.String() || got.Exponent() != d.Exponent() ||
				got.Coefficient().Cmp(d.Coefficient()) != 0 {
				t.Fatalf("decimal(%d,%d) %q: taken as %s (exp %d), Convert gives %v (%v %v)", c.prec, c.scale, s, d, d.Exponent(), cv, inRange, err)
			}
			if u, ok := plainDecimal(s, c.prec, c.scale, true); ok && d.Sign() < 0 {
				t.Fatalf("%q taken for an UNSIGNED column as %s", s, u)
			}
		}
		if (taken == 0) != (c.prec > 18) {
			t.Errorf("decimal(%d,%d): %d values taken directly", c.prec, c.scale, taken)
		}
	}
}
