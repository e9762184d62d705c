package server

import (
	"context"
	"fmt"
	"testing"

	"database/sql"
)

// SRV-CTAS: CREATE TABLE ... SELECT with column definitions or a UNION,
// through a real driver: the columns and rows, a failed INSERT leaves no
// table, the rows are committed with autocommit off, IF NOT EXISTS on an
// existing table inserts nothing, and the sub-statements check the
// user's privileges as the statement would.
func TestCreateTableSelect(t *testing.T) {
	ts := startServer(t, t.TempDir())
	defer ts.stop()
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	mustExec(t, c, "CREATE TABLE s (a INT, b VARCHAR(10))")
	mustExec(t, c, "INSERT INTO s VALUES (1, 'x'), (2, 'y')")

	mustExec(t, c, "CREATE TABLE c1 (id INT AUTO_INCREMENT PRIMARY KEY, a INT, KEY kb (b)) SELECT a, b FROM s ORDER BY a")
	wantRows(t, c, "SELECT id, a, b FROM c1 ORDER BY id", "1|1|x", "2|2|y")
	wantRows(t, c, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'c1' ORDER BY ORDINAL_POSITION", "id", "a", "b")
	wantRows(t, c, "SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'c1' AND INDEX_NAME = 'kb'", "kb")

	mustExec(t, c, "CREATE TABLE c2 SELECT 1 AS n UNION SELECT 2 UNION SELECT 2")
	wantRows(t, c, "SELECT n FROM c2 ORDER BY n", "1", "2")

	// A duplicate key: nothing left behind.
	wantErrCode(t, c, 1062, "CREATE TABLE c3 (a INT PRIMARY KEY) SELECT 1 AS a UNION ALL SELECT 1")
	wantRows(t, c, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'c3'", "0")
	mustExec(t, c, "CREATE TABLE c3 (a INT PRIMARY KEY) IGNORE SELECT 1 AS a UNION ALL SELECT 1")
	wantRows(t, c, "SELECT a FROM c3", "1")

	// IF NOT EXISTS on an existing table: a Note, nothing inserted.
	conn, err := c.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "CREATE TABLE IF NOT EXISTS c3 (a INT) SELECT 5 AS a")
	wantRows(t, conn, "SHOW WARNINGS", "Note|1050|Table 'c3' already exists")
	wantRows(t, conn, "SELECT a FROM c3", "1")

	// Autocommit off: the statement commits its rows, as DDL does.
	mustExec(t, conn, "SET autocommit = 0")
	mustExec(t, conn, "CREATE TABLE c4 (z INT) SELECT a FROM s")
	mustExec(t, conn, "ROLLBACK")
	mustExec(t, conn, "SET autocommit = 1")
	wantRows(t, c, "SELECT COUNT(*), SUM(a) FROM c4", "2|3")

	// A syntax error in the query is the parser's.
	wantErrCode(t, c, 1064, "CREATE TABLE c5 (a INT) SELECT 1 AS a FRM s")

	// Privileges: SELECT on the source and CREATE without INSERT is
	// not enough (the INSERT is refused, and the table does not stay).
	mustExec(t, c, "CREATE USER u@'%' IDENTIFIED BY 'p'")
	mustExec(t, c, "GRANT SELECT, CREATE, DROP, CREATE TEMPORARY TABLES ON d.* TO u@'%'")
	u, err := sql.Open("mysql", fmt.Sprintf("u:p@tcp(%s)/d", ts.srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if _, err := u.Exec("CREATE TABLE c6 (x INT) SELECT a FROM s"); errCode(err) != 1142 {
		t.Fatalf("CREATE TABLE ... SELECT without INSERT: want 1142, got %v", err)
	}
	wantRows(t, c, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'c6'", "0")
}
