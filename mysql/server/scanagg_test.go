package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestAggregatesFromStoredRowsKeepSnapshots (backend AGG-1, AGG-2; rules
// RULE-96, RULE-97): COUNT/SUM/AVG read from stored numbers and counts of
// index entries per key answer at the transaction's snapshot, see the
// transaction's own uncommitted rows, and a locking read (which they do
// not take) sees the latest rows; the server counts the rows they read.
func TestAggregatesFromStoredRowsKeepSnapshots(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	db := ts.open("d")
	mustExec(t, db, "CREATE TABLE o (id INT PRIMARY KEY, c INT NOT NULL, total DECIMAL(12,2), KEY (c))")
	// The model: id -> c, total in cents (-1: NULL).
	type orow struct{ c, cents int64 }
	model := map[int]orow{}
	var rows []string
	for i := 1; i <= 3000; i++ {
		r := orow{int64(i % 7), int64(i%500)*100 + int64(i%100)}
		total := fmt.Sprintf("%d.%02d", r.cents/100, r.cents%100)
		if i%10 == 0 {
			r.cents, total = -1, "NULL"
		}
		model[i] = r
		rows = append(rows, fmt.Sprintf("(%d, %d, %s)", i, r.c, total))
	}
	mustExec(t, db, "INSERT INTO o VALUES "+strings.Join(rows, ","))
	mustExec(t, db, "ANALYZE TABLE o")
	money := func(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }
	expect := func(m map[int]orow) []string {
		var n, nn, sum, all, alln int64
		groups := map[int64]int64{}
		for _, r := range m {
			groups[r.c]++
			if r.cents >= 0 {
				all, alln = all+r.cents, alln+1
			}
			if r.cents >= 10000 {
				n, nn, sum = n+1, nn+1, sum+r.cents
			}
		}
		// AVG of DECIMAL(12,2): scale 6, rounded half up (all positive).
		avg := func(s, k int64) string {
			q := (s*10000*2 + k) / (2 * k) // cents x 10^4, rounded
			return fmt.Sprintf("%d.%06d", q/1000000, q%1000000)
		}
		var above int64
		for _, r := range m {
			if r.cents >= 0 && r.cents*10000*alln > all*10000 {
				above++
			}
		}
		var g []string
		for c := int64(0); c < 10; c++ {
			if groups[c] > 0 {
				g = append(g, fmt.Sprintf("%d|%d", c, groups[c]))
			}
		}
		return []string{fmt.Sprintf("%d|%d|%s|%s", n, nn, money(sum), avg(sum, nn)), fmt.Sprint(above), strings.Join(g, ",")}
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	get := func(q string) string { t.Helper(); return strings.Join(queryStrings(t, conn, q), ",") }
	const (
		sums   = "SELECT COUNT(*), COUNT(total), SUM(total), AVG(total) FROM o WHERE total >= 100"
		above  = "SELECT COUNT(*) FROM o WHERE total > (SELECT AVG(total) FROM o)"
		groups = "SELECT c, COUNT(*) FROM o GROUP BY c ORDER BY c"
	)
	before := expect(model)
	for i, q := range []string{sums, above, groups} {
		if got := get(q); got != before[i] {
			t.Fatalf("%s = %s, want %s", q, got, before[i])
		}
	}
	read0, _ := ts.srv.Backend.RowCounters()
	get(sums)
	if read1, _ := ts.srv.Backend.RowCounters(); read1-read0 != 3000 {
		t.Errorf("a number scan counted %d rows read, want 3000", read1-read0)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if got := get(groups); got != before[2] {
		t.Fatalf("in the transaction: %s", got)
	}
	other := ts.open("d")
	defer other.Close()
	mustExec(t, other, "INSERT INTO o VALUES (5001, 3, 900.00), (5002, 9, 1.00)")
	mustExec(t, other, "UPDATE o SET total = 0 WHERE id <= 100")
	mustExec(t, other, "DELETE FROM o WHERE id BETWEEN 200 AND 209")
	committed := map[int]orow{}
	for id, r := range model {
		if id <= 100 {
			r.cents = 0
		}
		if id < 200 || id > 209 {
			committed[id] = r
		}
	}
	committed[5001], committed[5002] = orow{3, 90000}, orow{9, 100}
	latest := expect(committed)
	for i, q := range []string{sums, above, groups} {
		if got := get(q); got != before[i] {
			t.Errorf("snapshot: %s = %s, want %s", q, got, before[i])
		}
	}
	if got, want := get(sums+" FOR UPDATE"), latest[0]; got != want {
		t.Errorf("locking read: %s, want %s", got, want)
	}
	mustExecConn(t, conn, "INSERT INTO o VALUES (6001, 8, 9999999999.99)")
	own := map[int]orow{6001: {8, 999999999999}}
	for id, r := range model {
		own[id] = r
	}
	if got, want := get(sums), expect(own)[0]; got != want {
		t.Errorf("own insert: %s, want %s", got, want)
	}
	if got, want := get(groups), expect(own)[2]; got != want {
		t.Errorf("own insert, grouped: %s, want %s", got, want)
	}
	mustExecConn(t, conn, "ROLLBACK")
	for i, q := range []string{sums, above, groups} {
		if got := get(q); got != latest[i] {
			t.Errorf("after: %s = %s, want %s", q, got, latest[i])
		}
	}
}
