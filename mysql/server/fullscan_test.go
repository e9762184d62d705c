package server

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// planner PL-9: a single table's filter that a secondary index answers
// with a range holding most of the table is read by a scan of the table
// (the index's entries and a primary-key lookup for each cost more); a
// narrow range, an index that covers the query and a locking read keep
// the index. Every query's rows are computed independently.
func TestWideRangesScanTheTable(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	c.SetMaxOpenConns(1)
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, d DATETIME NOT NULL, v INT, KEY k (k), KEY d (d))")
	const n = 20000
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	type row struct {
		k int
		d time.Time
		v *int
	}
	rows := make([]row, n+1)
	var vals []string
	for i := 1; i <= n; i++ {
		r := row{k: (i * 7919) % n, d: base.Add(time.Duration(i) * time.Minute)}
		v := "NULL"
		if i%11 != 0 {
			x := i % 13
			r.v, v = &x, fmt.Sprint(x)
		}
		rows[i] = r
		vals = append(vals, fmt.Sprintf("(%d,%d,'%s',%s)", i, r.k, r.d.Format(time.DateTime), v))
		if len(vals) == 1000 {
			mustExec(t, c, "INSERT INTO t VALUES "+strings.Join(vals, ","))
			vals = vals[:0]
		}
	}
	plan := func(q string) string {
		return strings.Join(queryStrings(t, c, "EXPLAIN PLAN "+q), "\n")
	}
	count := func(keep func(row) bool) string {
		cnt, sum := 0, 0
		for i := 1; i <= n; i++ {
			if keep(rows[i]) {
				cnt++
				sum += i
			}
		}
		if cnt == 0 {
			return "0|NULL"
		}
		return fmt.Sprintf("%d|%d", cnt, sum)
	}
	cut := base.Add(2000 * time.Minute)
	for _, tc := range []struct {
		where string
		keep  func(row) bool
		scan  bool
	}{
		{"k > 1000 AND v > 5", func(r row) bool { return r.k > 1000 && r.v != nil && *r.v > 5 }, true},
		{"k >= 500 AND v % 3 = 0", func(r row) bool { return r.k >= 500 && r.v != nil && *r.v%3 == 0 }, true},
		{"(k < 100 OR k > 3000) AND v IS NULL", func(r row) bool { return (r.k < 100 || r.k > 3000) && r.v == nil }, true},
		{"k BETWEEN 100 AND 400 AND v > 5", func(r row) bool { return r.k >= 100 && r.k <= 400 && r.v != nil && *r.v > 5 }, false},
		{"k = 77", func(r row) bool { return r.k == 77 }, false},
		{"d >= '" + cut.Format(time.DateTime) + "'", func(r row) bool { return !r.d.Before(cut) }, true},
		{"d < '" + cut.Format(time.DateTime) + "'", func(r row) bool { return r.d.Before(cut) }, false},
	} {
		for _, alias := range []string{"t", "x"} {
			where := tc.where
			from := "t"
			if alias == "x" {
				from = "t AS x"
				for _, col := range []string{"k", "v", "d"} {
					where = strings.ReplaceAll(where, col+" ", "x."+col+" ")
				}
			}
			q := fmt.Sprintf("SELECT COUNT(*), SUM(%s.id) FROM %s WHERE %s", alias, from, where)
			p := plan(q)
			if indexed := strings.Contains(p, "IndexedTableAccess"); indexed == tc.scan {
				t.Errorf("%s: scan %v wanted, plan:\n%s", q, tc.scan, p)
			}
			read0, _ := ts.srv.Backend.RowCounters()
			got := strings.Join(queryStrings(t, c, q), "\n")
			read1, _ := ts.srv.Backend.RowCounters()
			if want := count(tc.keep); got != want {
				t.Errorf("%s: %s, want %s", q, got, want)
			}
			if tc.scan && read1-read0 != n {
				t.Errorf("%s read %d rows, want the table's %d", q, read1-read0, n)
			}
		}
	}
	// Kept: an index that covers the query, and a locking read.
	for _, q := range []string{
		"SELECT COUNT(*) FROM t WHERE k > 1000",
		"SELECT id FROM t WHERE k > 1000 AND v > 5 FOR UPDATE",
	} {
		if p := plan(q); !strings.Contains(p, "IndexedTableAccess") {
			t.Errorf("%s: the index was not kept:\n%s", q, p)
		}
	}
}
