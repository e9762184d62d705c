package server

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"testing"
)

// rowOf runs a prepared statement and returns the column metadata and raw
// values of its rows.
func rowOf(t *testing.T, st *sql.Stmt, arg any) string {
	t.Helper()
	rows, err := st.Query(arg)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, ct := range cts {
		n, nok := ct.Nullable()
		l, lok := ct.Length()
		p, s, dok := ct.DecimalSize()
		out += fmt.Sprintf("[%s %s null=%v/%v len=%d/%v dec=%d,%d/%v %v]", ct.Name(), ct.DatabaseTypeName(), n, nok, l, lok, p, s, dok, ct.ScanType())
	}
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if v == nil {
				out += " NULL"
			} else {
				out += fmt.Sprintf(" %q", string(v))
			}
		}
	}
	return out
}

// TestFastPathMatchesGeneralPath (FP-3): prepared point selects answered
// by the fast path return the same metadata and values as the same
// statement through go-mysql-server (made ineligible by a no-op filter),
// over many column types, present and missing keys, and NULLs; and the
// fast path reads in the client's transaction (FP-2).
func TestFastPathMatchesGeneralPath(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE f")
	c := ts.open("f")
	mustExec(t, c, `CREATE TABLE t (id INT PRIMARY KEY, k BIGINT UNSIGNED, c CHAR(20) NOT NULL DEFAULT '',
		v VARCHAR(40) COLLATE utf8mb4_general_ci, d DECIMAL(9,3), f DOUBLE, dt DATETIME(3), dd DATE,
		b VARBINARY(8), j JSON, e ENUM('x','y'), tx TEXT)`)
	mustExec(t, c, `CREATE TABLE s (name VARCHAR(20) PRIMARY KEY, n INT)`)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200; i++ {
		if rng.Intn(5) == 0 {
			mustExec(t, c, "INSERT INTO t (id) VALUES (?)", i) // mostly NULLs
			continue
		}
		mustExec(t, c, "INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", i, rng.Uint32(), fmt.Sprint("c", i),
			fmt.Sprint("Vv", rng.Intn(100)), fmt.Sprintf("%d.%03d", rng.Intn(1000), rng.Intn(1000)), rng.Float64()*1e6,
			"2024-01-02 03:04:05.678", "2023-12-31", []byte{0, byte(i)}, fmt.Sprintf(`{"i": %d}`, i),
			[]string{"x", "y"}[i%2], fmt.Sprint("text ", i))
	}
	mustExec(t, c, "INSERT INTO s VALUES ('abc', 1), ('Abd', 2)")
	before := ts.srv.Backend.FastSelects()
	pairs := []struct{ fast, general string }{
		{"SELECT c FROM t WHERE id=?", "SELECT c FROM t WHERE id=? AND 1=1"},
		{"SELECT id, k, c, v, d, f, dt, dd, b, j, e, tx FROM t WHERE id = ?", "SELECT id, k, c, v, d, f, dt, dd, b, j, e, tx FROM t WHERE id = ? AND 1=1"},
		{"select `v`, `d` from `t` where `id` = ?", "select `v`, `d` from `t` where `id` = ? and 1=1"},
		{"SELECT C, V FROM T WHERE ID = ?", "SELECT C, V FROM T WHERE ID = ? AND 1=1"},
	}
	for _, p := range pairs {
		fs, err := c.Prepare(p.fast)
		if err != nil {
			t.Fatal(err)
		}
		gs, err := c.Prepare(p.general)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int64{1 << 40, -1 << 40} { // out of INT's range: same answer
			if f, g := rowOf(t, fs, i), rowOf(t, gs, i); f != g {
				t.Fatalf("%s with %d:\nfast:    %s\ngeneral: %s", p.fast, i, f, g)
			}
		}
		for i := -2; i < 210; i += 1 + rng.Intn(3) {
			if f, g := rowOf(t, fs, i), rowOf(t, gs, i); f != g {
				t.Fatalf("%s with %d:\nfast:    %s\ngeneral: %s", p.fast, i, f, g)
			}
		}
		fs.Close()
		gs.Close()
	}
	// A string key: the fast path keeps the key's collation (utf8mb4_0900_bin here).
	fs, _ := c.Prepare("SELECT n FROM s WHERE name = ?")
	gs, _ := c.Prepare("SELECT n FROM s WHERE name = ? AND 1=1")
	for _, k := range []string{"abc", "ABC", "Abd", "zzz"} {
		if f, g := rowOf(t, fs, k), rowOf(t, gs, k); f != g {
			t.Fatalf("string key %q: fast %s, general %s", k, f, g)
		}
	}
	if ts.srv.Backend.FastSelects() == before {
		t.Fatal("the fast path answered nothing")
	}

	// FP-2: inside a transaction the fast path sees the client's own
	// uncommitted write; another client does not until commit.
	ctx := context.Background()
	a, _ := c.Conn(ctx)
	b, _ := c.Conn(ctx)
	defer a.Close()
	defer b.Close()
	mustExec(t, a, "BEGIN")
	mustExec(t, a, "UPDATE t SET c = 'mine' WHERE id = 7")
	read := func(conn *sql.Conn) string {
		st, err := conn.PrepareContext(ctx, "SELECT c FROM t WHERE id = ?")
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var v string
		if err := st.QueryRow(7).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := read(a); got != "mine" {
		t.Fatalf("own write not visible: %q", got)
	}
	if got := read(b); got == "mine" {
		t.Fatal("uncommitted write visible to another client")
	}
	mustExec(t, a, "COMMIT")
	if got := read(b); got != "mine" {
		t.Fatalf("committed write not visible: %q", got)
	}
}
