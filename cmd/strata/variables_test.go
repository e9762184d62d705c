package main

import (
	"database/sql"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestServerVariablesAndLimits: the variables that describe the server
// tell the truth, and max_connections (1040) and max_allowed_packet (1153)
// are enforced, with the server serving on.
func TestServerVariablesAndLimits(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir, freePort(t))
	root := p.db("")
	root.SetMaxOpenConns(1)
	var port int
	var datadir, version, fn, comment, bind string
	if err := root.QueryRow("SELECT @@port, @@datadir, @@version, VERSION(), @@version_comment, @@bind_address").
		Scan(&port, &datadir, &version, &fn, &comment, &bind); err != nil {
		t.Fatal(err)
	}
	if port != p.port || !strings.HasPrefix(datadir, dir) || version != fn || !strings.Contains(version, "strata") ||
		comment != "Strata" || bind != "127.0.0.1" {
		t.Fatalf("@@port %d (listening on %d), @@datadir %q (%s), @@version %q, VERSION() %q, comment %q, bind %q",
			port, p.port, datadir, dir, version, fn, comment, bind)
	}
	uptime := func() int {
		var name string
		var n int
		if err := root.QueryRow("SHOW GLOBAL STATUS LIKE 'Uptime'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	u0 := uptime()
	time.Sleep(1100 * time.Millisecond)
	if u1 := uptime(); u1 <= u0 {
		t.Fatalf("Uptime %d then %d a second later", u0, u1)
	}

	// max_connections: the root connection plus two more fit in 3.
	mustExec(t, root, "SET GLOBAL max_connections = 3")
	var held []*sql.DB
	for i := 0; i < 2; i++ {
		c := p.db("")
		if err := c.Ping(); err != nil {
			t.Fatalf("connection %d of 3: %v", i+2, err)
		}
		held = append(held, c)
	}
	_, err := p.db("").Conn(t.Context())
	wantCode(t, "a 4th connection under max_connections = 3", err, 1040)
	held[0].Close()
	if err := waitPing(p.db("")); err != nil {
		t.Fatalf("a connection after one closed: %v", err)
	}
	mustExec(t, root, "SET GLOBAL max_connections = 151")

	// max_allowed_packet: a longer statement is refused, the connection
	// and the server go on.
	mustExec(t, root, "SET GLOBAL max_allowed_packet = 1048576")
	big := "SELECT '" + strings.Repeat("x", 2<<20) + "'"
	_, err = root.Exec(big)
	wantCode(t, "a 2 MiB statement under max_allowed_packet = 1 MiB", err, 1153)
	var one int
	if err := root.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after the refused packet: %v", err)
	}
}

// waitPing pings until the server has seen the closed connection go.
func waitPing(c *sql.DB) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = c.Ping(); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// TestStartupSystemVariables: system variables given on the command line
// as mysqld takes them (SRV-STARTVARS): --character-set-server brings its
// default collation, which new databases and their tables take; both the
// --name=value and the --name value forms; a strata flag's value is not
// mistaken for an option.
func TestStartupSystemVariables(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir, freePort(t), "--character-set-server=latin1", "--max-connections", "77", "--sync-commit=false")
	root := p.db("")
	var cs, coll string
	var maxConn int
	if err := root.QueryRow("SELECT @@character_set_server, @@collation_server, @@max_connections").Scan(&cs, &coll, &maxConn); err != nil {
		t.Fatal(err)
	}
	if cs != "latin1" || coll != "latin1_swedish_ci" || maxConn != 77 {
		t.Fatalf("character_set_server %q, collation_server %q, max_connections %d", cs, coll, maxConn)
	}
	mustExec(t, root, "CREATE DATABASE d1")
	mustExec(t, root, "CREATE TABLE d1.t (a VARCHAR(10))")
	var name, create string
	if err := root.QueryRow("SHOW CREATE TABLE d1.t").Scan(&name, &create); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(create, "DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci") {
		t.Fatalf("a table of a database created under --character-set-server=latin1:\n%s", create)
	}

	for _, bad := range [][]string{{"--character-set-server=nope"}, {"--no-such-option=1"}} {
		args := append([]string{"--datadir", t.TempDir(), "--port", fmt.Sprint(freePort(t)), "--metrics-addr", ""}, bad...)
		if err := run(args); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(strings.Split(bad[0], "=")[0], "-")) {
			t.Fatalf("strata %v: %v", bad, err)
		}
	}
}

func TestSystemVariableArgs(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("datadir", "", "")
	fs.Bool("sync-commit", true, "")
	rest, vars, err := systemVariableArgs(fs, []string{"--datadir", "/x", "--sql-mode=ANSI", "--sync-commit",
		"--max_connections", "9", "-datadir=/y", "--nope"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rest, " "); got != "--datadir /x --sync-commit -datadir=/y --nope" {
		t.Fatalf("flags left for the flag set: %q", got)
	}
	if len(vars) != 2 || vars["sql-mode"] != "ANSI" || vars["max_connections"] != "9" {
		t.Fatalf("system variables: %v", vars)
	}
	if _, _, err := systemVariableArgs(fs, []string{"--sql-mode"}); err == nil {
		t.Fatal("--sql-mode without a value accepted")
	}
}
