package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestTLS: a fresh server offers TLS with a certificate it generated into
// the data directory, which a client verifying against DATADIR/ca.pem
// accepts (the mariadb CLI and go-sql-driver); Ssl_cipher says the
// cipher; with --require-secure-transport a plaintext client cannot log
// in (3159); the certificate is reused at the next start (auth AUTH-9/10).
func TestTLS(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir, freePort(t), "--require-secure-transport")
	caPEM, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.pem holds no certificate")
	}
	if err := mysql.RegisterTLSConfig("strata-test", &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	secure, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/?tls=strata-test", p.port))
	if err != nil {
		t.Fatal(err)
	}
	defer secure.Close()
	var name, cipher string
	if err := secure.QueryRow("SHOW STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil || cipher == "" {
		t.Fatalf("verified TLS connection: Ssl_cipher %q, %v", cipher, err)
	}
	wantCode(t, "plaintext login with require_secure_transport", p.db("").Ping(), 3159)

	out, err := exec.Command("mariadb", "--no-defaults", "--protocol=tcp", "-h127.0.0.1", fmt.Sprintf("-P%d", p.port), "-uroot",
		"--ssl", "--ssl-ca="+filepath.Join(dir, "ca.pem"), "--ssl-verify-server-cert", "-N", "-B",
		"-e", "SHOW STATUS LIKE 'Ssl_cipher'").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Ssl_cipher\t") || strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "Ssl_cipher")) == "" {
		t.Fatalf("mariadb --ssl-verify-server-cert: %v\n%s", err, out)
	}
	out, err = exec.Command("mariadb", "--no-defaults", "--protocol=tcp", "-h127.0.0.1", fmt.Sprintf("-P%d", p.port), "-uroot",
		"--skip-ssl", "-e", "SELECT 1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "3159") {
		t.Fatalf("mariadb --skip-ssl under require_secure_transport: %v\n%s", err, out)
	}

	cert, _ := os.ReadFile(filepath.Join(dir, "server-cert.pem"))
	p.stop()
	p = startProc(t, dir, freePort(t))
	again, _ := os.ReadFile(filepath.Join(dir, "server-cert.pem"))
	if len(cert) == 0 || !bytes.Equal(cert, again) {
		t.Fatal("the generated certificate was not reused at restart")
	}
	if err := p.db("").Ping(); err != nil {
		t.Fatalf("plaintext without --require-secure-transport: %v", err)
	}
}
