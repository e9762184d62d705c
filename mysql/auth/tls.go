package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// AUTH-9 TLS is always offered. With --ssl-cert and --ssl-key the server
// uses them; otherwise it uses DATADIR/server-cert.pem and server-key.pem,
// signed by DATADIR/ca.pem, generated at first start and reused (MySQL 8's
// auto-generated certificates), so `mariadb --ssl-ca=DATADIR/ca.pem
// --ssl-verify-server-cert` works against a fresh server. The minimum
// version is --tls-min-version (default TLS 1.2). ssl_ca, ssl_cert, ssl_key,
// have_ssl and tls_version show what is in use; the session status
// Ssl_cipher and Ssl_version show each connection's.
//
// AUTH-10 With require_secure_transport (--require-secure-transport, or SET
// GLOBAL) a TCP connection without TLS is refused during authentication
// with 3159, before it can run any statement (the wire library writes an
// error but would carry on).

// TLSConfig says where the server's certificates come from.
type TLSConfig struct {
	Dir        string // the data directory (generated files)
	Cert, Key  string // --ssl-cert, --ssl-key (both or neither)
	CA         string // --ssl-ca (shown in ssl_ca; verifies client certificates given)
	MinVersion string // "1.2" (default) or "1.3"
	Hosts      []string
}

// LoadTLS returns the listener's TLS configuration (AUTH-9).
func LoadTLS(c TLSConfig) (*tls.Config, error) {
	var minVersion uint16
	tlsVersions := "TLSv1.2,TLSv1.3"
	switch c.MinVersion {
	case "", "1.2", "TLSv1.2":
		minVersion = tls.VersionTLS12
	case "1.3", "TLSv1.3":
		minVersion, tlsVersions = tls.VersionTLS13, "TLSv1.3"
	default:
		return nil, fmt.Errorf("--tls-min-version %q: want 1.2 or 1.3", c.MinVersion)
	}
	if (c.Cert == "") != (c.Key == "") {
		return nil, errors.New("--ssl-cert and --ssl-key go together")
	}
	if c.Cert == "" {
		var err error
		if c.Cert, c.Key, c.CA, err = generated(c.Dir, c.CA, c.Hosts); err != nil {
			return nil, fmt.Errorf("TLS certificates in %s: %w", c.Dir, err)
		}
	}
	pair, err := tls.LoadX509KeyPair(c.Cert, c.Key)
	if err != nil {
		return nil, fmt.Errorf("TLS: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: minVersion}
	if c.CA != "" {
		pemBytes, err := os.ReadFile(c.CA)
		if err != nil {
			return nil, fmt.Errorf("--ssl-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pemBytes) {
			return nil, fmt.Errorf("--ssl-ca %s: no certificate", c.CA)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.VerifyClientCertIfGiven
	}
	if _, _, ok := sql.SystemVariables.GetGlobal("have_ssl"); !ok {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
			Name: "have_ssl", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global),
			Type: types.NewSystemStringType("have_ssl"), Default: "YES",
		}})
	}
	if err := sql.SystemVariables.AssignValues(map[string]any{
		"ssl_cert": c.Cert, "ssl_key": c.Key, "ssl_ca": c.CA, "tls_version": tlsVersions,
	}); err != nil {
		return nil, err
	}
	return cfg, nil
}

// generated returns DATADIR's certificate files, creating them on first
// use: a CA (or the given CA's path, which then signs nothing here) and a
// server certificate for the hosts, 10 years each.
func generated(dir, ca string, hosts []string) (cert, key, caPath string, err error) {
	cert, key = filepath.Join(dir, "server-cert.pem"), filepath.Join(dir, "server-key.pem")
	caPath = filepath.Join(dir, "ca.pem")
	if ca != "" {
		caPath = ca
	}
	if fileExists(cert) && fileExists(key) {
		return cert, key, caPath, nil
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", "", err
	}
	now := time.Now().Add(-time.Hour)
	caTmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "Strata auto-generated CA"},
		NotBefore: now, NotAfter: now.AddDate(10, 0, 0), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return "", "", "", err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", "", err
	}
	srvTmpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "Strata auto-generated server certificate"},
		NotBefore: now, NotAfter: now.AddDate(10, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	names := append([]string{"localhost", "127.0.0.1", "::1"}, hosts...)
	if h, err := os.Hostname(); err == nil {
		names = append(names, h)
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			srvTmpl.IPAddresses = append(srvTmpl.IPAddresses, ip)
		} else if n != "" {
			srvTmpl.DNSNames = append(srvTmpl.DNSNames, n)
		}
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return "", "", "", err
	}
	files := []struct {
		path  string
		typ   string
		der   []byte
		perm  os.FileMode
		isKey bool
	}{
		{filepath.Join(dir, "ca.pem"), "CERTIFICATE", caDER, 0o644, false},
		{filepath.Join(dir, "ca-key.pem"), "", nil, 0o600, true},
		{cert, "CERTIFICATE", srvDER, 0o644, false},
		{key, "", nil, 0o600, true},
	}
	for i, f := range files {
		if f.isKey {
			k := caKey
			if i == 3 {
				k = srvKey
			}
			der, err := x509.MarshalPKCS8PrivateKey(k)
			if err != nil {
				return "", "", "", err
			}
			f.typ, f.der = "PRIVATE KEY", der
		}
		if err := writeFileSync(f.path, pem.EncodeToMemory(&pem.Block{Type: f.typ, Bytes: f.der}), f.perm); err != nil {
			return "", "", "", err
		}
	}
	slog.Info("first start: generated a CA and a server certificate for TLS", "ca", filepath.Join(dir, "ca.pem"), "cert", cert)
	return cert, key, caPath, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	return n
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeFileSync writes a file through a temporary name, synced, so a
// crash leaves the old file or the whole new one.
func writeFileSync(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// requireSecure refuses a plaintext TCP login while
// require_secure_transport is on (AUTH-10).
func requireSecure(c *mysql.Conn) error {
	if c == nil || c.TLSEnabled() || c.RemoteAddr() == nil || c.RemoteAddr().Network() == "unix" {
		return nil
	}
	if _, v, ok := sql.SystemVariables.GetGlobal("require_secure_transport"); ok {
		if on, _ := v.(int8); on != 0 {
			return mysql.NewSQLError(3159, "HY000", "Connections using insecure transport are prohibited while --require_secure_transport=ON.")
		}
	}
	return nil
}

// TLSStatus records a session's TLS cipher and version (Ssl_cipher,
// Ssl_version; AUTH-9) as the session is set up.
func TLSStatus(ctx *sql.Context, s sql.Session, c *mysql.Conn) {
	tc, ok := c.Conn.(*tls.Conn)
	if !ok {
		return
	}
	st := tc.ConnectionState()
	s.SetStatusVariable(ctx, "Ssl_cipher", tls.CipherSuiteName(st.CipherSuite))
	s.SetStatusVariable(ctx, "Ssl_version", tlsVersionName(st.Version))
}

func tlsVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS12:
		return "TLSv1.2"
	case tls.VersionTLS13:
		return "TLSv1.3"
	}
	return fmt.Sprintf("0x%04x", v)
}
