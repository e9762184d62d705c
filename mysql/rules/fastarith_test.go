package rules

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// TestFastArithmeticAgrees (RULE-76): +, - and * of integers and DECIMALs
// give exactly go-mysql-server's value (digits and exponent), near and
// past int64's range too (where go-mysql-server's operator takes over).
func TestFastArithmeticAgrees(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewPCG(3, 4))
	dec := func(p, s uint8) sql.Type { return types.MustCreateDecimalType(p, s) }
	vals := func() (interface{}, sql.Type) {
		switch r.IntN(5) {
		case 0:
			return int32(r.Int32() - math.MaxInt32/2), types.Int32
		case 1:
			return int64(r.Uint64()), types.Int64 // any int64, overflows included
		case 2:
			return decimal.New(r.Int64N(1e12)-5e11, -2), dec(14, 2)
		case 3:
			return decimal.New(r.Int64N(1e6), -4), dec(10, 4)
		default:
			return decimal.New(int64(r.Uint64()>>1), -3), dec(22, 3)
		}
	}
	for i := 0; i < 20000; i++ {
		lv, lt := vals()
		rv, rt := vals()
		op := []string{"+", "-", "*"}[r.IntN(3)]
		a := expression.NewArithmetic(expression.NewLiteral(lv, lt), expression.NewLiteral(rv, rt), op)
		if !exactOperands(a) {
			continue
		}
		want, werr := a.Eval(ctx, nil)
		got, gerr := (&fastArith{Arithmetic: a}).Eval(ctx, nil)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("%v %s %v: error %v, go-mysql-server %v", lv, op, rv, gerr, werr)
		}
		wd, wok := want.(decimal.Decimal)
		gd, gok := got.(decimal.Decimal)
		if wok != gok || wok && (!wd.Equal(gd) || wd.Exponent() != gd.Exponent()) {
			t.Fatalf("%v %s %v: %v, go-mysql-server %v", lv, op, rv, got, want)
		}
	}
}
