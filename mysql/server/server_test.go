package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"strata/engine"
)

// testServer is an in-process server over an engine in dir.
type testServer struct {
	t   *testing.T
	dir string
	db  *engine.DB
	srv *Server
}

func startServer(t *testing.T, dir string) *testServer {
	t.Helper()
	return startServerWith(t, dir, Config{Addr: "127.0.0.1:0"})
}

func startServerWith(t *testing.T, dir string, cfg Config) *testServer {
	t.Helper()
	db, err := engine.Open(engine.Options{Dir: dir, BufferPoolBytes: 16 << 20, LogCapacity: 32 << 20,
		DisableDirectIO: true, LockWaitTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(db, cfg)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	go srv.Start()
	ts := &testServer{t: t, dir: dir, db: db, srv: srv}
	t.Cleanup(ts.stop)
	return ts
}

func (ts *testServer) stop() {
	if ts.srv == nil {
		return
	}
	ts.srv.Close()
	if err := ts.db.Close(); err != nil {
		ts.t.Errorf("engine close: %v", err)
	}
	ts.srv = nil
}

func (ts *testServer) port() int { return ts.srv.Addr().(*net.TCPAddr).Port }

// dumpAndRestore dumps database db with mariadb-dump (and opts), drops it
// and loads the dump back with the mariadb client; it returns the dump.
func (ts *testServer) dumpAndRestore(db string, opts ...string) string {
	ts.t.Helper()
	args := append([]string{"--no-defaults", "--protocol=tcp", "-h127.0.0.1", fmt.Sprintf("-P%d", ts.port()), "-uroot"}, opts...)
	out, err := exec.Command("mariadb-dump", append(args, "--databases", db)...).Output()
	if err != nil {
		ts.t.Fatalf("mariadb-dump %v: %v\n%s", opts, err, out)
	}
	mustExec(ts.t, ts.open(""), "DROP DATABASE "+db)
	restore := exec.Command("mariadb", args[:5]...)
	restore.Stdin = strings.NewReader(string(out))
	if msg, err := restore.CombinedOutput(); err != nil {
		ts.t.Fatalf("restore: %v\n%s", err, msg)
	}
	return string(out)
}

func (ts *testServer) open(dbName string) *sql.DB {
	ts.t.Helper()
	return ts.openWith(dbName, "")
}

// openWith opens dbName with go-sql-driver's DSN parameters params
// ("a=b&c=d") besides parseTime.
func (ts *testServer) openWith(dbName, params string) *sql.DB {
	ts.t.Helper()
	if params != "" {
		params = "&" + params
	}
	c, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/%s?parseTime=true%s", ts.srv.Addr(), dbName, params))
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { c.Close() })
	return c
}

func mustExec(t *testing.T, c interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := c.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func errCode(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

func queryInts(t *testing.T, c *sql.DB, q string, args ...any) []int64 {
	t.Helper()
	rows, err := c.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDriverBasics drives the server through go-sql-driver/mysql:
// prepared statements, transactions, error codes, types, restart.
func TestDriverBasics(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	root := ts.open("")
	mustExec(t, root, "CREATE DATABASE app")
	c := ts.open("app")
	mustExec(t, c, `CREATE TABLE items (
		id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
		sku VARCHAR(40) COLLATE utf8mb4_general_ci NOT NULL,
		qty INT NOT NULL DEFAULT 0,
		price DECIMAL(10,2),
		weight DOUBLE,
		made DATETIME,
		born DATE,
		note TEXT,
		blob_ BLOB,
		doc JSON,
		UNIQUE KEY sku_u (sku),
		KEY qty_k (qty))`)

	ins, err := c.Prepare("INSERT INTO items (sku, qty, price, weight, made, born, note, blob_, doc) VALUES (?,?,?,?,?,?,?,?,?)")
	if err != nil {
		t.Fatal(err)
	}
	made := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for i := 0; i < 50; i++ {
		if _, err := ins.Exec(fmt.Sprintf("SKU-%03d", i), i%7, fmt.Sprintf("%d.25", i), float64(i)/3, made, "2020-01-02",
			strings.Repeat("n", i*10), []byte{0, 1, byte(i)}, fmt.Sprintf(`{"i": %d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	ins.Close()

	// Unique index under a case-insensitive collation: 1062.
	_, err = c.Exec("INSERT INTO items (sku) VALUES ('sku-007')")
	if errCode(err) != 1062 {
		t.Fatalf("duplicate under utf8mb4_general_ci: want 1062, got %v", err)
	}
	// Statement atomicity: a multi-row insert failing on its 3rd row leaves nothing.
	_, err = c.Exec("INSERT INTO items (sku) VALUES ('new-1'), ('new-2'), ('SKU-001')")
	if errCode(err) != 1062 {
		t.Fatalf("want 1062, got %v", err)
	}
	if n := queryInts(t, c, "SELECT COUNT(*) FROM items WHERE sku LIKE 'new-%'"); n[0] != 0 {
		t.Fatalf("failed statement left %d rows", n[0])
	}

	// Prepared point and range reads, on the primary key and secondary indexes.
	sel, err := c.Prepare("SELECT qty, price, note, doc, made FROM items WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	var qty int
	var price, note, doc string
	var gotMade time.Time
	if err := sel.QueryRow(11).Scan(&qty, &price, &note, &doc, &gotMade); err != nil {
		t.Fatal(err)
	}
	if qty != 10%7 || price != "10.25" || len(note) != 100 || !strings.Contains(doc, `"i": 10`) {
		t.Fatalf("row 11: qty %d price %s note %d doc %s", qty, price, len(note), doc)
	}
	sel.Close()
	if ids := queryInts(t, c, "SELECT id FROM items WHERE id BETWEEN ? AND ? ORDER BY id", 5, 9); len(ids) != 5 || ids[0] != 5 {
		t.Fatalf("range: %v", ids)
	}
	if ids := queryInts(t, c, "SELECT id FROM items WHERE qty = ? ORDER BY id", 3); len(ids) != 7 {
		t.Fatalf("secondary lookup: %v", ids)
	}
	if ids := queryInts(t, c, "SELECT id FROM items WHERE sku = 'sku-020'"); len(ids) != 1 || ids[0] != 21 {
		t.Fatalf("collation lookup: %v", ids)
	}

	// Transactions.
	tx, _ := c.Begin()
	mustExec(t, tx, "UPDATE items SET qty = 100 WHERE id = 1")
	tx.Rollback()
	if v := queryInts(t, c, "SELECT qty FROM items WHERE id = 1"); v[0] != 0 {
		t.Fatalf("rolled back update visible: %v", v)
	}
	tx, _ = c.Begin()
	mustExec(t, tx, "UPDATE items SET qty = qty + 5 WHERE id = 2")
	mustExec(t, tx, "DELETE FROM items WHERE id = 3")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if v := queryInts(t, c, "SELECT qty FROM items WHERE qty = 6 AND id = 2"); len(v) != 1 {
		t.Fatalf("committed update through the index: %v", v)
	}

	// Bad input: clear errors, server keeps serving.
	for q, code := range map[string]uint16{
		"SELECT * FROM nosuch":                  1146,
		"INSERT INTO items (nosuch) VALUES (1)": 1054,
		"SELEC 1":                               1064,
	} {
		if _, err := c.Exec(q); errCode(err) != code {
			t.Errorf("%s: want %d, got %v", q, code, err)
		}
	}

	// Restart: rows, indexes and the AUTO_INCREMENT counter survive.
	ts.stop()
	ts = startServer(t, dir)
	c = ts.open("app")
	if n := queryInts(t, c, "SELECT COUNT(*) FROM items"); n[0] != 49 {
		t.Fatalf("after restart: %d rows", n[0])
	}
	if ids := queryInts(t, c, "SELECT id FROM items WHERE qty = 6"); len(ids) != 8 {
		t.Fatalf("index after restart: %v", ids)
	}
	res, err := c.Exec("INSERT INTO items (sku) VALUES ('after')")
	if err != nil {
		t.Fatal(err)
	}
	// 51..54 went to failed inserts; the counter persisted at shutdown.
	if id, _ := res.LastInsertId(); id != 55 {
		t.Fatalf("auto_increment after restart: %d", id)
	}
}

// TestErrorCodes checks 1213 (deadlock) and 1205 (lock wait timeout).
func TestErrorCodes(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE e")
	c := ts.open("e")
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	mustExec(t, c, "INSERT INTO t VALUES (1, 0), (2, 0)")
	ctx := context.Background()
	a, _ := c.Conn(ctx)
	b, _ := c.Conn(ctx)
	defer a.Close()
	defer b.Close()

	// Lock wait timeout: b waits on a's row lock.
	mustExec(t, a, "BEGIN")
	mustExec(t, a, "UPDATE t SET v = 1 WHERE id = 1")
	_, err := b.ExecContext(ctx, "UPDATE t SET v = 2 WHERE id = 1")
	if errCode(err) != 1205 {
		t.Fatalf("want 1205, got %v", err)
	}
	mustExec(t, a, "COMMIT")

	// Deadlock: a locks 1 then 2, b locks 2 then 1.
	mustExec(t, a, "BEGIN")
	mustExec(t, b, "BEGIN")
	mustExec(t, a, "UPDATE t SET v = 10 WHERE id = 1")
	mustExec(t, b, "UPDATE t SET v = 20 WHERE id = 2")
	var wg sync.WaitGroup
	var errA, errB error
	wg.Add(2)
	go func() { defer wg.Done(); _, errA = a.ExecContext(ctx, "UPDATE t SET v = 11 WHERE id = 2") }()
	go func() {
		defer wg.Done()
		time.Sleep(100 * time.Millisecond)
		_, errB = b.ExecContext(ctx, "UPDATE t SET v = 21 WHERE id = 1")
	}()
	wg.Wait()
	if errCode(errA) != 1213 && errCode(errB) != 1213 {
		t.Fatalf("no deadlock reported: a=%v b=%v", errA, errB)
	}
	mustExec(t, a, "COMMIT")
	mustExec(t, b, "COMMIT")
	// The victim's whole transaction was rolled back; the survivor's applied.
	v := queryInts(t, c, "SELECT v FROM t ORDER BY id")
	if !(v[0] == 10 && v[1] == 11) && !(v[0] == 21 && v[1] == 20) {
		t.Fatalf("after deadlock: %v", v)
	}
}

// TestNoLostUpdates: concurrent read-modify-write statements serialize on
// row locks (SES-3).
func TestNoLostUpdates(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE l")
	c := ts.open("l")
	c.SetMaxOpenConns(16)
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, KEY kk (k))")
	mustExec(t, c, "INSERT INTO t VALUES (1, 0), (2, 0)")
	var wg sync.WaitGroup
	const workers, each = 8, 50
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for {
					_, err := c.Exec("UPDATE t SET k = k + 1 WHERE id = ?", 1+i%2)
					if code := errCode(err); code == 1213 || code == 1205 {
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if sum := queryInts(t, c, "SELECT SUM(k) FROM t"); sum[0] != workers*each {
		t.Fatalf("lost updates: sum %d, want %d", sum[0], workers*each)
	}
	// The secondary index agrees with the table.
	if ids := queryInts(t, c, "SELECT id FROM t WHERE k BETWEEN 0 AND 1000"); len(ids) != 2 {
		t.Fatalf("index rows: %v", ids)
	}
}

// TestMariaDBClient runs a script through the mariadb command-line client.
func TestMariaDBClient(t *testing.T) {
	if _, err := exec.LookPath("mariadb"); err != nil {
		t.Fatal("the mariadb client is required (apt-get install mariadb-client; .ci/run installs it)")
	}
	ts := startServer(t, t.TempDir())
	run := func(script string) (string, error) {
		cmd := exec.Command("mariadb", "-h127.0.0.1", fmt.Sprintf("-P%d", ts.port()), "-uroot", "--batch", "--skip-column-names")
		cmd.Stdin = strings.NewReader(script)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(`CREATE DATABASE shop;
USE shop;
CREATE TABLE orders (id INT PRIMARY KEY, customer VARCHAR(20), total DECIMAL(8,2), KEY cust (customer));
CREATE TABLE log (msg VARCHAR(50));
INSERT INTO orders VALUES (1,'ann',10.50),(2,'bob',3.25),(3,'ann',7.00);
INSERT INTO log VALUES ('a'),('a'),('b');
DELETE FROM log WHERE msg = 'a' LIMIT 1;
SELECT customer, COUNT(*) FROM orders GROUP BY customer ORDER BY customer;
SELECT total FROM orders WHERE id = 3;
SELECT COUNT(*) FROM log;
START TRANSACTION;
UPDATE orders SET total = 0 WHERE customer = 'ann';
ROLLBACK;
SELECT SUM(total) FROM orders;
SHOW GLOBAL STATUS LIKE 'Strata_commits';
`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := "ann\t2\nbob\t1\n7.00\n2\n20.75\nStrata_commits\t"
	if !strings.HasPrefix(out, want) {
		t.Fatalf("output:\n%s\nwant prefix:\n%s", out, want)
	}
	out, err = run("USE shop;\nINSERT INTO orders VALUES (1,'dup',1);\n")
	if err == nil || !strings.Contains(out, "ERROR 1062") {
		t.Fatalf("duplicate through the client: %v %s", err, out)
	}
}

// TestBPEThroughSQL: SET GLOBAL strata_bpe_size resizes the buffer pool
// extension online (0 disables it), and SHOW GLOBAL STATUS reports it.
func TestBPEThroughSQL(t *testing.T) {
	db, err := engine.Open(engine.Options{Dir: t.TempDir(), BufferPoolBytes: 1 << 20, LogCapacity: 32 << 20,
		DisableDirectIO: true, BPEPath: t.TempDir() + "/bpe.cache"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(db, Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	ts := &testServer{t: t, db: db, srv: srv}
	t.Cleanup(ts.stop)
	mustExec(t, ts.open(""), "CREATE DATABASE b")
	c := ts.open("b")
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, pad VARCHAR(250))")
	for i := 0; i < 4000; i += 200 {
		q := "INSERT INTO t VALUES "
		for j := i; j < i+200; j++ {
			if j > i {
				q += ","
			}
			q += fmt.Sprintf("(%d, REPEAT('x', 240))", j)
		}
		mustExec(t, c, q)
	}
	status := func(name string) string {
		var n, v string
		if err := c.QueryRow("SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	if status("Strata_bpe_slots") != "0" {
		t.Fatal("BPE on before it was sized")
	}
	mustExec(t, c, "SET GLOBAL strata_bpe_size = 8388608")
	if got := status("Strata_bpe_slots"); got != "512" {
		t.Fatalf("after SET GLOBAL: %s slots", got)
	}
	// The BPE fills asynchronously: scan until it serves (bounded).
	for round := 0; round < 50 && (round < 3 || status("Strata_bpe_hits") == "0"); round++ {
		if n := queryInts(t, c, "SELECT COUNT(*) FROM t WHERE id BETWEEN 0 AND 4000"); n[0] != 4000 {
			t.Fatal(n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status("Strata_bpe_hits") == "0" {
		t.Fatal("no BPE hits with a 1 MiB pool and a ~1.3 MiB table")
	}
	t.Logf("pool hit ratio %s, bpe hit ratio %s", status("Strata_pool_hit_ratio"), status("Strata_bpe_hit_ratio"))
	mustExec(t, c, "SET GLOBAL strata_bpe_size = 0")
	if n := queryInts(t, c, "SELECT COUNT(*) FROM t WHERE id BETWEEN 0 AND 4000"); n[0] != 4000 {
		t.Fatal(n)
	}
	if got := status("Strata_bpe_slots"); got != "0" {
		t.Fatalf("after SET GLOBAL 0: %s slots", got)
	}
	// The background I/O limiter reports its state (issue 8).
	if got := status("Strata_io_limiter_mode"); got != "auto" {
		t.Fatalf("Strata_io_limiter_mode = %q", got)
	}
	if got := status("Strata_io_limit_pages_per_second"); got == "0" || got == "" {
		t.Fatalf("Strata_io_limit_pages_per_second = %q", got)
	}
	if got := status("Strata_io_limiter_reason"); got == "" || got == "starting" {
		t.Fatalf("Strata_io_limiter_reason = %q: the page cleaner has not run", got)
	}
}
