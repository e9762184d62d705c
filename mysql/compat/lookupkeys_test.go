package compat

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestLookupJoinKeysMatchMariaDB (backend IX-7, rules RULE-86): lookup
// joins whose keys are integers bound straight into the index's key
// prefix — through secondary indexes of one and two columns, the primary
// key, and integer columns of every width and sign, with keys beyond the
// inner column's range, negatives against unsigned columns, NULLs on both
// sides and duplicates — give MariaDB 10.11's rows.
func TestLookupJoinKeysMatchMariaDB(t *testing.T) {
	st, ma := startPair(t)
	r := rand.New(rand.NewSource(7))
	execBoth(t, st, ma,
		"CREATE DATABASE lk",
		`CREATE TABLE lk.o (id INT PRIMARY KEY, k BIGINT, ks INT, u BIGINT UNSIGNED, t SMALLINT, note VARCHAR(8))`,
		`CREATE TABLE lk.i (id INT PRIMARY KEY, a INT, b TINYINT, tu TINYINT UNSIGNED, big BIGINT, ub INT UNSIGNED, v INT,
			KEY (a), KEY ab (a, b), KEY (tu), KEY (big), KEY (ub))`,
		`CREATE TABLE lk.p (x INT NOT NULL, y SMALLINT NOT NULL, v INT, PRIMARY KEY (x, y))`)
	pick := func(vals ...string) string { return vals[r.Intn(len(vals))] }
	var rows []string
	for i := 1; i <= 40; i++ {
		rows = append(rows, fmt.Sprintf("(%d,%s,%s,%s,%s,'o%d')", i,
			pick("NULL", "-1", "0", "3", "7", "200", "300", "5000000000", "-5000000000", fmt.Sprint(r.Intn(20))),
			pick("NULL", "-3", "1", "2", "127", "128", fmt.Sprint(r.Intn(20))),
			pick("NULL", "0", "1", "255", "256", "4294967295", "4294967296", "18446744073709551615", fmt.Sprint(r.Intn(20))),
			pick("NULL", "-128", "-129", "1", "2", fmt.Sprint(r.Intn(20))), i))
	}
	execBoth(t, st, ma, "INSERT INTO lk.o VALUES "+strings.Join(rows, ","))
	rows = rows[:0]
	for i := 1; i <= 2000; i++ {
		rows = append(rows, fmt.Sprintf("(%d,%s,%s,%s,%s,%s,%d)", i,
			pick("NULL", fmt.Sprint(r.Intn(25)-3)),
			pick("NULL", "-128", "127", fmt.Sprint(r.Intn(10)-2)),
			pick("NULL", "0", "255", fmt.Sprint(r.Intn(20))),
			pick("NULL", "5000000000", "-5000000000", fmt.Sprint(r.Intn(30)-5)),
			pick("NULL", "4294967295", fmt.Sprint(r.Intn(30))),
			r.Intn(100)))
	}
	execBoth(t, st, ma, "INSERT INTO lk.i VALUES "+strings.Join(rows, ","))
	rows = rows[:0]
	for x := 0; x < 30; x++ {
		for y := -2; y < 8; y++ {
			rows = append(rows, fmt.Sprintf("(%d,%d,%d)", x, y, r.Intn(50)))
		}
	}
	execBoth(t, st, ma, "INSERT INTO lk.p VALUES "+strings.Join(rows, ","), "ANALYZE TABLE lk.o, lk.i, lk.p")
	var qs []string
	for _, oc := range []string{"k", "ks", "u", "t"} {
		for _, ic := range []string{"a", "b", "tu", "big", "ub"} {
			for _, join := range []string{"JOIN", "LEFT JOIN"} {
				qs = append(qs, fmt.Sprintf("SELECT /*+ LOOKUP_JOIN(o, i) */ o.id, COUNT(i.id), SUM(i.v) FROM lk.o o %s lk.i i ON i.%s = o.%s GROUP BY o.id ORDER BY o.id", join, ic, oc))
			}
		}
		qs = append(qs,
			fmt.Sprintf("SELECT /*+ LOOKUP_JOIN(o, i) */ o.id, i.id, i.v FROM lk.o o JOIN lk.i i ON i.a = o.%s AND i.b = o.t ORDER BY o.id, i.id", oc),
			fmt.Sprintf("SELECT /*+ LOOKUP_JOIN(o, i) */ o.id, i.id FROM lk.o o JOIN lk.i i ON i.id = o.%s ORDER BY o.id", oc),
			fmt.Sprintf("SELECT /*+ LOOKUP_JOIN(o, p) */ o.id, p.v FROM lk.o o LEFT JOIN lk.p p ON p.x = o.%s AND p.y = o.t ORDER BY o.id", oc),
			fmt.Sprintf("SELECT /*+ LOOKUP_JOIN(o, p) */ o.id, COUNT(p.v) FROM lk.o o JOIN lk.p p ON p.x = o.%s GROUP BY o.id ORDER BY o.id", oc),
			fmt.Sprintf("SELECT COUNT(*) FROM lk.o o WHERE EXISTS (SELECT 1 FROM lk.i i WHERE i.big = o.%s AND i.v > 50)", oc))
	}
	sameRowsAll(t, st, ma, qs)
	lookups := 0
	for _, plan := range plansOf(t, st, qs) {
		if strings.Contains(plan, "LookupJoin") {
			lookups++
		}
	}
	if lookups < len(qs)/2 {
		t.Errorf("only %d of %d queries are lookup joins", lookups, len(qs))
	}
	t.Logf("%d queries, %d lookup joins", len(qs), lookups)
}
