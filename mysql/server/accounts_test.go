package server

import (
	"database/sql"
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"strata/engine"
	"strata/volume"
)

// TestAccountsSurvivePowerCut: an acknowledged CREATE USER / GRANT /
// DROP USER is durable even when commits are not (--sync-commit=false;
// auth AUTH-1), across a power cut that tears unsynced writes.
func TestAccountsSurvivePowerCut(t *testing.T) {
	data, logv := volume.NewMem("d", volume.MemOptions{}), volume.NewMem("l", volume.MemOptions{})
	opts := engine.Options{DataVolume: data, LogVolume: logv, BufferPoolBytes: 16 << 20, LogCapacity: 32 << 20, AsyncCommit: true}
	start := func() (*engine.DB, *Server) {
		db, err := engine.Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := New(db, Config{Addr: "127.0.0.1:0"})
		if err != nil {
			t.Fatal(err)
		}
		go srv.Start()
		return db, srv
	}
	connect := func(srv *Server, user, pw string) *sql.DB {
		c, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/", user, pw, srv.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	db, srv := start()
	root := connect(srv, "root", "")
	mustExec(t, root, "CREATE USER gone@'%' IDENTIFIED BY 'g'")
	mustExec(t, root, "CREATE DATABASE d")
	mustExec(t, root, "CREATE USER kept@'%' IDENTIFIED BY 'k'")
	mustExec(t, root, "GRANT SELECT ON d.* TO kept@'%'")
	mustExec(t, root, "DROP USER gone@'%'")
	srv.Close()
	db.Abandon()
	rng := rand.New(rand.NewSource(7))
	opts.DataVolume, opts.LogVolume = data.Crash(rng, true), logv.Crash(rng, true)
	db, srv = start()
	defer func() { srv.Close(); db.Close() }()
	var n int
	if err := connect(srv, "kept", "k").QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'd'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("user created and granted before the power cut: %d, %v", n, err)
	}
	if err := connect(srv, "gone", "g").Ping(); err == nil {
		t.Fatal("a user dropped before the power cut logs in")
	}
	if err := connect(srv, "kept", "wrong").Ping(); err == nil {
		t.Fatal("wrong password accepted after recovery")
	}
}

// With grant tables on, a full logical backup still works:
// `mariadb-dump --all-databases --events --routines` exits 0 and holds the
// user databases, not go-mysql-server's grant schema (auth AUTH-11); SHOW
// EVENTS and information_schema.EVENTS are empty rather than failing
// (backend DB-EV), CREATE EVENT says 1235 and DROP EVENT of none 1539.
func TestFullDumpWithGrantTables(t *testing.T) {
	ts := startServer(t, t.TempDir())
	root := ts.open("")
	mustExec(t, root, "CREATE DATABASE shop")
	mustExec(t, root, "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20))")
	mustExec(t, root, "INSERT INTO shop.items VALUES (1, 'a')")
	mustExec(t, root, "CREATE USER app@'%' IDENTIFIED BY 'x'")
	wantRows(t, root, "SELECT COUNT(*) FROM information_schema.EVENTS", "0")
	wantErrCode(t, root, 1235, "CREATE EVENT shop.e ON SCHEDULE EVERY 1 HOUR DO SELECT 1")
	wantErrCode(t, root, 1539, "DROP EVENT shop.e")
	mustExec(t, root, "DROP EVENT IF EXISTS shop.e")
	var dbs []string
	rows, err := root.Query("SHOW DATABASES")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		dbs = append(dbs, s)
	}
	rows.Close()
	if fmt.Sprint(dbs) != "[information_schema shop]" {
		t.Fatalf("SHOW DATABASES: %v", dbs)
	}
	wantRows(t, root, "SELECT COUNT(*) FROM mysql.user WHERE user = 'app'", "1")
	out, err := exec.Command("mariadb-dump", "--no-defaults", "--protocol=tcp", "-h127.0.0.1", fmt.Sprintf("-P%d", ts.port()),
		"-uroot", "--all-databases", "--events", "--routines", "--single-transaction").CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-dump --all-databases: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "CREATE TABLE `items`") || !strings.Contains(string(out), "(1,'a')") || strings.Contains(string(out), "`mysql`") {
		t.Fatalf("dump:\n%s", out)
	}
}
