package server

import (
	"context"
	"testing"
)

// SRV-DIAG and backend SES-11: the previous statement's conditions are
// counted by @@warning_count / @@error_count and SHOW COUNT(*), listed by
// SHOW ERRORS (errors only), and reading them does not clear them.
func TestDiagnosticsCounts(t *testing.T) {
	ts := startServer(t, t.TempDir())
	db := ts.open("")
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wantRows(t, c, "SELECT 1/0, 2/0", "NULL|NULL")
	wantRows(t, c, "SELECT @@warning_count, @@error_count", "2|0")
	wantRows(t, c, "SELECT @@session.warning_count", "2")
	wantRows(t, c, "SHOW COUNT(*) WARNINGS", "2")
	wantRows(t, c, "SHOW ERRORS")
	wantRows(t, c, "SHOW WARNINGS LIMIT 1", "Warning|1365|Division by 0")

	wantErrCode(t, c, 1054, "SELECT no_such_column")
	wantRows(t, c, "SELECT @@warning_count, @@error_count", "1|1")
	wantRows(t, c, "SHOW COUNT(*) ERRORS", "1")
	wantRows(t, c, "SHOW ERRORS", "Error|1054|Unknown column 'no_such_column' in 'field list'")
	wantRows(t, c, "SHOW ERRORS LIMIT 0")
	wantRows(t, c, "SHOW ERRORS LIMIT 1 OFFSET 1")

	wantRows(t, c, "SELECT 1", "1") // a statement without conditions clears them
	wantRows(t, c, "SELECT @@warning_count, @@error_count", "0|0")
	wantErrCode(t, c, 1238, "SET warning_count = 3")
}
