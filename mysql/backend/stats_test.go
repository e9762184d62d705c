package backend

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestPlannerStatistics: ST-1 counts rows inserted before the first
// estimate once (it counted them twice); ST-2 estimates distinct key
// prefixes of a low- and a high-cardinality index within a factor of 2;
// ST-3 estimates an index range's rows within a factor of 2, and an empty
// range as nothing.
func TestPlannerStatistics(t *testing.T) {
	b, ctx, run := testBackend(t)
	must := func(q string) {
		t.Helper()
		if err := run(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	must("CREATE DATABASE d")
	ctx.SetCurrentDatabase("d")
	must("CREATE TABLE t (id INT PRIMARY KEY, g INT NOT NULL, s VARCHAR(20) NOT NULL, KEY g (g), KEY gs (g, s))")
	const n = 30000
	for i := 0; i < n; i += 1000 {
		var vals []string
		for j := i; j < i+1000; j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 's%05d')", j, (j*7919)%40, j%3000))
		}
		must("INSERT INTO t VALUES " + strings.Join(vals, ","))
	}
	d, _ := b.Database(ctx, "d")
	tbl, _, _ := d.GetTableInsensitive(ctx, "t")
	tb := tbl.(*Table)
	rows, _, err := tb.RowCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	within := func(what string, got, want float64) {
		t.Helper()
		if got < want/2 || got > want*2 {
			t.Errorf("%s: %.0f, want about %.0f", what, got, want)
		} else {
			t.Logf("%s: %.0f (exact %.0f)", what, got, want)
		}
	}
	within("row count", float64(rows), n)
	idx := map[string]sql.Index{}
	all, _ := tb.GetIndexes(ctx)
	for _, x := range all {
		idx[x.ID()] = x
	}
	dist := func(id string, prefix int) float64 {
		t.Helper()
		d, ok := tb.KeyDistinct(ctx, idx[id], prefix)
		if !ok {
			t.Fatalf("no distinct count for %s/%d", id, prefix)
		}
		return d
	}
	within("distinct g", dist("g", 1), 40)
	within("distinct g,s", dist("gs", 2), 3000) // rows j and j+3000 share both
	within("distinct id", dist("PRIMARY", 1), n)
	if err := tb.AnalyzeKeys(ctx); err != nil {
		t.Fatal(err)
	}
	within("distinct g after ANALYZE", dist("g", 1), 40)

	lookup := func(id string, r sql.MySQLRange) sql.IndexLookup {
		return sql.IndexLookup{Index: idx[id], Ranges: sql.MySQLRangeCollection{r}}
	}
	rr := func(l sql.IndexLookup) float64 {
		t.Helper()
		v, ok := tb.RangeRows(ctx, l)
		if !ok {
			t.Fatal("no range estimate")
		}
		return v
	}
	intType := tb.Schema()[0].Type
	point := func(v int) sql.MySQLRangeColumnExpr {
		return sql.ClosedRangeColumnExpr(v, v, intType)
	}
	within("rows of g = 5", rr(lookup("g", sql.MySQLRange{point(5)})), n/40)
	within("rows of id in [1000, 4000]", rr(lookup("PRIMARY", sql.MySQLRange{sql.ClosedRangeColumnExpr(1000, 4000, intType)})), 3001)
	if v := rr(lookup("g", sql.MySQLRange{point(1000)})); v > 50 {
		t.Errorf("rows of g = 1000 (no such row): %.0f", v)
	}
}

// TestPlannerStatisticsConcurrent: sessions planning at once sample and
// replace an index's statistics while rows are inserted (run with -race).
func TestPlannerStatisticsConcurrent(t *testing.T) {
	b, ctx, run := testBackend(t)
	if err := run("CREATE DATABASE d"); err != nil {
		t.Fatal(err)
	}
	ctx.SetCurrentDatabase("d")
	if err := run("CREATE TABLE t (id INT PRIMARY KEY, g INT NOT NULL, KEY g (g))"); err != nil {
		t.Fatal(err)
	}
	d, _ := b.Database(ctx, "d")
	tbl, _, _ := d.GetTableInsensitive(ctx, "t")
	tb := tbl.(*Table)
	idxs, _ := tb.GetIndexes(ctx)
	done := make(chan struct{})
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func() {
			rctx := sql.NewEmptyContext()
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				for _, x := range idxs {
					tb.KeyDistinct(rctx, x, 1)
				}
				if err := tb.AnalyzeKeys(rctx); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < 20000; i += 500 {
		var vals []string
		for j := i; j < i+500; j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d)", j, j%7))
		}
		if err := run("INSERT INTO t VALUES " + strings.Join(vals, ",")); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for w := 0; w < 4; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
