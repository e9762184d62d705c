package server

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestGroupByReadsIndex (rules RULE-80): a GROUP BY of columns leading a
// covering index reads the index, in its order, and groups as the map
// would: NULL one group, strings under utf8mb4_0900_ai_ci by weight
// ('ab', 'AB', 'Ab' one group), groups of rows far apart in the table
// and adjacent in the index; a string column (not read from an index
// entry) or a filter on a column the index does not cover keeps the
// table read. Counts are computed here independently.
func TestGroupByReadsIndex(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	db := ts.open("d")
	mustExec(t, db, "CREATE TABLE g (id INT PRIMARY KEY, k INT, s VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, v INT, KEY k (k), KEY sk (s, k))")
	words := []string{"ab", "AB", "Ab", "b", "c", "C"}
	byK, byS, byKFiltered := map[string]int{}, map[string]int{}, map[string]int{}
	var vals []string
	for i := 1; i <= 3000; i++ {
		k := fmt.Sprint((i * 7919) % 101)
		if i%53 == 0 {
			k = "NULL"
		}
		w := words[(i*31)%len(words)]
		v := i % 10
		vals = append(vals, fmt.Sprintf("(%d, %s, '%s', %d)", i, k, w, v))
		byK[k]++
		byS[strings.ToLower(w)]++
		if v < 5 {
			byKFiltered[k]++
		}
	}
	mustExec(t, db, "INSERT INTO g VALUES "+strings.Join(vals, ","))
	groups := func(q string, lower bool) map[string]int {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int{}
		for rows.Next() {
			var key *string
			var n int
			if err := rows.Scan(&key, &n); err != nil {
				t.Fatal(err)
			}
			name := "NULL"
			if key != nil {
				name = *key
				if lower {
					name = strings.ToLower(name)
				}
			}
			if _, dup := out[name]; dup {
				t.Fatalf("%s: group %q twice", q, name)
			}
			out[name] = n
		}
		return out
	}
	explain := func(q string) string {
		t.Helper()
		var b strings.Builder
		rows, err := db.Query("EXPLAIN FORMAT=TREE " + q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			rows.Scan(&line)
			b.WriteString(line + "\n")
		}
		return b.String()
	}
	check := func(q string, want map[string]int, lower, indexed bool) {
		t.Helper()
		covered0 := ts.srv.Backend.CoveredReads()
		got := groups(q, lower)
		if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(want)) {
			t.Fatalf("%s:\n got %v\nwant %v", q, sorted(got), sorted(want))
		}
		plan := explain(q)
		if uses := strings.Contains(plan, "IndexedTableAccess"); uses != indexed {
			t.Fatalf("%s: index read %v, want %v:\n%s", q, uses, indexed, plan)
		}
		if indexed && ts.srv.Backend.CoveredReads() == covered0 {
			t.Fatalf("%s: not read from the index entries", q)
		}
	}
	check("SELECT k, COUNT(*) FROM g GROUP BY k", byK, false, true)
	check("SELECT s, COUNT(*) FROM g GROUP BY s", byS, true, false) // a string is not read from its key (IX-3)
	check("SELECT k, COUNT(*) FROM g WHERE v < 5 GROUP BY k", byKFiltered, false, false)
	check("SELECT k, COUNT(*) FROM g GROUP BY k ORDER BY COUNT(*) DESC, k", byK, false, true)
}

func sorted(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(out)
	return out
}
