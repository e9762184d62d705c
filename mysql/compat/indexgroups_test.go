package compat

import (
	"fmt"
	"strings"
	"testing"
)

// TestIndexGroupCountsMatchMariaDB (rules RULE-97): counts per value of
// the leading columns of a two-column index, with repeated and reordered
// grouping columns, NULLs and a range, give MariaDB's rows.
func TestIndexGroupCountsMatchMariaDB(t *testing.T) {
	st, ma := startPair(t)
	var rows []string
	for i := 1; i <= 60; i++ {
		a := fmt.Sprint(i % 4)
		if i%9 == 0 {
			a = "NULL"
		}
		rows = append(rows, fmt.Sprintf("(%d, %s, %d)", i, a, i%5))
	}
	execBoth(t, st, ma,
		"CREATE DATABASE ig",
		"CREATE TABLE ig.t (id INT PRIMARY KEY, a INT, b INT, KEY ab (a, b))",
		"INSERT INTO ig.t VALUES "+strings.Join(rows, ","))
	sameRowsAll(t, st, ma, []string{
		"SELECT a, COUNT(*) FROM ig.t GROUP BY a ORDER BY a",
		"SELECT a, COUNT(*) FROM ig.t GROUP BY a, a ORDER BY a",
		"SELECT a, COUNT(*) FROM ig.t GROUP BY t.a, a ORDER BY a",
		"SELECT a, b, COUNT(*) FROM ig.t GROUP BY a, b ORDER BY a, b",
		"SELECT b, a, COUNT(*) FROM ig.t GROUP BY b, a ORDER BY a, b",
		"SELECT COUNT(*), a FROM ig.t WHERE a >= 2 GROUP BY a ORDER BY a",
		"SELECT a, COUNT(1) AS n FROM ig.t GROUP BY a ORDER BY n DESC, a LIMIT 2",
	})
}
