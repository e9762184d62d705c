package server

import (
	"database/sql"
	"fmt"
	"math/rand"
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
