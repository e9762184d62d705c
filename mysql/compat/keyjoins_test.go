package compat

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestKeyJoinsMatchMariaDB (rules RULE-99, RULE-100): EXISTS and IN
// subqueries planned as key-set semi-joins, and LEFT JOIN ... IS NULL and
// NOT EXISTS planned as merge anti-joins, over integer keys of several
// widths and signs (NULLs, negatives, duplicates on both sides, unsigned
// values above BIGINT's range, dense keys a bitmap holds and sparse ones
// it does not), give MariaDB 10.11's rows. The test also asserts that the
// plans it compares are the rewritten ones, so it cannot pass by testing
// something else.
func TestKeyJoinsMatchMariaDB(t *testing.T) {
	st, ma := startPair(t)
	r := rand.New(rand.NewSource(99))
	execBoth(t, st, ma,
		"CREATE DATABASE kj",
		`CREATE TABLE kj.c (id INT PRIMARY KEY, k INT, s INT, u BIGINT UNSIGNED, t TINYINT, note VARCHAR(10),
			KEY (k), KEY (s), KEY (u), KEY (t))`,
		`CREATE TABLE kj.o (id INT PRIMARY KEY, ck INT, cs BIGINT, cu BIGINT UNSIGNED, ct SMALLINT, st VARCHAR(10) NOT NULL, opt INT,
			KEY (ck), KEY (cs), KEY (cu), KEY (ct))`)
	pick := func(vals ...string) string { return vals[r.Intn(len(vals))] }
	bigU := []string{"0", "1", "9223372036854775807", "9223372036854775808", "18446744073709551615"}
	var rows []string
	for i := 1; i <= 400; i++ {
		k := fmt.Sprint(r.Intn(300) - 20) // dense, with negatives
		if r.Intn(15) == 0 {
			k = "NULL"
		}
		s := fmt.Sprint((r.Int63n(2000) - 1000) * 1_000_003) // sparse
		if r.Intn(15) == 0 {
			s = "NULL"
		}
		u := fmt.Sprint(r.Intn(500))
		if r.Intn(8) == 0 {
			u = pick(bigU...)
		}
		rows = append(rows, fmt.Sprintf("(%d,%s,%s,%s,%d,'c%d')", i, k, s, u, r.Intn(256)-128, i))
	}
	execBoth(t, st, ma, "INSERT INTO kj.c VALUES "+strings.Join(rows, ","))
	rows = rows[:0]
	for i := 1; i <= 3000; i++ {
		ck := fmt.Sprint(r.Intn(330) - 25)
		if r.Intn(20) == 0 {
			ck = "NULL"
		}
		cs := fmt.Sprint((r.Int63n(2000) - 1000) * 1_000_003)
		if r.Intn(20) == 0 {
			cs = "NULL"
		}
		cu := fmt.Sprint(r.Intn(520))
		if r.Intn(10) == 0 {
			cu = pick(bigU...)
		}
		opt := "NULL"
		if r.Intn(2) == 0 {
			opt = fmt.Sprint(r.Intn(10))
		}
		rows = append(rows, fmt.Sprintf("(%d,%s,%s,%s,%d,'%s',%s)", i, ck, cs, cu, r.Intn(300)-150,
			pick("new", "paid", "returned"), opt))
	}
	execBoth(t, st, ma, "INSERT INTO kj.o VALUES "+strings.Join(rows, ","), "ANALYZE TABLE kj.c, kj.o")

	// Key pairs (customer column, order column), same and mixed types.
	pairs := [][2]string{{"k", "ck"}, {"s", "cs"}, {"u", "cu"}, {"t", "ct"}, {"k", "cs"}, {"k", "cu"}, {"u", "ck"}, {"t", "ck"}}
	filter := func() string {
		return pick("", " AND o.st = 'returned'", " AND o.id > 1500", " AND o.opt = 3", " AND o.st <> 'new' AND o.id < 2500")
	}
	var qs []string
	for _, p := range pairs {
		c, o := p[0], p[1]
		for i := 0; i < 3; i++ {
			f := filter()
			qs = append(qs,
				fmt.Sprintf("SELECT COUNT(*), SUM(c.id) FROM kj.c c WHERE EXISTS (SELECT 1 FROM kj.o o WHERE o.%s = c.%s%s)", o, c, f),
				fmt.Sprintf("SELECT c.id, c.%s FROM kj.c c WHERE c.%s IN (SELECT o.%s FROM kj.o o WHERE 1=1%s) ORDER BY c.id", c, c, o, f),
				fmt.Sprintf("SELECT o.id FROM kj.o o WHERE EXISTS (SELECT 1 FROM kj.c c WHERE c.%s = o.%s AND c.id %% 3 = %d) ORDER BY o.id", c, o, i),
				fmt.Sprintf("SELECT COUNT(*), SUM(c.id) FROM kj.c c WHERE NOT EXISTS (SELECT 1 FROM kj.o o WHERE o.%s = c.%s)", o, c),
				fmt.Sprintf("SELECT c.id, o.id, o.%s FROM kj.c c LEFT JOIN kj.o o ON o.%s = c.%s WHERE o.id IS NULL ORDER BY c.id", o, o, c),
				fmt.Sprintf("SELECT c.id FROM kj.c c LEFT JOIN kj.o o ON o.%s = c.%s WHERE o.%s IS NULL AND c.id > %d ORDER BY c.id", o, c, o, 50*i),
				// A nullable column's IS NULL keeps matched rows: not an anti-join.
				fmt.Sprintf("SELECT COUNT(*), SUM(c.id), SUM(o.id) FROM kj.c c LEFT JOIN kj.o o ON o.%s = c.%s WHERE o.opt IS NULL", o, c),
			)
		}
	}
	sameRowsAll(t, st, ma, qs)
	semi, anti := 0, 0
	for i, plan := range plansOf(t, st, qs) {
		if strings.Contains(plan, "SemiJoin(key set)") {
			semi++
		}
		if strings.Contains(plan, "AntiMergeJoin") {
			anti++
			if strings.Contains(qs[i], "o.opt IS NULL") {
				t.Errorf("an IS NULL of a nullable column planned as an anti-join: %s", qs[i])
			}
		}
	}
	// Many take the rewritten plans (32 and 18 when written); the others
	// are lookup joins (go-mysql-server's SemiLookupJoin, LookupJoin over a
	// DISTINCT, LeftOuterLookupJoin), which RULE-99/100 leave alone.
	if semi < 24 || anti < 12 {
		t.Errorf("only %d key-set semi-joins and %d merge anti-joins among %d queries", semi, anti, len(qs))
	}
	t.Logf("%d queries: %d key-set semi-joins, %d merge anti-joins", len(qs), semi, anti)
}
