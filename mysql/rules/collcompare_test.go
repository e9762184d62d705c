package rules

import (
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// RULE-81: the table-backed comparison answers as go-mysql-server's own
// comparison for every pair: ASCII, accents, case, ß, CJK, control
// characters, prefixes and trailing spaces, under several collations,
// literal on either side; NULL is NULL.
func TestStringComparisonsMatchCollation(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(81))
	alphabet := []string{"a", "A", "b", "B", "z", " ", "\t", "\x01", "é", "E", "e", "ß", "s", "ss", "ı", "i", "中", "文", "😀", "-", "_", "0", "9"}
	word := func() string {
		n := r.Intn(6)
		s := ""
		for i := 0; i < n; i++ {
			s += alphabet[r.Intn(len(alphabet))]
		}
		return s
	}
	makers := []func(l, r sql.Expression) sql.Expression{
		func(l, r sql.Expression) sql.Expression { return expression.NewEquals(l, r) },
		func(l, r sql.Expression) sql.Expression { return expression.NewLessThan(l, r) },
		func(l, r sql.Expression) sql.Expression { return expression.NewLessThanOrEqual(l, r) },
		func(l, r sql.Expression) sql.Expression { return expression.NewGreaterThan(l, r) },
		func(l, r sql.Expression) sql.Expression { return expression.NewGreaterThanOrEqual(l, r) },
	}
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_general_ci,
		sql.Collation_utf8mb4_0900_as_cs, sql.Collation_utf8mb4_bin, sql.Collation_utf8mb3_general_ci} {
		typ := types.MustCreateString(sqltypes.VarChar, 40, coll)
		col := expression.NewGetField(0, typ, "s", true)
		for i := 0; i < 3000; i++ {
			a, b := word(), word()
			if i%5 == 0 {
				b = a + word()
			}
			lit := expression.NewLiteral(b, typ)
			for _, mk := range makers {
				for _, e := range []sql.Expression{mk(col, lit), mk(lit, col)} {
					f := fastStringCompare(e)
					if f == nil {
						t.Fatalf("%s: %v not rewritten", coll, e)
					}
					want, werr := e.Eval(ctx, sql.Row{a})
					got, gerr := f.Eval(ctx, sql.Row{a})
					if got != want || (werr == nil) != (gerr == nil) {
						t.Fatalf("%s: %v with s=%q: got %v, %v; want %v, %v", coll, e, a, got, gerr, want, werr)
					}
					if got, _ := f.Eval(ctx, sql.Row{nil}); got != nil {
						t.Fatalf("%v with NULL: %v", e, got)
					}
				}
			}
		}
	}
	// A literal of another type (not typed by RULE-73) keeps the comparison.
	col := expression.NewGetField(0, types.MustCreateString(sqltypes.VarChar, 40, sql.Collation_utf8mb4_0900_ai_ci), "s", true)
	if fastStringCompare(expression.NewEquals(col, expression.NewLiteral("x", types.LongText))) != nil {
		t.Fatal("a LONGTEXT literal taken")
	}
}

// RULE-80's keys: appendWeightString writes what go-mysql-server's
// WriteWeightString writes, for ASCII, other runes and invalid UTF-8,
// under collations with and without the weight table and binary.
func TestWeightStringsMatchCollation(t *testing.T) {
	r := rand.New(rand.NewSource(80))
	alphabet := []string{"a", "A", "z", " ", "\x00", "\x7f", "é", "ß", "中", "😀", "-", "9", "\xff", "\xc3", "e\u0301"}
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_general_ci,
		sql.Collation_utf8mb4_0900_as_cs, sql.Collation_utf8mb4_bin, sql.Collation_utf8mb3_general_ci,
		sql.Collation_latin1_swedish_ci, sql.Collation_binary, sql.Collation_utf16_general_ci} {
		for i := 0; i < 2000; i++ {
			s := ""
			for n := r.Intn(8); n > 0; n-- {
				s += alphabet[r.Intn(len(alphabet))]
			}
			var want byteWriter
			wantErr := coll.WriteWeightString(&want, s)
			got, err := appendWeightString([]byte("prefix"), coll, s)
			if (err != nil) != (wantErr != nil) || string(got) != "prefix"+string(want.b) {
				t.Fatalf("%s %q: got %x (%v), want %x (%v)", coll, s, got, err, want.b, wantErr)
			}
		}
	}
}
