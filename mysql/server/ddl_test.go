package server

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCreateIndexUnderWrites builds an index while clients insert and
// update rows in open transactions: afterwards the index holds exactly the
// table's rows (MDL-2).
func TestCreateIndexUnderWrites(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	c.SetMaxOpenConns(8)
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, pad VARCHAR(100))")
	for i := 0; i < 2000; i += 100 {
		q := "INSERT INTO t VALUES "
		for j := i; j < i+100; j++ {
			if j > i {
				q += ","
			}
			q += fmt.Sprintf("(%d, %d, 'p')", j, j%97)
		}
		mustExec(t, c, q)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var next atomic.Int64
	next.Store(10000)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				tx, err := c.Begin()
				if err != nil {
					continue
				}
				id := next.Add(1)
				_, err1 := tx.Exec("INSERT INTO t VALUES (?, ?, 'new')", id, id%97)
				_, err2 := tx.Exec("UPDATE t SET k = k + 1 WHERE id = ?", (i*7+w)%2000)
				time.Sleep(time.Millisecond)
				if err1 != nil || err2 != nil {
					tx.Rollback()
					continue
				}
				tx.Commit()
			}
		}(w)
	}
	time.Sleep(200 * time.Millisecond)
	mustExec(t, c, "CREATE INDEX kk ON t (k)")
	time.Sleep(200 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	total := queryInts(t, c, "SELECT COUNT(*) FROM t")[0]
	byIndex := queryInts(t, c, "SELECT id FROM t WHERE k BETWEEN -1000000 AND 1000000")
	if int64(len(byIndex)) != total || total <= 2000 {
		t.Fatalf("%d rows, %d through the new index", total, len(byIndex))
	}
}

// TestAlterTable: column changes rewrite the table; rows, indexes and
// the AUTO_INCREMENT counter carry over, and survive a restart.
func TestAlterTable(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	mustExec(t, ts.open(""), "CREATE DATABASE a")
	c := ts.open("a")
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL, s VARCHAR(10), KEY kk (k))")
	for i := 0; i < 3000; i++ {
		mustExec(t, c, "INSERT INTO t (k, s) VALUES (?, ?)", i%10, fmt.Sprint(i))
	}
	mustExec(t, c, "ALTER TABLE t ADD COLUMN extra INT NOT NULL DEFAULT 7")
	mustExec(t, c, "ALTER TABLE t MODIFY COLUMN s VARCHAR(40)")
	mustExec(t, c, "ALTER TABLE t RENAME COLUMN k TO kay")
	mustExec(t, c, "ALTER TABLE t DROP COLUMN s")
	if v := queryInts(t, c, "SELECT SUM(extra) FROM t"); v[0] != 7*3000 {
		t.Fatalf("default of the added column: %v", v)
	}
	if ids := queryInts(t, c, "SELECT id FROM t WHERE kay = 3"); len(ids) != 300 {
		t.Fatalf("renamed indexed column: %d rows", len(ids))
	}
	_, err := c.Exec("SELECT s FROM t")
	if errCode(err) != 1054 {
		t.Fatalf("dropped column still there: %v", err)
	}
	ts.stop()
	ts = startServer(t, dir)
	c = ts.open("a")
	res, err := c.Exec("INSERT INTO t (kay) VALUES (1)")
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := res.LastInsertId(); id != 3001 {
		t.Fatalf("auto_increment after alter and restart: %d", id)
	}
	if ids := queryInts(t, c, "SELECT id FROM t WHERE kay = 1"); len(ids) != 301 {
		t.Fatalf("index after restart: %d rows", len(ids))
	}
	if v := queryInts(t, c, "SELECT extra FROM t WHERE id = 3001"); v[0] != 7 {
		t.Fatalf("default on insert: %v", v)
	}
}

// TestOrphanKeyspacesDropped: a keyspace no catalog entry names (a DDL
// cut short by a crash) is dropped at start-up (CAT-2).
func TestOrphanKeyspacesDropped(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	mustExec(t, ts.open(""), "CREATE DATABASE o")
	mustExec(t, ts.open("o"), "CREATE TABLE t (id INT PRIMARY KEY)")
	if _, err := ts.db.CreateKeyspace("t999"); err != nil {
		t.Fatal(err)
	}
	ts.stop()
	ts = startServer(t, dir)
	if _, err := ts.db.Keyspace("t999"); err == nil {
		t.Fatal("orphan keyspace t999 survived start-up")
	}
	if n := queryInts(t, ts.open("o"), "SELECT COUNT(*) FROM t"); n[0] != 0 {
		t.Fatal("table lost")
	}
}
