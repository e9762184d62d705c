package server

import (
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
