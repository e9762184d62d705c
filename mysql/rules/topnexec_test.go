package rules

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// RULE-82, RULE-83: the heap top-N gives the first n rows of a stable sort by
// go-mysql-server's own Sorter (keys, directions, NULL orderings, ties in
// input order), for n below, at and above the row count, and n = 0.
func TestTopNMatchesStableSort(t *testing.T) {
	ctx := sql.NewEmptyContext()
	r := rand.New(rand.NewSource(82))
	a := expression.NewGetField(0, types.Int64, "a", true)
	d := expression.NewGetField(1, types.MustCreateColumnDecimalType(10, 2), "d", true)
	s := expression.NewGetField(2, types.MustCreateString(types.Text.Type(), 20, sql.Collation_utf8mb4_0900_ai_ci), "s", true)
	id := expression.NewGetField(3, types.Int64, "id", false)
	var rows [][]sql.Expression
	var plain []sql.Row
	for i := 0; i < 500; i++ {
		var av, dv, sv any
		if r.Intn(8) > 0 {
			av = int64(r.Intn(10))
		}
		if r.Intn(8) > 0 {
			dv = decimal.New(int64(r.Intn(50)), -2)
		}
		if r.Intn(8) > 0 {
			sv = []string{"a", "A", "b", "B", "c"}[r.Intn(5)]
		}
		rows = append(rows, []sql.Expression{expression.NewLiteral(av, types.Int64), expression.NewLiteral(dv, types.MustCreateColumnDecimalType(10, 2)),
			expression.NewLiteral(sv, s.Type()), expression.NewLiteral(int64(i), types.Int64)})
		plain = append(plain, sql.Row{av, dv, sv, int64(i)})
	}
	orders := [][]sql.SortField{
		{{Column: a, Order: sql.Ascending, NullOrdering: sql.NullsFirst}},
		{{Column: a, Order: sql.Descending, NullOrdering: sql.NullsLast}, {Column: d, Order: sql.Ascending, NullOrdering: sql.NullsFirst}},
		{{Column: s, Order: sql.Ascending, NullOrdering: sql.NullsLast}},
		{{Column: d, Order: sql.Descending, NullOrdering: sql.NullsFirst}, {Column: s, Order: sql.Descending, NullOrdering: sql.NullsFirst}},
		{{Column: expression.NewArithmetic(a, d, "+"), Order: sql.Ascending, NullOrdering: sql.NullsFirst}, {Column: id, Order: sql.Descending}},
	}
	for _, fields := range orders {
		ref := append([]sql.Row(nil), plain...)
		sorter := &expression.Sorter{SortFields: fields, Rows: ref, Ctx: ctx}
		sort.Stable(sorter)
		for _, limit := range []int64{0, 1, 7, 100, 500, 900} {
			n := plan.NewTopN(fields, expression.NewLiteral(limit, types.Int64), plan.NewValues(rows))
			it, err := Exec.Build(ctx, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := it.(*topNIter); !ok {
				t.Fatalf("not run by topNIter: %T", it)
			}
			got := drain(t, ctx, it)
			want := ref[:min(int(limit), len(ref))]
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("ORDER BY %v LIMIT %d:\n got  %v\n want %v", fields, limit, got, want)
			}
		}
		// RULE-83: the whole sort, as go-mysql-server's stable sort.
		it, err := Exec.Build(ctx, plan.NewSort(fields, plan.NewValues(rows)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := it.(*sortIter); !ok {
			t.Fatalf("not run by sortIter: %T", it)
		}
		if got := drain(t, ctx, it); fmt.Sprint(got) != fmt.Sprint(ref) {
			t.Fatalf("ORDER BY %v:\n got  %v\n want %v", fields, got, ref)
		}
	}
}
