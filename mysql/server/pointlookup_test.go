package server

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestPointLookupsReadOneKey (backend IX-5): lookups that fix every
// primary-key column (a join's inner side, IN lists, a composite key, a
// case-insensitive string key) read one key with a Get and return what
// the rows hold, with the transaction's own writes and its snapshot; a
// key given only in part, and locking reads, do not take the Get.
func TestPointLookupsReadOneKey(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	db := ts.open("d")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE TABLE c (id INT PRIMARY KEY, name VARCHAR(20))")
	mustExec(t, db, "CREATE TABLE o (id INT PRIMARY KEY, cid INT, KEY (cid))")
	mustExec(t, db, "CREATE TABLE p2 (a INT, b VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, v INT, PRIMARY KEY (a, b))")
	var cs, os, ps []string
	for i := 1; i <= 200; i++ {
		cs = append(cs, fmt.Sprintf("(%d, 'c%d')", i, i))
		os = append(os, fmt.Sprintf("(%d, %d)", i, (i*7)%230+1)) // some customers missing
		ps = append(ps, fmt.Sprintf("(%d, 'k%d', %d)", i%10, i, i))
	}
	mustExec(t, db, "INSERT INTO c VALUES "+strings.Join(cs, ","))
	mustExec(t, db, "INSERT INTO o VALUES "+strings.Join(os, ","))
	mustExec(t, db, "INSERT INTO p2 VALUES "+strings.Join(ps, ","))

	col := func(q string) []string { t.Helper(); return queryStrings(t, db, q) }
	points := func() uint64 { return ts.srv.Backend.PointReads() }

	// A lookup join on c's primary key: one Get per order, each lookup
	// run through the backend's LookupRows (rules RULE-86).
	p0, l0 := points(), ts.srv.Backend.LookupRowsRun()
	got := col("SELECT /*+ LOOKUP_JOIN(o, c) */ CONCAT(o.id, ':', c.name) FROM o JOIN c ON c.id = o.cid ORDER BY o.id")
	var want []string
	for i := 1; i <= 200; i++ {
		if cid := (i*7)%230 + 1; cid <= 200 {
			want = append(want, fmt.Sprintf("%d:c%d", i, cid))
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("join: got %v\nwant %v", got, want)
	}
	if n := points() - p0; n < 100 {
		t.Fatalf("join read %d keys with a Get, want one per order (200)", n)
	}
	if n := ts.srv.Backend.LookupRowsRun() - l0; n < 100 {
		t.Fatalf("%d lookups ran through LookupRows, want one per order (200)", n)
	}

	// IN lists: composite key, a case-insensitive string, missing keys.
	p0 = points()
	got = col("SELECT v FROM p2 WHERE (a = 1 AND b = 'K11') OR (a = 2 AND b = 'k12') OR (a = 3 AND b = 'nope') OR (a = 1 AND b = 'k11') ORDER BY v")
	if strings.Join(got, ",") != "11,12" {
		t.Fatalf("composite IN: got %v, want [11 12]", got)
	}
	if points() == p0 {
		t.Fatal("a composite key given whole was not read with a Get")
	}
	// Only the key's first column: a range, not a Get.
	p0 = points()
	got = col("SELECT v FROM p2 WHERE a = 4 ORDER BY v")
	if len(got) != 20 || points() != p0 {
		t.Fatalf("a = 4: %d rows, %d Gets; want 20 rows through a range", len(got), points()-p0)
	}

	// The transaction's own writes, then another session's commit the
	// snapshot must not see.
	other := ts.open("d")
	defer other.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE c SET name = 'mine' WHERE id = 8"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("DELETE FROM c WHERE id = 15"); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		return strings.Join(queryStrings(t, tx, "SELECT c.name FROM o JOIN c ON c.id = o.cid WHERE o.id IN (1, 2, 3, 30) ORDER BY o.id"), ",")
	}
	// o 1 -> c 8 (updated), o 2 -> c 15 (deleted), o 3 -> c 22, o 30 ->
	// c 211 (none).
	if got := read(); got != "mine,c22" {
		t.Fatalf("own writes: got %q, want mine,c22", got)
	}
	mustExec(t, other, "UPDATE c SET name = 'theirs' WHERE id = 22")
	mustExec(t, other, "INSERT INTO c VALUES (211, 'late')")
	if got := read(); got != "mine,c22" {
		t.Fatalf("after another session's commit: got %q, want mine,c22 (own write, snapshot)", got)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	got = col("SELECT c.name FROM o JOIN c ON c.id = o.cid WHERE o.id IN (1, 2, 3, 30)")
	sort.Strings(got)
	if strings.Join(got, ",") != "c15,c8,late,theirs" {
		t.Fatalf("after rollback: got %v, want [c15 c8 late theirs]", got)
	}
	// A locking read keeps the scan.
	p0 = points()
	if got := col("SELECT name FROM c WHERE id IN (3, 4) FOR UPDATE"); strings.Join(got, ",") != "c3,c4" {
		t.Fatalf("locking read: %v", got)
	}
	if points() != p0 {
		t.Fatal("a locking read took IX-5's Get")
	}
}
