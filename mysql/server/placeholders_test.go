package server

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// maxPlaceholders: a statement with more placeholders than the wire
// library can execute is refused at PREPARE with 1390 (issue 20: it
// panicked at execute and the client lost its connection); one at the
// limit prepares and executes, with NULLs and with values; the
// connection keeps serving.
func TestManyPlaceholders(t *testing.T) {
	ts := startServer(t, t.TempDir())
	c := ts.open("")
	c.SetMaxOpenConns(1)
	for _, n := range []int{65535, 65536, 70000} {
		_, err := c.Prepare("SELECT ?" + strings.Repeat(",?", n-1))
		if errCode(err) != 1390 {
			t.Fatalf("%d placeholders: want 1390, got %v", n, err)
		}
		wantRows(t, c, "SELECT 1", "1")
	}
	n := maxPlaceholders
	stmt, err := c.Prepare("SELECT ?" + strings.Repeat(",?", n-1))
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	params := make([]any, n)
	for round := 0; round < 2; round++ {
		rows, err := stmt.Query(params...)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		cols, _ := rows.Columns()
		if len(cols) != n {
			t.Fatalf("round %d: %d columns", round, len(cols))
		}
		rows.Close()
		for i := range params {
			params[i] = ""
		}
	}
	wantRows(t, c, "SELECT 1", "1")
}

// A connection cannot hold more than max_prepared_stmt_count prepared
// statements (1461); closing some makes room, and failed prepares do not
// count.
func TestPreparedStatementLimit(t *testing.T) {
	ts := startServer(t, t.TempDir())
	root := ts.open("")
	mustExec(t, root, "SET GLOBAL max_prepared_stmt_count = 5")
	defer mustExec(t, root, "SET GLOBAL max_prepared_stmt_count = 16382")
	c, err := ts.open("").Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 3; i++ { // failed prepares leave nothing behind
		if _, err := c.PrepareContext(context.Background(), "SELEC nonsense"); err == nil {
			t.Fatal("a bad statement prepared")
		}
	}
	var stmts []*sql.Stmt
	for i := 0; i < 5; i++ {
		st, err := c.PrepareContext(context.Background(), fmt.Sprintf("SELECT %d + ?", i))
		if err != nil {
			t.Fatalf("statement %d of 5: %v", i+1, err)
		}
		stmts = append(stmts, st)
	}
	if _, err := c.PrepareContext(context.Background(), "SELECT 6 + ?"); errCode(err) != 1461 {
		t.Fatalf("a 6th statement: %v, want 1461", err)
	}
	stmts[0].Close()
	if _, err := c.PrepareContext(context.Background(), "SELECT 7 + ?"); err != nil {
		t.Fatalf("after closing one: %v", err)
	}
}
