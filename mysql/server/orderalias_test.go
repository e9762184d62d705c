package server

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// SRV-ORDERALIAS: aliases inside ORDER BY and GROUP BY expressions, through
// a single statement and the first statement of a multi-statement text
// (what the mariadb client sends); a FROM column wins over an alias; an
// aggregate's alias is 1247; a CALL's 1054 is not retried.
func TestOrderByAliasExpressions(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	mustExec(t, c, "CREATE TABLE t (a INT, b INT)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 30), (2, 20), (3, 10)")
	wantRows(t, c, "SELECT a + 1 AS n FROM t ORDER BY 30 - n", "4", "3", "2")
	wantRows(t, c, "SELECT a AS b FROM t ORDER BY b + 0", "3", "2", "1")
	wantRows(t, c, "SELECT a AS x, b FROM t ORDER BY x + b DESC, x", "1|30", "2|20", "3|10")
	wantRows(t, c, "SELECT a + b AS x FROM t GROUP BY x ORDER BY x * 2 DESC", "31", "22", "13")
	wantRows(t, c, "SELECT b + 1 AS x, COUNT(*) FROM t GROUP BY x + 1 ORDER BY 1", "11|1", "21|1", "31|1")
	wantErrCode(t, c, 1247, "SELECT SUM(b) AS s FROM t GROUP BY a ORDER BY s + 1")
	wantErrCode(t, c, 1054, "SELECT a AS x FROM t ORDER BY y + 1")
	// An INSERT ... SELECT is planned before it writes.
	mustExec(t, c, "CREATE TABLE u (v INT)")
	mustExec(t, c, "INSERT INTO u SELECT a * 2 AS w FROM t ORDER BY -w LIMIT 2")
	wantRows(t, c, "SELECT v FROM u ORDER BY v", "4", "6")

	// A procedure whose second statement fails with 1054 ran its first:
	// it is not run again.
	mustExec(t, c, "CREATE PROCEDURE p() BEGIN INSERT INTO u VALUES (100); SELECT a AS x FROM t ORDER BY x + nope; END")
	wantErrCode(t, c, 1054, "CALL p()")
	wantRows(t, c, "SELECT COUNT(*) FROM u WHERE v = 100", "1")

	multi, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/d?multiStatements=true", ts.srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	conn, err := multi.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	wantRows(t, conn, "SELECT a + 1 AS n FROM t ORDER BY -n; SELECT 1", "4", "3", "2")
	mustExec(t, conn, "INSERT INTO u SELECT a AS w FROM t ORDER BY w * -1 LIMIT 1; INSERT INTO u VALUES (7)")
	wantRows(t, c, "SELECT v FROM u WHERE v IN (3, 7) ORDER BY v", "3", "7")
}
