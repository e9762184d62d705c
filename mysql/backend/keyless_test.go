package backend

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"strata/engine"
)

// keylessHarness is an engine and backend in dir, reopened by reopen.
type keylessHarness struct {
	t   *testing.T
	dir string
	db  *engine.DB
	b   *Backend
	e   *sqle.Engine
	ctx *sql.Context
}

func (h *keylessHarness) open() {
	db, err := engine.Open(engine.Options{Dir: h.dir, BufferPoolBytes: 8 << 20,
		LogCapacity: 16 << 20, DisableDirectIO: true, LockWaitTimeout: time.Second})
	if err != nil {
		h.t.Fatal(err)
	}
	b, err := New(db, "")
	if err != nil {
		h.t.Fatal(err)
	}
	h.db, h.b, h.e = db, b, sqle.NewDefault(b)
	h.ctx = sql.NewContext(context.Background(), sql.WithSession(b.NewSession(sql.NewBaseSession())))
}

func (h *keylessHarness) reopen() {
	if err := h.b.CloseCounters(); err != nil {
		h.t.Fatal(err)
	}
	if err := h.db.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.open()
	h.ctx.SetCurrentDatabase("d")
}

// rows runs q and returns its rows as "a|b" strings.
func (h *keylessHarness) rows(q string) []string {
	h.t.Helper()
	_, it, _, err := h.e.Query(h.ctx, q)
	var rows []sql.Row
	if err == nil {
		rows, err = sql.RowIterToRows(h.ctx, it)
	}
	if err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, r := range rows {
		var f []string
		for _, v := range r {
			f = append(f, fmt.Sprint(v))
		}
		out = append(out, strings.Join(f, "|"))
	}
	return out
}

func (h *keylessHarness) want(q string, want ...string) {
	h.t.Helper()
	if got := h.rows(q); strings.Join(got, " ") != strings.Join(want, " ") {
		h.t.Errorf("%s:\n got %v\nwant %v", q, got, want)
	}
}

func (h *keylessHarness) check(name string) {
	h.t.Helper()
	d, _ := h.b.Database(h.ctx, "d")
	tbl, _, _ := d.GetTableInsensitive(h.ctx, name)
	if p, err := tbl.(*Table).Check(h.ctx); err != nil || len(p) != 0 {
		h.t.Errorf("CHECK TABLE %s: %v %v", name, p, err)
	}
}

// CODEC-10: a table without a primary key returns its rows in insertion
// order, across UPDATE (which keeps a row's place), DELETE of one of two
// equal rows, a restart, and ALTER TABLE; its row references stay one
// per row. A table of the older format (hash order) still updates and
// deletes by value.
func TestKeylessRowOrder(t *testing.T) {
	h := &keylessHarness{t: t, dir: t.TempDir()}
	h.open()
	defer func() { h.db.Close() }()
	h.rows("CREATE DATABASE d")
	h.ctx.SetCurrentDatabase("d")
	h.rows("CREATE TABLE k (a INT, b VARCHAR(5), KEY kb (b))")
	h.rows("INSERT INTO k VALUES (5, 'e'), (3, 'c'), (3, 'c'), (9, NULL), (1, 'a')")
	h.want("SELECT * FROM k", "5|e", "3|c", "3|c", "9|<nil>", "1|a")
	h.rows("UPDATE k SET a = 4 WHERE a = 9")
	h.rows("DELETE FROM k WHERE a = 3 LIMIT 1")
	h.want("SELECT * FROM k", "5|e", "3|c", "4|<nil>", "1|a")
	h.want("SELECT a FROM k WHERE b = 'c'", "3")
	h.check("k")

	h.reopen()
	h.rows("INSERT INTO k VALUES (0, 'z')")
	h.want("SELECT * FROM k", "5|e", "3|c", "4|<nil>", "1|a", "0|z")
	h.check("k")
	h.rows("ALTER TABLE k ADD COLUMN c INT DEFAULT 7")
	h.rows("INSERT INTO k (a) VALUES (2)")
	h.want("SELECT a, c FROM k", "5|7", "3|7", "4|7", "1|7", "0|7", "2|7")
	h.check("k")
	h.rows("DELETE FROM k WHERE a < 4")
	h.want("SELECT a FROM k", "5", "4")
	h.check("k")

	// A table of the format before CODEC-10 keeps working by value.
	newTableKeyFormat = keyFormatPadSpace
	defer func() { newTableKeyFormat = keyFormatRowOrder }()
	h.rows("CREATE TABLE old (a INT)")
	h.rows("INSERT INTO old VALUES (1), (2), (2), (3)")
	h.rows("UPDATE old SET a = 20 WHERE a = 2 LIMIT 1")
	h.rows("DELETE FROM old WHERE a = 3")
	h.want("SELECT a FROM old ORDER BY a", "1", "2", "20")
	h.check("old")
}
