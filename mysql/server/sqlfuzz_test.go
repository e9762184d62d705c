package server

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"strata/engine"
)

// The SQL fuzz target's corpus: the statements of the differential test's
// scripts (mysql/compat/testdata), real statements over real schemas.
const sqlCorpusDir = "../compat/testdata"

// sqlFuzzServer is one server for all of FuzzSQL's inputs, with every
// corpus script run once into its own database.
var sqlFuzzServer struct {
	once   sync.Once
	db     *sql.DB
	dbs    []string // database per script, in corpus order
	stmts  [][]string
	panics int64
	err    error
}

// corpusStatements reads the scripts: statements end with ';' at the end
// of a line; lines starting with "--" are comments.
func corpusStatements() (names []string, stmts [][]string, err error) {
	files, err := filepath.Glob(filepath.Join(sqlCorpusDir, "*.sql"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		var cur strings.Builder
		var list []string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "--") {
				continue
			}
			cur.WriteString(line)
			cur.WriteByte('\n')
			if strings.HasSuffix(strings.TrimSpace(line), ";") {
				list = append(list, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
				cur.Reset()
			}
		}
		names = append(names, "f_"+strings.TrimSuffix(filepath.Base(f), ".sql"))
		stmts = append(stmts, list)
	}
	return names, stmts, nil
}

func startSQLFuzzServer(dir string) {
	s := &sqlFuzzServer
	names, stmts, err := corpusStatements()
	if err != nil {
		s.err = err
		return
	}
	db, err := engine.Open(engine.Options{Dir: dir, BufferPoolBytes: 32 << 20, LogCapacity: 64 << 20,
		DisableDirectIO: true, LockWaitTimeout: time.Second})
	if err != nil {
		s.err = err
		return
	}
	srv, err := New(db, Config{Addr: "127.0.0.1:0"})
	if err != nil {
		s.err = err
		return
	}
	go srv.Start()
	s.db, _ = sql.Open("mysql", "root@tcp("+srv.Addr().String()+")/?multiStatements=false")
	s.db.SetMaxOpenConns(4)
	for i, name := range names {
		if _, err := s.db.Exec("CREATE DATABASE " + name); err != nil {
			s.err = err
			return
		}
		c, err := s.db.Conn(context.Background())
		if err != nil {
			s.err = err
			return
		}
		c.ExecContext(context.Background(), "USE "+name)
		for _, q := range stmts[i] {
			c.ExecContext(context.Background(), q) // the script's schema and rows; errors are the script's business
		}
		c.Close()
	}
	s.dbs, s.stmts = names, stmts
	s.panics = PanicsRecovered()
}

// unsafeForFuzz are statements a fuzz input may not run: they change the
// server for every later input (accounts, global settings, shutdown), end
// other sessions, touch files, or wait on purpose.
var unsafeForFuzz = regexp.MustCompile(`(?i)\b(SHUTDOWN|KILL|GLOBAL|PERSIST|GRANT|REVOKE|USER|ROLE|LOCK|FLUSH|LOAD|OUTFILE|DUMPFILE|INFILE|SLEEP|BENCHMARK|GET_LOCK|XA|PURGE|RESET|INSTALL|UNINSTALL|EVENT)\b`)

// fuzzEdges are the literals a mutation puts in place of a token: the
// values at the edges of MySQL's types and conversions.
var fuzzEdges = []string{"NULL", "0", "-1", "18446744073709551616", "-9223372036854775809", "1e308", "-0.0", "''", "' '",
	"'x\\'y'", "0x00ff", "b'101'", "'2024-02-30'", "'0000-00-00 00:00:00'", "'838:59:60'", "'{\"a\": [1, null]}'",
	"_binary 'a\\0b'", "(SELECT 1)", "(SELECT NULL UNION SELECT 2)", "DEFAULT", "CURRENT_TIMESTAMP", "'\\xff'", "99999999999999999999.99999"}

// fuzzWords are inserted between tokens.
var fuzzWords = []string{"NOT", "NULL", "DISTINCT", "ALL", "(", ")", ",", "+", "-", "*", "/", "DIV", "%", "||", "&&", "=", "<=>", "LIKE",
	"IN (1, NULL)", "IS NULL", "BETWEEN 1 AND 2", "COLLATE utf8mb4_bin", "UNION SELECT 1", "ORDER BY 1", "GROUP BY 1", "HAVING 1",
	"LIMIT 0", "LIMIT 18446744073709551615", "FOR UPDATE", "WITH ROLLUP", "OVER ()", "AS x", "JOIN dual", "WHERE 0"}

var fuzzTokenRE = regexp.MustCompile(`'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|` + "`[^`]*`" + `|[A-Za-z_@][A-Za-z0-9_$.@]*|[0-9][0-9.eE+\-xXa-fA-F]*|<=>|<=|>=|<>|!=|\|\||&&|\S`)

// mutateStatement changes the statement at the level of its tokens (the
// grammar's words): op picks the change, k where and with what.
func mutateStatement(q string, op uint8, k uint16) string {
	toks := fuzzTokenRE.FindAllString(q, -1)
	if len(toks) == 0 {
		return q
	}
	i := int(k) % len(toks)
	switch op % 6 {
	case 0: // as written
	case 1: // a literal or word becomes an edge value
		toks[i] = fuzzEdges[int(k/7)%len(fuzzEdges)]
	case 2: // a word goes
		toks = append(toks[:i], toks[i+1:]...)
	case 3: // a word is inserted
		toks = append(toks[:i], append([]string{fuzzWords[int(k/5)%len(fuzzWords)]}, toks[i:]...)...)
	case 4: // a run of words repeats
		j := min(len(toks), i+1+int(k/11)%6)
		toks = append(toks[:j], append(append([]string{}, toks[i:j]...), toks[j:]...)...)
	case 5: // two words change places
		j := int(k/13) % len(toks)
		toks[i], toks[j] = toks[j], toks[i]
	}
	return strings.Join(toks, " ")
}

// FuzzSQL runs real statements (the differential corpus), mutated at the
// level of their tokens (edge literals, words dropped, inserted, repeated
// or swapped), against one server holding the corpus's schemas: whatever
// the statement, it gets an answer (rows, OK or an error), no panic is
// recovered (Strata_panics_recovered stays put: SRV-PANIC turns a panic
// into error 1105, which would hide it), and the server keeps answering.
func FuzzSQL(f *testing.F) {
	_, stmts, err := corpusStatements()
	if err != nil {
		f.Fatal(err)
	}
	for i, list := range stmts {
		for j, q := range list {
			// Every statement as written, and every 4th mutated once.
			f.Add(uint8(i), q, uint8(0), uint16(0))
			if j%4 == 0 {
				f.Add(uint8(i), q, uint8(1+j%5), uint16(j*7+3))
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, dbi uint8, q string, op uint8, k uint16) {
		sqlFuzzServer.once.Do(func() { startSQLFuzzServer(dir) })
		s := &sqlFuzzServer
		if s.err != nil {
			t.Fatal(s.err)
		}
		q = mutateStatement(q, op, k)
		if len(q) > 4096 || unsafeForFuzz.MatchString(q) {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatalf("server no longer accepts: %v", err)
		}
		defer c.Close()
		c.ExecContext(ctx, "USE "+s.dbs[int(dbi)%len(s.dbs)])
		if rows, err := c.QueryContext(ctx, q); err == nil {
			for rows.Next() {
			}
			rows.Close()
		}
		c.ExecContext(context.Background(), "ROLLBACK")
		if n := PanicsRecovered() - s.panics; n != 0 {
			t.Fatalf("%q: %d panic(s) recovered", q, n)
		}
		var one int
		if err := s.db.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("after %q the server does not answer: %v", q, err)
		}
	})
}
