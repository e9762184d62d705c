package server

import (
	"database/sql"
	"testing"
)

// TestInformationSchemaVariables: information_schema's variable tables
// (infoschema IS-1/IS-2) say what SELECT @@var says, in both scopes, and
// follow SET.
func TestInformationSchemaVariables(t *testing.T) {
	ts := startServer(t, t.TempDir())
	defer ts.stop()
	db := ts.open("")
	defer db.Close()
	db.SetMaxOpenConns(1)
	mustExec(t, db, "SET SESSION sql_mode = 'ANSI_QUOTES'")
	mustExec(t, db, "SET SESSION autocommit = 0")

	var sess, glob sql.NullString
	var scope, typ string
	if err := db.QueryRow("SELECT SESSION_VALUE, GLOBAL_VALUE, VARIABLE_SCOPE, VARIABLE_TYPE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'sql_mode'").Scan(&sess, &glob, &scope, &typ); err != nil {
		t.Fatal(err)
	}
	var atSess, atGlob string
	if err := db.QueryRow("SELECT @@SESSION.sql_mode, @@GLOBAL.sql_mode").Scan(&atSess, &atGlob); err != nil {
		t.Fatal(err)
	}
	if sess.String != atSess || glob.String != atGlob || scope != "SESSION" || typ != "SET" {
		t.Errorf("sql_mode row: session %q global %q scope %s type %s; @@ says %q, %q", sess.String, glob.String, scope, typ, atSess, atGlob)
	}
	if sess.String == glob.String {
		t.Errorf("SET SESSION did not show in SESSION_VALUE (%q)", sess.String)
	}

	if err := db.QueryRow("SELECT SESSION_VALUE, GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'autocommit'").Scan(&sess, &glob); err != nil {
		t.Fatal(err)
	}
	if sess.String != "OFF" || glob.String != "ON" {
		t.Errorf("autocommit: session %q global %q, want OFF, ON", sess.String, glob.String)
	}
	// A global-only variable has no session value.
	if err := db.QueryRow("SELECT SESSION_VALUE, VARIABLE_SCOPE, READ_ONLY FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'version'").Scan(&sess, &scope, &typ); err != nil {
		t.Fatal(err)
	}
	if sess.Valid || scope != "GLOBAL" || typ != "YES" {
		t.Errorf("version: session %v scope %s read_only %s", sess, scope, typ)
	}

	var v string
	if err := db.QueryRow("SELECT VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME = 'SQL_MODE'").Scan(&v); err != nil || v != atSess {
		t.Errorf("SESSION_VARIABLES sql_mode = %q, %v; want %q", v, err, atSess)
	}
	if err := db.QueryRow("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES WHERE VARIABLE_NAME = 'SQL_MODE'").Scan(&v); err != nil || v != atGlob {
		t.Errorf("GLOBAL_VARIABLES sql_mode = %q, %v; want %q", v, err, atGlob)
	}
	// Other information_schema tables are untouched (IS-3).
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME = 'SCHEMATA'").Scan(&n); err != nil || n != 1 {
		t.Errorf("information_schema.TABLES lists SCHEMATA %d times, %v", n, err)
	}
}
