package compat

// The differential test: see doc.go for the corpus format, the directives
// and the rules of testdata/ACCEPTED.
//
// Directives (a comment line "-- @name ..." before a statement):
//
//	-- @ignore-result     compare only whether it failed and the error code
//	                      (no result set, affected rows or warnings)
//	-- @ignore-warnings   do not compare the SHOW WARNINGS that follows it
//	-- @sorted            compare the rows as a multiset (order ignored)
//
// File directive (anywhere in the file, conventionally at the top):
//
//	-- @default-collation create the script's database with the servers'
//	                      default character set and collation rather than
//	                      utf8mb4 / utf8mb4_bin
//	-- @exact-types       compare column types exactly (see normalizeType)
//
// Environment:
//
//	COMPAT_UPDATE=1   rewrite testdata/ACCEPTED with the differences found
//	                  (existing reasons kept, new ones "BUG: (unreviewed)")
//	COMPAT_VERBOSE=1  also print the accepted differences
//	COMPAT_FILES=a.sql,b.sql  run only these scripts (ACCEPTED is then only
//	                  checked for them)

import (
	"strata/internal/mariadbtest"

	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strata/mysql/rules"
	"strata/mysql/server"
	"strings"
	"sync"
	"testing"
	"time"
)

const acceptedPath = "testdata/ACCEPTED"

// difference is one statement on which the servers disagree.
type difference struct {
	st              *statement
	strata, mariadb []string
	strataMsg       string
	mariadbMsg      string
}

func TestCompat(t *testing.T) {
	start := time.Now()
	scripts, err := loadScripts()
	if err != nil {
		t.Fatal(err)
	}
	accepted, err := loadAccepted(acceptedPath)
	if err != nil {
		t.Fatal(err)
	}

	work, err := os.MkdirTemp("", "compat")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)
	md, err := mariadbtest.Start(filepath.Join(work, "mariadb"))
	if err != nil {
		t.Fatalf("MariaDB reference server: %v", err)
	}
	defer md.Stop()
	if err := os.MkdirAll(filepath.Join(work, "strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	ss, err := startStrata(filepath.Join(work, "strata"))
	if err != nil {
		t.Fatalf("strata: %v", err)
	}
	defer func() {
		if err := ss.stop(); err != nil {
			t.Errorf("strata close: %v", err)
		}
	}()
	panics := server.PanicsRecovered()
	defer func() { // server SRV-PANIC: a recovered panic is still a bug
		if n := server.PanicsRecovered() - panics; n != 0 {
			t.Errorf("strata recovered %d panic(s) while running the corpus (see the log)", n)
		}
	}()
	t.Logf("servers up in %v (mariadb %s, strata %s)", time.Since(start).Round(time.Millisecond), md.Addr, ss.addr)

	strataDB, err := sql.Open("mysql", "root@tcp("+ss.addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer strataDB.Close()
	mariaDB, err := sql.Open("mysql", "root@tcp("+md.Addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer mariaDB.Close()
	// Every script gets new connections: no pooled session (user variables,
	// LAST_INSERT_ID, ...) carries over from the previous script.
	strataDB.SetMaxIdleConns(0)
	mariaDB.SetMaxIdleConns(0)

	var diffs []difference
	total := 0
	triggerHits := rules.TriggerPlanHits()
	for _, sc := range scripts {
		d, err := runScript(sc, strataDB, mariaDB)
		if err != nil {
			t.Fatalf("%s: %v", sc.file, err)
		}
		total += len(sc.stmts)
		diffs = append(diffs, d...)
	}
	// triggers.sql repeats INSERTs between the changes it makes: some must
	// have taken their triggers from rules RULE-85's cache, or it tested
	// nothing of it.
	if hits := rules.TriggerPlanHits() - triggerHits; hits < 5 {
		t.Errorf("%d INSERTs took their triggers from RULE-85's cache, want at least 5", hits)
	}

	// Against ACCEPTED.
	ran := map[string]bool{}
	for _, sc := range scripts {
		ran[sc.file] = true
	}
	var unaccepted []difference
	nAccepted, nBug := 0, 0
	found := map[string]bool{}
	for _, d := range diffs {
		found[d.st.key] = true
		if e, ok := accepted.byKey[d.st.key]; ok {
			nAccepted++
			if strings.HasPrefix(e.reason, "BUG") {
				nBug++
			}
			if os.Getenv("COMPAT_VERBOSE") != "" {
				t.Logf("accepted (%s):\n%s", e.reason, d.report())
			}
			continue
		}
		unaccepted = append(unaccepted, d)
	}
	var stale []acceptedEntry
	for _, e := range accepted.entries {
		if !ran[e.file()] {
			continue
		}
		if !found[e.key] {
			stale = append(stale, e)
		}
	}

	t.Logf("compat: %d scripts, %d statements in %v: %d identical, %d accepted differences (%d BUG), %d new differences, %d stale ACCEPTED entries",
		len(scripts), total, time.Since(start).Round(time.Millisecond), total-len(diffs), nAccepted, nBug,
		len(unaccepted), len(stale))

	if os.Getenv("COMPAT_UPDATE") != "" {
		if os.Getenv("COMPAT_FILES") != "" {
			t.Fatal("COMPAT_UPDATE needs the whole corpus: unset COMPAT_FILES")
		}
		if err := writeAccepted(acceptedPath, accepted, scripts, diffs); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s: %d entries (%d new, marked BUG: (unreviewed)), %d stale removed",
			acceptedPath, len(diffs), len(unaccepted), len(stale))
		return
	}

	if len(unaccepted) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d difference(s) from MariaDB not listed in %s (fix strata, or add an entry with a reason; COMPAT_UPDATE=1 rewrites the file):\n",
			len(unaccepted), acceptedPath)
		for _, d := range unaccepted {
			b.WriteString(d.report())
		}
		t.Error(b.String())
	}
	if len(stale) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d %s entr(y/ies) no longer differ (fixed? remove them; COMPAT_UPDATE=1 rewrites the file):\n",
			len(stale), acceptedPath)
		for _, e := range stale {
			fmt.Fprintf(&b, "  %s\n      %s\n", e.key, e.reason)
		}
		t.Error(b.String())
	}
}

func loadScripts() ([]*script, error) {
	paths, err := filepath.Glob("testdata/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	only := map[string]bool{}
	for _, f := range strings.Split(os.Getenv("COMPAT_FILES"), ",") {
		if f = strings.TrimSpace(f); f != "" {
			only[f] = true
		}
	}
	var out []*script
	for _, p := range paths {
		name := filepath.Base(p)
		if len(only) > 0 && !only[name] {
			continue
		}
		sc, err := parseScript(p, name)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scripts in testdata (COMPAT_FILES=%q)", os.Getenv("COMPAT_FILES"))
	}
	return out, nil
}

// runScript runs one script on both servers, statement by statement (the
// two servers concurrently), and returns the statements that differ.
func runScript(sc *script, strataDB, mariaDB *sql.DB) ([]difference, error) {
	dbName := "d_" + strings.TrimSuffix(sc.file, ".sql")
	st, err := openSession("strata", strataDB, dbName, sc)
	if err != nil {
		return nil, err
	}
	defer st.close()
	md, err := openSession("mariadb", mariaDB, dbName, sc)
	if err != nil {
		return nil, err
	}
	defer md.close()

	var diffs []difference
	for i := range sc.stmts {
		stmt := &sc.stmts[i]
		var so, mo *outcome
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); mo = md.run(stmt) }()
		so = st.run(stmt)
		wg.Wait()
		sr := append(so.render(stmt), so.renderWarnings(stmt)...)
		mr := append(mo.render(stmt), mo.renderWarnings(stmt)...)
		if !equalLines(sr, mr) {
			diffs = append(diffs, difference{st: stmt, strata: sr, mariadb: mr,
				strataMsg: so.errMsg, mariadbMsg: mo.errMsg})
		}
	}
	return diffs, nil
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// report renders a difference for the test log: where, the statement, and
// both answers, lines that differ marked with '!'.
func (d difference) report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n--- %s:%d (line %d)\n", d.st.file, d.st.num, d.st.line)
	for _, l := range strings.Split(d.st.text, "\n") {
		fmt.Fprintf(&b, "    %s\n", l)
	}
	const maxLines = 25
	n := max(len(d.strata), len(d.mariadb))
	side := func(name string, lines, other []string, msg string) {
		fmt.Fprintf(&b, "  %s:\n", name)
		for i := 0; i < n && i < maxLines; i++ {
			if i >= len(lines) {
				break
			}
			mark := " "
			if i >= len(other) || lines[i] != other[i] {
				mark = "!"
			}
			fmt.Fprintf(&b, "   %s %s\n", mark, lines[i])
		}
		if len(lines) > maxLines {
			fmt.Fprintf(&b, "     ... %d more line(s)\n", len(lines)-maxLines)
		}
		if msg != "" {
			fmt.Fprintf(&b, "     (%s)\n", msg)
		}
	}
	side("strata ", d.strata, d.mariadb, d.strataMsg)
	side("mariadb", d.mariadb, d.strata, d.mariadbMsg)
	return b.String()
}

// acceptedEntry is one entry of testdata/ACCEPTED.
type acceptedEntry struct {
	key    string
	reason string
}

func (e acceptedEntry) file() string {
	f, _, _ := strings.Cut(e.key, ": ")
	f, _, _ = strings.Cut(f, "#")
	return f
}

type acceptedList struct {
	header  []string // leading comment block, kept on rewrite
	entries []acceptedEntry
	byKey   map[string]acceptedEntry
}

// loadAccepted reads ACCEPTED: '#' lines and blank lines are comments; an
// unindented line is a key (see acceptedKey); the indented lines after it
// are its reason, which must start with "BUG:" (a known strata bug) or
// explain why the difference is legitimate.
func loadAccepted(path string) (*acceptedList, error) {
	l := &acceptedList{byKey: map[string]acceptedEntry{}}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	inHeader := true
	for i, ln := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(ln)
		switch {
		case strings.HasPrefix(t, "#") || t == "":
			if inHeader {
				l.header = append(l.header, strings.TrimRight(ln, " \t\r"))
			}
		case ln[0] == ' ' || ln[0] == '\t':
			if len(l.entries) == 0 {
				return nil, fmt.Errorf("%s:%d: reason without a key", path, i+1)
			}
			e := &l.entries[len(l.entries)-1]
			if e.reason != "" {
				e.reason += " "
			}
			e.reason += t
		default:
			inHeader = false
			if !strings.Contains(t, ": ") {
				return nil, fmt.Errorf("%s:%d: key is not \"file.sql: statement\": %q", path, i+1, t)
			}
			l.entries = append(l.entries, acceptedEntry{key: t})
		}
	}
	for i, e := range l.entries {
		if e.reason == "" {
			return nil, fmt.Errorf("%s: entry without a reason: %s", path, e.key)
		}
		if _, dup := l.byKey[e.key]; dup {
			return nil, fmt.Errorf("%s: duplicate entry: %s", path, e.key)
		}
		l.byKey[e.key] = l.entries[i]
	}
	// The header ends before the first file's "# ---- name" line, which
	// writeAccepted writes itself.
	for len(l.header) > 0 && (l.header[len(l.header)-1] == "" || strings.HasPrefix(l.header[len(l.header)-1], "# ---- ")) {
		l.header = l.header[:len(l.header)-1]
	}
	return l, nil
}

// writeAccepted rewrites ACCEPTED with the current differences in corpus
// order, keeping the reasons of entries that still differ.
func writeAccepted(path string, old *acceptedList, scripts []*script, diffs []difference) error {
	var b strings.Builder
	for _, h := range old.header {
		b.WriteString(h + "\n")
	}
	lastFile := ""
	for _, d := range diffs {
		if d.st.file != lastFile {
			lastFile = d.st.file
			fmt.Fprintf(&b, "\n# ---- %s\n", lastFile)
		}
		reason := "BUG: (unreviewed)"
		if e, ok := old.byKey[d.st.key]; ok {
			reason = e.reason
		}
		fmt.Fprintf(&b, "%s\n\t%s\n", d.st.key, reason)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
