package rules

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// randDecimal is a value of up to 9 digits with exponent 0 to -6, so
// that some have more decimals than a scale and some fewer.
func randDecimal(r *rand.Rand) decimal.Decimal {
	return decimal.New(r.Int63n(2_000_000_000)-1_000_000_000, -int32(r.Intn(7)))
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// RULE-79 (a): a comparison of a DECIMAL column with an exact literal
// answers as MySQL: the column's value as its type holds it (rounded to
// the scale) against the literal, exactly; NULL is NULL; literal on the
// left flips the operator.
func TestDecimalComparisonsExact(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(79))
	ops := []struct {
		name string
		make func(l, r sql.Expression) sql.Expression
		want func(c int) bool
	}{
		{"=", func(l, r sql.Expression) sql.Expression { return expression.NewEquals(l, r) }, func(c int) bool { return c == 0 }},
		{"<", func(l, r sql.Expression) sql.Expression { return expression.NewLessThan(l, r) }, func(c int) bool { return c < 0 }},
		{"<=", func(l, r sql.Expression) sql.Expression { return expression.NewLessThanOrEqual(l, r) }, func(c int) bool { return c <= 0 }},
		{">", func(l, r sql.Expression) sql.Expression { return expression.NewGreaterThan(l, r) }, func(c int) bool { return c > 0 }},
		{">=", func(l, r sql.Expression) sql.Expression { return expression.NewGreaterThanOrEqual(l, r) }, func(c int) bool { return c >= 0 }},
	}
	for _, scale := range []uint8{0, 2, 4} {
		typ := types.MustCreateColumnDecimalType(18, scale)
		col := expression.NewGetField(0, typ, "amt", true)
		for i := 0; i < 3000; i++ {
			v := randDecimal(r)
			var litV any = randDecimal(r)
			switch i % 4 {
			case 1:
				litV = int64(r.Intn(2000) - 1000)
			case 2:
				litV = v // equal before the rounding
			case 3:
				litV = v.Round(int32(scale)) // equal after it
			}
			lit := expression.NewLiteral(litV, types.InternalDecimalType)
			ld, _ := exactLiteral(lit)
			cmp := v.Round(int32(scale)).Cmp(ld)
			for _, op := range ops {
				for _, flipped := range []bool{false, true} {
					var e sql.Expression
					want := op.want(cmp)
					if flipped { // lit op col is col (reversed op) lit
						e = op.make(lit, col)
						want = op.want(-cmp)
					} else {
						e = op.make(col, lit)
					}
					f := fastDecimalExpr(e)
					if f == nil {
						t.Fatalf("%s: not rewritten", e)
					}
					got, err := f.Eval(ctx, sql.Row{v})
					if err != nil || got != want {
						t.Fatalf("scale %d: %v with amt=%v: got %v, %v; want %v", scale, e, v, got, err, want)
					}
					if got, _ := f.Eval(ctx, sql.Row{nil}); got != nil {
						t.Fatalf("%v with NULL: got %v", e, got)
					}
					if f.String() != e.String() {
						t.Fatalf("prints %q, was %q", f.String(), e.String())
					}
				}
			}
			lo, hi := ld, ld.Add(decimal.New(int64(r.Intn(1000)), -int32(r.Intn(4))))
			b := fastDecimalExpr(expression.NewBetween(col, expression.NewLiteral(lo, types.InternalDecimalType), expression.NewLiteral(hi, types.InternalDecimalType)))
			vv := v.Round(int32(scale))
			if got, _ := b.Eval(ctx, sql.Row{v}); got != (vv.Cmp(lo) >= 0 && vv.Cmp(hi) <= 0) {
				t.Fatalf("%v BETWEEN %v AND %v: got %v", v, lo, hi, got)
			}
		}
	}
	// Only exact literals: a float or a string keeps go-mysql-server's comparison.
	col := expression.NewGetField(0, types.MustCreateColumnDecimalType(10, 2), "amt", true)
	for _, lit := range []sql.Expression{expression.NewLiteral(1.5, types.Float64), expression.NewLiteral("1.5", types.LongText), expression.NewLiteral(nil, types.Null)} {
		if f := fastDecimalExpr(expression.NewGreaterThan(col, lit)); f != nil {
			t.Fatalf("%v rewritten", lit)
		}
	}
}

// RULE-79 (b): the sort key type orders every pair as the column type
// does, values of any exponent and other Go types alike.
func TestDecimalKeyTypeMatchesColumnType(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(7))
	for _, scale := range []uint8{0, 2, 5} {
		typ := types.MustCreateColumnDecimalType(20, scale)
		k, ok := columnDecimal(typ)
		if !ok {
			t.Fatalf("scale %d: a column type not recognized", scale)
		}
		kt := decimalKeyType{DecimalType: typ, key: k}
		for i := 0; i < 20000; i++ {
			var a, b any = randDecimal(r), randDecimal(r)
			if i%3 == 0 {
				b = a.(decimal.Decimal).Add(decimal.New(int64(r.Intn(3)-1), -int32(r.Intn(7))))
			}
			if i%50 == 0 {
				b = "12.5"
			}
			want, werr := typ.Compare(ctx, a, b)
			got, gerr := kt.Compare(ctx, a, b)
			if sign(got) != sign(want) || (werr == nil) != (gerr == nil) {
				t.Fatalf("scale %d: Compare(%v, %v) = %d, %v; the type: %d, %v", scale, a, b, got, gerr, want, werr)
			}
		}
	}
	if _, ok := columnDecimal(types.MustCreateDecimalType(20, 2)); ok {
		t.Fatal("a non-column DECIMAL type taken for a column's (it compares without a rescale)")
	}
}

// RULE-79 (b): MIN and MAX over a column DECIMAL keep the values the
// column type would, and the value itself.
func TestDecimalMinMax(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(3))
	typ := types.MustCreateColumnDecimalType(18, 2)
	col := expression.NewGetField(0, typ, "amt", true)
	mx, mn := fastDecimalExpr(aggregation.NewMax(col)), fastDecimalExpr(aggregation.NewMin(col))
	if mx == nil || mn == nil {
		t.Fatal("MIN/MAX not rewritten")
	}
	if mx.Type() != typ || mx.String() != aggregation.NewMax(col).String() {
		t.Fatalf("MAX typed %v, prints %s", mx.Type(), mx)
	}
	bx, _ := mx.(sql.Aggregation).NewBuffer()
	bn, _ := mn.(sql.Aggregation).NewBuffer()
	var max, min decimal.Decimal
	for i := 0; i < 1000; i++ {
		var row sql.Row
		if i%10 == 0 {
			row = sql.Row{nil}
		} else {
			v := decimal.New(r.Int63n(1_000_000)-500_000, -2)
			if i == 1 || v.Cmp(max) > 0 {
				max = v
			}
			if i == 1 || v.Cmp(min) < 0 {
				min = v
			}
			row = sql.Row{v}
		}
		if err := bx.Update(ctx, row); err != nil {
			t.Fatal(err)
		}
		if err := bn.Update(ctx, row); err != nil {
			t.Fatal(err)
		}
	}
	gx, _ := bx.Eval(ctx)
	gn, _ := bn.Eval(ctx)
	if !gx.(decimal.Decimal).Equal(max) || !gn.(decimal.Decimal).Equal(min) {
		t.Fatalf("MAX %v MIN %v, want %v %v", gx, gn, max, min)
	}
}

// RULE-79's grid literals: a column compared with a literal of more
// decimals than its scale, rewritten onto the grid, answers exactly under
// go-mysql-server's own comparison (which rounds the literal otherwise).
func TestDecimalGridLiterals(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(11))
	typ := types.MustCreateColumnDecimalType(12, 2)
	col := expression.NewGetField(0, typ, "amt", true)
	for i := 0; i < 5000; i++ {
		v := decimal.New(r.Int63n(4000)-2000, -2)
		l := decimal.New(r.Int63n(400000)-200000, -4) // mostly off the grid
		lit := expression.NewLiteral(l, types.MustCreateDecimalType(10, 4))
		c := v.Cmp(l)
		cases := []struct {
			e    sql.Expression
			want bool
		}{
			{expression.NewGreaterThan(col, lit), c > 0},
			{expression.NewGreaterThanOrEqual(col, lit), c >= 0},
			{expression.NewLessThan(col, lit), c < 0},
			{expression.NewLessThanOrEqual(col, lit), c <= 0},
			{expression.NewEquals(col, lit), c == 0},
			{expression.NewLessThan(lit, col), c > 0},
			{expression.NewGreaterThanOrEqual(lit, col), c <= 0},
			{expression.NewBetween(col, lit, expression.NewLiteral(l.Add(decimal.New(5, -3)), types.MustCreateDecimalType(10, 4))), c >= 0 && v.Cmp(l.Add(decimal.New(5, -3))) <= 0},
		}
		for _, tc := range cases {
			e := tc.e
			if g := gridLiterals(e); g != nil {
				e = g
			}
			got, err := e.Eval(ctx, sql.Row{v})
			if err != nil || got != tc.want {
				t.Fatalf("%v (as %v) with amt=%v: got %v, %v; want %v", tc.e, e, v, got, err, tc.want)
			}
		}
		if g := gridLiterals(expression.NewEquals(col, lit)); g != nil {
			if got, _ := g.Eval(ctx, sql.Row{nil}); got != nil {
				t.Fatalf("NULL = %v: got %v", l, got)
			}
		} else if !l.Equal(l.Round(2)) {
			t.Fatalf("= %v not rewritten", l)
		}
	}
}

// RULE-79 over RULE-76: a comparison of an exact product or sum with a
// literal, read from the int64 digits, answers as the DECIMAL it stands for.
func TestDecimalComparisonsOfArithmetic(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(76))
	q := expression.NewGetField(0, types.Int32, "qty", true)
	p := expression.NewGetField(1, types.MustCreateColumnDecimalType(10, 2), "price", true)
	for _, op := range []string{"*", "+", "-"} {
		ar := &fastArith{Arithmetic: expression.NewArithmetic(q, p, op)}
		k, ok := decimalKeyOf(ar.Type())
		if !ok {
			t.Fatalf("%s: not DECIMAL: %v", op, ar.Type())
		}
		for i := 0; i < 5000; i++ {
			qv, pv := int32(r.Intn(200)-100), decimal.New(r.Int63n(2_000_000)-1_000_000, -2)
			var lit decimal.Decimal
			switch i % 3 {
			case 0:
				lit = decimal.New(r.Int63n(20_000_000)-10_000_000, -int32(r.Intn(4)))
			case 1:
				lit = decimal.New(int64(r.Intn(100)), 0)
			default:
				lit = decimal.New(r.Int63n(9_000_000_000_000_000_000/1000), 3) // digits at another exponent, near overflow
			}
			row := sql.Row{qv, pv}
			exact, _ := (&fastArith{Arithmetic: ar.Arithmetic}).Eval(ctx, row)
			want := k.norm(exact.(decimal.Decimal)).Cmp(lit)
			e := fastDecimalExpr(expression.NewGreaterThan(ar, expression.NewLiteral(lit, types.InternalDecimalType)))
			got, err := e.Eval(ctx, row)
			if err != nil || got != (want > 0) {
				t.Fatalf("%d %s %v > %v: got %v, %v; want %v", qv, op, pv, lit, got, err, want > 0)
			}
			e = fastDecimalExpr(expression.NewEquals(expression.NewLiteral(exact, types.InternalDecimalType), ar))
			if got, _ := e.Eval(ctx, row); got != true {
				t.Fatalf("%d %s %v = itself: %v", qv, op, pv, got)
			}
			if got, _ := e.Eval(ctx, sql.Row{nil, pv}); got != nil {
				t.Fatalf("NULL %s %v = x: %v", op, pv, got)
			}
		}
	}
}

// RULE-79: two DECIMAL expressions compare exactly, each value as its own
// type holds it (go-mysql-server rounded the right one to the left's scale).
func TestDecimalPairsExact(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(790))
	colT := types.MustCreateColumnDecimalType(12, 2)
	exprT := types.MustCreateDecimalType(30, 6)
	l := expression.NewGetField(0, colT, "amt", true)
	rr := expression.NewGetField(1, exprT, "avg", true)
	for i := 0; i < 5000; i++ {
		lv := decimal.New(r.Int63n(200000)-100000, -2)
		rv := decimal.New(r.Int63n(200000000)-100000000, -6)
		if i%4 == 0 {
			rv = lv.Add(decimal.New(int64(r.Intn(3)-1), -6))
		}
		if i%7 == 0 { // digits beyond int64: the big.Int comparison
			rv = decimal.RequireFromString(fmt.Sprintf("%d123456789012345678.%06d", r.Intn(19)-9, r.Intn(1000000)))
		}
		want := lv.Cmp(rv)
		for _, tc := range []struct {
			e    sql.Expression
			want bool
		}{
			{expression.NewGreaterThan(l, rr), want > 0},
			{expression.NewLessThanOrEqual(l, rr), want <= 0},
			{expression.NewEquals(rr, l), want == 0},
			{expression.NewLessThan(rr, l), want > 0},
		} {
			f := fastDecimalExpr(tc.e)
			if _, ok := f.(*decimalPair); !ok {
				t.Fatalf("%v not rewritten: %T", tc.e, f)
			}
			got, err := f.Eval(ctx, sql.Row{lv, rv})
			if err != nil || got != tc.want {
				t.Fatalf("%v with amt=%v avg=%v: got %v, %v; want %v", tc.e, lv, rv, got, err, tc.want)
			}
			if got, _ := f.Eval(ctx, sql.Row{lv, nil}); got != nil {
				t.Fatalf("%v with NULL: %v", tc.e, got)
			}
		}
	}
}
