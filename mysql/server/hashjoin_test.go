package server

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestHashJoinRows (rules RULE-87, RULE-88): hash joins hand out the
// built table's rows without copies; inner, left, semi and anti joins over
// keys with many matches, no match and NULL on both sides give what a
// nested loop computes in Go; NOT EXISTS keeps the rows whose key is NULL
// under every anti-join plan (hash, lookup, merge hint, nested loop).
func TestHashJoinRows(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	db := ts.open("d")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE TABLE a (id INT PRIMARY KEY, k INT, KEY (k))")
	mustExec(t, db, "CREATE TABLE b (id INT PRIMARY KEY, k INT, v VARCHAR(10), KEY (k))")
	type row struct{ id, k int }
	var as, bs []row
	var av, bv []string
	for i := 1; i <= 300; i++ {
		k := i % 37
		as = append(as, row{i, k})
		ks := fmt.Sprint(k)
		if i%29 == 0 {
			ks = "NULL"
			as[len(as)-1].k = -1
		}
		av = append(av, fmt.Sprintf("(%d, %s)", i, ks))
	}
	for i := 1; i <= 200; i++ {
		k := (i * 7) % 45 // keys 37..44 match nothing in a; some of a's have no match
		bs = append(bs, row{i, k})
		ks := fmt.Sprint(k)
		if i%31 == 0 {
			ks = "NULL"
			bs[len(bs)-1].k = -1
		}
		bv = append(bv, fmt.Sprintf("(%d, %s, 'v%d')", i, ks, i))
	}
	mustExec(t, db, "INSERT INTO a VALUES "+strings.Join(av, ","))
	mustExec(t, db, "INSERT INTO b VALUES "+strings.Join(bv, ","))

	lines := func(q string) []string { // sorted: the joins' order is unspecified
		t.Helper()
		out := queryStrings(t, db, q)
		sort.Strings(out)
		return out
	}
	match := func(x, y row) bool { return x.k >= 0 && x.k == y.k }
	var inner, left, semi, anti []string
	for _, x := range as {
		found := false
		for _, y := range bs {
			if match(x, y) {
				found = true
				inner = append(inner, fmt.Sprintf("%d-v%d", x.id, y.id))
				left = append(left, fmt.Sprintf("%d-v%d", x.id, y.id))
			}
		}
		if !found {
			left = append(left, fmt.Sprintf("%d-none", x.id))
			anti = append(anti, fmt.Sprint(x.id))
		} else {
			semi = append(semi, fmt.Sprint(x.id))
		}
	}
	for _, w := range [][]string{inner, left, semi, anti} {
		sort.Strings(w)
	}
	check := func(name, q string, want []string) {
		t.Helper()
		plan := strings.Join(lines("EXPLAIN FORMAT=TREE "+q), "\n")
		if strings.Contains(q, "HASH_JOIN") && !strings.Contains(plan, "HashLookup") {
			t.Fatalf("%s: not a hash join:\n%s", name, plan)
		}
		if got := lines(q); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: got %d rows, want %d\ngot  %v\nwant %v", name, len(got), len(want), got, want)
		}
	}
	check("inner", "SELECT /*+ HASH_JOIN(a, b) JOIN_ORDER(a, b) */ CONCAT(a.id, '-', b.v) FROM a JOIN b ON b.k = a.k", inner)
	check("left", "SELECT /*+ HASH_JOIN(a, b) JOIN_ORDER(a, b) */ CONCAT(a.id, '-', COALESCE(b.v, 'none')) FROM a LEFT JOIN b ON b.k = a.k", left)
	check("semi", "SELECT /*+ HASH_JOIN(a, b) */ a.id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", semi)
	check("anti", "SELECT /*+ HASH_JOIN(a, b) */ a.id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", anti)
	check("anti, planner's choice", "SELECT a.id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", anti)
	check("anti, lookup", "SELECT /*+ LOOKUP_JOIN(a, b) */ a.id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", anti)
	check("anti, merge", "SELECT /*+ MERGE_JOIN(a, b) */ a.id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", anti)
	// The subquery's column holds NULLs: they match nothing.
	var antiRev []string
	for _, y := range bs {
		found := false
		for _, x := range as {
			found = found || match(y, x)
		}
		if !found {
			antiRev = append(antiRev, fmt.Sprint(y.id))
		}
	}
	sort.Strings(antiRev)
	check("anti, NULLs inside", "SELECT b.id FROM b WHERE NOT EXISTS (SELECT 1 FROM a WHERE a.k = b.k)", antiRev)
	mustExec(t, db, "CREATE TABLE gone (id INT PRIMARY KEY)")
	mustExec(t, db, "INSERT INTO gone SELECT id FROM b WHERE NOT EXISTS (SELECT 1 FROM a WHERE a.k = b.k)")
	check("anti in INSERT ... SELECT", "SELECT id FROM gone", antiRev)
	mustExec(t, db, "DELETE FROM b WHERE NOT EXISTS (SELECT 1 FROM a WHERE a.k = b.k)")
	if n := len(lines("SELECT id FROM b")); n != len(bs)-len(antiRev) {
		t.Fatalf("DELETE ... WHERE NOT EXISTS left %d rows, want %d", n, len(bs)-len(antiRev))
	}
}
