package server

import (
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Stored functions (package routines FN-1..FN-4) through a driver: calls in
// SELECT and WHERE, reading tables, writing inside the caller's
// transaction, the MySQL errors (1304, 1305, 1318, 1321, 1424), SHOW CREATE
// FUNCTION that runs again, persistence across a restart, privileges, and
// a mariadb-dump --routines round trip.
func TestStoredFunctions(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	c.SetMaxOpenConns(1)
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)")
	mustExec(t, c, "CREATE FUNCTION twice(a INT) RETURNS INT DETERMINISTIC RETURN a * 2")
	mustExec(t, c, `CREATE FUNCTION label(x VARCHAR(20)) RETURNS VARCHAR(40)
BEGIN
  DECLARE r VARCHAR(40) DEFAULT '';
  IF x IS NULL THEN RETURN 'none'; END IF;
  CASE WHEN x BETWEEN 'a' AND 'm' THEN SET r = 'low'; ELSE SET r = 'high'; END CASE;
  RETURN CONCAT(x, ':', r);
END`)
	mustExec(t, c, "CREATE FUNCTION total() RETURNS BIGINT READS SQL DATA RETURN (SELECT SUM(v) FROM t)")
	wantRows(t, c, "SELECT twice(21), twice(NULL), twice('5'), label('b'), label('x'), label(NULL), total()",
		"42|NULL|10|b:low|x:high|none|60")
	wantRows(t, c, "SELECT id FROM t WHERE twice(v) > 30 ORDER BY id", "2", "3")

	// Sessions calling functions at once (each runs its own procedure's
	// statements; run under the race detector).
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := ts.open("d")
			for i := 0; i < 20; i++ {
				var v string
				if err := db.QueryRow("SELECT label('q')").Scan(&v); err != nil || v != "q:high" {
					errs <- fmt.Errorf("label('q') = %q, %v", v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// Writes inside a function are the caller's transaction's.
	mustExec(t, c, "CREATE TABLE log (msg VARCHAR(20))")
	mustExec(t, c, "CREATE FUNCTION note(m VARCHAR(20)) RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO log VALUES (m); RETURN 1; END")
	mustExec(t, c, "BEGIN")
	wantRows(t, c, "SELECT note('rolled back')", "1")
	mustExec(t, c, "ROLLBACK")
	wantRows(t, c, "SELECT note('kept')", "1")
	wantRows(t, c, "SELECT msg FROM log", "kept")

	wantErrCode(t, c, 1304, "CREATE FUNCTION twice(a INT) RETURNS INT RETURN a")
	mustExec(t, c, "CREATE FUNCTION IF NOT EXISTS twice(a INT) RETURNS INT RETURN a")
	wantRows(t, c, "SHOW WARNINGS", "Note|1304|FUNCTION twice already exists")
	wantRows(t, c, "SELECT twice(4)", "8")
	wantErrCode(t, c, 1318, "SELECT twice(1, 2)")
	mustExec(t, c, "CREATE FUNCTION noret(a INT) RETURNS INT BEGIN DECLARE b INT; SET b = a; END")
	wantErrCode(t, c, 1321, "SELECT noret(1)")
	mustExec(t, c, "CREATE FUNCTION loop1(a INT) RETURNS INT RETURN loop1(a)")
	wantErrCode(t, c, 1424, "SELECT loop1(1)")
	wantErrCode(t, c, 1305, "DROP FUNCTION nosuch")
	mustExec(t, c, "DROP FUNCTION IF EXISTS nosuch")
	wantRows(t, c, "SHOW WARNINGS", "Note|1305|FUNCTION d.nosuch does not exist")
	// A built-in name stays the built-in (FN-3).
	mustExec(t, c, "CREATE FUNCTION abs(a INT) RETURNS INT RETURN 99")
	wantRows(t, c, "SELECT abs(-3)", "3")
	var got []string
	for _, r := range queryStrings(t, c, "SHOW FUNCTION STATUS WHERE Db = 'd' AND Name LIKE 't%'") {
		f := strings.Split(r, "|")
		got = append(got, strings.Join(f[:4], "|")+"|"+f[6])
	}
	if strings.Join(got, " ") != "d|total|FUNCTION|root@localhost|DEFINER d|twice|FUNCTION|root@localhost|DEFINER" {
		t.Fatalf("SHOW FUNCTION STATUS: %q", got)
	}

	// information_schema.ROUTINES lists functions beside procedures (IS-4).
	mustExec(t, c, "CREATE PROCEDURE pr() SELECT 1")
	wantRows(t, c, "SELECT ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, DTD_IDENTIFIER, IS_DETERMINISTIC, SQL_DATA_ACCESS FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'd' AND ROUTINE_NAME IN ('pr', 'twice', 'total') ORDER BY ROUTINE_NAME",
		"pr|PROCEDURE||NULL|NO|CONTAINS SQL", "total|FUNCTION|bigint|bigint|NO|READS SQL DATA",
		"twice|FUNCTION|int|int|YES|CONTAINS SQL")
	wantRows(t, c, "SELECT DEFINER FROM information_schema.ROUTINES WHERE ROUTINE_NAME = 'twice'", "root@localhost")

	// SHOW CREATE FUNCTION gives a statement that runs again.
	create := strings.SplitN(queryStrings(t, c, "SHOW CREATE FUNCTION label")[0], "|", 4)[2]
	if !strings.HasPrefix(create, "CREATE DEFINER=`root`@`localhost` FUNCTION `label`(x VARCHAR(20)) RETURNS VARCHAR(40)") {
		t.Fatalf("SHOW CREATE FUNCTION: %s", create)
	}
	mustExec(t, c, "DROP FUNCTION label")
	wantErrCode(t, c, 1305, "SELECT label('b')")
	mustExec(t, c, create)
	wantRows(t, c, "SELECT label('b')", "b:low")

	// Functions survive a restart; a database's go with it.
	ts.stop()
	ts = startServer(t, dir)
	c = ts.open("d")
	wantRows(t, c, "SELECT twice(5), label('z')", "10|z:high")

	// FN-4: CREATE ROUTINE to create, EXECUTE to call.
	root := ts.open("")
	mustExec(t, root, "CREATE USER app@'%' IDENTIFIED BY 'pw'")
	mustExec(t, root, "GRANT SELECT ON d.* TO app@'%'")
	app, err := sql.Open("mysql", fmt.Sprintf("app:pw@tcp(%s)/d", ts.srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	wantErrCode(t, app, 1044, "CREATE FUNCTION f2() RETURNS INT RETURN 2")
	if f := strings.Split(queryStrings(t, app, "SHOW FULL COLUMNS FROM t")[0], "|"); f[7] != "select" {
		t.Fatalf("SHOW FULL COLUMNS Privileges of a user with SELECT: %q", f[7])
	}
	if _, err := app.Exec("SELECT twice(1)"); err == nil {
		t.Fatal("a call without EXECUTE succeeded")
	}
	mustExec(t, root, "GRANT EXECUTE ON d.* TO app@'%'")
	wantRows(t, app, "SELECT twice(1)", "2")

	// mariadb-dump --routines, restored: the functions come back.
	if dump := ts.dumpAndRestore("d", "--routines"); !strings.Contains(dump, "CREATE DEFINER=`root`@`localhost` FUNCTION `twice`") {
		t.Fatalf("dump without the function:\n%s", dump)
	}
	wantRows(t, ts.open("d"), "SELECT twice(7), label('a'), total()", "14|a:low|60")
}
