package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestTriggerUpdatesUseIndex (rules RULE-72): a trigger's UPDATE and
// DELETE keyed by NEW/OLD columns read the target rows through the index
// (rows read stay near one per fired row, not the whole table each time)
// and change exactly what the scan would have changed.
func TestTriggerUpdatesUseIndex(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	c.SetMaxOpenConns(1)
	mustExec(t, c, "CREATE TABLE s (customer_id INT PRIMARY KEY, n INT NOT NULL, spent BIGINT NOT NULL, grp INT NOT NULL, KEY grp (grp))")
	mustExec(t, c, "CREATE TABLE o (id INT PRIMARY KEY, customer_id INT NOT NULL, amount INT NOT NULL)")
	mustExec(t, c, "CREATE TABLE g (grp INT PRIMARY KEY, n INT NOT NULL)")
	const customers = 3000
	var vals []string
	for i := 1; i <= customers; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 0, 0, %d)", i, i%50))
	}
	mustExec(t, c, "INSERT INTO s VALUES "+strings.Join(vals, ","))
	vals = vals[:0]
	for i := 0; i < 50; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 0)", i))
	}
	mustExec(t, c, "INSERT INTO g VALUES "+strings.Join(vals, ","))
	mustExec(t, c, `CREATE TRIGGER oi AFTER INSERT ON o FOR EACH ROW
		UPDATE s SET n = n + 1, spent = spent + NEW.amount WHERE customer_id = NEW.customer_id`)
	mustExec(t, c, `CREATE TRIGGER od AFTER DELETE ON o FOR EACH ROW
		UPDATE s SET n = n - 1, spent = spent - OLD.amount WHERE OLD.customer_id = customer_id`)
	// Through a secondary index, and with an expression of the row.
	mustExec(t, c, `CREATE TRIGGER ou AFTER UPDATE ON o FOR EACH ROW
		UPDATE g SET n = n + 1 WHERE grp = NEW.customer_id % 50`)
	read0, _ := ts.srv.Backend.RowCounters()
	want := map[int][2]int{}
	const orders = 300
	for i := 0; i < orders; i++ {
		cust := 1 + (i*37)%customers
		mustExec(t, c, "INSERT INTO o VALUES (?, ?, ?)", i, cust, i)
		w := want[cust]
		want[cust] = [2]int{w[0] + 1, w[1] + i}
	}
	for i := 0; i < orders; i += 3 {
		cust := 1 + (i*37)%customers
		mustExec(t, c, "DELETE FROM o WHERE id = ?", i)
		w := want[cust]
		want[cust] = [2]int{w[0] - 1, w[1] - i}
	}
	mustExec(t, c, "UPDATE o SET amount = amount + 1 WHERE id < 30")
	read1, _ := ts.srv.Backend.RowCounters()
	// A scan would read the whole of s for every fired row: 3000 x 400.
	if got := read1 - read0; got > 20*orders {
		t.Fatalf("%d rows read for %d fired triggers: the target tables were scanned", got, orders+orders/3)
	}
	rows, err := c.Query("SELECT customer_id, n, spent FROM s WHERE n <> 0 OR spent <> 0 ORDER BY customer_id")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][2]int{}
	for rows.Next() {
		var id, n, spent int
		if err := rows.Scan(&id, &n, &spent); err != nil {
			t.Fatal(err)
		}
		got[id] = [2]int{n, spent}
	}
	rows.Close()
	for id, w := range want {
		if w != [2]int{0, 0} && got[id] != w {
			t.Fatalf("customer %d: n, spent = %v, want %v", id, got[id], w)
		}
		delete(got, id)
	}
	if len(got) != 0 {
		t.Fatalf("rows changed that no order touched: %v", got)
	}
	// 20 rows (ids 1..29 not deleted: i % 3 != 0) each fired the UPDATE trigger once.
	if n := queryInts(t, c, "SELECT SUM(n) FROM g")[0]; n != 20 {
		t.Fatalf("update trigger counted %d rows, want 20", n)
	}
}
