package server

import (
	"database/sql"
	"fmt"
	"testing"
)

// outcome runs a prepared statement and describes its result or its
// MySQL error code.
func outcome(c *sql.DB, q string, args ...any) string {
	st, err := c.Prepare(q)
	if err != nil {
		return errCodeString(err)
	}
	defer st.Close()
	rows, err := st.Query(args...)
	if err != nil {
		return errCodeString(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		return errCodeString(err)
	}
	return fmt.Sprintf("ok %d rows", n)
}

func errCodeString(err error) string {
	if n := errCode(err); n != 0 {
		return fmt.Sprintf("error %d", n)
	}
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// TestFastPathPrivilegesMatchGeneralPath (auth AUTH-5): for users holding
// global, database, table and role grants, and none, every fast-path
// statement shape has the outcome of the same statement through
// go-mysql-server (made ineligible by a no-op condition): allowed ones
// run, and only they take the fast path; refused ones get the same error.
// A REVOKE between two executions of one prepared statement applies to the
// second.
func TestFastPathPrivilegesMatchGeneralPath(t *testing.T) {
	ts := startServer(t, t.TempDir())
	root := ts.open("")
	mustExec(t, root, "CREATE DATABASE f")
	mustExec(t, root, "CREATE TABLE f.t (id INT PRIMARY KEY, v INT)")
	mustExec(t, root, "CREATE TABLE f.s (id INT PRIMARY KEY, v INT)")
	mustExec(t, root, "INSERT INTO f.t VALUES (1, 1), (2, 2)")
	mustExec(t, root, "INSERT INTO f.s VALUES (1, 1)")
	for _, q := range []string{
		"CREATE USER g@'%' IDENTIFIED BY 'p'", "GRANT SELECT, UPDATE ON *.* TO g@'%'",
		"CREATE USER d@'%' IDENTIFIED BY 'p'", "GRANT SELECT, INSERT, UPDATE, DELETE ON f.* TO d@'%'",
		"CREATE USER tb@'%' IDENTIFIED BY 'p'", "GRANT SELECT ON f.t TO tb@'%'",
		"CREATE USER r@'%' IDENTIFIED BY 'p'", "CREATE ROLE reader", "GRANT SELECT, INSERT ON f.t TO reader",
		"GRANT reader TO r@'%'", // active at once: go-mysql-server activates every granted role
		"CREATE USER nobody@'%' IDENTIFIED BY 'p'",
	} {
		mustExec(t, root, q)
	}
	type stmt struct{ fast, general string }
	stmts := []stmt{
		{"SELECT v FROM t WHERE id = ?", "SELECT v FROM t WHERE id = ? AND 1=1"},
		{"SELECT v FROM s WHERE id = ?", "SELECT v FROM s WHERE id = ? AND 1=1"},
		{"SELECT id, v FROM t WHERE id BETWEEN ? AND ?", "SELECT id, v FROM t WHERE id BETWEEN ? AND ? AND 1=1"},
		{"UPDATE t SET v = ? WHERE id = ?", "UPDATE t SET v = ? WHERE id = ? AND 1=1"},
		{"DELETE FROM t WHERE id = ?", "DELETE FROM t WHERE id = ? AND 1=1"},
		{"INSERT INTO t (id, v) VALUES (?, ?)", "INSERT INTO t (id, v) SELECT ?, ? FROM DUAL WHERE 1=1"},
	}
	args := func(i int, q string) []any {
		switch i {
		case 0, 1, 4:
			return []any{100 + i}
		case 2:
			return []any{1, 2}
		case 3:
			return []any{7, 100 + i}
		}
		return []any{0, 0} // INSERT: a key set per run below
	}
	key := 1000
	for _, user := range []string{"root", "g", "d", "tb", "r", "nobody"} {
		pw := "p"
		if user == "root" {
			pw = ""
		}
		c, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/f", user, pw, ts.srv.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetMaxOpenConns(1)
		if user == "nobody" {
			// No privilege in f at all: the connection's database is refused.
			if err := c.Ping(); errCode(err) != 1044 {
				t.Fatalf("nobody: connecting to f: %v", err)
			}
			continue
		}
		for i, s := range stmts {
			a, b := args(i, s.fast), args(i, s.general)
			if i == 5 {
				key++
				a = []any{key, 1}
				key++
				b = []any{key, 1}
			}
			before := ts.srv.Backend.FastSelects() + ts.srv.Backend.FastWrites()
			fast := outcome(c, s.fast, a...)
			took := ts.srv.Backend.FastSelects() + ts.srv.Backend.FastWrites() - before
			general := outcome(c, s.general, b...)
			if fast != general {
				t.Errorf("%s: %q: fast path %s, general path %s", user, s.fast, fast, general)
			}
			if allowed := fast[:2] == "ok"; allowed != (took > 0) {
				t.Errorf("%s: %q: %s, but the fast path took %d statements", user, s.fast, fast, took)
			}
		}
	}

	// A REVOKE between two executions of one prepared statement: the
	// prepare passed go-mysql-server's check, so only the fast path's own
	// (AUTH-5) can refuse the second execution.
	c, err := sql.Open("mysql", fmt.Sprintf("d:p@tcp(%s)/f", ts.srv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetMaxOpenConns(1)
	st, err := c.Prepare("UPDATE t SET v = ? WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Exec(5, 1); err != nil {
		t.Fatalf("update before the REVOKE: %v", err)
	}
	mustExec(t, root, "REVOKE UPDATE ON f.* FROM d@'%'")
	if _, err := st.Exec(6, 1); errCode(err) != 1142 {
		t.Fatalf("update after the REVOKE: %v, want error 1142", err)
	}
	var v int
	if err := root.QueryRow("SELECT v FROM f.t WHERE id = 1").Scan(&v); err != nil || v != 5 {
		t.Fatalf("v = %d, %v: the refused update changed the row", v, err)
	}
}
