package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// These tests run the real binary and drive it with sysbench 1.0 from
// Debian and go-sql-driver/mysql over TCP (.ci/run installs sysbench).

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func strataBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "strata-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "strata")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

type proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	port int
	log  *bytes.Buffer
}

func startProc(t *testing.T, dir string, port int, extra ...string) *proc {
	t.Helper()
	args := append([]string{"--datadir", dir, "--port", fmt.Sprint(port), "--metrics-addr", "",
		"--buffer-pool-size", "64M", "--log-capacity", "64M"}, extra...)
	cmd := exec.Command(strataBinary(t), args...)
	log := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, port: port, log: log}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *proc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		p.t.Fatalf("clean shutdown failed: %v\n%s", err, p.log)
	}
}

func (p *proc) kill() {
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

func (p *proc) db(name string) *sql.DB {
	c, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/%s", p.port, name))
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { c.Close() })
	return c
}

func sysbench(t *testing.T, port int, db, workload, phase string, extra ...string) string {
	t.Helper()
	if _, err := exec.LookPath("sysbench"); err != nil {
		t.Fatal("sysbench is required (apt-get install sysbench; .ci/run installs it)")
	}
	args := append([]string{workload, "--mysql-host=127.0.0.1", fmt.Sprintf("--mysql-port=%d", port),
		"--mysql-user=root", "--mysql-db=" + db, "--tables=2", "--table-size=5000", "--threads=16",
		"--rand-type=special", "--rand-spec-pct=15", "--time=3", "--db-ps-mode=auto"}, extra...)
	out, err := exec.Command("sysbench", append(args, phase)...).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("FATAL")) {
		t.Fatalf("sysbench %s %s: %v\n%s", workload, phase, err, tail(out))
	}
	return string(out)
}

func tail(b []byte) string {
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

var txRE = regexp.MustCompile(`transactions:\s+(\d+)`)

// tableSums returns, per table, the row count and an order-independent
// checksum of every column.
func tableSums(t *testing.T, c *sql.DB, tables []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range tables {
		var n, sum int64
		q := fmt.Sprintf("SELECT COUNT(*), COALESCE(BIT_XOR(CRC32(CONCAT_WS('#', id, k, c, pad))), 0) FROM %s", tb)
		if err := c.QueryRow(q).Scan(&n, &sum); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out[tb] = fmt.Sprintf("%d rows, crc %d", n, sum)
	}
	return out
}

// TestSysbenchWorkloads runs prepare, run and cleanup of every sysbench
// OLTP workload with 16 threads on the special distribution: no errors
// but retried deadlocks, and the data is the same after a restart.
func TestSysbenchWorkloads(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	p := startProc(t, dir, port)
	admin := p.db("")
	for _, db := range []string{"sbtest", "sbbulk"} {
		if _, err := admin.Exec("CREATE DATABASE " + db); err != nil {
			t.Fatal(err)
		}
	}
	workloads := []string{"oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_update_index",
		"oltp_update_non_index", "oltp_insert", "oltp_delete", "oltp_read_write"}
	for _, w := range workloads {
		sysbench(t, port, "sbtest", w, "prepare")
		out := sysbench(t, port, "sbtest", w, "run")
		m := txRE.FindStringSubmatch(out)
		if m == nil || m[1] == "0" {
			t.Fatalf("%s: no transactions:\n%s", w, out)
		}
		t.Logf("%s: %s transactions in 3 s", w, m[1])
		if w == "oltp_read_write" {
			break // cleaned up after the restart check
		}
		sysbench(t, port, "sbtest", w, "cleanup")
	}
	sysbench(t, port, "sbbulk", "bulk_insert", "prepare")
	sysbench(t, port, "sbbulk", "bulk_insert", "run")
	sysbench(t, port, "sbbulk", "bulk_insert", "cleanup")

	tables := []string{"sbtest1", "sbtest2"}
	before := tableSums(t, p.db("sbtest"), tables)
	p.stop()
	p = startProc(t, dir, port)
	after := tableSums(t, p.db("sbtest"), tables)
	for _, tb := range tables {
		if before[tb] != after[tb] {
			t.Errorf("%s changed across restart: %s -> %s", tb, before[tb], after[tb])
		}
	}
	t.Logf("across restart: %v", after)
	sysbench(t, port, "sbtest", "oltp_read_write", "cleanup")
	p.stop()
}

// idsThrough returns the ids of table read through the index the plan of
// q uses, failing if the plan does not use index.
func idsThrough(t *testing.T, c *sql.DB, q, index string) []int64 {
	t.Helper()
	var plan strings.Builder
	rows, err := c.Query("EXPLAIN FORMAT=TREE " + q)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		rows.Scan(&line)
		plan.WriteString(line + "\n")
	}
	rows.Close()
	if !strings.Contains(plan.String(), "index: ["+index+"]") {
		t.Fatalf("%s does not read through %s:\n%s", q, index, plan.String())
	}
	rows, err = c.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// TestKillDuringWriteOnly kills the server with SIGKILL in the middle of
// oltp_write_only; after restart every table's primary key and secondary
// index hold the same rows.
func TestKillDuringWriteOnly(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	p := startProc(t, dir, port)
	if _, err := p.db("").Exec("CREATE DATABASE sbtest"); err != nil {
		t.Fatal(err)
	}
	sysbench(t, port, "sbtest", "oltp_write_only", "prepare")
	for round := 0; round < 2; round++ {
		bench := exec.Command("sysbench", "oltp_write_only", "--mysql-host=127.0.0.1", fmt.Sprintf("--mysql-port=%d", port),
			"--mysql-user=root", "--mysql-db=sbtest", "--tables=2", "--table-size=5000", "--threads=16",
			"--rand-type=special", "--rand-spec-pct=15", "--time=30", "run")
		if err := bench.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		p.kill()
		bench.Wait() // fails: its server is gone
		p = startProc(t, dir, port)
		c := p.db("sbtest")
		for _, tb := range []string{"sbtest1", "sbtest2"} {
			byPK := idsThrough(t, c, fmt.Sprintf("SELECT id FROM %s WHERE id BETWEEN -2147483648 AND 2147483647", tb), tb+".id")
			byK := idsThrough(t, c, fmt.Sprintf("SELECT id FROM %s WHERE k BETWEEN -2147483648 AND 2147483647", tb), tb+".k")
			if len(byPK) < 4000 || fmt.Sprint(byPK) != fmt.Sprint(byK) {
				t.Fatalf("round %d %s: %d rows by primary key, %d by index k", round, tb, len(byPK), len(byK))
			}
			t.Logf("round %d %s: %d rows through both indexes", round, tb, len(byPK))
		}
	}
	p.stop()
}
