package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestRunawayStatementsUnderMemoryBudget runs statements whose memory
// grows without end against the binary under a 320 MiB budget (memgov
// MEM-1..4, rules RULE-19/22): each fails with MySQL's error
// instead of the process being killed, its changes are rolled back, the
// server keeps serving, and its peak RSS stays near the budget.
func TestRunawayStatementsUnderMemoryBudget(t *testing.T) {
	const budget = 320 << 20
	p := startProc(t, t.TempDir(), freePort(t), "--memory-budget", "320M")
	c := p.db("")
	c.SetMaxOpenConns(1)
	for _, q := range []string{"CREATE DATABASE m", "USE m", "CREATE TABLE t (a INT PRIMARY KEY)", "CREATE TABLE t2 (a INT)"} {
		if _, err := c.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var vals []string
	for i := 0; i < 200; i++ {
		vals = append(vals, fmt.Sprintf("(%d)", i))
	}
	if _, err := c.Exec("INSERT INTO t VALUES " + strings.Join(vals, ",")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q     string
		codes []uint16
	}{
		// (8M rows inserted into another table are no longer runaway: the
		// write set spills and the transaction commits, engine EN-9;
		// bigtxn_test.go.)
		// 8M groups held by the grouping operator (RULE-22).
		{"SELECT A.a, B.a, C.a, COUNT(*) FROM t A, t B, t C, t D GROUP BY A.a, B.a, C.a", []uint16{1041}},
		// A sort of 1.6G rows.
		{"SELECT A.a, B.a, C.a, D.a FROM t A, t B, t C, t D ORDER BY A.a + B.a * 7 + C.a * 13 + D.a * 17", []uint16{1041}},
		// The Halloween insert reads its own table first (RULE-19).
		{"INSERT INTO t (a) SELECT A.a + 1000 * (B.a + 1000 * C.a) + 1000000000 FROM t A, t B, t C", []uint16{1041, 1114, 1206}},
	} {
		err := drain(c, tc.q)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || !containsCode(tc.codes, me.Number) {
			t.Fatalf("%s: %v, want one of errors %v", tc.q, err, tc.codes)
		}
		t.Logf("%s: %v (peak RSS so far %d MiB)", tc.q, err, peakRSS(t, p.cmd.Process.Pid)>>20)
		var n int
		if err := c.QueryRow("SELECT (SELECT COUNT(*) FROM t) + (SELECT COUNT(*) FROM t2)").Scan(&n); err != nil || n != 200 {
			t.Fatalf("after %q: %d rows, %v; want the 200 rows before it", tc.q, n, err)
		}
	}
	var name string
	var refusals, gotBudget int64
	if err := c.QueryRow("SHOW GLOBAL STATUS LIKE 'Strata_memory_refusals'").Scan(&name, &refusals); err != nil || refusals == 0 {
		t.Fatalf("Strata_memory_refusals = %d, %v", refusals, err)
	}
	if err := c.QueryRow("SHOW GLOBAL STATUS LIKE 'Strata_memory_budget_bytes'").Scan(&name, &gotBudget); err != nil || gotBudget != budget {
		t.Fatalf("Strata_memory_budget_bytes = %d, %v", gotBudget, err)
	}
	hwm := peakRSS(t, p.cmd.Process.Pid)
	t.Logf("peak RSS %d MiB under a %d MiB budget; %d refusals", hwm>>20, budget>>20, refusals)
	if hwm > budget*5/4 {
		t.Fatalf("peak RSS %d MiB, more than 5/4 of the %d MiB budget", hwm>>20, budget>>20)
	}
}

// drain runs a query and reads all of its rows; the error is the query's.
func drain(c *sql.DB, q string) error {
	rows, err := c.Query(q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

func containsCode(codes []uint16, c uint16) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}

// peakRSS is the process's peak resident set (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}
