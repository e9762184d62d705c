// Package mariadbtest starts private MariaDB 10.11 servers for tests: the
// reference of the differential tests and the replicas of the binary log's.
// It is test support only; nothing in the server imports it.
package mariadbtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

// mariadbd and mariadb-install-db: looked up on PATH, then in the Debian
// package's locations.
func findBinary(name string, dirs ...string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Server is a private MariaDB server started for a test.
type Server struct {
	dir  string
	cmd  *exec.Cmd
	Addr string // host:port
	done chan error
}

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Start initialises a data directory under dir and starts mariadbd on a
// free port with the differential tests' settings plus extra options,
// waiting until it answers.
func Start(dir string, extra ...string) (*Server, error) {
	mysqld := findBinary("mariadbd", "/usr/sbin", "/usr/libexec", "/usr/local/sbin")
	installDB := findBinary("mariadb-install-db", "/usr/bin", "/usr/local/bin", "/usr/sbin")
	if mysqld == "" || installDB == "" {
		return nil, errors.New("mariadbd / mariadb-install-db not found: the test needs " +
			"MariaDB 10.11 (apt-get install mariadb-server; .ci/run installs it)")
	}
	data := filepath.Join(dir, "data")
	install := exec.Command(installDB, "--no-defaults", "--datadir="+data, "--user="+currentUser(),
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve")
	if out, err := install.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}
	// The port is picked before mariadbd binds it: another process may take
	// it in between, so a start that fails on the address is retried.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		m, err := launch(mysqld, data, dir, extra)
		if err == nil {
			return m, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	return nil, lastErr
}

// launch starts mariadbd on data and waits until it answers.
func launch(mysqld, data, dir string, extra []string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(dir, "mariadbd.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	args := []string{"--no-defaults",
		"--datadir=" + data,
		fmt.Sprintf("--port=%d", port),
		"--socket=" + filepath.Join(dir, "sock"),
		"--pid-file=" + filepath.Join(dir, "mariadbd.pid"),
		"--bind-address=127.0.0.1",
		"--user=" + currentUser(),
		"--skip-log-bin",
		"--skip-name-resolve",
		// MySQL 8's defaults where MariaDB's differ; utf8mb4_general_ci is
		// MariaDB 10.11's closest to MySQL 8's utf8mb4_0900_ai_ci (both
		// case- and accent-insensitive).
		"--character-set-server=utf8mb4",
		"--collation-server=utf8mb4_general_ci",
		"--explicit-defaults-for-timestamp=ON",
		"--default-time-zone=+00:00",
		// Speed: the data directory is thrown away.
		"--innodb-buffer-pool-size=64M",
		"--innodb-log-file-size=16M",
		"--innodb-flush-log-at-trx-commit=0",
		"--innodb-doublewrite=0",
		"--innodb-lock-wait-timeout=2",
		"--loose-innodb-flush-method=O_DIRECT_NO_FSYNC",
		"--skip-innodb-adaptive-hash-index",
	}
	cmd := exec.Command(mysqld, append(args, extra...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start mariadbd: %w", err)
	}
	m := &Server{dir: dir, cmd: cmd, Addr: fmt.Sprintf("127.0.0.1:%d", port), done: make(chan error, 1)}
	go func() { m.done <- cmd.Wait(); logf.Close() }()
	db, err := sql.Open("mysql", "root@tcp("+m.Addr+")/")
	if err != nil {
		m.Stop()
		return nil, err
	}
	defer db.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = db.PingContext(ctx)
		cancel()
		if err == nil {
			return m, nil
		}
		select {
		case werr := <-m.done:
			m.done <- werr
			log, _ := os.ReadFile(filepath.Join(dir, "mariadbd.log"))
			return nil, fmt.Errorf("mariadbd exited (%v):\n%s", werr, tail(string(log), 3000))
		default:
		}
		if time.Now().After(deadline) {
			m.Stop()
			log, _ := os.ReadFile(filepath.Join(dir, "mariadbd.log"))
			return nil, fmt.Errorf("mariadbd did not answer within 60s (%v):\n%s", err, tail(string(log), 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop shuts the server down.
func (m *Server) Stop() {
	if m == nil || m.cmd.Process == nil {
		return
	}
	m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(20 * time.Second):
		m.cmd.Process.Kill()
		<-m.done
	}
}

func currentUser() string {
	if os.Geteuid() == 0 {
		return "root"
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return fmt.Sprint(os.Geteuid())
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
