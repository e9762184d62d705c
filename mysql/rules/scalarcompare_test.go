package rules

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

var comparisonMakers = []struct {
	op string
	mk func(l, r sql.Expression) sql.Expression
}{
	{"=", func(l, r sql.Expression) sql.Expression { return expression.NewEquals(l, r) }},
	{"<", func(l, r sql.Expression) sql.Expression { return expression.NewLessThan(l, r) }},
	{"<=", func(l, r sql.Expression) sql.Expression { return expression.NewLessThanOrEqual(l, r) }},
	{">", func(l, r sql.Expression) sql.Expression { return expression.NewGreaterThan(l, r) }},
	{">=", func(l, r sql.Expression) sql.Expression { return expression.NewGreaterThanOrEqual(l, r) }},
}

// RULE-90: an integer comparison with a literal answers as exact
// arithmetic does, for every integer type on both sides, values at the
// ends of their ranges, the literal on either side; NULL is NULL.
func TestIntComparisonsExact(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(90))
	typed := []struct {
		typ  sql.Type
		conv func(*big.Int) any // nil when out of the type's range
	}{
		{types.Int8, func(b *big.Int) any { return fits(b, math.MinInt8, math.MaxInt8, func(i int64) any { return int8(i) }) }},
		{types.Int16, func(b *big.Int) any {
			return fits(b, math.MinInt16, math.MaxInt16, func(i int64) any { return int16(i) })
		}},
		{types.Int32, func(b *big.Int) any {
			return fits(b, math.MinInt32, math.MaxInt32, func(i int64) any { return int32(i) })
		}},
		{types.Int64, func(b *big.Int) any { return fits(b, math.MinInt64, math.MaxInt64, func(i int64) any { return i }) }},
		{types.Uint8, func(b *big.Int) any { return fitsU(b, math.MaxUint8, func(u uint64) any { return uint8(u) }) }},
		{types.Uint32, func(b *big.Int) any { return fitsU(b, math.MaxUint32, func(u uint64) any { return uint32(u) }) }},
		{types.Uint64, func(b *big.Int) any { return fitsU(b, math.MaxUint64, func(u uint64) any { return u }) }},
	}
	edges := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(127), big.NewInt(-128), big.NewInt(255),
		big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64), new(big.Int).SetUint64(math.MaxUint64),
		new(big.Int).SetUint64(1 << 63), big.NewInt(math.MaxInt32), big.NewInt(math.MinInt32)}
	value := func() *big.Int {
		if r.Intn(3) == 0 {
			return new(big.Int).Set(edges[r.Intn(len(edges))])
		}
		v := big.NewInt(r.Int63n(600) - 300)
		if r.Intn(2) == 0 {
			v.Add(v, edges[r.Intn(len(edges))])
		}
		return v
	}
	checked := 0
	for _, col := range typed {
		for _, lit := range typed {
			g := expression.NewGetField(0, col.typ, "i", true)
			for i := 0; i < 400; i++ {
				a, b := value(), value()
				if i%7 == 0 {
					b.Set(a)
				}
				av, bv := col.conv(a), lit.conv(b)
				if av == nil || bv == nil {
					continue
				}
				l := expression.NewLiteral(bv, lit.typ)
				for _, m := range comparisonMakers {
					for _, flip := range []bool{false, true} {
						e, want := m.mk(g, l), answer(m.op, a.Cmp(b))
						if flip {
							e, want = m.mk(l, g), answer(m.op, b.Cmp(a))
						}
						f := fastScalarCompare(e)
						if f == nil {
							t.Fatalf("%v not rewritten", e)
						}
						got, err := f.Eval(ctx, sql.Row{av})
						if err != nil || got != want {
							t.Fatalf("%v with i=%v (%T): got %v, %v; want %v", e, av, av, got, err, want)
						}
						if got, _ := f.Eval(ctx, sql.Row{nil}); got != nil {
							t.Fatalf("%v with NULL: %v", e, got)
						}
						checked++
					}
				}
			}
		}
	}
	// Two integer columns, and <=>: NULL-safe, exact across signs.
	nullSafe := func(l, r sql.Expression) sql.Expression { return expression.NewNullSafeEquals(l, r) }
	for _, a := range typed {
		for _, b := range typed {
			ga, gb := expression.NewGetField(0, a.typ, "a", true), expression.NewGetField(1, b.typ, "b", true)
			for i := 0; i < 300; i++ {
				x, y := value(), value()
				if i%5 == 0 {
					y.Set(x)
				}
				av, bv := a.conv(x), b.conv(y)
				if av == nil || bv == nil {
					continue
				}
				for _, m := range append(comparisonMakers, struct {
					op string
					mk func(l, r sql.Expression) sql.Expression
				}{"<=>", nullSafe}) {
					e := m.mk(ga, gb)
					f := fastScalarCompare(e)
					if f == nil {
						t.Fatalf("%v not rewritten", e)
					}
					want := x.Cmp(y) == 0
					if m.op != "<=>" {
						want = answer(m.op, x.Cmp(y))
					}
					if got, err := f.Eval(ctx, sql.Row{av, bv}); err != nil || got != want {
						t.Fatalf("%v with a=%v (%T), b=%v (%T): got %v, %v; want %v", e, av, av, bv, bv, got, err, want)
					}
					wantNull := any(nil)
					if m.op == "<=>" {
						wantNull = false
					}
					if got, _ := f.Eval(ctx, sql.Row{av, nil}); got != wantNull {
						t.Fatalf("%v with b NULL: %v", e, got)
					}
					if m.op == "<=>" {
						if got, _ := f.Eval(ctx, sql.Row{nil, nil}); got != true {
							t.Fatalf("%v with both NULL: %v", e, got)
						}
					}
					checked++
				}
			}
		}
	}
	if checked < 20000 {
		t.Fatalf("only %d comparisons checked", checked)
	}
	// A value that is not a Go integer goes to the comparison replaced.
	g := expression.NewGetField(0, types.Int64, "i", true)
	e := expression.NewGreaterThan(g, expression.NewLiteral(int64(5), types.Int64))
	if got, err := fastScalarCompare(e).Eval(ctx, sql.Row{"7"}); err != nil || got != true {
		t.Fatalf("string operand: %v, %v", got, err)
	}
}

func fits(b *big.Int, lo, hi int64, f func(int64) any) any {
	if !b.IsInt64() || b.Int64() < lo || b.Int64() > hi {
		return nil
	}
	return f(b.Int64())
}

func fitsU(b *big.Int, hi uint64, f func(uint64) any) any {
	if !b.IsUint64() || b.Uint64() > hi {
		return nil
	}
	return f(b.Uint64())
}

// RULE-90: a DATE or DATETIME column compared with a literal of its type
// answers as go-mysql-server's comparison does; a TIMESTAMP column and a
// literal of another type keep that comparison.
func TestTimeComparisonsMatch(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(91))
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, typ := range []sql.Type{types.Date, types.Datetime, types.DatetimeMaxPrecision, types.MustCreateDatetimeType(sqltypes.Datetime, 3)} {
		g := expression.NewGetField(0, typ, "d", true)
		conv := func(tm time.Time) time.Time {
			v, _, err := typ.Convert(ctx, tm)
			if err != nil {
				t.Fatal(err)
			}
			return v.(time.Time)
		}
		for i := 0; i < 2000; i++ {
			a := conv(base.Add(time.Duration(r.Int63n(int64(72*time.Hour))) - 36*time.Hour))
			b := conv(base.Add(time.Duration(r.Int63n(int64(72*time.Hour))) - 36*time.Hour))
			if i%5 == 0 {
				b = a
			}
			l := expression.NewLiteral(b, typ)
			for _, m := range comparisonMakers {
				for _, e := range []sql.Expression{m.mk(g, l), m.mk(l, g)} {
					f := fastScalarCompare(e)
					if f == nil {
						t.Fatalf("%v not rewritten", e)
					}
					want, werr := e.Eval(ctx, sql.Row{a})
					got, gerr := f.Eval(ctx, sql.Row{a})
					if werr != nil || gerr != nil || got != want {
						t.Fatalf("%v with d=%v: got %v, %v; want %v, %v", e, a, got, gerr, want, werr)
					}
				}
			}
		}
	}
	ts := expression.NewGetField(0, types.Timestamp, "ts", true)
	if fastScalarCompare(expression.NewLessThan(ts, expression.NewLiteral(base, types.Timestamp))) != nil {
		t.Fatal("a TIMESTAMP column taken")
	}
	dt := expression.NewGetField(0, types.Datetime, "d", true)
	if fastScalarCompare(expression.NewLessThan(dt, expression.NewLiteral(base, types.Date))) != nil {
		t.Fatal("a literal of another type taken")
	}
}
