package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"strata/internal/mariadbtest"
)

// TestMariaDBReplicaFollows: a MariaDB 10.11 replica (Debian's
// mariadbd, started here) follows strata's binary log by file and
// position through sysbench oltp_read_write (prepared statements and
// text), DDL, rollbacks and savepoints, a kill -9 of strata in the middle
// of a run, a standby taking over the data directory on another port
// (acknowledged commits and accounts kept, the replica re-pointed at its
// executed position) and rotations past --max-binlog-size; it ends with
// the same per-table checksums as strata, and mariadb-binlog
// --read-from-remote-server decodes every event of every file.
func TestMariaDBReplicaFollows(t *testing.T) {
	for _, tool := range []string{"mariadb-binlog", "sysbench"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is required (.ci/run installs mariadb-client and sysbench)", tool)
		}
	}
	work := t.TempDir()
	dir := filepath.Join(work, "strata")
	port := freePort(t)
	args := []string{"--log-bin", "--server-id", "7", "--max-binlog-size", "256K"}
	p := startProc(t, dir, port, args...)
	_, rdb := startReplica(t, filepath.Join(work, "replica"))
	mustExec(t, rdb, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='', "+
		"MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1", port))
	mustExec(t, rdb, "START SLAVE")

	src := p.db("")
	mustExec(t, src, "CREATE DATABASE sbtest")
	sysbench(t, port, "sbtest", "oltp_read_write", "prepare")
	sysbench(t, port, "sbtest", "oltp_read_write", "run")
	sysbench(t, port, "sbtest", "oltp_read_write", "run", "--db-ps-mode=disable")
	// DDL, a rolled-back transaction, a savepoint and a failed statement
	// in the middle of the log.
	c := p.db("sbtest")
	for _, q := range []string{
		"CREATE TABLE extra (id INT PRIMARY KEY, v VARCHAR(20), d DECIMAL(8,3), at DATETIME(6))",
		"ALTER TABLE extra ADD COLUMN n INT NULL",
		"INSERT INTO extra VALUES (1, 'one', 1.5, '2024-01-02 03:04:05.678901', NULL), (2, NULL, -2.25, NULL, 7)",
		// a body with ';' goes as one statement; the CALL's changes as rows
		"CREATE PROCEDURE bump() BEGIN UPDATE extra SET n = n + 1 WHERE id = 2; UPDATE extra SET d = d * 2 WHERE id = 2; END",
		"CALL bump()",
	} {
		mustExec(t, c, q)
	}
	tx, err := c.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO extra (id) VALUES (3)", "SAVEPOINT s", "INSERT INTO extra (id) VALUES (4)",
		"ROLLBACK TO SAVEPOINT s", "UPDATE extra SET v = 'uno' WHERE id = 1"} {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx, _ = c.Begin()
	tx.Exec("DELETE FROM extra")
	tx.Rollback()
	if _, err := c.Exec("INSERT INTO extra (id) VALUES (1)"); err == nil {
		t.Fatal("duplicate key accepted")
	}
	// kill -9 in the middle of a run and of a stream of acknowledged
	// autocommits; the replica reconnects to the restarted server and its
	// new file.
	mustExec(t, c, "CREATE TABLE acks (id INT PRIMARY KEY)", "CREATE USER app@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON sbtest.* TO app@'%'")
	bench := exec.Command("sysbench", "oltp_read_write", "--mysql-host=127.0.0.1", fmt.Sprintf("--mysql-port=%d", port),
		"--mysql-user=root", "--mysql-db=sbtest", "--tables=2", "--table-size=5000", "--threads=8",
		"--rand-type=special", "--rand-spec-pct=15", "--time=20", "run")
	if err := bench.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []int
	ackDone := make(chan struct{})
	go func() {
		defer close(ackDone)
		for i := 1; ; i++ {
			if _, err := c.Exec("INSERT INTO acks VALUES (?)", i); err != nil {
				return
			}
			acked = append(acked, i)
		}
	}()
	time.Sleep(3 * time.Second)
	p.kill()
	bench.Wait()
	<-ackDone
	// Standby takeover (docs/OPERATIONS.md): a new process on the same
	// volumes, on another port standing for another host; the old one is
	// fenced (dead here; a live one holds the data directory's lock,
	// TestSecondServerOnDatadirIsRefused). Every acknowledged commit and
	// account is there, and the replica is pointed at it at the position
	// it had executed.
	port = freePort(t)
	p = startProc(t, dir, port, args...)
	c = p.db("sbtest")
	var lost int
	for _, id := range acked {
		var n int
		if err := c.QueryRow("SELECT COUNT(*) FROM acks WHERE id = ?", id).Scan(&n); err != nil || n != 1 {
			lost++
		}
	}
	if lost > 0 || len(acked) == 0 {
		t.Fatalf("takeover: %d of %d acknowledged commits lost", lost, len(acked))
	}
	if err := userDB(t, p, "app", "pw", "sbtest", false).Ping(); err != nil {
		t.Fatalf("takeover: account app: %v", err)
	}
	mustExec(t, rdb, "STOP SLAVE")
	st := replicaStatus(t, rdb)
	mustExec(t, rdb, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_LOG_FILE='%s', MASTER_LOG_POS=%s",
		port, st["Relay_Master_Log_File"], st["Exec_Master_Log_Pos"]))
	mustExec(t, rdb, "START SLAVE")
	t.Logf("takeover: %d acknowledged commits kept; replica resumes at %s:%s", len(acked), st["Relay_Master_Log_File"], st["Exec_Master_Log_Pos"])
	sysbench(t, port, "sbtest", "oltp_read_write", "run")
	mustExec(t, c, "CREATE TABLE copy1 AS SELECT id, k FROM sbtest1 WHERE id <= 100")
	mustExec(t, c, "DROP TABLE extra")
	mustExec(t, c, "CREATE TABLE after_kill (id INT PRIMARY KEY)")
	mustExec(t, c, "INSERT INTO after_kill VALUES (1), (2)")

	file, pos, gtids := masterStatus(t, c)
	waitReplica(t, rdb, file, pos)
	// SHOW SLAVE HOSTS lists the connected replica (server id 2).
	var sid, rport, master uint32
	var rhost string
	if err := c.QueryRow("SHOW SLAVE HOSTS").Scan(&sid, &rhost, &rport, &master); err != nil || sid != 2 || master != 7 {
		t.Fatalf("SHOW SLAVE HOSTS: server %d, master %d, %v", sid, master, err)
	}
	want := tableSums(t, c, []string{"sbtest1", "sbtest2"})
	rdb.Exec("USE sbtest")
	got := tableSums(t, rdb, []string{"sbtest1", "sbtest2"})
	var na, nr int
	c.QueryRow("SELECT COUNT(*) FROM acks").Scan(&na)
	rdb.QueryRow("SELECT COUNT(*) FROM acks").Scan(&nr)
	if na != nr || na < len(acked) {
		t.Fatalf("acks: %d on strata, %d on the replica, %d acknowledged", na, nr, len(acked))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replica differs:\n got %v\nwant %v", got, want)
	}
	var n int
	var copySum, wantCopy string
	if err := c.QueryRow("SELECT CONCAT(COUNT(*), '/', SUM(k)) FROM copy1").Scan(&wantCopy); err != nil {
		t.Fatal(err)
	}
	if err := rdb.QueryRow("SELECT CONCAT(COUNT(*), '/', SUM(k)) FROM copy1").Scan(&copySum); err != nil || copySum != wantCopy {
		t.Fatalf("CREATE TABLE ... SELECT on the replica: %s, %v; want %s", copySum, err, wantCopy)
	}
	if err := rdb.QueryRow("SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'sbtest' AND ROUTINE_NAME = 'bump'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("CREATE PROCEDURE not replicated: %d, %v", n, err)
	}
	if err := rdb.QueryRow("SELECT COUNT(*) FROM after_kill").Scan(&n); err != nil || n != 2 {
		t.Fatalf("after_kill on the replica: %d rows, %v", n, err)
	}
	if err := rdb.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name = 'extra'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("DROP TABLE extra not replicated: %d, %v", n, err)
	}
	t.Logf("replica at %s:%d, tables %v, GTIDs %s", file, pos, want, gtids)

	// Every file decodes, rotations included, to the current position.
	rows, err := c.Query("SHOW BINARY LOGS")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for rows.Next() {
		var name string
		var size uint64
		if err := rows.Scan(&name, &size); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
	}
	rows.Close()
	if len(files) < 3 {
		t.Fatalf("files %v: want a rotation past --max-binlog-size and one at the restart", files)
	}
	out, err := exec.Command("mariadb-binlog", "--skip-ssl", "--read-from-remote-server", "--to-last-log",
		"-h127.0.0.1", "-P"+strconv.Itoa(port), "-uroot", "-v", files[0]).CombinedOutput()
	if err != nil || strings.Contains(string(out), "ERROR") {
		t.Fatalf("mariadb-binlog: %v\n%s", err, tail(out))
	}
	last := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "# at ") {
			last = line
		}
	}
	if !strings.Contains(string(out), "### UPDATE `sbtest`.`sbtest1`") || !strings.Contains(string(out), "CREATE TABLE after_kill") {
		t.Fatalf("mariadb-binlog output lacks the row events or the DDL:\n%s", tail(out))
	}
	t.Logf("mariadb-binlog: %d bytes of output, last event %s", len(out), last)
	p.stop()
}

// waitReplica waits until the replica has executed up to file:pos, and
// fails on a replication error.
func waitReplica(t *testing.T, rdb *sql.DB, file string, pos uint64) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		st := replicaStatus(t, rdb)
		if st["Last_SQL_Errno"] != "0" || st["Last_IO_Errno"] != "0" && st["Slave_IO_Running"] != "Connecting" {
			t.Fatalf("replica error: SQL %s %s; IO %s %s", st["Last_SQL_Errno"], st["Last_SQL_Error"], st["Last_IO_Errno"], st["Last_IO_Error"])
		}
		if st["Relay_Master_Log_File"] == file && st["Exec_Master_Log_Pos"] == strconv.FormatUint(pos, 10) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica did not reach %s:%d: %v", file, pos, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func replicaStatus(t *testing.T, rdb *sql.DB) map[string]string {
	rows, err := rdb.Query("SHOW SLAVE STATUS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	st := map[string]string{}
	if rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			st[c] = vals[i].String
		}
	}
	return st
}

// TestBinlogPrivileges (binlog BL-5, server SRV-REPL-2/3): without
// REPLICATION CLIENT a user gets 1227 for SHOW MASTER STATUS and SHOW
// BINARY LOGS, without SUPER for PURGE, and without REPLICATION SLAVE its
// dump is refused (mariadb-binlog fails), while a user granted them reads
// the log; with the log off the statements answer as MySQL does.
func TestBinlogPrivileges(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	p := startProc(t, dir, port, "--log-bin")
	root := p.db("")
	mustExec(t, root, "CREATE DATABASE app", "CREATE TABLE app.t (id INT PRIMARY KEY)", "INSERT INTO app.t VALUES (1)",
		"CREATE USER plain@'%' IDENTIFIED BY 'pw'", "GRANT SELECT, INSERT ON app.* TO plain@'%'",
		"CREATE USER repl@'%' IDENTIFIED BY 'pw'", "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO repl@'%'")
	plain := userDB(t, p, "plain", "pw", "app", false)
	for _, q := range []string{"SHOW MASTER STATUS", "SHOW BINARY LOG STATUS", "SHOW BINARY LOGS", "SHOW SLAVE HOSTS", "PURGE BINARY LOGS TO 'binlog.000001'"} {
		_, err := plain.Exec(q)
		wantCode(t, "plain: "+q, err, 1227)
	}
	binlogAs := func(user string) ([]byte, error) {
		return exec.Command("mariadb-binlog", "--skip-ssl", "--read-from-remote-server", "-h127.0.0.1",
			"-P"+strconv.Itoa(port), "-u"+user, "-ppw", "-v", "binlog.000001").CombinedOutput()
	}
	// An online backup needs BACKUP_ADMIN (server SRV-CLONE).
	_, err := plain.Exec("CLONE LOCAL DATA DIRECTORY = '" + filepath.Join(dir, "clone-by-plain") + "'")
	wantCode(t, "plain: CLONE", err, 1227)
	if _, err := os.Stat(filepath.Join(dir, "clone-by-plain")); err == nil {
		t.Fatal("a refused CLONE wrote its directory")
	}
	if out, err := binlogAs("plain"); err == nil || !strings.Contains(string(out), "REPLICATION SLAVE") {
		t.Fatalf("plain read the log: %v\n%s", err, tail(out))
	}
	repl := userDB(t, p, "repl", "pw", "", false)
	if file, pos, _ := masterStatus(t, repl); file != "binlog.000001" || pos < 100 {
		t.Fatalf("repl: SHOW MASTER STATUS %s %d", file, pos)
	}
	_, err = repl.Exec("PURGE BINARY LOGS TO 'binlog.000001'")
	wantCode(t, "repl: PURGE", err, 1227)
	out, err := binlogAs("repl")
	if err != nil || !strings.Contains(string(out), "### INSERT INTO `app`.`t`") {
		t.Fatalf("repl could not read the log: %v\n%s", err, tail(out))
	}
	p.stop()

	// The log off: SHOW MASTER STATUS is empty, SHOW BINARY LOGS 1381.
	p = startProc(t, dir, port)
	root = p.db("")
	rows, err := root.Query("SHOW MASTER STATUS")
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Fatal("SHOW MASTER STATUS has a row with the log off")
	}
	rows.Close()
	_, err = root.Exec("SHOW BINARY LOGS")
	wantCode(t, "SHOW BINARY LOGS without the log", err, 1381)
	p.stop()
}

// TestReplicaSeededFromDump (binlog BL-9, server SRV-REPL-6): while
// writers insert and update, mariadb-dump --single-transaction
// --master-data=1 takes a snapshot and writes the log position it
// corresponds to; a MariaDB replica loads the dump, starts replicating
// from that position and ends equal to strata (a position too early
// replays rows the dump has: duplicate keys; too late loses changes).
func TestReplicaSeededFromDump(t *testing.T) {
	work := t.TempDir()
	port := freePort(t)
	p := startProc(t, filepath.Join(work, "strata"), port, "--log-bin")
	c := p.db("")
	// MariaDB 10.11 has no utf8mb4_0900_ai_ci (the dump names the collation)
	mustExec(t, c, "CREATE DATABASE app COLLATE utf8mb4_general_ci", "CREATE TABLE app.t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))")
	var vals []string
	for i := 1; i <= 20000; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 0, 'row %d')", i, i))
		if len(vals) == 1000 {
			mustExec(t, c, "INSERT INTO app.t VALUES "+strings.Join(vals, ","))
			vals = vals[:0]
		}
	}
	replica, rdb := startReplica(t, filepath.Join(work, "replica"))
	stop := make(chan struct{})
	writers := make(chan int, 3)
	for w := 0; w < 3; w++ {
		go func(w int) {
			n := 0
			defer func() { writers <- n }()
			wc := p.db("app")
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var err error
				if i%2 == 0 {
					_, err = wc.Exec("INSERT INTO t VALUES (?, ?, 'new')", 100000+w*1000000+i, i)
				} else {
					_, err = wc.Exec("UPDATE t SET n = n + 1 WHERE id = ?", 1+(i*7919+w)%20000)
				}
				if err != nil {
					t.Errorf("writer: %v", err)
					return
				}
				n++
			}
		}(w)
	}
	time.Sleep(300 * time.Millisecond)
	dump, err := exec.Command("mariadb-dump", "--skip-ssl", "-h127.0.0.1", "-P"+strconv.Itoa(port), "-uroot",
		"--single-transaction", "--master-data=1", "--databases", "app").Output()
	time.Sleep(300 * time.Millisecond)
	close(stop)
	total := 0
	for w := 0; w < 3; w++ {
		total += <-writers
	}
	if err != nil {
		t.Fatalf("mariadb-dump: %v", err)
	}
	if !strings.Contains(string(dump), "CHANGE MASTER TO MASTER_LOG_FILE='binlog.000001'") {
		t.Fatalf("the dump has no position:\n%s", tail(dump[:min(len(dump), 3000)]))
	}
	mustExec(t, rdb, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1", port))
	loadDump(t, replica.Addr, dump)
	mustExec(t, rdb, "START SLAVE")
	file, pos, _ := masterStatus(t, c)
	waitReplica(t, rdb, file, pos)
	sum := func(db *sql.DB) string {
		var s string
		if err := db.QueryRow("SELECT CONCAT(COUNT(*), '/', SUM(n), '/', BIT_XOR(CRC32(CONCAT_WS('#', id, n, s)))) FROM app.t").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if got, want := sum(rdb), sum(c); got != want {
		t.Fatalf("replica seeded from the dump: %s, strata %s", got, want)
	}
	t.Logf("%d writes during the dump; replica equal at %s:%d", total, file, pos)
	p.stop()
}

// TestBackupRestoreReplica (engine EN-12, server SRV-CLONE): `strata
// backup` of a server under sysbench oltp_write_only, `strata restore`,
// and a server started on the backup: its tables agree with their indexes,
// and a MariaDB replica loaded from it and started at the binary log
// position `strata restore` printed catches up with the primary and ends
// with the same checksums (a backup off its position would replay
// duplicates or miss changes).
func TestBackupRestoreReplica(t *testing.T) {
	work := t.TempDir()
	port := freePort(t)
	p := startProc(t, filepath.Join(work, "primary"), port, "--log-bin")
	// MariaDB 10.11 has no utf8mb4_0900_ai_ci (the dump names the collation)
	mustExec(t, p.db(""), "CREATE DATABASE sbtest COLLATE utf8mb4_general_ci")
	sysbench(t, port, "sbtest", "oltp_write_only", "prepare")
	bench := exec.Command("sysbench", "oltp_write_only", "--mysql-host=127.0.0.1", fmt.Sprintf("--mysql-port=%d", port),
		"--mysql-user=root", "--mysql-db=sbtest", "--tables=2", "--table-size=5000", "--threads=8",
		"--rand-type=special", "--rand-spec-pct=15", "--time=8", "run")
	out := &strings.Builder{}
	bench.Stdout = out
	if err := bench.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	dir := filepath.Join(work, "backup")
	if err := run([]string{"backup", "--to", dir, "--port", strconv.Itoa(port)}); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"backup", "--to", dir, "--port", strconv.Itoa(port)}); err == nil || !strings.Contains(err.Error(), "3862") {
		t.Fatalf("a second backup into the same directory: %v", err)
	}
	if err := bench.Wait(); err != nil {
		t.Fatalf("sysbench during the backup: %v\n%s", err, out)
	}
	if err := run([]string{"restore", dir}); err != nil {
		t.Fatal(err)
	}
	var prep struct {
		File string `json:"binlog_file"`
		Pos  uint64 `json:"binlog_position"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "restore.json"))
	if err != nil || json.Unmarshal(b, &prep) != nil || prep.File == "" {
		t.Fatalf("restore.json: %s, %v", b, err)
	}
	rport := freePort(t)
	r := startProc(t, dir, rport, "--log-bin")
	rc := r.db("sbtest")
	for _, tb := range []string{"sbtest1", "sbtest2"} {
		byPK := idsThrough(t, rc, fmt.Sprintf("SELECT id FROM %s WHERE id BETWEEN -2147483648 AND 2147483647", tb), tb+".id")
		byK := idsThrough(t, rc, fmt.Sprintf("SELECT id FROM %s WHERE k BETWEEN -2147483648 AND 2147483647", tb), tb+".k")
		if fmt.Sprint(byPK) != fmt.Sprint(byK) {
			t.Fatalf("restored %s: %d rows by primary key, %d by index k", tb, len(byPK), len(byK))
		}
	}
	replica, rdb := startReplica(t, filepath.Join(work, "replica"))
	dump, err := exec.Command("mariadb-dump", "--skip-ssl", "-h127.0.0.1", "-P"+strconv.Itoa(rport), "-uroot",
		"--single-transaction", "--databases", "sbtest").Output()
	if err != nil {
		t.Fatalf("mariadb-dump of the restored server: %v", err)
	}
	loadDump(t, replica.Addr, dump)
	mustExec(t, rdb, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='', "+
		"MASTER_LOG_FILE='%s', MASTER_LOG_POS=%d, MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1", port, prep.File, prep.Pos), "START SLAVE")
	c := p.db("sbtest")
	file, pos, _ := masterStatus(t, c)
	waitReplica(t, rdb, file, pos)
	want := tableSums(t, c, []string{"sbtest1", "sbtest2"})
	rdb.Exec("USE sbtest")
	if got := tableSums(t, rdb, []string{"sbtest1", "sbtest2"}); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replica from the backup: %v, primary %v", got, want)
	}
	t.Logf("backup at %s:%d; replica from it caught up to %s:%d; %v", prep.File, prep.Pos, file, pos, want)
	r.stop()
	p.stop()
}

// startReplica starts a MariaDB 10.11 replica (server id 2) under dir and
// a one-connection client to it (USE and the replica's SHOW statements
// stay on one session); both end with the test.
func startReplica(t *testing.T, dir string) (*mariadbtest.Server, *sql.DB) {
	t.Helper()
	replica, err := mariadbtest.Start(dir, "--server-id=2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(replica.Stop)
	rdb, err := sql.Open("mysql", "root@tcp("+replica.Addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	rdb.SetMaxOpenConns(1)
	return replica, rdb
}

// loadDump runs a dump through the mariadb client against addr.
func loadDump(t *testing.T, addr string, dump []byte) {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	load := exec.Command("mariadb", "-h"+host, "-P"+port, "-uroot")
	load.Stdin = bytes.NewReader(dump)
	if out, err := load.CombinedOutput(); err != nil {
		t.Fatalf("loading a dump into %s: %v\n%s\n%s", addr, err, out, tail(dump[:min(len(dump), 4000)]))
	}
}

// masterStatus is SHOW MASTER STATUS's file, position and executed GTIDs.
func masterStatus(t *testing.T, c *sql.DB) (string, uint64, string) {
	t.Helper()
	var file, doDB, ignoreDB, gtids string
	var pos uint64
	if err := c.QueryRow("SHOW MASTER STATUS").Scan(&file, &pos, &doDB, &ignoreDB, &gtids); err != nil {
		t.Fatal(err)
	}
	return file, pos, gtids
}

// TestDDLFromProceduresReplicated (rules RULE-78, backend CAT-7): DDL a
// client does not send itself reaches a MariaDB replica: CREATE TABLE in a
// stored procedure, the migration idiom of a procedure that PREPAREs an
// ALTER TABLE from a user variable and EXECUTEs it, a top-level PREPARE /
// EXECUTE of a CREATE INDEX, a procedure's DROP TABLE IF EXISTS of nothing,
// a CREATE TABLE undone because its FOREIGN KEY fails, two CREATE TABLEs
// in one multi-statement text and one sent as a prepared statement. The replica
// applies every later row change with no error and ends with the
// primary's columns, indexes and checksums.
func TestDDLFromProceduresReplicated(t *testing.T) {
	work := t.TempDir()
	port := freePort(t)
	p := startProc(t, filepath.Join(work, "strata"), port, "--log-bin")
	_, rdb := startReplica(t, filepath.Join(work, "replica"))
	mustExec(t, rdb, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1, MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4", port), "START SLAVE")
	c := p.db("")
	c.SetMaxOpenConns(1) // user variables and prepared statements are the session's
	mustExec(t, c,
		"CREATE DATABASE app COLLATE utf8mb4_general_ci", "USE app",
		"CREATE PROCEDURE setup() BEGIN CREATE TABLE made (id INT PRIMARY KEY, v INT); INSERT INTO made VALUES (1, 10), (2, 20); DROP TABLE IF EXISTS nosuch; END",
		"CALL setup()",
		"CREATE PROCEDURE migrate() BEGIN SET @s = 'ALTER TABLE made ADD COLUMN w VARCHAR(10)'; PREPARE st FROM @s; EXECUTE st; DEALLOCATE PREPARE st; UPDATE made SET w = CONCAT('w', v); END",
		"CALL migrate()",
		"PREPARE ix FROM 'CREATE INDEX made_w ON made (w)'",
		"EXECUTE ix",
		"INSERT INTO made VALUES (3, 30, 'x')",
		"CREATE TABLE parent (id INT PRIMARY KEY)",
	)
	if _, err := c.Exec("CREATE TABLE child (id INT PRIMARY KEY, p VARCHAR(10), FOREIGN KEY (p) REFERENCES parent (id))"); err == nil {
		t.Fatal("a FOREIGN KEY between INT and VARCHAR was accepted")
	}
	mustExec(t, c, "CREATE TABLE child (id INT PRIMARY KEY, p INT)", "INSERT INTO child VALUES (1, 1)")
	// Several statements in one text (each a statement of its own), and a
	// CREATE TABLE sent as a prepared statement (JDBC's server-side
	// prepares).
	multi, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/app?multiStatements=true", port))
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	mustExec(t, multi, "CREATE TABLE m1 (id INT PRIMARY KEY); CREATE TABLE m2 (id INT PRIMARY KEY, v INT, KEY (v)); INSERT INTO m2 VALUES (1, 2), (2, 3)")
	var stmts []*sql.Stmt // both prepared, then both run
	for _, q := range []string{"CREATE TABLE p1 (id INT PRIMARY KEY, v INT, KEY (v))", "CREATE TABLE p2 (id INT PRIMARY KEY)"} {
		st, err := c.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stmts = append(stmts, st)
	}
	for _, st := range stmts {
		if _, err := st.Exec(); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(t, c, "INSERT INTO p1 SELECT id, v FROM m2", "INSERT INTO m1 VALUES (7)")
	file, pos, _ := masterStatus(t, c)
	waitReplica(t, rdb, file, pos)
	for _, q := range []string{
		"SELECT CONCAT(COUNT(*), '/', BIT_XOR(CRC32(CONCAT_WS('#', id, v, w)))) FROM app.made",
		"SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'app' AND TABLE_NAME = 'made'",
		"SELECT GROUP_CONCAT(DISTINCT INDEX_NAME ORDER BY INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'app' AND TABLE_NAME = 'made'",
		"SELECT GROUP_CONCAT(TABLE_NAME ORDER BY TABLE_NAME) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'app'",
		"SELECT CONCAT(COUNT(*), '/', SUM(p)) FROM app.child",
		"SELECT CONCAT(COUNT(*), '/', SUM(v)) FROM app.p1",
		"SELECT CONCAT(COUNT(*), '/', SUM(id)) FROM app.m1",
	} {
		var got, want string
		if err := rdb.QueryRow(q).Scan(&got); err != nil {
			t.Fatalf("replica: %s: %v", q, err)
		}
		if err := c.QueryRow(q).Scan(&want); err != nil {
			t.Fatalf("strata: %s: %v", q, err)
		}
		if got != want {
			t.Errorf("%s: replica %q, strata %q", q, got, want)
		}
	}
	p.stop()
}
