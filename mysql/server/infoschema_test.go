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

// TestSequenceTables: MariaDB's sequence tables (seqengine SEQ-1..3), with
// the rows MariaDB 10.11 gives for the same names.
func TestSequenceTables(t *testing.T) {
	ts := startServer(t, t.TempDir())
	defer ts.stop()
	db := ts.open("")
	defer db.Close()
	mustExec(t, db, "CREATE DATABASE sq")
	mustExec(t, db, "USE sq")
	db.SetMaxOpenConns(1)
	for q, want := range map[string]string{
		"SELECT GROUP_CONCAT(seq) FROM seq_10_to_1_step_3":                                              "10,7,4,1",
		"SELECT GROUP_CONCAT(seq) FROM seq_1_to_10_step_3":                                              "1,4,7,10",
		"SELECT GROUP_CONCAT(seq) FROM seq_5_to_5":                                                      "5",
		"SELECT CAST(COUNT(*) AS CHAR) FROM seq_1_to_0":                                                 "2",
		"SELECT CAST(SUM(seq) AS CHAR) FROM seq_1_to_100000":                                            "5000050000",
		"SELECT GROUP_CONCAT(a.seq * 10 + b.seq ORDER BY a.seq, b.seq) FROM seq_1_to_2 a, seq_1_to_2 b": "11,12,21,22",
		"SELECT support FROM information_schema.ENGINES WHERE engine = 'SEQUENCE'":                      "YES",
		"SELECT GROUP_CONCAT(seq) FROM seq_18446744073709551614_to_18446744073709551615":                "18446744073709551614,18446744073709551615",
	} {
		var got string
		if err := db.QueryRow(q).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", q, got, err, want)
		}
	}
	// Not listed, not writable, case-sensitive, and a real table wins.
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME LIKE 'seq%'").Scan(&n); err != nil || n != 0 {
		t.Errorf("sequence tables listed: %d, %v", n, err)
	}
	if _, err := db.Exec("INSERT INTO seq_1_to_3 VALUES (9)"); errCode(err) != 1031 {
		t.Errorf("INSERT into a sequence table: %v, want 1031", err)
	}
	if _, err := db.Exec("SELECT * FROM SEQ_1_TO_2"); errCode(err) != 1146 {
		t.Errorf("SEQ_1_TO_2: %v, want 1146", err)
	}
	mustExec(t, db, "CREATE TABLE seq_1_to_3 (seq INT)")
	mustExec(t, db, "INSERT INTO seq_1_to_3 VALUES (42)")
	var got string
	if err := db.QueryRow("SELECT GROUP_CONCAT(seq) FROM seq_1_to_3").Scan(&got); err != nil || got != "42" {
		t.Errorf("a real table named seq_1_to_3 reads %q, %v", got, err)
	}
}
