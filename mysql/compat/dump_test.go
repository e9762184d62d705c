package compat

import (
	"strata/internal/mariadbtest"

	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestDumpRoundTrip: a schema with every common type, ENUM/SET with quotes,
// defaults, generated columns, foreign keys, a view, a trigger and a
// procedure (testdata/dump/schema.sql) is dumped from strata with
// mariadb-dump (plain and --single-transaction), restored into MariaDB,
// dumped from MariaDB and restored into strata again: every table has the
// same rows (a checksum over the ordered rows) at each step, and the view,
// trigger and procedure survive. The MariaDB-made dump restoring into
// strata is the "dump from MariaDB" case.
func TestDumpRoundTrip(t *testing.T) {
	for _, tool := range []string{"mariadb", "mariadb-dump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is required (apt-get install mariadb-client; .ci/run installs it)", tool)
		}
	}
	work := t.TempDir()
	md, err := mariadbtest.Start(filepath.Join(work, "mariadb"))
	if err != nil {
		t.Fatalf("MariaDB reference server: %v", err)
	}
	defer md.Stop()
	os.MkdirAll(filepath.Join(work, "strata"), 0o755)
	ss, err := startStrata(filepath.Join(work, "strata"))
	if err != nil {
		t.Fatal(err)
	}
	defer ss.stop()

	// Collations MariaDB 10.11 has (it has no utf8mb4_0900_*): the
	// database's, and the server's, which SHOW CREATE TRIGGER reports and
	// the dump writes (as a MySQL 8 server would need to be set up for a
	// dump MariaDB 10.11 can load). Global variables outlive this server
	// in the test process: put them back.
	client(t, ss.addr, "", "SET GLOBAL collation_server = 'utf8mb4_general_ci', GLOBAL collation_connection = 'utf8mb4_general_ci'")
	defer client(t, ss.addr, "", "SET GLOBAL collation_server = 'utf8mb4_0900_ai_ci', GLOBAL collation_connection = 'utf8mb4_0900_ai_ci'")
	client(t, ss.addr, "", "CREATE DATABASE rt0 COLLATE utf8mb4_general_ci")
	schema, err := os.ReadFile("testdata/dump/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	clientInput(t, ss.addr, "rt0", schema)
	want := checksums(t, ss.addr, "rt0")
	if len(want) != 3 {
		t.Fatalf("source tables: %v", want)
	}

	for i, mode := range [][]string{nil, {"--single-transaction"}} {
		name := fmt.Sprintf("rt%d", i+1)
		dump1 := dump(t, ss.addr, "rt0", mode)
		client(t, md.Addr, "", "CREATE DATABASE "+name)
		clientInput(t, md.Addr, name, dump1)
		if got := checksums(t, md.Addr, name); !equalSums(got, want) {
			t.Fatalf("%v: strata -> MariaDB changed rows:\n got %v\nwant %v", mode, got, want)
		}
		dump2 := dump(t, md.Addr, name, mode)
		checkObjects(t, md.Addr, name) // changes rows: after the dump
		client(t, ss.addr, "", "CREATE DATABASE "+name)
		clientInput(t, ss.addr, name, dump2)
		if got := checksums(t, ss.addr, name); !equalSums(got, want) {
			t.Fatalf("%v: MariaDB -> strata changed rows:\n got %v\nwant %v", mode, got, want)
		}
		checkObjects(t, ss.addr, name)
	}
}

func hostPort(t *testing.T, addr string) (string, string) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

func client(t *testing.T, addr, db, stmt string) {
	t.Helper()
	clientInput(t, addr, db, []byte(stmt))
}

func clientInput(t *testing.T, addr, db string, input []byte) {
	t.Helper()
	h, p := hostPort(t, addr)
	args := []string{"--no-defaults", "-h", h, "-P", p, "-uroot", "--protocol=tcp"}
	if db != "" {
		args = append(args, db)
	}
	cmd := exec.Command("mariadb", args...)
	cmd.Stdin = bytes.NewReader(input)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mariadb %s on %s: %v\n%s", db, addr, err, tail(string(out), 3000))
	}
}

func dump(t *testing.T, addr, db string, extra []string) []byte {
	t.Helper()
	h, p := hostPort(t, addr)
	args := append([]string{"--no-defaults", "-h", h, "-P", p, "-uroot", "--protocol=tcp",
		"--routines", "--triggers"}, extra...)
	cmd := exec.Command("mariadb-dump", append(args, db)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mariadb-dump %v %s on %s: %v\n%s", extra, db, addr, err, stderr.String())
	}
	return out
}

// checksums maps each base table of db to a hash of its rows (all
// columns as text, NULL distinct, rows sorted).
func checksums(t *testing.T, addr, db string) map[string]string {
	t.Helper()
	c, err := sql.Open("mysql", "root@tcp("+addr+")/"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'", db)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	out := map[string]string{}
	for _, tbl := range tables {
		out[tbl] = tableSum(t, c, tbl)
	}
	return out
}

func tableSum(t *testing.T, c *sql.DB, table string) string {
	t.Helper()
	rows, err := c.Query("SELECT * FROM `" + table + "`")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = "'" + hex.EncodeToString(v) + "'"
			}
		}
		lines = append(lines, strings.Join(parts, ","))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	h := sha256.Sum256([]byte(strings.Join(cols, ",") + "\n" + strings.Join(lines, "\n")))
	return fmt.Sprintf("%d rows %x", len(lines), h[:8])
}

func equalSums(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkObjects: the view, trigger, procedure and function came along and
// work.
func checkObjects(t *testing.T, addr, db string) {
	t.Helper()
	c, err := sql.Open("mysql", "root@tcp("+addr+")/"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int
	if err := c.QueryRow("SELECT COUNT(*) FROM kind_names").Scan(&n); err != nil || n != 4 {
		t.Fatalf("%s view kind_names: %d rows, %v", addr, n, err)
	}
	var k1, kNull int
	if err := c.QueryRow("SELECT kinds_of(1), kinds_of(NULL)").Scan(&k1, &kNull); err != nil || k1 != 1 || kNull != -1 {
		t.Fatalf("%s function kinds_of: %d %d %v", addr, k1, kNull, err)
	}
	if _, err := c.Exec("CALL add_parent('p3')"); err != nil {
		t.Fatalf("%s procedure: %v", addr, err)
	}
	if _, err := c.Exec("INSERT INTO kinds (id, ti, vc) VALUES (100, 1, 'trig')"); err != nil {
		t.Fatalf("%s insert: %v", addr, err)
	}
	var note string
	if err := c.QueryRow("SELECT note FROM audit WHERE kind_id = 100").Scan(&note); err != nil || note != "new trig" {
		t.Fatalf("%s trigger: %q %v", addr, note, err)
	}
}
