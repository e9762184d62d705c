package rules

import (
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

func drain(t *testing.T, ctx *sql.Context, it sql.RowIter) []sql.Row {
	t.Helper()
	var out []sql.Row
	for {
		r, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := it.Close(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// RULE-80: the map-keyed grouping gives go-mysql-server's groups, values
// and order: strings grouped by collation weight ('ab', 'AB' and 'Ab' one
// group under a case-insensitive collation), NULL a group of its own,
// several expressions, plain columns as FIRST.
func TestFastGroupingsMatchGroupBy(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(80))
	ci := types.MustCreateString(types.Text.Type(), 100, sql.Collation_utf8mb4_0900_ai_ci)
	words := []string{"ab", "AB", "Ab", "b", "B ", "ß", "ss", "é", "e", "", "1"}
	type vals struct{ a, s, d any }
	var data []vals
	for i := 0; i < 2000; i++ {
		var a, s, d any
		if r.Intn(10) > 0 {
			a = int64(r.Intn(20))
		}
		if r.Intn(10) > 0 {
			s = words[r.Intn(len(words))]
		}
		d = decimal.New(int64(r.Intn(1000)), -2)
		data = append(data, vals{a, s, d})
	}
	exprs := func(data []vals) [][]sql.Expression {
		var rows [][]sql.Expression
		for _, v := range data {
			rows = append(rows, []sql.Expression{
				expression.NewLiteral(v.a, types.Int64), expression.NewLiteral(v.s, ci), expression.NewLiteral(v.d, types.MustCreateDecimalType(10, 2)),
			})
		}
		return rows
	}
	// In grouping order too (as an index read gives: groups made without
	// the map while keys rise), and in order for a while, then not.
	sorted := append([]vals{}, data...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ai, aok := sorted[i].a.(int64)
		aj, bok := sorted[j].a.(int64)
		if aok != bok {
			return !aok // NULL first
		}
		return ai < aj
	})
	half := append(append([]vals{}, sorted[:1200]...), data[1200:]...)
	for _, rows := range [][][]sql.Expression{exprs(data), exprs(sorted), exprs(half)} {
		groupingsMatch(t, ctx, rows, ci)
	}
}

func groupingsMatch(t *testing.T, ctx *sql.Context, rows [][]sql.Expression, ci sql.Type) {
	t.Helper()
	a := expression.NewGetField(0, types.Int64, "a", true)
	s := expression.NewGetField(1, ci, "s", true)
	d := expression.NewGetField(2, types.MustCreateDecimalType(10, 2), "d", false)
	for _, groupBy := range [][]sql.Expression{{a}, {s}, {a, s}, {s, a}, {expression.NewArithmetic(a, d, "+")}} {
		selected := []sql.Expression{a, s, aggregation.NewCount(expression.NewLiteral(1, types.Int64)),
			aggregation.NewSum(d), aggregation.NewMax(s), aggregation.NewMin(a)}
		gb := plan.NewGroupBy(selected, groupBy, plan.NewValues(rows))
		want := drain(t, ctx, must(rowexec.DefaultBuilder.Build(ctx, gb, nil)))
		it := must(Exec.Build(ctx, gb, nil))
		if _, ok := it.(*groupIter); !ok {
			t.Fatalf("not run by groupIter: %T", it)
		}
		got := drain(t, ctx, it)
		if len(got) < 2 || !reflect.DeepEqual(fmt.Sprint(got), fmt.Sprint(want)) {
			t.Fatalf("GROUP BY %v:\n got  %v\n want %v", groupBy, got, want)
		}
	}
}

func must(it sql.RowIter, err error) sql.RowIter {
	if err != nil {
		panic(err)
	}
	return it
}

// RULE-84: DISTINCT by exact values returns go-mysql-server's rows in its
// order: first occurrences, NULL a value, 1.5 and 1.50 one value (%v
// prints both 1.5), strings by bytes.
func TestDistinctMatchesGoMySQLServer(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(84))
	var rows [][]sql.Expression
	for i := 0; i < 3000; i++ {
		var a, d, s any
		if r.Intn(6) > 0 {
			a = int64(r.Intn(5))
		}
		if r.Intn(6) > 0 {
			d = decimal.New(int64(15*(1+r.Intn(2))), -int32(1+r.Intn(2))) // 1.5, 0.15, 3.0, 0.30
		}
		if r.Intn(6) > 0 {
			s = []string{"a", "A", "b", "a "}[r.Intn(4)]
		}
		rows = append(rows, []sql.Expression{expression.NewLiteral(a, types.Int64),
			expression.NewLiteral(d, types.MustCreateDecimalType(10, 2)), expression.NewLiteral(s, types.LongBlob)})
	}
	n := plan.NewDistinct(plan.NewValues(rows))
	want := drain(t, ctx, must(rowexec.DefaultBuilder.Build(ctx, n, nil)))
	it := must(Exec.Build(ctx, n, nil))
	if _, ok := it.(*distinctIter); !ok {
		t.Fatalf("not run by distinctIter: %T", it)
	}
	got := drain(t, ctx, it)
	if len(got) < 10 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("DISTINCT:\n got  %v\n want %v", got, want)
	}
	// One integer column (its own map): NULL, negatives, repeats.
	var ints [][]sql.Expression
	for i := 0; i < 2000; i++ {
		var a any = int32(r.Intn(300) - 150)
		if i%97 == 0 {
			a = nil
		}
		ints = append(ints, []sql.Expression{expression.NewLiteral(a, types.Int32)})
	}
	n = plan.NewDistinct(plan.NewValues(ints))
	want = drain(t, ctx, must(rowexec.DefaultBuilder.Build(ctx, n, nil)))
	if got := drain(t, ctx, must(Exec.Build(ctx, n, nil))); len(got) < 100 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("DISTINCT of one integer column:\n got  %v\n want %v", got, want)
	}
}
