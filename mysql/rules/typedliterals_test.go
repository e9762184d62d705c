package rules

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// TestTypedLiterals (RULE-73): the literal compared with a character column
// takes the column's type, on either side and in every comparison
// operator; a literal the column's character set cannot hold, a binary
// column and a number are left alone.
func TestTypedLiterals(t *testing.T) {
	utf8 := types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_utf8mb4_0900_ai_ci)
	latin := types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_latin1_swedish_ci)
	col := func(typ sql.Type) sql.Expression { return expression.NewGetField(0, typ, "s", true) }
	lit := func(s string) sql.Expression { return expression.NewLiteral(s, types.LongText) }
	for _, c := range []struct {
		e     sql.Expression
		typed bool
	}{
		{expression.NewEquals(col(utf8), lit("paid")), true},
		{expression.NewGreaterThan(lit("paid"), col(utf8)), true},
		{expression.NewNullSafeEquals(col(utf8), lit("é")), true},
		{expression.NewLessThanOrEqual(col(latin), lit("paid")), true},
		{expression.NewEquals(col(latin), lit("é")), false},
		{expression.NewEquals(col(types.LongBlob), lit("paid")), false},
		{expression.NewEquals(col(utf8), expression.NewLiteral(int64(5), types.Int64)), false},
		{expression.NewEquals(col(utf8), col(latin)), false},
	} {
		l, r, _ := comparedOperands(c.e)
		got, ok := typedLiteral(l, r)
		if !ok {
			got, ok = typedLiteral(r, l)
		}
		if ok != c.typed {
			t.Errorf("%s: typed %v, want %v", c.e, ok, c.typed)
			continue
		}
		if ok && !types.TypesEqual(got.Type(), col(utf8).Type()) && !types.TypesEqual(got.Type(), col(latin).Type()) {
			t.Errorf("%s: literal typed %s", c.e, got.Type())
		}
	}
}

// TestTemporalLiterals (RULE-73): a string compared with a temporal column
// is converted once, to the value the comparison converted it to per
// row; a string that does not convert cleanly is left to the comparison.
func TestTemporalLiterals(t *testing.T) {
	ctx := sql.NewEmptyContext()
	col := expression.NewGetField(0, types.Datetime, "created", true)
	lit := func(s string) sql.Expression { return expression.NewLiteral(s, types.LongText) }
	got, ok := temporalLiteral(ctx, col, lit("2025-10-01"))
	if !ok {
		t.Fatal("a date string compared with a DATETIME column was not converted")
	}
	want, _, _ := types.DatetimeMaxPrecision.Convert(ctx, "2025-10-01")
	if v, _ := got.Eval(ctx, nil); v != want || !types.TypesEqual(got.Type(), types.DatetimeMaxPrecision) {
		t.Errorf("converted to %v (%s), want %v", v, got.Type(), want)
	}
	for _, s := range []string{"2025-13-45", "not a date"} {
		if _, ok := temporalLiteral(ctx, col, lit(s)); ok {
			t.Errorf("%q converted", s)
		}
	}
	if _, ok := temporalLiteral(ctx, expression.NewGetField(0, types.Int64, "n", true), lit("2025-10-01")); ok {
		t.Error("a string compared with an integer column converted as a date")
	}
}
