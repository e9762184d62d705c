package backend

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"

	"strata/engine"
)

// TestIndexBuildInChunks (IX-2): indexes built through many sorted chunks
// and write batches hold exactly the table's entries (CHECK TABLE's
// comparison, CHK-1); a unique index refuses duplicates that meet in one
// chunk and across chunks (1062, no index left behind), and takes any
// number of NULLs.
func TestIndexBuildInChunks(t *testing.T) {
	defer func(c int) { indexBuildChunk = c }(indexBuildChunk)
	indexBuildChunk = 4 << 10
	testIndexBuild(t)
}

// TestIndexBuildBulk (IX-4): the same builds when every entry fits one
// chunk, loaded bottom-up (engine BulkLoad): the same entries (CHECK
// TABLE), the same duplicate refusals, and indexes that keep working.
func TestIndexBuildBulk(t *testing.T) { testIndexBuild(t) }

func testIndexBuild(t *testing.T) {
	b, ctx, run := testBackend(t)
	must := func(q string) {
		t.Helper()
		if err := run(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	must("CREATE DATABASE d")
	ctx.SetCurrentDatabase("d")
	must("CREATE TABLE t (id INT PRIMARY KEY, k INT, s VARCHAR(30), u INT, late INT)")
	const n = 6000
	for i := 0; i < n; i += 500 {
		var vals []string
		for j := i; j < i+500; j++ {
			u := "NULL"
			if j%3 != 0 {
				u = fmt.Sprint(j)
			}
			late := j
			if j == n-1 {
				late = 7 // equal to row 7's, thousands of rows (many chunks) earlier
			}
			vals = append(vals, fmt.Sprintf("(%d, %d, 'v%05d', %s, %d)", j, (j*7919)%997, (j*31)%n, u, late))
		}
		must("INSERT INTO t VALUES " + strings.Join(vals, ","))
	}
	must("CREATE INDEX kk ON t (k)")
	must("CREATE INDEX ks ON t (s, k)")
	must("CREATE UNIQUE INDEX uu ON t (u)") // NULLs never conflict
	if err := run("CREATE UNIQUE INDEX uk ON t (k)"); sql.ErrUniqueKeyViolation.Is(err) == false && !strings.Contains(fmt.Sprint(err), "duplicate") {
		t.Fatalf("unique index over duplicates in one chunk: %v", err)
	}
	if err := run("CREATE UNIQUE INDEX ul ON t (late)"); err == nil || !strings.Contains(strings.ToLower(fmt.Sprint(err)), "duplicate") {
		t.Fatalf("unique index over duplicates in different chunks: %v", err)
	}
	d, _ := b.Database(ctx, "d")
	tbl, _, _ := d.GetTableInsensitive(ctx, "t")
	tb := tbl.(*Table)
	idx, err := tb.GetIndexes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ix := range idx {
		names = append(names, ix.ID())
	}
	if got := strings.Join(names, ","); got != "PRIMARY,kk,ks,uu" {
		t.Fatalf("indexes after the builds: %s", got)
	}
	if p, err := tb.Check(ctx); err != nil || len(p) != 0 {
		t.Fatalf("CHECK TABLE after the builds: %v %v", p, err)
	}
	// The built indexes answer lookups and keep working for writes.
	must("INSERT INTO t VALUES (100000, 5, 'zz', 100000, 100000)")
	if err := run("INSERT INTO t VALUES (100001, 5, 'zz', 100000, 100001)"); err == nil {
		t.Fatal("duplicate accepted by the built unique index")
	}
	if p, err := tb.Check(ctx); err != nil || len(p) != 0 {
		t.Fatalf("CHECK TABLE after writes: %v %v", p, err)
	}
}

// testBackend is a backend over a fresh engine, a session context and a
// function running one statement to completion (the tests of this
// package that go through go-mysql-server's engine).
func testBackend(t *testing.T) (*Backend, *sql.Context, func(string) error) {
	t.Helper()
	db, err := engine.Open(engine.Options{Dir: t.TempDir(), BufferPoolBytes: 8 << 20,
		LogCapacity: 16 << 20, DisableDirectIO: true, AsyncCommit: true, LockWaitTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b, err := New(db, "")
	if err != nil {
		t.Fatal(err)
	}
	e := sqle.NewDefault(b)
	ctx := sql.NewContext(context.Background(), sql.WithSession(b.NewSession(sql.NewBaseSession())))
	return b, ctx, func(q string) error {
		_, it, _, err := e.Query(ctx, q)
		if err == nil {
			_, err = sql.RowIterToRows(ctx, it)
		}
		return err
	}
}

// IX-2: a chunk sorts in byte order of its entries, with the 8-byte heads
// deciding alone only where they differ (short entries, equal heads,
// 0x00 and 0xFF bytes around the head's end).
func TestSortChunkOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var c buildEntries
	var want [][]byte
	for i := 0; i < 5000; i++ {
		e := make([]byte, rng.Intn(13))
		for j := range e {
			e[j] = []byte{0x00, 0x01, 0x7F, 0xFF}[rng.Intn(4)]
		}
		c.add(e, len(e))
		want = append(want, e)
	}
	order, err := sortChunk(nil, nil, nil, &index{}, &c)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(want, bytes.Compare)
	for k, i := range order {
		if !bytes.Equal(c.entry(int(i)), want[k]) {
			t.Fatalf("position %d: %x, want %x", k, c.entry(int(i)), want[k])
		}
	}
}
