package main

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// TestPythonClients runs testdata/clients (pytest) with PyMySQL and
// SQLAlchemy in their default modes against the real binary (.ci/run
// installs them).
func TestPythonClients(t *testing.T) {
	if err := exec.Command("python3", "-c", "import pymysql, sqlalchemy, pytest").Run(); err != nil {
		t.Fatal("python3 with pymysql, sqlalchemy and pytest is required (pip install pymysql sqlalchemy pytest; .ci/run installs them)")
	}
	port := freePort(t)
	p := startProc(t, t.TempDir(), port)
	if _, err := p.db("").Exec("CREATE DATABASE py"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "testdata/clients")
	cmd.Env = append(os.Environ(), "STRATA_PORT="+itoa(port))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("pytest: %v", err)
	}
	p.stop()
}

// TestPyMySQLTransactionSurvivesKill: a PyMySQL transaction (autocommit
// off by default) is all or nothing across kill -9: committed transfers
// are all there, the one in flight is not.
func TestPyMySQLTransactionSurvivesKill(t *testing.T) {
	if err := exec.Command("python3", "-c", "import pymysql").Run(); err != nil {
		t.Fatal("python3 with pymysql is required (.ci/run installs it)")
	}
	dir := t.TempDir()
	port := freePort(t)
	p := startProc(t, dir, port)
	if _, err := p.db("").Exec("CREATE DATABASE py"); err != nil {
		t.Fatal(err)
	}
	script := `
import os, sys, pymysql
c = pymysql.connect(host="127.0.0.1", port=int(os.environ["STRATA_PORT"]), user="root", database="py")
cur = c.cursor()
cur.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal INT)")
cur.execute("INSERT INTO acct VALUES (1, 1000), (2, 1000)")
c.commit()
for i in range(20):
    cur.execute("UPDATE acct SET bal = bal - 1 WHERE id = 1")
    cur.execute("UPDATE acct SET bal = bal + 1 WHERE id = 2")
    c.commit()
cur.execute("UPDATE acct SET bal = bal - 500 WHERE id = 1")
print("half", flush=True)
sys.stdin.readline()
`
	cmd := exec.Command("python3", "-c", script)
	cmd.Env = append(os.Environ(), "STRATA_PORT="+itoa(port))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := stdout.Read(buf); err != nil || string(buf[:4]) != "half" {
		t.Fatalf("client did not reach the half-done transaction: %q %v", buf, err)
	}
	p.kill()
	stdin.Close()
	cmd.Wait()
	time.Sleep(100 * time.Millisecond)
	p = startProc(t, dir, port)
	rows := queryPairs(t, p, "SELECT id, bal FROM py.acct ORDER BY id")
	if rows != "1=980 2=1020" {
		t.Fatalf("after kill -9: %s, want 1=980 2=1020", rows)
	}
	p.stop()
}

func queryPairs(t *testing.T, p *proc, q string) string {
	t.Helper()
	rows, err := p.db("").Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	s := ""
	for rows.Next() {
		var a, b int
		if err := rows.Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		if s != "" {
			s += " "
		}
		s += itoa(a) + "=" + itoa(b)
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
