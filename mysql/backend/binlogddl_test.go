package backend

import (
	"context"
	"encoding/binary"
	"math/rand"
	"strings"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"strata/engine"
	"strata/mysql/binlog"
	"strata/page"
	"strata/volume"
)

// TestDDLLoggedWithItsCatalogCommit (CAT-7, binlog BL-6): with the binary
// log on, a DDL statement's event is put by its first catalog commit (a
// CREATE TABLE's: by the commit that finishes it), so a power cut right
// after the statement keeps the DDL and its event together; a CREATE
// TABLE that fails after the table was made (a FOREIGN KEY refused), and
// is undone (SES-5), logs nothing; one cut short by the power cut is seen
// by no other session before, and is gone after; a statement that changes
// nothing the catalog keeps is logged as it finishes.
func TestDDLLoggedWithItsCatalogCommit(t *testing.T) {
	data := volume.NewMem("data", volume.MemOptions{})
	logv := volume.NewMem("log", volume.MemOptions{})
	opts := engine.Options{DataVolume: data, LogVolume: logv, BufferPoolBytes: 400 * page.Size,
		LogCapacity: 4 << 20, TornWriteProtection: "doublewrite", LockWaitTimeout: 2 * time.Second}
	open := func() (*engine.DB, *binlog.Log, *Backend, *sqle.Engine, *Session) {
		db, err := engine.Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		l, err := binlog.Open(db, binlog.Options{Basename: "b", ServerID: 1, MaxFileSize: 1 << 20, Version: "8.0.33-test"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := New(db, "")
		if err != nil {
			t.Fatal(err)
		}
		b.SetBinlog(l)
		return db, l, b, sqle.NewDefault(b), b.NewSession(sql.NewBaseSession())
	}
	db, l, b0, e, s := open()
	ctx := sql.NewContext(context.Background(), sql.WithSession(s))
	// run is one statement as the server runs it: its text named for the
	// log (server SRV-REPL-4), then StatementDone.
	run := func(q string, wantErr bool) {
		t.Helper()
		s.LogStatement("", "")
		if !strings.HasPrefix(q, "INSERT") { // DDL
			s.LogStatement(ctx.GetCurrentDatabase(), q)
		}
		if strings.Contains(q, " AS SELECT ") {
			s.LogAsText()
		}
		_, it, _, err := e.Query(ctx, q)
		if err == nil {
			_, err = sql.RowIterToRows(ctx, it)
		}
		if err == nil {
			err = s.FinishStatement()
		}
		s.StatementDone(err != nil)
		if (err != nil) != wantErr {
			t.Fatalf("%s: error %v, want an error: %v", q, err, wantErr)
		}
	}
	run("CREATE DATABASE d", false)
	ctx.SetCurrentDatabase("d")
	run("CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY (v))", false)
	run("CREATE TABLE u (id INT PRIMARY KEY, v VARCHAR(10), FOREIGN KEY (v) REFERENCES t (id))", true)
	run("CREATE VIEW w AS SELECT id FROM t", false)
	run("DROP TABLE IF EXISTS nosuch", false)
	run("ALTER TABLE t ADD COLUMN s VARCHAR(10)", false)
	run("INSERT INTO t VALUES (1, 1, 'a'), (2, 2, 'b')", false)
	run("CREATE TABLE c AS SELECT id, v FROM t", false)

	// A CREATE TABLE not finished: its own session sees the table, another
	// does not.
	s.LogStatement("d", "CREATE TABLE x (id INT PRIMARY KEY, v INT, KEY (v))")
	if _, it, _, err := e.Query(ctx, "CREATE TABLE x (id INT PRIMARY KEY, v INT, KEY (v))"); err != nil {
		t.Fatal(err)
	} else if _, err := sql.RowIterToRows(ctx, it); err != nil {
		t.Fatal(err)
	}
	other := sql.NewContext(context.Background(), sql.WithSession(b0.NewSession(sql.NewBaseSession())))
	other.SetCurrentDatabase("d")
	if _, it, _, err := e.Query(other, "SELECT * FROM x"); err == nil {
		_, err = sql.RowIterToRows(other, it)
		t.Fatalf("another session reads a table whose CREATE has not finished (%v)", err)
	}
	if _, it, _, err := e.Query(ctx, "INSERT INTO x VALUES (1, 1)"); err != nil {
		t.Fatalf("its own session: %v", err)
	} else if _, err := sql.RowIterToRows(ctx, it); err != nil {
		t.Fatal(err)
	}

	// A power cut: only what was synced survives; nothing else ran.
	rng := rand.New(rand.NewSource(1))
	data, logv = data.Crash(rng, false), logv.Crash(rng, false)
	opts.DataVolume, opts.LogVolume = data, logv
	l.Close()
	db.Abandon()
	db, l, b, e, s := open()
	defer func() { l.Close(); db.Close() }()
	ctx = sql.NewContext(context.Background(), sql.WithSession(s))
	if _, it, _, err := e.Query(ctx, "SELECT COUNT(*) FROM d.c"); err != nil {
		t.Fatal(err)
	} else if rows, err := sql.RowIterToRows(ctx, it); err != nil || len(rows) != 1 || rows[0][0] != int64(2) {
		t.Fatalf("CREATE TABLE ... SELECT after the power cut: %v %v", rows, err)
	}

	var got []string
	for _, q := range loggedQueries(t, db) {
		if !strings.Contains(q, "\x00BEGIN") {
			got = append(got, q)
		}
	}
	want := []string{
		"\x00CREATE DATABASE d",
		"d\x00CREATE TABLE t (id INT PRIMARY KEY, v INT, KEY (v))",
		"d\x00CREATE VIEW w AS SELECT id FROM t",
		"d\x00DROP TABLE IF EXISTS nosuch",
		"d\x00ALTER TABLE t ADD COLUMN s VARCHAR(10)",
		"d\x00CREATE TABLE c AS SELECT id, v FROM t",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("logged after the power cut:\n%q\nwant\n%q", got, want)
	}
	d := b.dbs["d"]
	if d == nil || d.lookup("t") == nil || d.lookup("u") != nil || d.lookup("x") != nil || d.lookup("c") == nil || len(d.lookup("t").def.Columns) != 3 {
		t.Fatalf("catalog after the power cut: database %v, tables %v", d != nil, d.tables)
	}
	for _, name := range db.Keyspaces() {
		used := false
		for _, tb := range d.tables {
			for _, ks := range tb.def.keyspaces() {
				used = used || ks == name
			}
		}
		if strings.HasPrefix(name, "t") && !used {
			t.Errorf("keyspace %s of no table after the reopen", name)
		}
	}
}

// loggedQueries reads every Query event in db's binary log keyspace as
// "database\x00text", in log order.
func loggedQueries(t *testing.T, db *engine.DB) []string {
	t.Helper()
	ks, err := db.Keyspace("binlog")
	if err != nil {
		t.Fatal(err)
	}
	tx := db.Begin()
	defer tx.Rollback()
	it := tx.Scan(ks, nil, nil, false)
	defer it.Close()
	var out []string
	for it.Next() {
		v := it.Value()
		if string(v[:min(4, len(v))]) == "\xfebin" {
			v = v[4:]
		}
		for len(v) >= 19 {
			size := int(binary.LittleEndian.Uint32(v[9:]))
			ev := v[:size]
			v = v[size:]
			if ev[4] != 2 { // QUERY_EVENT
				continue
			}
			body := ev[19 : size-4] // header, checksum
			dbLen := int(body[8])
			vars := int(binary.LittleEndian.Uint16(body[11:]))
			rest := body[13+vars:]
			out = append(out, string(rest[:dbLen])+"\x00"+string(rest[dbLen+1:]))
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
