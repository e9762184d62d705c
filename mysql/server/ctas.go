package server

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// SRV-CTAS: CREATE TABLE ... SELECT in the forms go-mysql-server's parser
// refuses, as MySQL runs them:
//
//   - with column or key definitions before the SELECT:
//     CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a INT) SELECT a, b FROM s;
//   - with a UNION (or any query expression) as the source:
//     CREATE TABLE t SELECT 1 AS a UNION SELECT 2.
//
// The table gets the defined columns the query does not fill first, then
// the query's columns in its order, each as defined where the statement
// defines it, else typed as the query types it (the order MariaDB gives);
// the query's rows go into the columns of the same names. It runs as four
// statements of the session, each with its own privilege checks: a
// temporary table with the query's columns and no rows (their types),
// the CREATE TABLE, an INSERT ... SELECT (IGNORE or REPLACE as the
// statement says) and a COMMIT. When the INSERT fails, the new table is
// dropped, so the statement leaves nothing behind, as in MySQL 8.0. With
// IF NOT EXISTS and an existing table, nothing is inserted (MySQL 8.0
// documents this; MariaDB inserts) and the Note 1050 is the CREATE's.
//
// Tested by TestCreateTableSelect (driver level) and the differential
// corpus (ddl_columns.sql).

// createSelectRE matches the head of a CREATE TABLE: the prefix
// (comments), TEMPORARY, IF NOT EXISTS, the name.
var createSelectRE = regexp.MustCompile("(?is)^(\\s*(?:/\\*.*?\\*/\\s*)*)CREATE\\s+(TEMPORARY\\s+)?TABLE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?((?:`(?:[^`]|``)+`|[\\w$]+)(?:\\s*\\.\\s*(?:`(?:[^`]|``)+`|[\\w$]+))?)")

// mayCreateSelect is the cheap test before createSelect looks closer.
func mayCreateSelect(q string) bool {
	return startsWithWord(q, "create") && containsFold(q, "select") && containsFold(q[:min(len(q), 40)], "table")
}

// createSelect runs q when it is a CREATE TABLE ... SELECT of SRV-CTAS's
// forms; ok is false when q is anything else (including a CREATE TABLE
// ... SELECT go-mysql-server parses itself).
func (h *errorHandler) createSelect(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn, more bool) (ok bool, err error) {
	if !mayCreateSelect(q) {
		return false, nil
	}
	q = strings.TrimRight(strings.TrimSpace(q), ";")
	if _, err := sqlparser.Parse(q); err == nil {
		return false, nil
	}
	m := createSelectRE.FindStringSubmatchIndex(q)
	if m == nil {
		return false, nil
	}
	temp := m[4] >= 0
	ifNotExists := m[6] >= 0
	name := q[m[8]:m[9]]
	rest := strings.TrimSpace(q[m[9]:])
	defs := ""
	if strings.HasPrefix(rest, "(") {
		end := matchingParen(rest, 0)
		if end < 0 {
			return false, nil
		}
		inner := strings.TrimSpace(rest[1:end])
		if startsWithWord(inner, "select", "with") || strings.HasPrefix(inner, "(") {
			// CREATE TABLE t (SELECT ...): the parenthesized query is the source.
		} else {
			defs, rest = inner, strings.TrimSpace(rest[end+1:])
		}
	}
	opts, mode, query, found := splitCreateSource(rest)
	if !found {
		return false, nil
	}
	if _, err := sqlparser.Parse("SELECT * FROM (" + query + ") AS strata_ctas_q"); err != nil {
		return false, nil // the query's own syntax error, from the parser
	}
	run := func(stmt string, into mysql.ResultSpoolFn) error {
		if into == nil {
			into = func(*sqltypes.Result, bool) error { return nil }
		}
		return h.statementErrors(c, stmt, h.mapError(c, h.Handler.ComQuery(ctx, c, stmt, into)))
	}
	// The query's columns, typed: a temporary table with no rows.
	probe := fmt.Sprintf("`strata_ctas_%d`", c.ConnectionID)
	_ = run("DROP TEMPORARY TABLE IF EXISTS "+probe, nil)
	if err := run("CREATE TEMPORARY TABLE "+probe+" AS SELECT * FROM ("+query+") AS strata_ctas_q LIMIT 0", nil); err != nil {
		return true, err
	}
	var ddl string
	err = run("SHOW CREATE TABLE "+probe, func(r *sqltypes.Result, _ bool) error {
		if len(r.Rows) > 0 && len(r.Rows[0]) > 1 {
			ddl = r.Rows[0][1].ToString()
		}
		return nil
	})
	_ = run("DROP TEMPORARY TABLE IF EXISTS "+probe, nil)
	if err != nil {
		return true, err
	}
	cols := probeColumns(ddl)
	if len(cols) == 0 {
		return true, mysql.NewSQLError(1105, "HY000", "CREATE TABLE ... SELECT: no columns in the query")
	}
	// The defined columns the query does not fill come first, then the
	// query's columns in its order, each with its definition where the
	// statement gives one (as MariaDB orders them).
	defined, keyDefs := definedColumns(defs)
	inQuery := map[string]bool{}
	for _, col := range cols {
		inQuery[strings.ToLower(col.name)] = true
	}
	var parts, names []string
	for _, d := range defined {
		if !inQuery[d.name] {
			parts = append(parts, d.def)
		}
	}
	for _, col := range cols {
		names = append(names, quoteIdent(col.name))
		def := col.def
		for _, d := range defined {
			if d.name == strings.ToLower(col.name) {
				def = d.def
			}
		}
		parts = append(parts, def)
	}
	parts = append(parts, keyDefs...) // after every column: MySQL takes them anywhere, the parser after the columns
	head := "CREATE "
	if temp {
		head += "TEMPORARY "
	}
	head += "TABLE "
	if ifNotExists {
		// Exists already: MySQL 8.0 inserts nothing; the CREATE gives
		// the Note.
		if run("SELECT 1 FROM "+name+" LIMIT 0", nil) == nil {
			if err := run(head+"IF NOT EXISTS "+name+" ("+strings.Join(parts, ", ")+") "+opts, nil); err != nil {
				return true, err
			}
			if s := h.session(c); s != nil && len(s.Warnings()) == 0 {
				bare := strings.ReplaceAll(strings.Trim(name[strings.LastIndex(name, ".")+1:], " `"), "``", "`")
				s.Warn(&sql.Warning{Level: "Note", Code: 1050, Message: fmt.Sprintf("Table '%s' already exists", bare)})
			}
			h.setStatus(c)
			return true, cb(&sqltypes.Result{}, more)
		}
	}
	if err := run(head+name+" ("+strings.Join(parts, ", ")+") "+opts, nil); err != nil {
		return true, err
	}
	verb := "INSERT INTO "
	switch mode {
	case "ignore":
		verb = "INSERT IGNORE INTO "
	case "replace":
		verb = "REPLACE INTO "
	}
	var res *sqltypes.Result
	err = run(verb+name+" ("+strings.Join(names, ", ")+") SELECT * FROM ("+query+") AS strata_ctas_q", func(r *sqltypes.Result, _ bool) error {
		res = r
		return nil
	})
	if err != nil {
		drop := "DROP TABLE "
		if temp {
			drop = "DROP TEMPORARY TABLE "
		}
		_ = run(drop+name, nil)
		return true, err
	}
	if !temp {
		if err := run("COMMIT", nil); err != nil {
			return true, err
		}
	}
	if res == nil {
		res = &sqltypes.Result{}
	}
	h.setStatus(c)
	return true, cb(res, more)
}

// splitCreateSource splits what follows a CREATE TABLE's name and
// definitions into the table options, IGNORE or REPLACE, and the query
// (after an optional AS).
func splitCreateSource(s string) (opts, mode, query string, ok bool) {
	i := sourceStart(s)
	if i < 0 {
		return "", "", "", false
	}
	opts, rest := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
	for _, w := range []string{"ignore", "replace"} {
		if startsWithWord(rest, w) {
			mode, rest = w, strings.TrimSpace(rest[len(w):])
		}
	}
	if startsWithWord(rest, "as") {
		rest = strings.TrimSpace(rest[2:])
	}
	if !startsWithWord(rest, "select", "with") && !strings.HasPrefix(rest, "(") {
		return "", "", "", false
	}
	return opts, mode, rest, true
}

// sourceStart is the index in s of the first IGNORE, REPLACE, AS,
// SELECT, WITH or '(' outside quotes, or -1.
func sourceStart(s string) int {
	for i := 0; i < len(s); {
		switch ch := s[i]; {
		case ch == '\'' || ch == '"' || ch == '`':
			j := skipQuoted(s, i)
			if j < 0 {
				return -1
			}
			i = j
		case ch == '(':
			return i
		case isIdentByte(ch):
			w := i
			for w < len(s) && isIdentByte(s[w]) {
				w++
			}
			switch strings.ToLower(s[i:w]) {
			case "ignore", "replace", "as", "select", "with":
				return i
			}
			i = w
		default:
			i++
		}
	}
	return -1
}

// skipQuoted returns the index just past the quoted string or
// identifier starting at s[i], or -1 when it is not closed.
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return -1
}

// matchingParen is the index of the ')' closing the '(' at s[open], or -1.
func matchingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\'', '"', '`':
			j := skipQuoted(s, i)
			if j < 0 {
				return -1
			}
			i = j - 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// topLevelItems splits s at the commas outside parentheses and quotes.
func topLevelItems(s string) []string {
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'', '"', '`':
			if j := skipQuoted(s, i); j > 0 {
				i = j - 1
			}
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		items = append(items, rest)
	}
	return items
}

// definedColumns reads a CREATE TABLE's definitions: the columns they
// declare (lower-case names), and the keys and constraints.
func definedColumns(defs string) (columns []probeColumn, keys []string) {
	for _, item := range topLevelItems(defs) {
		if startsWithWord(item, "primary", "key", "index", "unique", "constraint", "foreign", "check", "fulltext", "spatial", "period") {
			keys = append(keys, item)
			continue
		}
		name := item
		if strings.HasPrefix(item, "`") {
			if j := skipQuoted(item, 0); j > 0 {
				name = strings.ReplaceAll(item[1:j-1], "``", "`")
			}
		} else if i := strings.IndexAny(item, " \t\r\n("); i > 0 {
			name = item[:i]
		}
		columns = append(columns, probeColumn{name: strings.ToLower(name), def: item})
	}
	return columns, keys
}

type probeColumn struct{ name, def string }

var probeColumnRE = regexp.MustCompile("^\\s*(`(?:[^`]|``)+`)\\s")

// probeColumns reads the column definitions out of SHOW CREATE TABLE's
// text, in order.
func probeColumns(ddl string) []probeColumn {
	var out []probeColumn
	for _, line := range strings.Split(ddl, "\n") {
		m := probeColumnRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := strings.ReplaceAll(m[1][1:len(m[1])-1], "``", "`")
		out = append(out, probeColumn{name: name, def: strings.TrimSuffix(strings.TrimSpace(line), ",")})
	}
	return out
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
