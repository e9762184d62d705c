package server

import "testing"

// SRV-PARENQUERY: only the statement's opening changes.
func TestParenQuery(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"(SELECT 1)", "SELECT 1"},
		{" ((SELECT 1 AS z)) ;", " SELECT 1 AS z ;"},
		{"(SELECT a FROM t) ORDER BY a LIMIT 1; SELECT 2", "SELECT * FROM (SELECT a FROM t) AS strata_paren_q ORDER BY a LIMIT 1; SELECT 2"},
		{"((SELECT a FROM t)) limit 3", "SELECT * FROM (SELECT a FROM t) AS strata_paren_q limit 3"},
		{"((SELECT 1)) UNION (SELECT 2)", "(SELECT 1) UNION (SELECT 2)"},
		{"(SELECT 1) UNION (SELECT 2) ORDER BY 1", "(SELECT 1) UNION (SELECT 2) ORDER BY 1"},
		{"(1 + 2)", "(1 + 2)"},
		{"(SELECT ')' ) ORDER BY 1", "SELECT * FROM (SELECT ')' ) AS strata_paren_q ORDER BY 1"},
		{"CREATE VIEW v AS (SELECT 1)", "CREATE VIEW v AS SELECT 1"},
		{"create or replace view `a b` (x) as ((select 1)) with local check option", "create or replace view `a b` (x) as select 1 with local check option"},
		{"CREATE VIEW v AS (SELECT 1) UNION (SELECT 2)", "CREATE VIEW v AS (SELECT 1) UNION (SELECT 2)"},
		{"CREATE TABLE t (a INT)", "CREATE TABLE t (a INT)"},
	} {
		if got := parenQuery(c.in); got != c.want {
			t.Errorf("parenQuery(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
