package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestSnapshotReadsThroughIndex (backend IX-6): a read through a secondary
// index at a snapshot returns the rows as of the snapshot after another
// session moved them to other index values, without re-checking each row
// against its entry; a locking read sees the latest values.
func TestSnapshotReadsThroughIndex(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	db := ts.open("d")
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, k INT, v VARCHAR(10), KEY (k))")
	mustExec(t, db, "INSERT INTO t VALUES (1, 5, 'a'), (2, 5, 'b'), (3, 7, 'c')")
	var more []string
	for i := 10; i < 2000; i++ { // enough rows that a k range reads the index
		more = append(more, fmt.Sprintf("(%d, %d, 'x')", i, 100+i))
	}
	mustExec(t, db, "INSERT INTO t VALUES "+strings.Join(more, ","))
	mustExec(t, db, "ANALYZE TABLE t")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ids := func(q string) string { t.Helper(); return strings.Join(queryStrings(t, conn, q), ",") }
	plan := strings.Join(queryStrings(t, conn, "EXPLAIN FORMAT=TREE SELECT id, k, v FROM t WHERE k BETWEEN 4 AND 6 ORDER BY id"), "\n")
	if !strings.Contains(plan, "index: [t.k]") {
		t.Fatalf("the k range does not read the index:\n%s", plan)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if got := ids("SELECT id, k, v FROM t WHERE k BETWEEN 4 AND 6 ORDER BY id"); got != "1|5|a,2|5|b" {
		t.Fatalf("before: %s", got)
	}
	other := ts.open("d")
	defer other.Close()
	mustExec(t, other, "UPDATE t SET k = 7, v = 'moved' WHERE id = 1")
	mustExec(t, other, "UPDATE t SET v = 'changed' WHERE id = 2")
	mustExec(t, other, "INSERT INTO t VALUES (4, 5, 'new')")
	if got := ids("SELECT id, k, v FROM t WHERE k BETWEEN 4 AND 6 ORDER BY id"); got != "1|5|a,2|5|b" {
		t.Fatalf("snapshot through the index, k = 5: %s, want 1|5|a,2|5|b", got)
	}
	if got := ids("SELECT id, k, v FROM t WHERE k BETWEEN 7 AND 8 ORDER BY id"); got != "3|7|c" {
		t.Fatalf("snapshot through the index, k = 7: %s, want 3|7|c", got)
	}
	if got := ids("SELECT id, k, v FROM t WHERE k BETWEEN 4 AND 6 ORDER BY id FOR UPDATE"); got != "2|5|changed,4|5|new" {
		t.Fatalf("locking read, k = 5: %s, want 2|5|changed,4|5|new", got)
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if got := ids("SELECT id, k, v FROM t WHERE k BETWEEN 7 AND 8 ORDER BY id"); got != "1|7|moved,3|7|c" {
		t.Fatalf("after: %s", got)
	}
}
