package fastpath

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/variables"
)

// TestRowEncoderMatchesSQL (FP-15): the encoder's values are each column
// type's SQL values, byte for byte and type for type, and its errors are
// SQL's, under every results character set a client sets.
func TestRowEncoderMatchesSQL(t *testing.T) {
	variables.InitSystemVariables()
	var sch sql.Schema
	for _, typStr := range []string{"char(20) COLLATE utf8mb4_0900_ai_ci", "varchar(20) COLLATE utf8mb4_bin",
		"text", "varchar(20) CHARACTER SET latin1", "varchar(20) CHARACTER SET utf8mb3", "varbinary(20)",
		"binary(6)", "int", "bigint unsigned"} {
		typ, err := planbuilder.ParseColumnTypeString(typStr)
		if err != nil {
			t.Fatal(err)
		}
		sch = append(sch, &sql.Column{Name: typStr, Type: typ, Nullable: true})
	}
	strs := []string{"", "abc", "a b ", "é中", "😀", "\xff", "ab\xc3", "x\x00y"}
	rng := rand.New(rand.NewSource(15))
	for _, charset := range []any{nil, "utf8mb4", "latin1", "binary", "utf8mb3"} {
		ctx := sql.NewEmptyContext()
		if err := ctx.SetSessionVariable(ctx, "character_set_results", charset); err != nil {
			t.Fatal(err)
		}
		ords := rng.Perm(len(sch))
		proj := make(sql.Schema, len(ords))
		for i, o := range ords {
			proj[i] = sch[o]
		}
		enc := NewRowEncoder(ctx, proj, ords)
		for i := 0; i < 2000; i++ {
			row := make(sql.Row, len(sch))
			for o, c := range sch {
				switch {
				case rng.Intn(6) == 0:
				case c.Type.Type() == sch[7].Type.Type():
					row[o] = int32(rng.Intn(100) - 50)
				case c.Type.Type() == sch[8].Type.Type():
					row[o] = uint64(rng.Intn(100))
				default:
					row[o] = strs[rng.Intn(len(strs))]
				}
			}
			got, gotErr := enc.Row(ctx, row)
			for j, o := range ords {
				want, wantErr := proj[j].Type.SQL(ctx, nil, row[o])
				if (gotErr != nil) != (wantErr != nil) && wantErr != nil {
					t.Fatalf("charset %v, %s of %q: encoder error %v, SQL error %v", charset, proj[j].Name, row[o], gotErr, wantErr)
				}
				if gotErr != nil || wantErr != nil {
					continue
				}
				if g := got[j]; g.Type() != want.Type() || string(g.Raw()) != string(want.Raw()) {
					t.Fatalf("charset %v, %s of %q: encoder %v %q, SQL %v %q", charset, proj[j].Name, row[o], g.Type(), g.Raw(), want.Type(), want.Raw())
				}
			}
			if gotErr != nil {
				// An error only where some value of the row has SQL's error.
				failed := false
				for j, o := range ords {
					if _, err := proj[j].Type.SQL(ctx, nil, row[o]); err != nil && fmt.Sprint(err) == fmt.Sprint(gotErr) {
						failed = true
					}
				}
				if !failed {
					t.Fatalf("charset %v: encoder error %v without one from SQL", charset, gotErr)
				}
			}
		}
	}
}
