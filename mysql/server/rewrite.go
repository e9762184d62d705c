package server

import (
	"strata/mysql/rules"

	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"strata/mysql/backend"
)

// rewriteQuery corrects, in the statement text, what go-mysql-server
// v0.20.0's parser gets wrong and MySQL accepts (it cannot be patched):
//
//   - In string literals MySQL keeps the backslash of \_ and \% (so that
//     LIKE 'a\_b' matches only "a_b"); the parser drops it. Written as \\_
//     and \\%, which the parser reads as MySQL reads \_ and \%. Not done
//     under NO_BACKSLASH_ESCAPES (backslash is then an ordinary character).
//   - In CREATE/ALTER, YEAR(4) is YEAR (its only display width), and
//     BLOB(n) / TEXT(n) are the smallest BLOB / TEXT types holding n bytes
//     / characters (utf8mb4: 4 bytes each), as MySQL defines them.
//   - SELECT ... FOR SHARE (MySQL 8) is SELECT ... LOCK IN SHARE MODE, the
//     form the parser takes (the backend then takes shared row locks).
//   - LOCK TABLE is LOCK TABLES and DROP TABLES is DROP TABLE (MySQL
//     takes both spellings; the parser one each). FLUSH STATUS is FLUSH
//     TABLES: a no-op after the same RELOAD check (go-mysql-server keeps
//     no session counters for it to reset). (A parenthesized query:
//     parenquery.go, SRV-PARENQUERY.) An index hint's
//     FOR ORDER BY / FOR GROUP BY / FOR JOIN is dropped (the hint then
//     applies to the whole query; only plans change).
//   - In CREATE/ALTER, DEFAULT f(...) (MariaDB's form, in its dumps:
//     DEFAULT curdate()) is DEFAULT (f(...)), MySQL 8's expression default;
//     CURRENT_TIMESTAMP, NOW, LOCALTIME and LOCALTIMESTAMP, which the
//     parser takes bare, are left alone.
//   - The modifiers MySQL takes and InnoDB ignores: INSERT/REPLACE
//     LOW_PRIORITY, HIGH_PRIORITY, DELAYED; UPDATE/DELETE LOW_PRIORITY;
//     DELETE QUICK; SELECT HIGH_PRIORITY, SQL_SMALL_RESULT,
//     SQL_BIG_RESULT, SQL_BUFFER_RESULT (the parser knows neither) are
//     dropped.
//   - In PREPARE name FROM 'text', the text is rewritten the same way.
//   - CREATE PROCEDURE / TRIGGER IF NOT EXISTS (MySQL 8.0.29): the clause
//     becomes a comment the handler reads (ifNotExists).
//   - DEFAULT(col) outside column definitions is strata_fn_DEFAULT(col),
//     which rules FUNC-3 resolves to the column's default value.
//   - MariaDB's SET STATEMENT var = value [, ...] FOR statement, when every
//     variable only steers the optimizer (optimizer_switch, join buffers,
//     ...), is the statement: strata's results do not depend on them.
//   - ROW(a, b) is the row constructor (a, b).
//   - The function INTERVAL(N, N1, N2, ...) is strata_fn_INTERVAL(...)
//     (rules FUNC-1): the parser knows INTERVAL only as date arithmetic's
//     INTERVAL expr unit, whose parenthesized expr has no top-level comma.
//   - DATE 'x', TIME 'x', TIMESTAMP 'x' are strata_typed_date('x') and its
//     kin (rules FUNC-4): the parser reads them as plain strings.
//   - SET NAMES cs COLLATE coll is SET NAMES cs, collation_connection =
//     'coll' (the parser's SET NAMES drops the COLLATE).
//   - GROUP BY ... WITH ROLLUP is GROUP BY ..., strata_rollup(), a marker
//     rules RULE-50 turns into MySQL's super-aggregate rows.
//   - x op ALL (subquery), x op ANY|SOME (subquery) is x op
//     strata_all((subquery)) / strata_any(...), a marker function that
//     rules RULE-23 turns into a quantified comparison; SUM(ALL x) and
//     the other aggregates' ALL (the default) are dropped.
//
// Comments, quoted identifiers and the rest of the text are copied as
// they are. The result is the input when nothing applies (no allocation).
func rewriteQuery(q string, backslashEscapes bool) string {
	var out *strings.Builder
	last := 0 // q[last:i] not yet copied to out
	emit := func(i int, repl string, skip int) {
		if out == nil {
			out = &strings.Builder{}
			out.Grow(len(q) + 8)
		}
		out.WriteString(q[last:i])
		out.WriteString(repl)
		last = i + skip
	}
	if rest, ok := setStatementFor(q); ok {
		return rewriteQuery(rest, backslashEscapes)
	}
	if m := setNamesCollateRE.FindStringSubmatch(q); m != nil {
		return "SET NAMES " + m[1] + ", collation_connection = '" + m[2] + "'"
	}
	if m := prepareFromRE.FindStringSubmatchIndex(q); m != nil {
		return prepareFrom(q, m[3]-1, backslashEscapes)
	}
	if m := lockTableRE.FindStringIndex(q); m != nil {
		emit(m[1]-len("TABLE "), "TABLES ", len("TABLE "))
	} else if m := createIfNotExistsRE.FindStringSubmatchIndex(q); m != nil {
		emit(m[2], ifNotExistsMark, m[3]-m[2])
	} else if m := dropTablesRE.FindStringSubmatchIndex(q); m != nil {
		emit(m[2], "TABLE", m[3]-m[2])
	} else if flushStatusRE.MatchString(q) {
		return "FLUSH TABLES" // no-op after the same RELOAD check
	}
	if m := indexHintForRE.FindAllStringSubmatchIndex(q, -1); m != nil && !strings.ContainsAny(q, "'\"`") {
		for _, x := range m { // USE/IGNORE/FORCE INDEX FOR ORDER BY|GROUP BY|JOIN: the FOR part goes
			emit(x[2], "", x[3]-x[2])
		}
	}
	ddl := isDDL(q)
	var closes []closeAt // where markers close, innermost (nearest) last
	head := ""           // the statement word whose modifiers may follow (see modifier)
	sawSelect := false
	assignments := !startsWithWord(q, "set") && strings.Contains(q, ":=")
	for i := last; i < len(q); {
		if n := len(closes); n > 0 && closes[n-1].pos == i {
			emit(i, closes[n-1].text, 0)
			closes = closes[:n-1]
			continue
		}
		ch := q[i]
		switch {
		case ch == '@' && assignments:
			if k, end, ok := assignment(q, i); ok { // @v := expr (RULE: strata_assign)
				emit(i, "strata_assign(", 0)
				emit(k, ", (", 2)
				closes = append(closes, closeAt{end, "))"})
				i = k + 2
				continue
			}
			i++
		case ch == '\'' || ch == '"':
			j := i + 1
			for j < len(q) {
				if q[j] == '\\' && backslashEscapes && j+1 < len(q) {
					if q[j+1] == '_' || q[j+1] == '%' {
						emit(j, `\\`, 1)
					}
					j += 2
					continue
				}
				if q[j] == ch {
					if j+1 < len(q) && q[j+1] == ch { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j + 1
		case ch == '`':
			j := strings.IndexByte(q[i+1:], '`')
			if j < 0 {
				return finish(out, q, last)
			}
			i += j + 2
		case ch == '#' || (ch == '-' && strings.HasPrefix(q[i:], "-- ")):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return finish(out, q, last)
			}
			i += j + 1
		case ch == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return finish(out, q, last)
			}
			i += j + 4
		case isIdentByte(ch):
			j := i
			for j < len(q) && isIdentByte(q[j]) {
				j++
			}
			if j-i == 6 && strings.EqualFold(q[i:j], "SELECT") {
				sawSelect = true // CREATE TABLE ... SELECT: DEFAULT( after it is the function
			}
			if j-i == 7 && (!ddl || sawSelect || createViewRE.MatchString(q)) && (i == 0 || !isIdentByte(q[i-1])) && strings.EqualFold(q[i:j], "DEFAULT") {
				k := j
				for k < len(q) && isSpace(q[k]) {
					k++
				}
				if k < len(q) && q[k] == '(' { // DEFAULT(col): rules FUNC-3
					emit(i, "strata_fn_"+q[i:j], j-i)
				}
			}
			if !ddl && (i == 0 || !isIdentByte(q[i-1])) && q[i] != '`' {
				var drop bool
				if head, drop = modifier(head, q[i:j]); drop {
					emit(i, "", j-i)
				}
			}
			if j-i == 8 && (i == 0 || !isIdentByte(q[i-1]) && q[i-1] != '.') && strings.EqualFold(q[i:j], "INTERVAL") && intervalFunction(q, j) {
				emit(i, "strata_fn_"+q[i:j], j-i) // INTERVAL(N, N1, ...): rules FUNC-1
			}
			if j-i == 3 && j < len(q) && q[j] == '(' && (i == 0 || !isIdentByte(q[i-1]) && q[i-1] != '.') && strings.EqualFold(q[i:j], "ROW") {
				emit(i, "(/*"+q[i:j]+"*/", 4) // ROW(a, b) is (a, b); the comment keeps column names as written
			}
			if !ddl && j-i >= 4 && j-i <= 9 && (i == 0 || !isIdentByte(q[i-1]) && q[i-1] != '.') {
				if k, end, ok := typedLiteral(q, i, j, backslashEscapes); ok {
					emit(i, "strata_typed_"+strings.ToLower(q[i:j])+"(", k-i) // rules FUNC-4
					closes = append(closes, closeAt{end, ")"})
					i = k
					continue
				}
			}
			if j-i == 4 && strings.EqualFold(q[i:j], "WITH") && (i == 0 || !isIdentByte(q[i-1])) {
				if end, ok := withRollup(q, j); ok { // GROUP BY ... WITH ROLLUP (rules RULE-50)
					emit(i, ", "+rules.RollupMarker+"()", end-i)
					j = end
				}
			}
			if !ddl && j-i == 3 && strings.EqualFold(q[i:j], "FOR") && (i == 0 || !isIdentByte(q[i-1])) {
				if end, ok := forShare(q, j); ok { // SELECT ... FOR SHARE (MySQL 8)
					emit(i, "LOCK IN SHARE MODE", end-i)
					j = end
				}
			}
			if j-i <= 4 && (i == 0 || !isIdentByte(q[i-1])) {
				if repl, end, ok := quantifier(q, i, j); ok {
					emit(i, repl, j-i)
					if end >= 0 {
						closes = append(closes, closeAt{end, ")"})
					}
				}
			}
			if ddl && (i == 0 || !isIdentByte(q[i-1])) {
				if repl, end, ok := typeWidth(q, i, j); ok {
					emit(i, repl, end-i)
				} else if start, end, repl, ok := defaultCall(q, i, j, sawSelect || createViewRE.MatchString(q)); ok {
					emit(start, repl, end-start)
					j = end
				}
			}
			i = j
		default:
			i++
		}
	}
	for n := len(closes); n > 0 && closes[n-1].pos == len(q); n-- {
		emit(len(q), closes[n-1].text, 0)
		closes = closes[:n-1]
	}
	return finish(out, q, last)
}

var (
	dmlHeads      = map[string]bool{"INSERT": true, "REPLACE": true, "UPDATE": true, "DELETE": true}
	dmlModifiers  = map[string]bool{"LOW_PRIORITY": true, "HIGH_PRIORITY": true, "DELAYED": true, "QUICK": true}
	selectDropped = map[string]bool{"HIGH_PRIORITY": true, "SQL_SMALL_RESULT": true, "SQL_BIG_RESULT": true, "SQL_BUFFER_RESULT": true}
	selectKept    = map[string]bool{"ALL": true, "DISTINCT": true, "DISTINCTROW": true, "STRAIGHT_JOIN": true,
		"SQL_CACHE": true, "SQL_NO_CACHE": true, "SQL_CALC_FOUND_ROWS": true}
)

// modifier decides for word w, following statement word head (or ""),
// whether w is a modifier to drop, and what the head is after w.
func modifier(head, w string) (string, bool) {
	if len(w) < 3 || len(w) > 19 {
		return "", false
	}
	u := strings.ToUpper(w)
	switch {
	case dmlHeads[u] || u == "SELECT":
		return u, false
	case dmlHeads[head] && dmlModifiers[u]:
		return head, u != "QUICK" || head == "DELETE"
	case dmlHeads[head] && u == "IGNORE":
		return head, false
	case head == "SELECT" && selectDropped[u]:
		return head, true
	case head == "SELECT" && selectKept[u]:
		return head, false
	}
	return "", false
}

// closeAt is text rewriteQuery inserts at pos, closing a marker call.
type closeAt struct {
	pos  int
	text string
}

// assignment recognizes `@name := expr` at q[i] (i at the @): k is where
// ":=" starts, end where expr ends. MySQL's := binds loosest: expr runs to
// a comma, closing parenthesis or semicolon at its own depth, or a word
// that ends an expression there (FROM, AS, THEN, ...).
func assignment(q string, i int) (k, end int, ok bool) {
	j := i + 1
	if j >= len(q) || q[j] == '@' {
		return 0, 0, false
	}
	if c := q[j]; c == '`' || c == '\'' || c == '"' {
		e := strings.IndexByte(q[j+1:], c)
		if e < 0 {
			return 0, 0, false
		}
		j += e + 2
	} else {
		for j < len(q) && (isIdentByte(q[j]) || q[j] == '.') {
			j++
		}
		if j == i+1 {
			return 0, 0, false
		}
	}
	k = j
	for k < len(q) && isSpace(q[k]) {
		k++
	}
	if k+1 >= len(q) || q[k] != ':' || q[k+1] != '=' {
		return 0, 0, false
	}
	end, depth := -1, 0
	last := k + 2 // end of the last token of expr
	for p := k + 2; p < len(q) && end < 0; {
		c := q[p]
		switch {
		case isSpace(c):
			p++
			continue
		case c == '\'' || c == '"' || c == '`':
			p++
			for p < len(q) && q[p] != c {
				if q[p] == '\\' && c != '`' {
					p++
				}
				p++
			}
			p++
		case c == '(':
			depth++
			p++
		case c == ')':
			if depth == 0 {
				end = last
				continue
			}
			depth--
			p++
		case (c == ',' || c == ';') && depth == 0:
			end = last
			continue
		case isIdentByte(c):
			e := p
			for e < len(q) && isIdentByte(q[e]) {
				e++
			}
			if depth == 0 && assignmentStops[strings.ToUpper(q[p:e])] {
				end = last
				continue
			}
			p = e
		default:
			p++
		}
		if p > len(q) {
			p = len(q)
		}
		last = p
	}
	if end < 0 {
		end = last
	}
	if end <= k+2 {
		return 0, 0, false
	}
	return k, end, true
}

var assignmentStops = map[string]bool{
	"FROM": true, "WHERE": true, "AS": true, "INTO": true, "ORDER": true, "GROUP": true,
	"HAVING": true, "LIMIT": true, "UNION": true, "EXCEPT": true, "INTERSECT": true,
	"WINDOW": true, "FOR": true, "LOCK": true, "THEN": true, "ELSE": true, "END": true,
	"WHEN": true, "ON": true, "USING": true, "JOIN": true, "INNER": true, "LEFT": true,
	"RIGHT": true, "CROSS": true, "STRAIGHT_JOIN": true, "NATURAL": true, "ASC": true, "DESC": true,
}

// quantifier recognizes the word q[i:j] as ALL, ANY or SOME of a
// quantified comparison (after a comparison operator, before a
// parenthesis) and gives its replacement and where the ")" closing the
// marker goes; or as the ALL of an aggregate (after "("), replaced by
// nothing (end -1).
func quantifier(q string, i, j int) (repl string, end int, ok bool) {
	w := strings.ToUpper(q[i:j])
	if w != "ALL" && w != "ANY" && w != "SOME" {
		return "", 0, false
	}
	k := i - 1
	for k >= 0 && isSpace(q[k]) {
		k--
	}
	if k < 0 {
		return "", 0, false
	}
	if q[k] == '(' && w == "ALL" {
		return "/*" + q[i:j] + "*/", -1, true // kept for the column name (unrewriteName)
	}
	if q[k] != '=' && q[k] != '<' && q[k] != '>' || (q[k] == '>' && k > 0 && q[k-1] == '=' && k > 1 && q[k-2] == '<') {
		return "", 0, false
	}
	o := j
	for o < len(q) && isSpace(q[o]) {
		o++
	}
	if o >= len(q) || q[o] != '(' {
		return "", 0, false
	}
	c := matchParen(q, o)
	if c < 0 {
		return "", 0, false
	}
	name := "strata_" + q[i:j] // the word as written, for the column name
	if q[k] == '>' && k > 0 && q[k-1] == '<' || q[k] == '=' && k > 0 && q[k-1] == '!' {
		name += "_ne" // <> and != parse as NOT (a = b)
	}
	return name + "(", c + 1, true
}

// unrewriteName undoes quantifier's rewrite in a result column's name,
// which go-mysql-server takes from the (rewritten) statement text: MySQL
// names the column after the text the client sent.
func unrewriteName(name string) string {
	if strings.IndexByte(name, '`') >= 0 {
		name = unquoteIntervalUnits(name) // SRV-WORDS
	}
	if !strings.Contains(name, "strata_") && !strings.Contains(name, "/*") {
		return name
	}
	for _, w := range []string{"ALL", "all", "All"} {
		name = strings.ReplaceAll(name, "/*"+w+"*/", w)
	}
	for _, w := range []string{"ROW", "row", "Row"} {
		name = strings.ReplaceAll(name, "(/*"+w+"*/", w+"(")
	}
	for {
		i := strings.Index(strings.ToLower(name), "strata_")
		if i < 0 {
			return name
		}
		open := strings.IndexByte(name[i:], '(')
		if open < 0 {
			return name
		}
		open += i
		if lower := strings.ToLower(name[i:open]); strings.HasPrefix(lower, "strata_typed_") {
			c := matchParen(name, open) // strata_typed_date('x'): DATE 'x'
			if c < 0 {
				return name
			}
			name = name[:i] + strings.ToUpper(lower[len("strata_typed_"):]) + " " + name[open+1:c] + name[c+1:]
			continue
		}
		if strings.HasPrefix(strings.ToLower(name[i:open]), "strata_fn_") {
			name = name[:i] + name[i+len("strata_fn_"):]
			continue
		}
		if strings.EqualFold(name[i:open], "strata_assign") {
			c := matchParen(name, open)
			inner := ""
			if c > 0 {
				inner = name[open+1 : c]
			}
			sep := strings.Index(inner, ", (")
			if c < 0 || sep < 0 || len(inner) < sep+4 {
				return name
			}
			rhs := inner[sep+3 : len(inner)-1]
			name = name[:i] + inner[:sep] + ":=" + rhs + name[c+1:]
			continue
		}
		word := strings.TrimSuffix(strings.TrimSuffix(name[i+len("strata_"):open], "_ne"), "_NE")
		c := matchParen(name, open)
		if c < 0 {
			return name
		}
		name = name[:i] + word + name[open+1:c] + name[c+1:]
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// matchParen gives the index of the ")" matching the "(" at q[open],
// skipping quoted strings, quoted identifiers and comments; -1 if none.
func matchParen(q string, open int) int {
	depth := 0
	for i := open; i < len(q); i++ {
		switch c := q[i]; {
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i
			}
		case c == '\'' || c == '"' || c == '`':
			for i++; i < len(q) && q[i] != c; i++ {
				if q[i] == '\\' && c != '`' {
					i++
				}
			}
		case c == '#' || c == '-' && strings.HasPrefix(q[i:], "-- "):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			k := strings.Index(q[i+2:], "*/")
			if k < 0 {
				return -1
			}
			i += k + 3
		}
	}
	return -1
}

// prepareFrom rewrites the statement text of PREPARE name FROM 'text'
// (the quote at q[open]) as rewriteQuery rewrites a statement.
func prepareFrom(q string, open int, backslashEscapes bool) string {
	quote := q[open]
	var inner strings.Builder
	i := open + 1
	for ; i < len(q); i++ {
		c := q[i]
		if c == '\\' && backslashEscapes && i+1 < len(q) {
			i++
			switch q[i] {
			case 'n':
				inner.WriteByte('\n')
			case 't':
				inner.WriteByte('\t')
			case 'r':
				inner.WriteByte('\r')
			case '0':
				inner.WriteByte(0)
			case '_', '%': // MySQL keeps the backslash of \_ and \%
				inner.WriteByte('\\')
				inner.WriteByte(q[i])
			default:
				inner.WriteByte(q[i])
			}
			continue
		}
		if c == quote {
			if i+1 < len(q) && q[i+1] == quote {
				inner.WriteByte(quote)
				i++
				continue
			}
			break
		}
		inner.WriteByte(c)
	}
	if i >= len(q) {
		return q
	}
	text := inner.String()
	out := rewriteQuery(text, backslashEscapes)
	if out == text {
		return q
	}
	var b strings.Builder
	b.WriteString(q[:open])
	b.WriteByte('\'')
	for j := 0; j < len(out); j++ {
		switch c := out[j]; {
		case c == '\'':
			b.WriteString("''")
		case c == '\\' && backslashEscapes:
			b.WriteString(`\\`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	b.WriteString(q[i+1:])
	return b.String()
}

// ifNotExistsMark replaces IF NOT EXISTS in CREATE PROCEDURE/TRIGGER; the
// handler turns the statement's "already exists" into a Note.
const ifNotExistsMark = "/*strata:if-not-exists*/"

var (
	createIfNotExistsRE = regexp.MustCompile(`(?is)^\s*CREATE\s+(?:DEFINER\s*=\s*\S+\s+)?(?:PROCEDURE|TRIGGER)\s+(IF\s+NOT\s+EXISTS)\s`)
	prepareFromRE       = regexp.MustCompile(`(?is)^\s*PREPARE\s+\S+\s+FROM\s+(['"])`)
	lockTableRE         = regexp.MustCompile(`(?i)^\s*LOCK\s+TABLE\s`)
	dropTablesRE        = regexp.MustCompile(`(?i)^\s*DROP\s+(?:TEMPORARY\s+)?(TABLES)\s`)
	flushStatusRE       = regexp.MustCompile(`(?i)^\s*FLUSH\s+(?:LOCAL\s+|NO_WRITE_TO_BINLOG\s+)?STATUS\s*;?\s*$`)
	indexHintForRE      = regexp.MustCompile(`(?i)\b(?:USE|IGNORE|FORCE)\s+(?:INDEX|KEY)(\s+FOR\s+(?:ORDER\s+BY|GROUP\s+BY|JOIN))\b`)
)

// setNamesCollateRE is SET NAMES charset COLLATE collation, whose COLLATE
// go-mysql-server ignores (collation_connection became the character
// set's default): written SET NAMES charset, collation_connection =
// 'collation'.
var setNamesCollateRE = regexp.MustCompile("(?i)^\\s*SET\\s+NAMES\\s+['\"`]?(\\w+)['\"`]?\\s+COLLATE\\s+['\"`]?(\\w+)['\"`]?\\s*;?\\s*$")

// withRollup reports whether q[j:] continues WITH with ROLLUP as a word,
// and where that word ends.
func withRollup(q string, j int) (int, bool) {
	k := skipSpace(q, j)
	if k == j || k+6 > len(q) || !strings.EqualFold(q[k:k+6], "ROLLUP") || (k+6 < len(q) && isIdentByte(q[k+6])) {
		return 0, false
	}
	return k + 6, true
}

// forShare reports whether q[j:] continues FOR with SHARE as a word, and
// where that word ends.
func forShare(q string, j int) (int, bool) {
	k := j
	for k < len(q) && (q[k] == ' ' || q[k] == '\t' || q[k] == '\n' || q[k] == '\r') {
		k++
	}
	if k == j || k+5 > len(q) || !strings.EqualFold(q[k:k+5], "SHARE") || (k+5 < len(q) && isIdentByte(q[k+5])) {
		return 0, false
	}
	return k + 5, true
}

func finish(out *strings.Builder, q string, last int) string {
	if out == nil {
		return q
	}
	out.WriteString(q[last:])
	return out.String()
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// statementStart is q past leading blanks, parentheses and /* */
// comments: where its first keyword is.
func statementStart(q string) string {
	q = strings.TrimLeft(q, " \t\r\n(")
	for strings.HasPrefix(q, "/*") {
		j := strings.Index(q, "*/")
		if j < 0 {
			return ""
		}
		q = strings.TrimLeft(q[j+2:], " \t\r\n(")
	}
	return q
}

// startsWithWord reports whether q's first keyword is one of words (any
// case).
func startsWithWord(q string, words ...string) bool {
	q = statementStart(q)
	for _, w := range words {
		if len(q) >= len(w) && strings.EqualFold(q[:len(w)], w) && (len(q) == len(w) || !isIdentByte(q[len(w)])) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the ASCII word sub in any case,
// without allocating. Candidates are found by sub's first byte in either
// case (IndexByte: a multi-megabyte INSERT is scanned at memory speed, not
// with a comparison at every byte).
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	lo, up := sub[0], sub[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	} else if 'A' <= lo && lo <= 'Z' {
		lo = lo - 'A' + 'a'
	}
	last := len(s) - len(sub) // the last start a match can have
	// next finds c at or after i (-1: none up to last).
	next := func(c byte, i int) int {
		if i > last {
			return -1
		}
		if k := strings.IndexByte(s[i:last+1], c); k >= 0 {
			return i + k
		}
		return -1
	}
	nl, nu := next(lo, 0), -1
	if up != lo {
		nu = next(up, 0)
	}
	for nl >= 0 || nu >= 0 {
		i := nl
		if i < 0 || (nu >= 0 && nu < i) {
			i = nu
		}
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
		if i == nl {
			nl = next(lo, i+1)
		} else {
			nu = next(up, i+1)
		}
	}
	return false
}

// isDDL reports whether q is a CREATE or ALTER statement.
var createViewRE = regexp.MustCompile(`(?is)^\s*create\s+(?:or\s+replace\s+)?(?:algorithm\s*=\s*\w+\s+)?(?:definer\s*=\s*\S+\s+)?(?:sql\s+security\s+\w+\s+)?view\s`)

func isDDL(q string) bool { return startsWithWord(q, "create", "alter") }

// optimizerOnly are the variables SET STATEMENT may set around a
// statement whose result they cannot change in strata.
var optimizerOnly = map[string]bool{
	"optimizer_switch": true, "optimizer_search_depth": true, "optimizer_prune_level": true,
	"optimizer_use_condition_selectivity": true, "optimizer_trace": true, "optimizer_max_sel_arg_weight": true,
	"optimizer_join_limit_pref_ratio": true, "optimizer_extra_pruning_depth": true,
	"join_cache_level": true, "join_buffer_size": true, "join_buffer_space_limit": true,
	"sort_buffer_size": true, "mrr_buffer_size": true, "rowid_merge_buff_size": true,
	"use_stat_tables": true, "histogram_size": true, "histogram_type": true,
	"in_predicate_conversion_threshold": true, "expensive_subquery_limit": true,
	"eq_range_index_dive_limit": true, "tmp_table_size": true, "tmp_memory_table_size": true,
	"max_heap_table_size": true, "big_tables": true, "range_alloc_block_size": true,
	"optimizer_selectivity_sampling_limit": true,
}

// setStatementFor recognizes MariaDB's SET STATEMENT assignments FOR
// statement whose variables are all in optimizerOnly, and returns the
// statement.
func setStatementFor(q string) (string, bool) {
	if !startsWithWord(q, "set") {
		return "", false
	}
	i := skipSpace(q, 0) + 3
	j := skipSpace(q, i)
	if j == i || j+9 > len(q) || !strings.EqualFold(q[j:j+9], "statement") {
		return "", false
	}
	i = j + 9
	for {
		i = skipSpace(q, i)
		start := i
		for i < len(q) && (isIdentByte(q[i]) || q[i] == '@' || q[i] == '.') {
			i++
		}
		name := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(q[start:i], "@@"), "session."), "local."))
		if !optimizerOnly[name] {
			return "", false
		}
		i = skipSpace(q, i)
		if i >= len(q) || q[i] != '=' {
			return "", false
		}
		i = skipSpace(q, i+1)
		if i < len(q) && (q[i] == '\'' || q[i] == '"') {
			e := strings.IndexByte(q[i+1:], q[i])
			if e < 0 {
				return "", false
			}
			i += e + 2
		} else {
			for i < len(q) && !isSpace(q[i]) && q[i] != ',' {
				i++
			}
		}
		i = skipSpace(q, i)
		if i < len(q) && q[i] == ',' {
			i++
			continue
		}
		if i+3 <= len(q) && strings.EqualFold(q[i:i+3], "for") && (i+3 == len(q) || !isIdentByte(q[i+3])) {
			return q[i+3:], true
		}
		return "", false
	}
}

func skipSpace(q string, i int) int {
	for i < len(q) && isSpace(q[i]) {
		i++
	}
	return i
}

// typedLiteral recognizes DATE 'x', TIME 'x' and TIMESTAMP 'x' at q[i:j]
// (the word): k is where the literal starts, end where it ends. The
// literal becomes strata_typed_date('x') and its kin (rules FUNC-4).
func typedLiteral(q string, i, j int, backslashEscapes bool) (k, end int, ok bool) {
	switch strings.ToUpper(q[i:j]) {
	case "DATE", "TIME", "TIMESTAMP":
	default:
		return 0, 0, false
	}
	k = j
	for k < len(q) && isSpace(q[k]) {
		k++
	}
	if k >= len(q) || q[k] != '\'' && q[k] != '"' {
		return 0, 0, false
	}
	quote := q[k]
	e := k + 1
	for e < len(q) {
		if q[e] == '\\' && backslashEscapes {
			e += 2
			continue
		}
		if q[e] == quote {
			if e+1 < len(q) && q[e+1] == quote {
				e += 2
				continue
			}
			break
		}
		e++
	}
	if e >= len(q) {
		return 0, 0, false
	}
	return k, e + 1, true
}

// defaultCall recognizes DEFAULT f(...) and DEFAULT (expr) at q[i:j] (the
// word DEFAULT) and returns the extent of f(...) or of (expr) with its
// parentheses, and what replaces it, ((f(...))) or ((expr)): MariaDB's DEFAULT f(...) is
// MySQL 8's DEFAULT (f(...)), and go-mysql-server's grammar takes only a
// value expression inside DEFAULT ( ) (DEFAULT (NOT a) and DEFAULT (a IS
// NULL) were 1064) but any expression inside two. An expression already
// in two pairs is left as it is, so the rewrite is idempotent. inSelect:
// the DEFAULT is in a SELECT (CREATE VIEW or CREATE TABLE ... SELECT),
// where DEFAULT(col) is the function.
func defaultCall(q string, i, j int, inSelect bool) (start, end int, repl string, ok bool) {
	if !strings.EqualFold(q[i:j], "DEFAULT") {
		return 0, 0, "", false
	}
	k := j
	for k < len(q) && (q[k] == ' ' || q[k] == '\t') {
		k++
	}
	if k < len(q) && q[k] == '(' && !inSelect {
		e := matchParen(q, k)
		if e < 0 {
			return 0, 0, "", false
		}
		in := k + 1
		for in < e && isSpace(q[in]) {
			in++
		}
		last := e - 1
		for last > in && isSpace(q[last]) {
			last--
		}
		if in < e && q[in] == '(' && matchParen(q, in) == last {
			return 0, 0, "", false // already DEFAULT ((expr))
		}
		return k, e + 1, "(" + q[k:e+1] + ")", true
	}
	start = k
	for k < len(q) && isIdentByte(q[k]) {
		k++
	}
	name := strings.ToUpper(q[start:k])
	if k == start || k >= len(q) || q[k] != '(' || name[0] >= '0' && name[0] <= '9' {
		return 0, 0, "", false
	}
	switch name {
	case "CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP":
		return 0, 0, "", false
	}
	depth := 0
	for ; k < len(q); k++ {
		switch q[k] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return start, k + 1, "((" + q[start:k+1] + "))", true
			}
		case '\'', '"', '`':
			return 0, 0, "", false // quoted arguments: left to the parser
		}
	}
	return 0, 0, "", false
}

// typeWidth recognizes YEAR(n), BLOB(n) and TEXT(n) at q[i:j] (the word)
// and returns the type to write instead and the end of what it replaces.
func typeWidth(q string, i, j int) (string, int, bool) {
	word := strings.ToUpper(q[i:j])
	if word != "YEAR" && word != "BLOB" && word != "TEXT" {
		return "", 0, false
	}
	k := j
	for k < len(q) && (q[k] == ' ' || q[k] == '\t') {
		k++
	}
	if k >= len(q) || q[k] != '(' {
		return "", 0, false
	}
	end := strings.IndexByte(q[k:], ')')
	if end < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(q[k+1:k+end]), 10, 64)
	if err != nil {
		return "", 0, false
	}
	end += k + 1
	switch word {
	case "YEAR":
		return "YEAR", end, true
	case "TEXT":
		n *= 4
	}
	prefix := ""
	switch {
	case n < 1<<8:
		prefix = "TINY"
	case n < 1<<16:
	case n < 1<<24:
		prefix = "MEDIUM"
	default:
		prefix = "LONG"
	}
	return prefix + word, end, true
}

// generatedValues makes an INSERT or REPLACE that gives values for
// generated columns, outside strict mode, write DEFAULT for them instead:
// MariaDB ignores such values (with warning 1906) and mariadb-dump writes
// every column, generated ones included, under sql_mode
// NO_AUTO_VALUE_ON_ZERO. go-mysql-server refuses the statement in every
// mode. The statement is parsed only when it is an INSERT or REPLACE and
// some table has a generated column.
func generatedValues(s *backend.Session, query string) string {
	if !isInsert(query) {
		return query
	}
	stmt, err := sqlparser.Parse(query)
	if err != nil {
		return query
	}
	ins, ok := stmt.(*sqlparser.Insert)
	if !ok {
		return query
	}
	values, ok := ins.Rows.(*sqlparser.AliasedValues)
	if !ok {
		return query
	}
	names, generated, ok := s.GeneratedColumns(ins.Table.DbQualifier.String(), ins.Table.Name.String())
	if !ok {
		return query
	}
	cols := make([]int, 0, len(names)) // ordinal of each listed column
	if len(ins.Columns) == 0 {
		for i := range names {
			cols = append(cols, i)
			ins.Columns = append(ins.Columns, sqlparser.NewColIdent(names[i]))
		}
	} else {
		for _, c := range ins.Columns {
			o := -1
			for i, n := range names {
				if c.EqualString(n) {
					o = i
				}
			}
			cols = append(cols, o)
		}
	}
	changed := false
	for _, row := range values.Values {
		if len(row) != len(cols) {
			return query
		}
		for i, o := range cols {
			if o >= 0 && generated[o] {
				if _, isDefault := row[i].(*sqlparser.Default); !isDefault {
					row[i] = &sqlparser.Default{}
					changed = true
				}
			}
		}
	}
	if !changed {
		return query
	}
	return sqlparser.String(ins)
}

// isInsert reports whether q is an INSERT or REPLACE statement.
func isInsert(q string) bool { return startsWithWord(q, "insert", "replace") }

// usesDefaultFunction reports whether a statement other than CREATE
// TABLE/ALTER (whose DEFAULT (expr) is a column's default) calls
// DEFAULT(col) (outside quotes and comments): go-mysql-server's planner
// panics on it, so it is refused with 1235 before. CREATE VIEW has no
// column definitions: its DEFAULT( is the function.
func usesDefaultFunction(q string) bool {
	if isDDL(q) && !createViewRE.MatchString(q) || !containsFold(q, "default") {
		return false
	}
	return eachWord(q, func(i, j int) bool {
		if !strings.EqualFold(q[i:j], "DEFAULT") {
			return false
		}
		for j < len(q) && isSpace(q[j]) {
			j++
		}
		return j < len(q) && q[j] == '('
	})
}

// misplacedDefault reports whether q uses DEFAULT as a value where MySQL
// takes none: anywhere but an INSERT's VALUES row, the right side of an
// assignment (UPDATE / INSERT ... SET, ON DUPLICATE KEY UPDATE) and SET
// var = DEFAULT. MySQL answers 1064; go-mysql-server's planner panicked
// ("default column is a placeholder node") on SELECT DATE(DEFAULT), found
// by FuzzSQL.
func misplacedDefault(q string) bool {
	if isDDL(q) || !containsFold(q, "default") {
		return false
	}
	stmt, err := sqlparser.Parse(q)
	if err != nil {
		return false // the parser's own error follows
	}
	allowed := map[*sqlparser.Default]bool{}
	bad := false
	sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Insert:
			if v, ok := x.Rows.(*sqlparser.AliasedValues); ok {
				for _, row := range v.Values {
					for _, e := range row {
						if d, ok := e.(*sqlparser.Default); ok {
							allowed[d] = true
						}
					}
				}
			}
		case *sqlparser.AssignmentExpr:
			if d, ok := x.Expr.(*sqlparser.Default); ok {
				allowed[d] = true
			}
		case *sqlparser.SetVarExpr:
			if d, ok := x.Expr.(*sqlparser.Default); ok {
				allowed[d] = true
			}
		case *sqlparser.Default:
			bad = bad || !allowed[x]
		}
		return !bad, nil
	}, stmt)
	return bad
}

// tooBigTimePrecision finds the type TIME(n), DATETIME(n) or TIMESTAMP(n)
// with n above 6 (outside quotes and comments), in CAST(... AS type) or a
// CREATE/ALTER column definition: MySQL's 1426. go-mysql-server's planner
// panicked on CAST(x AS DATETIME(7)), took TIME(7) and worded DATETIME(7)
// columns as 1105. Elsewhere TIME(7) is the function.
func tooBigTimePrecision(q string) (int, string, bool) {
	if !containsFold(q, "time") {
		return 0, "", false
	}
	ddl := isDDL(q)
	prevAS := false // the word before is AS
	var n int
	var typ string
	found := eachWord(q, func(i, j int) bool {
		w := q[i:j]
		afterAS := prevAS
		prevAS = strings.EqualFold(w, "as")
		if !strings.EqualFold(w, "time") && !strings.EqualFold(w, "datetime") && !strings.EqualFold(w, "timestamp") {
			return false
		}
		if !afterAS && !ddl {
			return false
		}
		k := j
		for k < len(q) && isSpace(q[k]) {
			k++
		}
		if k >= len(q) || q[k] != '(' {
			return false
		}
		k++
		for k < len(q) && isSpace(q[k]) {
			k++
		}
		d := k
		for k < len(q) && q[k] >= '0' && q[k] <= '9' {
			k++
		}
		if d == k || k-d > 9 {
			return false
		}
		v, _ := strconv.Atoi(q[d:k])
		for k < len(q) && isSpace(q[k]) {
			k++
		}
		if v <= 6 || k >= len(q) || q[k] != ')' {
			return false
		}
		n, typ = v, strings.ToUpper(w)
		return true
	})
	return n, typ, found
}

// eachWord calls f with the bounds of each word of q outside quoted
// strings, quoted identifiers and comments, until f returns true.
func eachWord(q string, f func(i, j int) bool) bool {
	for i := 0; i < len(q); {
		switch ch := q[i]; {
		case ch == '\'' || ch == '"' || ch == '`':
			j := i + 1
			for j < len(q) && q[j] != ch {
				if q[j] == '\\' && ch != '`' {
					j++
				}
				j++
			}
			i = j + 1
		case ch == '#' || (ch == '-' && strings.HasPrefix(q[i:], "-- ")):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return false
			}
			i += j + 1
		case ch == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 4
		case isIdentByte(ch):
			j := i
			for j < len(q) && isIdentByte(q[j]) {
				j++
			}
			if (i == 0 || !isIdentByte(q[i-1])) && f(i, j) {
				return true
			}
			i = j
		default:
			i++
		}
	}
	return false
}

// selectValues makes VALUES(col) work in INSERT ... SELECT ... ON
// DUPLICATE KEY UPDATE: go-mysql-server resolves VALUES() only for
// INSERT ... VALUES (1105 "expected ON DUPLICATE KEY ... VALUES() to
// reference a column"). The SELECT becomes a derived table with one
// named column per destination column, (SELECT ...) AS __strata_src
// (c0, c1, ...), read as SELECT *, and VALUES(col) names the column of
// the destination column col. Left alone when the update clause names
// a table other than the destination (it would leave the scope).
func selectValues(s *backend.Session, query string) string {
	if !isInsert(query) || !containsFold(query, "duplicate") || !containsFold(query, "values") {
		return query
	}
	stmt, err := sqlparser.Parse(query)
	if err != nil {
		return query
	}
	ins, ok := stmt.(*sqlparser.Insert)
	if !ok || len(ins.OnDup) == 0 {
		return query
	}
	sel, ok := ins.Rows.(sqlparser.SelectStatement)
	if !ok {
		return query
	}
	var cols []string
	for _, c := range ins.Columns {
		cols = append(cols, c.String())
	}
	if len(cols) == 0 {
		if cols, _, ok = s.GeneratedColumns(ins.Table.DbQualifier.String(), ins.Table.Name.String()); !ok && cols == nil {
			return query
		}
	}
	const alias = "__strata_src"
	table := ins.Table.Name.String()
	found, foreign := false, false
	for _, u := range ins.OnDup {
		sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			switch n := n.(type) {
			case *sqlparser.ValuesFuncExpr:
				if n.Name == nil {
					return false, nil
				}
				for i, c := range cols {
					if strings.EqualFold(c, n.Name.Name.String()) {
						n.Name = &sqlparser.ColName{Name: sqlparser.NewColIdent(fmt.Sprintf("c%d", i)), Qualifier: sqlparser.TableName{Name: sqlparser.NewTableIdent(alias)}}
						found = true
					}
				}
				return false, nil
			case *sqlparser.ColName:
				if q := n.Qualifier.Name.String(); q != "" && !strings.EqualFold(q, table) {
					foreign = true
				}
			case *sqlparser.Subquery:
				foreign = true // its own scope: not worth following
			}
			return true, nil
		}, u.Expr)
	}
	if !found || foreign {
		return query
	}
	names := make(sqlparser.Columns, len(cols))
	for i := range cols {
		names[i] = sqlparser.NewColIdent(fmt.Sprintf("c%d", i))
	}
	ins.Rows = &sqlparser.Select{
		SelectExprs: sqlparser.SelectExprs{&sqlparser.StarExpr{}},
		From: sqlparser.TableExprs{&sqlparser.AliasedTableExpr{
			Expr: &sqlparser.Subquery{Select: sel, Columns: names},
			As:   sqlparser.NewTableIdent(alias),
		}},
	}
	return sqlparser.String(ins)
}

// intervalFunction reports whether the word INTERVAL ending at j is the
// function INTERVAL(N, N1, ...): a parenthesis follows, holding a comma
// outside nested parentheses and quotes.
func intervalFunction(q string, j int) bool {
	k := j
	for k < len(q) && isSpace(q[k]) {
		k++
	}
	if k >= len(q) || q[k] != '(' {
		return false
	}
	c := matchParen(q, k)
	if c < 0 {
		return false
	}
	depth := 0
	for i := k + 1; i < c; i++ {
		switch q[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '\'', '"', '`':
			e := strings.IndexByte(q[i+1:c], q[i])
			if e < 0 {
				return false
			}
			i += e + 1
		case ',':
			if depth == 0 {
				return true
			}
		}
	}
	return false
}
