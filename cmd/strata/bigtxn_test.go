package main

import (
	"context"
	"database/sql"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// Transactions larger than the buffer pool and the redo log (engine EN-9,
// EN-10), through the driver, on a server with an 8M pool and an 8M log:
// they commit, statements and savepoints roll back across spills, and a
// kill -9 during their commit leaves all of it or none.

const bigRows = 40000

func bigServer(t *testing.T, dir string, port int) *proc {
	return startProc(t, dir, port, "--buffer-pool-size", "8M", "--log-capacity", "8M")
}

func scalar(t *testing.T, c interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, q string) string {
	t.Helper()
	var s sql.NullString
	if err := c.QueryRowContext(context.Background(), q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s.String
}

func TestTransactionsLargerThanMemory(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	p := bigServer(t, dir, port)
	root := p.db("")
	mustExec(t, root, "CREATE DATABASE big", "USE big")
	c := p.db("big")
	mustExec(t, c,
		"CREATE TABLE src (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(200) NOT NULL, KEY k_1 (k))",
		"CREATE TABLE dst LIKE src",
		// One autocommit statement of ~10 MB: larger than the pool and
		// than a quarter of the log.
		`INSERT INTO src SELECT seq, seq % 1000, REPEAT(CHAR(65 + seq % 26), 180) FROM
		   (WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 199) SELECT a.n * 200 + b.n + 1 AS seq FROM s a, s b) x`)
	if n := scalar(t, c, "SELECT COUNT(*) FROM src"); n != "40000" {
		t.Fatalf("src has %s rows", n)
	}
	sumK := scalar(t, c, "SELECT SUM(k) FROM src")

	ctx := context.Background()
	conn, err := c.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string) error { _, err := conn.ExecContext(ctx, q); return err }
	for _, q := range []string{"BEGIN", "INSERT INTO dst SELECT * FROM src", "SAVEPOINT s1", "UPDATE dst SET k = k + 1, c = LOWER(c)"} {
		if err := exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if got := scalar(t, conn, "SELECT SUM(k) FROM dst"); got == sumK {
		t.Fatal("the transaction does not see its own update")
	}
	if err := exec("ROLLBACK TO SAVEPOINT s1"); err != nil {
		t.Fatal(err)
	}
	// A statement failing on its last row, after it spilled, undoes only itself.
	err = exec("INSERT INTO dst SELECT id + 100000, k, c FROM src UNION ALL SELECT 1, 0, 'dup'")
	if !isCode(err, 1062) {
		t.Fatalf("duplicate at the end: %v, want 1062", err)
	}
	if got := scalar(t, conn, "SELECT COUNT(*) FROM dst FORCE INDEX (k_1) WHERE k >= 0"); got != "40000" {
		t.Fatalf("inside the transaction the index finds %s rows", got)
	}
	if err := exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"SELECT COUNT(*) FROM dst":                                "40000",
		"SELECT SUM(k) FROM dst":                                  sumK,
		"SELECT COUNT(*) FROM dst WHERE id > 100000":              "0",
		"SELECT COUNT(*) FROM dst FORCE INDEX (k_1) WHERE k >= 0": "40000",
		"SELECT COUNT(*) FROM dst WHERE c = UPPER(c)":             "40000",
	} {
		if got := scalar(t, c, q); got != want {
			t.Fatalf("after commit %s = %s, want %s", q, got, want)
		}
	}
	status := map[string]int64{}
	rows, err := root.Query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Strata_txn_spills', 'Strata_staged_commits', 'Strata_lock_escalations')")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		var v int64
		if err := rows.Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		status[n] = v
	}
	rows.Close()
	if status["Strata_txn_spills"] == 0 || status["Strata_staged_commits"] < 2 || status["Strata_lock_escalations"] == 0 {
		t.Fatalf("status %v", status)
	}

	// kill -9 at a random moment of a large UPDATE's execution or commit:
	// after restart it is all there or not at all, and the index agrees.
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var outcomes []string
	for round := 0; round < 3; round++ {
		before := scalar(t, c, "SELECT SUM(k) FROM src")
		done := make(chan error, 1)
		go func() {
			_, err := c.Exec("UPDATE src SET k = k + 1")
			done <- err
		}()
		time.Sleep(time.Duration(300+rng.Intn(2500)) * time.Millisecond)
		var acked bool
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("round %d: the UPDATE failed before the kill: %v", round, err)
			}
			acked = true
		default:
		}
		p.kill()
		if !acked {
			<-done
		}
		p = bigServer(t, dir, port)
		c = p.db("big")
		after := scalar(t, c, "SELECT SUM(k) FROM src")
		viaIndex := scalar(t, c, "SELECT SUM(k) FROM src FORCE INDEX (k_1) WHERE k >= 0")
		want := []string{before, itoa(atoi(t, before) + bigRows)}
		if after != viaIndex || (after != want[0] && after != want[1]) || (acked && after != want[1]) {
			t.Fatalf("round %d: SUM(k) %s (index %s), before %s, acknowledged %v", round, after, viaIndex, before, acked)
		}
		outcomes = append(outcomes, map[bool]string{true: "applied", false: "not applied"}[after == want[1]])
	}
	t.Logf("after kill -9: %s", strings.Join(outcomes, ", "))
	p.stop()
}

func atoi(t *testing.T, s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(r-'0')
	}
	return n
}
