package fastpath

import (
	"fmt"
	"testing"
)

// TestFastPathShapes: names that are numbers or keywords are never taken
// for columns (the statement means something else), and the shapes
// sysbench uses are recognized.
func TestFastPathShapes(t *testing.T) {
	for _, q := range []string{
		"SELECT 1 FROM t WHERE id=?",
		"SELECT c FROM t WHERE 1 = ?",
		"DELETE FROM t WHERE 1 = ?",
		"UPDATE t SET c = null + 1 WHERE id = ?",
		"UPDATE t SET c = true WHERE id = ?",
		"SELECT current_date FROM t WHERE id = ?",
		"SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY 1",
		"SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c DESC",
		"SELECT c FROM t WHERE id = ? LIMIT 1",
		"SELECT c FROM t WHERE id = ? FOR UPDATE",
		"SELECT c, FROM t WHERE id = ?",
		"INSERT INTO t (a, b) VALUES (?, ?, ?)",
		"UPDATE t SET k = k + 1 WHERE id = ? LIMIT 1",
		"SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ? ORDER BY k",
		"SELECT high_priority FROM t WHERE id = ?",
		"SELECT sql_no_cache FROM t WHERE id = ?",
		"SELECT COUNT(*) FROM t WHERE k = ?",
		"SELECT COUNT(c) FROM t",
		"SELECT COUNT(*) FROM t, u",
	} {
		if sh := parseShape(q); sh != nil {
			t.Errorf("%q taken as %+v", q, sh)
		}
	}
	for q, k := range map[string]kind{
		"SELECT c FROM sbtest1 WHERE id=?":                                       pointSelect,
		"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?":                         rangeSelect,
		"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?":                    rangeSelect,
		"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c":              rangeSelect,
		"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c":     rangeSelect,
		"UPDATE sbtest1 SET k=k+1 WHERE id=?":                                    updateByKey,
		"UPDATE sbtest1 SET c=? WHERE id=?":                                      updateByKey,
		"DELETE FROM sbtest1 WHERE id=?":                                         deleteByKey,
		"INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)":                insertValues,
		"SELECT COUNT(*) FROM sbtest1":                                           countRows,
		"BEGIN":                                                                  txBegin,
		"COMMIT":                                                                 txCommit,
		"select `c` from `sbtest1` where `id` between ? and ? order by `c` asc;": rangeSelect,
	} {
		if sh := parseShape(q); sh == nil || sh.kind != k {
			t.Errorf("%q: %+v, want kind %d", q, sh, k)
		}
	}
}

// TestOneTuple (FP-7): a multi-row INSERT whose tuples are written alike
// is its first tuple and a row count; anything else is not.
func TestOneTuple(t *testing.T) {
	for q, want := range map[string]string{
		"INSERT INTO t VALUES (?,?),(?,?),(?,?)":                         "INSERT INTO t VALUES (?,?) x3",
		"INSERT INTO `values` VALUES (?, ?) , (?, ?);":                   "INSERT INTO `values` VALUES (?, ?); x2",
		"insert into t (a, b) values(?,?),\n(?,?)":                       "insert into t (a, b) values(?,?) x2",
		"INSERT INTO t VALUES (?,?),(?, ?)":                              "",
		"INSERT INTO t VALUES (?,?)":                                     "",
		"INSERT INTO t VALUES (?,?),(?,?) ON DUPLICATE KEY UPDATE a = ?": "",
		"INSERT INTO t VALUES (?,(?)),(?,(?))":                           "",
		"SELECT a FROM t WHERE b = ?":                                    "",
	} {
		got := ""
		if single, n, ok := oneTuple([]byte(q)); ok {
			got = fmt.Sprintf("%s x%d", single, n)
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", q, got, want)
		}
	}
}

// TestPreparedTuples (FP-7): a prepared multi-row INSERT is the single-row
// shape with its row count; other statements keep none.
func TestPreparedTuples(t *testing.T) {
	fp := New(nil, nil)
	if sh := fp.shape("INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?)"); sh == nil || sh.tuples != 3 || sh.params != 2 {
		t.Fatalf("multi-row insert: %+v", sh)
	}
	if sh := fp.shape("INSERT INTO t (a, b) VALUES (?, ?)"); sh == nil || sh.tuples != 0 {
		t.Fatalf("single-row insert: %+v", sh)
	}
	if sh := fp.shape("INSERT INTO t (a, b) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE a = ?"); sh != nil {
		t.Fatalf("ON DUPLICATE KEY UPDATE taken: %+v", sh)
	}
}
