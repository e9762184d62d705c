package server

import (
	"math/rand"
	"strings"
	"testing"
)

func TestRewriteQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`SELECT 'a\_b' LIKE 'a\_b'`, `SELECT 'a\\_b' LIKE 'a\\_b'`},
		{`SELECT "x\%y", 'it''s \_', 'a\\_b', 'q\'\_'`, `SELECT "x\\%y", 'it''s \\_', 'a\\_b', 'q\'\\_'`},
		{"SELECT `a\\_b` FROM t -- '\\_\n", "SELECT `a\\_b` FROM t -- '\\_\n"},
		{`SELECT 1 /* '\_ */`, `SELECT 1 /* '\_ */`},
		{`CREATE TABLE t (y YEAR(4), b BLOB(100), c blob (70000), d TEXT(100), e text(20000000))`,
			`CREATE TABLE t (y YEAR, b TINYBLOB, c MEDIUMBLOB, d TEXT, e LONGTEXT)`},
		{`ALTER TABLE t ADD y year( 4 )`, `ALTER TABLE t ADD y YEAR`},
		{`SELECT YEAR(4), BLOB(1)`, `SELECT YEAR(4), BLOB(1)`},
		{"CREATE TABLE t (`year(4)` INT, myyear(4) INT)", "CREATE TABLE t (`year(4)` INT, myyear(4) INT)"},
		{`select 1`, `select 1`},
		{"LOCK TABLE t WRITE", "LOCK TABLES t WRITE"},
		{"lock   table t read, u write", "lock   TABLES t read, u write"},
		{"LOCK TABLES t WRITE", "LOCK TABLES t WRITE"},
		{"CREATE TABLE t (d DATE DEFAULT curdate(), u VARCHAR(36) DEFAULT uuid() NOT NULL, ts TIMESTAMP DEFAULT current_timestamp() ON UPDATE current_timestamp(), n INT DEFAULT (1 + 1), x INT DEFAULT 5)",
			"CREATE TABLE t (d DATE DEFAULT ((curdate())), u VARCHAR(36) DEFAULT ((uuid())) NOT NULL, ts TIMESTAMP DEFAULT current_timestamp() ON UPDATE current_timestamp(), n INT DEFAULT ((1 + 1)), x INT DEFAULT 5)"},
		{"INSERT INTO t VALUES (DEFAULT curdate())", "INSERT INTO t VALUES (DEFAULT curdate())"},
		{"SELECT a >= ALL (SELECT b FROM s), a>any(select 1), a = SOME (SELECT ')' FROM s)",
			"SELECT a >= strata_ALL( (SELECT b FROM s)), a>strata_any((select 1)), a = strata_SOME( (SELECT ')' FROM s))"},
		{"SELECT a <> ALL (SELECT b), a != ANY (SELECT b), a <=> ALL (SELECT b)",
			"SELECT a <> strata_ALL_ne( (SELECT b)), a != strata_ANY_ne( (SELECT b)), a <=> ALL (SELECT b)"},
		{"SELECT a < ALL (SELECT b FROM s WHERE b > ANY (SELECT c /* ) */ FROM u))",
			"SELECT a < strata_ALL( (SELECT b FROM s WHERE b > strata_ANY( (SELECT c /* ) */ FROM u))))"},
		{"SELECT SUM(ALL a), COUNT( all b) FROM t UNION ALL (SELECT 1, 2)", "SELECT SUM(/*ALL*/ a), COUNT( /*all*/ b) FROM t UNION ALL (SELECT 1, 2)"},
		{"SELECT a > ALL (SELECT 1", "SELECT a > ALL (SELECT 1"},
		{"INSERT DELAYED INTO t VALUES (1)", "INSERT  INTO t VALUES (1)"},
		{"drop tables t1, t2", "drop TABLE t1, t2"},
		{"create table t2 (c int default ((1))) select default(str) as str from t1", "create table t2 (c int default ((1))) select strata_fn_default(str) as str from t1"},
		{"PREPARE st1 FROM 'SELECT * FROM t2 WHERE a = SOME (SELECT a FROM v1 WHERE c = ''x'')'", "PREPARE st1 FROM 'SELECT * FROM t2 WHERE a = strata_SOME( (SELECT a FROM v1 WHERE c = ''x''))'"},
		{`prepare s from "select 'a\_b' like ?, a >= all (select 1)"`, `prepare s from 'select ''a\\\\_b'' like ?, a >= strata_all( (select 1))'`},
		{"SELECT @n := @n + 1 AS rn, id FROM t", "SELECT strata_assign(@n , ( @n + 1)) AS rn, id FROM t"},
		{"select @a:=(select 1), f(@b := x, 2) from t where (@c:=v) > 1", "select strata_assign(@a, ((select 1))), f(strata_assign(@b , ( x)), 2) from t where (strata_assign(@c, (v))) > 1"},
		{"SELECT @x := @y := 3", "SELECT strata_assign(@x , ( strata_assign(@y , ( 3))))"},
		{"SET @a := 1", "SET @a := 1"},
		{"SELECT ':=', @@x, @`q` := 'a)'", "SELECT ':=', @@x, strata_assign(@`q` , ( 'a)'))"},
		{"DROP TEMPORARY TABLES IF EXISTS t1", "DROP TEMPORARY TABLE IF EXISTS t1"},
		{"flush status", "FLUSH TABLES"},
		{"(select 1) union (select 2)", "(select 1) union (select 2)"},
		{"SELECT a FROM t1 IGNORE INDEX FOR ORDER BY (PRIMARY,i2) ORDER BY a", "SELECT a FROM t1 IGNORE INDEX (PRIMARY,i2) ORDER BY a"},
		{"SELECT a FROM t1 USE KEY for join (a) WHERE b = 'x'", "SELECT a FROM t1 USE KEY for join (a) WHERE b = 'x'"},
		{"insert low_priority ignore into t select sql_small_result distinct sql_big_result a from u", "insert  ignore into t select  distinct  a from u"},
		{"DELETE LOW_PRIORITY QUICK IGNORE FROM t", "DELETE   IGNORE FROM t"},
		{"UPDATE LOW_PRIORITY t SET a = 1", "UPDATE  t SET a = 1"},
		{"SELECT HIGH_PRIORITY SQL_BUFFER_RESULT a FROM (SELECT SQL_SMALL_RESULT b FROM t) x", "SELECT   a FROM (SELECT  b FROM t) x"},
		{"SELECT a AS sql_small_result, `delayed` FROM t WHERE quick = 1", "SELECT a AS sql_small_result, `delayed` FROM t WHERE quick = 1"},
		{"UPDATE t SET quick = 1", "UPDATE t SET quick = 1"},
		{"set statement optimizer_switch='rowid_filter=off', join_cache_level=2 for SELECT ROW(a, b) IN ((1, 2)) FROM t", " SELECT (/*ROW*/a, b) IN ((1, 2)) FROM t"},
		{"SET STATEMENT sql_mode='' FOR SELECT 1", "SET STATEMENT sql_mode='' FOR SELECT 1"},
		{"SELECT row_count(), t.row(1), rows FROM t", "SELECT row_count(), t.row(1), rows FROM t"},
		{"SELECT DATE '2024-01-01' + 1, TIME '10:00:00.5', TIMESTAMP \"2024-01-01 10:11:12\", t.date 'x', `date` 'y'", "SELECT strata_typed_date('2024-01-01') + 1, strata_typed_time('10:00:00.5'), strata_typed_timestamp(\"2024-01-01 10:11:12\"), t.date 'x', `date` 'y'"},
		{"CREATE TABLE t (a INT, b INT DEFAULT (NOT a), c INT DEFAULT ( a IS NULL ), d INT DEFAULT ((1)))", "CREATE TABLE t (a INT, b INT DEFAULT ((NOT a)), c INT DEFAULT (( a IS NULL )), d INT DEFAULT ((1)))"},
		{"ALTER TABLE t ALTER COLUMN b SET DEFAULT (a IS NOT NULL)", "ALTER TABLE t ALTER COLUMN b SET DEFAULT ((a IS NOT NULL))"},
		{"CREATE VIEW v AS SELECT DEFAULT(a) FROM t", "CREATE VIEW v AS SELECT strata_fn_DEFAULT(a) FROM t"},
		{"SELECT 'x > ALL (SELECT 1)', `> ANY (`", "SELECT 'x > ALL (SELECT 1)', `> ANY (`"},
	} {
		if got := rewriteQuery(tc.in, true); got != tc.want {
			t.Errorf("rewriteQuery(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		} else if !strings.HasPrefix(strings.ToLower(got), "prepare") && strings.Contains(got, "strata_") || strings.Contains(got, "/*ALL") || strings.Contains(got, "/*all") {
			// Result column names read as the client wrote them.
			if back := unrewriteName(got); back != tc.in {
				t.Errorf("unrewriteName(%q) = %q, want %q", got, back, tc.in)
			}
		}
		// Idempotent: a rewritten text is left alone.
		if got := rewriteQuery(tc.want, true); got != tc.want {
			t.Errorf("not idempotent on %q: %q", tc.want, got)
		}
	}
	if got := rewriteQuery(`SELECT 'a\_b'`, false); got != `SELECT 'a\_b'` {
		t.Errorf("NO_BACKSLASH_ESCAPES: %q", got)
	}
}

func TestUsesDefaultFunction(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT DEFAULT(a) FROM t":                  true,
		"INSERT INTO t VALUES (1, default (a) + 1)": true,
		"INSERT INTO t VALUES (1, DEFAULT)":         false,
		"INSERT INTO t VALUES ('default(x)')":       false,
		"SELECT 1 /* default(a) */":                 false,
		"CREATE TABLE t (a INT DEFAULT (1 + 1))":    false,
		"ALTER TABLE t ALTER a SET DEFAULT (1)":     false,
		"UPDATE t SET a = DEFAULT":                  false,
		"SELECT `default`(1)":                       false,
		"CREATE VIEW v AS SELECT DEFAULT(a) FROM t": true,
		"create or replace algorithm=merge definer=`root`@`localhost` sql security invoker view v as select default(a) from t": true,
		"CREATE TABLE v (a INT DEFAULT (1))": false,
	} {
		if got := usesDefaultFunction(q); got != want {
			t.Errorf("usesDefaultFunction(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestStatementWords(t *testing.T) {
	for q, want := range map[string]bool{
		"INSERT INTO t VALUES (1)":           true,
		" /* c */ replace into t values (1)": true,
		"(insert into t values (1))":         true,
		"inserts":                            false,
		"SELECT 'insert'":                    false,
	} {
		if got := isInsert(q); got != want {
			t.Errorf("isInsert(%q) = %v", q, got)
		}
	}
	if !isDDL("/*!40101 x */ CREATE TABLE t (a INT)") || isDDL("created") || !isDDL("alter table t add b int") {
		t.Error("isDDL")
	}
	if !containsFold("SELECT Last_Insert_Id(5)", "last_insert_id(") || containsFold("SELECT 1", "last_insert_id(") {
		t.Error("containsFold")
	}
	if !mayGenerateID("UPDATE t SET id = LAST_INSERT_ID(id + 1)") || mayGenerateID("UPDATE t SET v = 1") {
		t.Error("mayGenerateID")
	}
}

func TestTooBigTimePrecision(t *testing.T) {
	for q, want := range map[string]int{
		"SELECT CAST(@a AS DATETIME(7))":             7,
		"select cast(now() as time( 12 ))":           12,
		"CREATE TABLE t (ts TIMESTAMP(9))":           9,
		"SELECT CAST(@a AS DATETIME(6))":             0,
		"SELECT 'datetime(7)', `time(8)` FROM t":     0,
		"SELECT created_time(7)":                     0,
		"SELECT CAST(a AS time(7)) /* time */":       7,
		"SELECT time(7), TIMESTAMP(9)":               0,
		"SELECT 1 -- time(7)\n":                      0,
		"SELECT TIME(a) FROM t WHERE timestamp(9>1)": 0,
	} {
		n, _, ok := tooBigTimePrecision(q)
		if ok != (want > 0) || n != want {
			t.Errorf("tooBigTimePrecision(%q) = %d, %v; want %d", q, n, ok, want)
		}
	}
}

func TestMayInterceptTimePrecision(t *testing.T) {
	for q, want := range map[string]bool{
		"select CAST(@a AS DATETIME(7))":             true,
		"SELECT * FROM t WHERE created_time > NOW()": false,
		"SELECT CAST(a AS TIME(3)), f(10)":           true, // a number above 6 somewhere: tokenized, not refused
		"SELECT x FROM t":                            false,
	} {
		if got := mayIntercept(q); got != want {
			t.Errorf("mayIntercept(%q) = %v, want %v", q, got, want)
		}
	}
}

// containsFold finds sub in any case at any position (first, last,
// overlapping candidates, either case of the first letter first) and
// agrees with a plain scan on random ASCII text.
func TestContainsFold(t *testing.T) {
	plain := func(s, sub string) bool {
		return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
	}
	for _, c := range []struct {
		s, sub string
	}{
		{"last_insert_id(", "last_insert_id("}, {"xLAST_INSERT_ID(", "last_insert_id("}, {"lLast_insert_id(", "last_insert_id("},
		{"Llast_insert_id", "last_insert_id("}, {"", "a"}, {"a", ""}, {"show WARNINGS", "warnings"}, {"errorS", "errors"},
		{"LLLLLLLLl", "ll"}, {"1_e", "_E"},
	} {
		if got, want := containsFold(c.s, c.sub), plain(c.s, c.sub); got != want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", c.s, c.sub, got, want)
		}
	}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.Intn(30))
		for j := range b {
			b[j] = "aAbB_("[rng.Intn(6)]
		}
		sub := make([]byte, 1+rng.Intn(3))
		for j := range sub {
			sub[j] = "abAB_("[rng.Intn(6)]
		}
		if got, want := containsFold(string(b), string(sub)), plain(string(b), string(sub)); got != want {
			t.Fatalf("containsFold(%q, %q) = %v, want %v", b, sub, got, want)
		}
	}
}
