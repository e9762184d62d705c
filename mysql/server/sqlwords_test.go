package server

import "testing"

// SRV-WORDS: compound INTERVAL units quoted (not in EXTRACT, strings or
// comments), KEY hints spelled INDEX, result names as the client wrote them.
func TestSQLWords(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT d + INTERVAL '1:30' MINUTE_SECOND", "SELECT d + INTERVAL '1:30' `MINUTE_SECOND`"},
		{"select date_add(d, interval '1 2' day_hour) from t", "select date_add(d, interval '1 2' `day_hour`) from t"},
		{"SELECT EXTRACT(DAY_HOUR FROM d), d + INTERVAL 1 DAY", "SELECT EXTRACT(DAY_HOUR FROM d), d + INTERVAL 1 DAY"},
		{"SELECT d + INTERVAL 5 MINUTE_SECOND, d - interval '7' year_month", "SELECT d + INTERVAL 5 SECOND, d - interval '7' MONTH"},
		{"SELECT d + INTERVAL x5 DAY_HOUR", "SELECT d + INTERVAL x5 `DAY_HOUR`"},
		{"SELECT 'INTERVAL 1 DAY_HOUR' /* DAY_HOUR */", "SELECT 'INTERVAL 1 DAY_HOUR' /* DAY_HOUR */"},
		{"SELECT * FROM t IGNORE KEY (k) WHERE a = 'use key'", "SELECT * FROM t IGNORE INDEX (k) WHERE a = 'use key'"},
		{"select * from t use  key (k), u force key for join (j)", "select * from t use  INDEX (k), u force INDEX for join (j)"},
		{"SELECT * FROM t IGNORE KEY (PRIMARY, k) WHERE b = 'primary'", "SELECT * FROM t IGNORE INDEX (`PRIMARY`, k) WHERE b = 'primary'"},
		{"SELECT * FROM t FORCE INDEX FOR ORDER BY (primary) ORDER BY a", "SELECT * FROM t FORCE INDEX FOR ORDER BY (`primary`) ORDER BY a"},
		{"EXPLAIN FORMAT=TRADITIONAL SELECT 1", "EXPLAIN SELECT 1"},
		{"explain format = 'traditional' select 1", "explain select 1"},
		{"EXPLAIN FORMAT=TREE SELECT 1", "EXPLAIN FORMAT=TREE SELECT 1"},
		{"INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 1", "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 1"},
		{"ALTER TABLE t ADD PRIMARY KEY (a), ADD UNIQUE KEY (b)", "ALTER TABLE t ADD PRIMARY KEY (a), ADD UNIQUE KEY (b)"},
	} {
		if got := sqlWords(c.in); got != c.want {
			t.Errorf("sqlWords(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	if explainJSON("EXPLAIN FORMAT=JSON SELECT 1") == nil || explainJSON("EXPLAIN SELECT 'FORMAT=JSON'") != nil {
		t.Error("explainJSON")
	}
	if got := unrewriteName("DATE_ADD(d, INTERVAL '1:30' `MINUTE_SECOND`)"); got != "DATE_ADD(d, INTERVAL '1:30' MINUTE_SECOND)" {
		t.Errorf("unrewriteName: %q", got)
	}
}

// SRV-LOCKOPT: the clauses become markers; the same words in a string or
// a comment stay as written.
func TestLockOptions(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT id FROM t WHERE a = 1 FOR UPDATE NOWAIT", "SELECT id FROM t WHERE a = 1 FOR UPDATE /*strata:nowait*/"},
		{"select id from t for share skip  locked", "select id from t for share /*strata:skip_locked*/"},
		{"SELECT id FROM t LOCK IN SHARE MODE SKIP LOCKED", "SELECT id FROM t LOCK IN SHARE MODE /*strata:skip_locked*/"},
		{"INSERT INTO t VALUES ('wait FOR UPDATE NOWAIT here')", "INSERT INTO t VALUES ('wait FOR UPDATE NOWAIT here')"},
		{"SELECT 1 /* for update skip locked */", "SELECT 1 /* for update skip locked */"},
		{"SELECT nowait FROM t FOR UPDATE", "SELECT nowait FROM t FOR UPDATE"},
	} {
		if got := lockOptions(c.in); got != c.want {
			t.Errorf("lockOptions(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
