package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestCoveringIndexReads (backend IX-3): a read whose columns are integer
// parts of a secondary index and the primary key comes from the index
// entries alone, and sees what the row read would: the transaction's
// snapshot (not a later commit's changes), and its own uncommitted writes.
func TestCoveringIndexReads(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	a, b := ts.open("d"), ts.open("d")
	a.SetMaxOpenConns(1)
	mustExec(t, a, "CREATE TABLE t (id INT PRIMARY KEY, k BIGINT, s VARCHAR(10), KEY k (k))")
	var vals []string
	for i := 1; i <= 1000; i++ {
		k := fmt.Sprint(i % 200)
		if i%97 == 0 {
			k = "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, %s, 's%d')", i, k, i))
	}
	mustExec(t, a, "INSERT INTO t VALUES "+strings.Join(vals, ","))
	const q = "SELECT id, k FROM t WHERE k BETWEEN 100 AND 110 ORDER BY id"
	read := func() string {
		t.Helper()
		rows, err := a.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id, k int
			if err := rows.Scan(&id, &k); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d:%d", id, k))
		}
		return strings.Join(out, " ")
	}
	want := func(extra map[int]int, gone map[int]bool) string {
		var out []string
		for id := 1; id <= 6000; id++ {
			k, ok := id%200, id <= 1000 && id%97 != 0
			if v, o := extra[id]; o {
				k, ok = v, true
			}
			if ok && !gone[id] && k >= 100 && k <= 110 {
				out = append(out, fmt.Sprintf("%d:%d", id, k))
			}
		}
		return strings.Join(out, " ")
	}
	covered0 := ts.srv.Backend.CoveredReads()
	mustExec(t, a, "BEGIN")
	if got, w := read(), want(nil, nil); got != w {
		t.Fatalf("covering read:\n got %s\nwant %s", got, w)
	}
	if ts.srv.Backend.CoveredReads() == covered0 {
		t.Fatal("the read did not come from the index entries")
	}
	// Another session changes and commits; the snapshot does not move.
	mustExec(t, b, "UPDATE t SET k = k + 1000 WHERE k BETWEEN 100 AND 103")
	mustExec(t, b, "DELETE FROM t WHERE id = 105")
	mustExec(t, b, "INSERT INTO t VALUES (5000, 108, 'new')")
	if got, w := read(), want(nil, nil); got != w {
		t.Fatalf("snapshot read after another session's commit:\n got %s\nwant %s", got, w)
	}
	mustExec(t, a, "COMMIT")
	moved := map[int]int{5000: 108}
	for id := 1; id <= 1000; id++ {
		if k := id % 200; id%97 != 0 && k >= 100 && k <= 103 {
			moved[id] = k + 1000
		}
	}
	if got, w := read(), want(moved, map[int]bool{105: true}); got != w {
		t.Fatalf("read after commit:\n got %s\nwant %s", got, w)
	}
	// Own uncommitted writes are seen.
	mustExec(t, a, "BEGIN")
	mustExec(t, a, "UPDATE t SET k = 109 WHERE id = 1")
	moved[1] = 109
	if got, w := read(), want(moved, map[int]bool{105: true}); got != w {
		t.Fatalf("read of own write:\n got %s\nwant %s", got, w)
	}
	mustExec(t, a, "ROLLBACK")
}
