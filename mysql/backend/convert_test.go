package backend

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
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
