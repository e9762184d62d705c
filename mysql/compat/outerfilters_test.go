package compat

import "testing"

// TestOuterColumnFiltersInSubqueries (rules RULE-98): a subquery's
// condition on the outer query's columns alone, or an OR with one, gives
// MariaDB's rows: go-mysql-server turned `o.id > 3` into an index range
// on the subquery table's own id column (a different table, or the same
// table under another name).
func TestOuterColumnFiltersInSubqueries(t *testing.T) {
	st, ma := startPair(t)
	setup := []string{
		"CREATE DATABASE ofq",
		"CREATE TABLE ofq.t (id INT PRIMARY KEY, k INT, v INT, KEY (k))",
		"INSERT INTO ofq.t VALUES (1,1,10),(2,1,20),(3,2,30),(4,2,40),(5,3,50),(6,NULL,60)",
		"CREATE TABLE ofq.u (id INT PRIMARY KEY, k INT, KEY (k))",
		"INSERT INTO ofq.u VALUES (1,1),(2,2),(7,2)",
	}
	execBoth(t, st, ma, setup...)
	sameRowsAll(t, st, ma, []string{
		"SELECT COUNT(*) FROM ofq.t o WHERE (SELECT COUNT(*) FROM ofq.t WHERE o.id > 3) > 0",
		"SELECT COUNT(*) FROM ofq.t o WHERE (SELECT COUNT(*) FROM ofq.t x WHERE o.id > 3) > 0",
		"SELECT COUNT(*) FROM ofq.t o WHERE (SELECT COUNT(*) FROM ofq.u WHERE o.id > 3) > 0",
		"SELECT o.id, (SELECT COUNT(*) FROM ofq.u WHERE o.id > 3) FROM ofq.t o ORDER BY o.id",
		"SELECT o.id, (SELECT COUNT(*) FROM ofq.u WHERE o.id > 3 OR u.k = 2) FROM ofq.t o ORDER BY o.id",
		"SELECT o.id, (SELECT COUNT(*) FROM ofq.u WHERE o.k IS NULL) FROM ofq.t o ORDER BY o.id",
		"SELECT o.id, (SELECT MAX(u.id) FROM ofq.u WHERE u.k = o.k AND o.v >= 30) FROM ofq.t o ORDER BY o.id",
		"SELECT COUNT(*) FROM ofq.t o WHERE o.v < (SELECT AVG(v) FROM ofq.t WHERE k = o.k AND o.id > 2)",
		"SELECT id FROM ofq.t o WHERE EXISTS (SELECT 1 FROM ofq.u WHERE u.id = o.id AND o.k IN (1, 3)) ORDER BY id",
		"SELECT id FROM ofq.t o WHERE o.id IN (SELECT u.id FROM ofq.u WHERE o.v BETWEEN 15 AND 45) ORDER BY id",
	})
}
