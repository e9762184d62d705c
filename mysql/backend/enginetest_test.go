package backend_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/queries"
	"github.com/dolthub/go-mysql-server/enginetest/scriptgen/setup"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"

	"strata/engine"
	"strata/mysql/backend"
	"strata/mysql/planner"
	"strata/mysql/rules"
)

// harness runs go-mysql-server's enginetest suites against the Strata
// backend: every engine gets a fresh Strata engine in a temporary
// directory. Known failures are listed, one test name per line, in
// testdata/enginetest_skips.txt (the only list of skipped tests).
type harness struct {
	t       *testing.T
	setup   []setup.SetupScript
	b       *backend.Backend
	db      *engine.DB
	session *backend.Session
	skips   map[string]bool
}

var _ enginetest.Harness = (*harness)(nil)
var _ enginetest.SkippingHarness = (*harness)(nil)
var _ enginetest.IndexHarness = (*harness)(nil)
var _ enginetest.KeylessTableHarness = (*harness)(nil)
var _ enginetest.TransactionHarness = (*harness)(nil)

func newHarness(t *testing.T) *harness { return newHarnessAt(t, "testdata/enginetest_skips.txt") }

func newHarnessAt(t *testing.T, skipList string) *harness {
	h := &harness{t: t, skips: map[string]bool{}}
	f, err := os.Open(skipList)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line != "" && !strings.HasPrefix(line, "#") {
			h.skips[line] = true
		}
	}
	t.Cleanup(h.closeEngine)
	return h
}

func (h *harness) closeEngine() {
	if h.db != nil {
		h.db.Close()
		h.db, h.b, h.session = nil, nil, nil
	}
}

func (h *harness) provider() *backend.Backend {
	if h.b == nil {
		db, err := engine.Open(engine.Options{Dir: h.t.TempDir(), BufferPoolBytes: 8 << 20,
			LogCapacity: 16 << 20, DisableDirectIO: true, AsyncCommit: true, LockWaitTimeout: time.Second})
		if err != nil {
			h.t.Fatal(err)
		}
		b, err := backend.New(db, "")
		if err != nil {
			h.t.Fatal(err)
		}
		h.db, h.b = db, b
	}
	return h.b
}

func (h *harness) NewContext() *sql.Context {
	if h.session == nil {
		h.session = h.provider().NewSession(enginetest.NewBaseSession())
	}
	return sql.NewContext(context.Background(), sql.WithSession(h.session))
}

// NewSession implements enginetest.TransactionHarness: a new client.
func (h *harness) NewSession() *sql.Context {
	h.session = h.provider().NewSession(enginetest.NewBaseSession())
	return h.NewContext()
}

func (h *harness) Setup(scripts ...[]setup.SetupScript) {
	h.setup = nil
	for _, s := range scripts {
		h.setup = append(h.setup, s...)
	}
}

func (h *harness) NewEngine(t *testing.T) (enginetest.QueryEngine, error) {
	h.closeEngine()
	e, err := enginetest.NewEngine(t, h, h.provider(), h.setup, memory.NewStatsProv())
	if e != nil {
		e.Analyzer.Coster = planner.New()   // the server's join planning (PL-1..7)
		e.Analyzer.ExecBuilder = rules.Exec // the server's executors (rules RULE-80, RULE-82)
	}
	h.session = nil // tests start with a fresh session, not the setup's
	return e, err
}

func (h *harness) SupportsNativeIndexCreation() bool { return true }
func (h *harness) SupportsKeylessTables() bool       { return true }

// SkipQueryTest matches the query the way go test names its subtest.
func (h *harness) SkipQueryTest(query string) bool { return h.skips[query] || h.skips[testName(query)] }

// testName rewrites s as the testing package does for subtest names.
func testName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte('_')
		case !unicode.IsPrint(r):
			b.WriteString(strings.Trim(strconvQuoteRune(r), "'"))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestEngineQueries(t *testing.T) { enginetest.TestQueries(t, newHarness(t)) }

func strconvQuoteRune(r rune) string         { return strconv.QuoteRune(r) }
func TestEngineQueriesPrepared(t *testing.T) { enginetest.TestQueriesPrepared(t, newHarness(t)) }
func TestEngineInsertInto(t *testing.T)      { enginetest.TestInsertInto(t, newHarness(t)) }
func TestEngineInsertIgnore(t *testing.T)    { enginetest.TestInsertIgnoreInto(t, newHarness(t)) }
func TestEngineInsertErrors(t *testing.T)    { enginetest.TestInsertIntoErrors(t, newHarness(t)) }
func TestEngineUpdate(t *testing.T)          { enginetest.TestUpdate(t, newHarness(t)) }
func TestEngineUpdateErrors(t *testing.T)    { enginetest.TestUpdateErrors(t, newHarness(t)) }
func TestEngineDelete(t *testing.T)          { enginetest.TestDelete(t, newHarness(t)) }
func TestEngineDeleteErrors(t *testing.T)    { enginetest.TestDeleteErrors(t, newHarness(t)) }
func TestEngineReplaceInto(t *testing.T)     { enginetest.TestReplaceInto(t, newHarness(t)) }
func TestEngineTruncate(t *testing.T)        { enginetest.TestTruncate(t, newHarness(t)) }

// TestEngineScripts runs the script tests; a script in the skip list is
// skipped whole.
func TestEngineScripts(t *testing.T) {
	h := newHarness(t)
	h.Setup(setup.MydbData)
	for _, script := range queries.ScriptTests {
		if h.skipScript(t, script.Name) {
			continue
		}
		ok := t.Run(script.Name, func(t *testing.T) { enginetest.TestScript(t, h, script) })
		h.record(ok, script.Name)
	}
}

// TestEngineTransactions runs the transaction scripts, skipping as above.
func TestEngineTransactions(t *testing.T) {
	h := newHarness(t)
	for _, script := range queries.TransactionTests {
		if h.skipScript(t, script.Name) {
			continue
		}
		h.record(enginetest.TestTransactionScript(t, h, script), script.Name)
	}
}

func (h *harness) skipScript(t *testing.T, name string) bool {
	if !h.SkipQueryTest(name) {
		return false
	}
	t.Run(name, func(t *testing.T) { t.Skip("in testdata/enginetest_skips.txt") })
	return true
}

// record appends a failed script's name to $STRATA_RECORD_SKIPS (used to
// regenerate the skip list; see its header).
func (h *harness) record(ok bool, name string) {
	if path := os.Getenv("STRATA_RECORD_SKIPS"); !ok && path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.WriteString(name + "\n")
			f.Close()
		}
	}
}

var _ enginetest.ClientHarness = (*harness)(nil)

// NewContextWithClient implements enginetest.ClientHarness: a session of
// the given user (the privilege suites).
func (h *harness) NewContextWithClient(client sql.Client) *sql.Context {
	h.session = h.provider().NewSession(sql.NewBaseSessionWithClientServer("address", client, 1))
	return sql.NewContext(context.Background(), sql.WithSession(h.session))
}

// The privilege suites (accounts are mysql/auth's; these check that the
// backend's sessions and catalog keep go-mysql-server's grant checks).
func TestEngineUserPrivileges(t *testing.T) { enginetest.TestUserPrivileges(t, newHarness(t)) }
func TestEnginePrivilegePersistence(t *testing.T) {
	enginetest.TestPrivilegePersistence(t, newHarness(t))
}

// TestEngineUserAuthentication runs go-mysql-server's server login tests,
// which read their TLS certificate from ./testdata/selfsigned_*.pem: they
// run in a directory holding a certificate generated here.
func TestEngineUserAuthentication(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSelfSigned(t, filepath.Join(dir, "testdata", "selfsigned_cert.pem"), filepath.Join(dir, "testdata", "selfsigned_key.pem"))
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	h := newHarnessAt(t, filepath.Join(wd, "testdata", "enginetest_skips.txt"))
	enginetest.TestUserAuthentication(t, h)
}

func writeSelfSigned(t *testing.T, certPath, keyPath string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
}

var _ enginetest.ServerHarness = (*harness)(nil)

// SessionBuilder implements enginetest.ServerHarness: the backend's own,
// as the server uses it.
func (h *harness) SessionBuilder() server.SessionBuilder { return h.provider().SessionBuilder() }
