package compat

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestParseScript checks the corpus format without any server.
func TestParseScript(t *testing.T) {
	src := `-- @default-collation
-- a comment; with a semicolon;
SELECT 'a;b',
  "c;"
  ;
-- @ignore-result @sorted
SELECT 1 FROM t WHERE s = 'it''s;
still; the string';
  -- indented comment
-- @ignore-warnings
INSERT INTO t VALUES ('back\';'), (1);
SELECT   1;
SELECT 1;
`
	path := filepath.Join(t.TempDir(), "x.sql")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := parseScript(path, "x.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !sc.defaultCollation || sc.exactTypes {
		t.Errorf("file directives: defaultCollation %v exactTypes %v", sc.defaultCollation, sc.exactTypes)
	}
	type want struct {
		text  string
		line  int
		key   string
		flags directives
	}
	wants := []want{
		{"SELECT 'a;b',\n  \"c;\"", 3, `x.sql: SELECT 'a;b', "c;"`, directives{}},
		{"SELECT 1 FROM t WHERE s = 'it''s;\nstill; the string'", 7, "x.sql: SELECT 1 FROM t WHERE s = 'it''s; still; the string'",
			directives{ignoreResult: true, sorted: true}},
		{`INSERT INTO t VALUES ('back\';'), (1)`, 11, `x.sql: INSERT INTO t VALUES ('back\';'), (1)`, directives{ignoreWarnings: true}},
		{"SELECT   1", 12, "x.sql: SELECT 1", directives{}},
		{"SELECT 1", 13, "x.sql#2: SELECT 1", directives{}},
	}
	if len(sc.stmts) != len(wants) {
		t.Fatalf("%d statements, want %d: %+v", len(sc.stmts), len(wants), sc.stmts)
	}
	for i, w := range wants {
		st := sc.stmts[i]
		got := want{st.text, st.line, st.key, st.flags}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("statement %d:\n got %+v\nwant %+v", i+1, got, w)
		}
		if st.num != i+1 {
			t.Errorf("statement %d numbered %d", i+1, st.num)
		}
	}

	for _, bad := range []string{"SELECT 'open;\n", "SELECT 1\n", "-- @nosuch\nSELECT 1;\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := parseScript(path, "x.sql"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestNormalizeType(t *testing.T) {
	for _, c := range []struct {
		in    string
		exact bool
		want  string
	}{
		{"JSON", false, "TEXT"}, {"JSON", true, "TEXT"},
		{"TINYINT", false, "INT"}, {"UNSIGNED BIGINT", false, "UNSIGNED INT"}, {"TINYINT", true, "TINYINT"},
		{"VARCHAR", false, "TEXT"}, {"CHAR", true, "CHAR"}, {"VARBINARY", false, "BLOB"},
		{"DECIMAL", false, "DECIMAL"}, {"DATETIME", false, "DATETIME"}, {"ENUM", false, "ENUM"},
	} {
		if got := normalizeType(c.in, c.exact); got != c.want {
			t.Errorf("normalizeType(%q, %v) = %q, want %q", c.in, c.exact, got, c.want)
		}
	}
}
