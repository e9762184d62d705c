package routines

import (
	"context"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

func TestParse(t *testing.T) {
	d, err := Parse("CREATE DEFINER=`u`@`%` FUNCTION IF NOT EXISTS db1.`my f`(a INT, b VARCHAR(10) CHARSET latin1, c ENUM('x,y', 'z')) " +
		"RETURNS DECIMAL(10,2) UNSIGNED COMMENT 'it''s' NOT DETERMINISTIC READS SQL DATA SQL SECURITY INVOKER RETURN a + 1;")
	if err != nil {
		t.Fatal(err)
	}
	if d.Definer != "`u`@`%`" || !d.IfNotExists || d.DB != "db1" || d.Name != "my f" || d.Returns != "DECIMAL(10,2) UNSIGNED" ||
		d.Comment != "it's" || d.Deterministic || d.DataAccess != "READS SQL DATA" || d.Security != "INVOKER" || d.Body != "RETURN a + 1" {
		t.Fatalf("%+v", d)
	}
	if len(d.Params) != 3 || d.Params[1] != (Param{"b", "VARCHAR(10) CHARSET latin1"}) || d.Params[2].Type != "ENUM('x,y', 'z')" {
		t.Fatalf("params %+v", d.Params)
	}
	for _, bad := range []string{
		"CREATE FUNCTION f() RETURN 1",                     // no RETURNS
		"CREATE FUNCTION f(IN a INT) RETURNS INT RETURN a", // IN is for procedures
		"CREATE FUNCTION f( RETURNS INT RETURN 1",
		"CREATE OR REPLACE FUNCTION IF NOT EXISTS f() RETURNS INT RETURN 1",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("accepted: %s", bad)
		}
	}
	if _, err := Parse("CREATE AGGREGATE FUNCTION f(x INT) RETURNS INT BEGIN RETURN 1; END"); err != ErrAggregate {
		t.Errorf("aggregate: %v", err)
	}
}

// FN-1: the procedure a function runs as parses, and each RETURN became a
// SELECT of strata_return and a LEAVE of the body's label.
func TestProcedure(t *testing.T) {
	for _, c := range []struct{ create, want string }{
		{"CREATE FUNCTION f(a INT) RETURNS INT DETERMINISTIC RETURN a * 2",
			"strata_function: BEGIN SELECT (a * 2) AS strata_return; LEAVE `strata_function`; END"},
		{"CREATE FUNCTION f(a INT) RETURNS INT BEGIN IF a > 0 THEN RETURN (a); END IF; RETURN 'x;y'; END",
			"strata_function: BEGIN IF a > 0 THEN SELECT ((a)) AS strata_return; LEAVE `strata_function`; END IF; SELECT ('x;y') AS strata_return; LEAVE `strata_function`; END"},
		{"CREATE FUNCTION f() RETURNS INT lbl: BEGIN RETURN 1; END lbl",
			"lbl: BEGIN SELECT (1) AS strata_return; LEAVE `lbl`; END lbl"},
		{"CREATE FUNCTION f() RETURNS TEXT RETURN (SELECT `return` FROM t WHERE s = 'RETURN 1;')",
			"strata_function: BEGIN SELECT ((SELECT `return` FROM t WHERE s = 'RETURN 1;')) AS strata_return; LEAVE `strata_function`; END"},
	} {
		d, err := Parse(c.create)
		if err != nil {
			t.Fatalf("%s: %v", c.create, err)
		}
		p := d.Procedure("strata_function_f")
		if !strings.HasSuffix(p, c.want) {
			t.Errorf("%s:\n got %s\nwant ...%s", c.create, p, c.want)
		}
		if _, err := sqlparser.Parse(p); err != nil {
			t.Errorf("%s: procedure does not parse: %v\n%s", c.create, err, p)
		}
	}
}

// A multi-statement text is cut after the function's body, not at the
// first ';' inside it.
func TestSplit(t *testing.T) {
	q := "CREATE FUNCTION f(a INT) RETURNS INT BEGIN DECLARE b INT; SET b = a; RETURN b; END; SELECT f(1); SELECT 2"
	first, rest := Split(context.Background(), q)
	if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(first), ";")) != "CREATE FUNCTION f(a INT) RETURNS INT BEGIN DECLARE b INT; SET b = a; RETURN b; END" ||
		strings.TrimSpace(rest) != "SELECT f(1); SELECT 2" {
		t.Fatalf("first %q, rest %q", first, rest)
	}
	if first, rest := Split(context.Background(), "CREATE FUNCTION f() RETURNS INT RETURN 1"); first != "CREATE FUNCTION f() RETURNS INT RETURN 1" || rest != "" {
		t.Fatalf("single: %q %q", first, rest)
	}
}

func TestIsCreateFunction(t *testing.T) {
	for q, want := range map[string]bool{
		"CREATE FUNCTION f() RETURNS INT RETURN 1":                          true,
		"create definer = root@localhost function f() returns int return 1": true,
		"CREATE OR REPLACE FUNCTION f() RETURNS INT RETURN 1":               true,
		"CREATE PROCEDURE p() SELECT 'function'":                            false,
		"CREATE TABLE function_t (a INT)":                                   false,
		"SELECT 'CREATE FUNCTION'":                                          false,
	} {
		if got := IsCreateFunction(q); got != want {
			t.Errorf("%s: %v", q, got)
		}
	}
}

// FN-2's direct path: a single RETURN's parameters are cut out for the
// arguments' literals; column references, qualified names and function
// names that look like a parameter stay; a longer body has none.
func TestReturnExpression(t *testing.T) {
	r := ReturnExpression("RETURN a + t.a + a(1) + (SELECT COUNT(*) FROM x WHERE x.b = `b` AND c = 'a');", []string{"a", "b"})
	if r == nil {
		t.Fatal("no expression")
	}
	if got := r.with([]string{"5", "'q'"}); got != "5 + t.a + a(1) + (SELECT COUNT(*) FROM x WHERE x.b = 'q' AND c = 'a')" {
		t.Fatalf("%q", got)
	}
	for _, body := range []string{"BEGIN RETURN 1; END", "RETURN 1; SELECT 2", "SET @x = 1"} {
		if ReturnExpression(body, nil) != nil {
			t.Errorf("%s: a direct expression", body)
		}
	}
}
