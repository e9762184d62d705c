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

// TestIndexBuildsRunInParallel (MDL-3): while an index build on t1 runs
// (held in its backfill), an index build on t2 and a CREATE TABLE finish;
// a DROP INDEX on t1 waits for the build, then both take effect (no lost
// catalog update, no deadlock between the build's publish and the DDL
// waiting for t1's metadata lock).
func TestIndexBuildsRunInParallel(t *testing.T) {
	b, ctx, run := testBackend(t)
	e := sqle.NewDefault(b)
	session := func() func(string) error {
		c := sql.NewContext(context.Background(), sql.WithSession(b.NewSession(sql.NewBaseSession())))
		c.SetCurrentDatabase("d")
		return func(q string) error {
			_, it, _, err := e.Query(c, q)
			if err == nil {
				_, err = sql.RowIterToRows(c, it)
			}
			return err
		}
	}
	for _, q := range []string{"CREATE DATABASE d", "USE d",
		"CREATE TABLE t1 (id INT PRIMARY KEY, a INT, b INT)", "CREATE TABLE t2 (id INT PRIMARY KEY, a INT)",
		"INSERT INTO t1 VALUES (1, 10, 100), (2, 20, 200)", "INSERT INTO t2 VALUES (1, 10), (2, 20)",
		"CREATE INDEX ia ON t1 (a)"} {
		if err := run(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	held, release := make(chan struct{}), make(chan struct{})
	backfillHook = func(tb *table) {
		if tb.def.Name == "t1" {
			close(held)
			<-release
		}
	}
	defer func() { backfillHook = nil }()
	async := func(q string) chan error {
		done := make(chan error, 1)
		r := session()
		go func() { done <- r(q) }()
		return done
	}
	build := async("CREATE INDEX ib ON t1 (b)")
	<-held
	within := func(what string, done chan error) {
		t.Helper()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s did not finish while t1's index build ran", what)
		}
	}
	within("CREATE INDEX on t2", async("CREATE INDEX ia2 ON t2 (a)"))
	within("CREATE TABLE", async("CREATE TABLE t3 (id INT PRIMARY KEY)"))
	drop := async("DROP INDEX ia ON t1")
	select {
	case err := <-drop:
		t.Fatalf("DROP INDEX on t1 ended while its index build ran: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	within("CREATE INDEX on t1", build)
	within("DROP INDEX on t1", drop)
	names := func(table string) []string {
		d, _ := b.Database(ctx, "d")
		tbl, _, _ := d.GetTableInsensitive(ctx, table)
		idx, err := tbl.(*Table).GetIndexes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ix := range idx {
			if ix.ID() != "PRIMARY" {
				out = append(out, ix.ID())
			}
		}
		slices.Sort(out)
		return out
	}
	if got := names("t1"); !slices.Equal(got, []string{"ib"}) {
		t.Fatalf("t1's indexes %v, want [ib]", got)
	}
	if got := names("t2"); !slices.Equal(got, []string{"ia2"}) {
		t.Fatalf("t2's indexes %v, want [ia2]", got)
	}
	d, _ := b.Database(ctx, "d")
	tbl, _, _ := d.GetTableInsensitive(ctx, "t1")
	if problems, err := tbl.(*Table).Check(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("CHECK TABLE t1: %v %v", problems, err)
	}
}
