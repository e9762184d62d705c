package routines

import (
	"context"
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Definition is a CREATE FUNCTION statement taken apart.
type Definition struct {
	OrReplace     bool
	IfNotExists   bool
	Definer       string // as written after DEFINER =, or ""
	DB, Name      string // DB "" when the name is not qualified
	Params        []Param
	ParamsText    string // between the parentheses, as written
	Returns       string // the RETURNS type as written
	Deterministic bool
	DataAccess    string // CONTAINS SQL (default), NO SQL, READS SQL DATA, MODIFIES SQL DATA
	Security      string // DEFINER (default) or INVOKER
	Comment       string // the COMMENT string's value
	Body          string // the routine body as written
	BodyStart     int    // Body's offset in the parsed text
}

// Param is one parameter: its name and its type as written.
type Param struct{ Name, Type string }

// Label and ReturnColumn are the names FN-1's translation uses.
const (
	Label        = "strata_function"
	ReturnColumn = "strata_return"
)

// ErrAggregate refuses MariaDB's CREATE AGGREGATE FUNCTION.
var ErrAggregate = mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of Strata doesn't yet support 'CREATE AGGREGATE FUNCTION'")

func syntaxError(near string) error {
	return mysql.NewSQLError(mysql.ERParseError, "42000",
		"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s'", near)
}

// IsCreateFunction reports whether q is a CREATE [OR REPLACE] [DEFINER =
// ...] [AGGREGATE] FUNCTION statement (a cheap test on its first words).
func IsCreateFunction(q string) bool {
	if t := strings.TrimLeft(q, " \t\r\n"); len(t) < 6 || !strings.EqualFold(t[:6], "create") {
		return false // every statement passes here: no lexing unless CREATE
	}
	toks := lex(prefix(q, 400))
	if len(toks) < 2 || !toks[0].is("create") {
		return false
	}
	for _, t := range toks[1:] {
		if t.is("function") {
			return true
		}
		if t.is("procedure") || t.is("table") || t.is("view") || t.is("trigger") || t.is("event") ||
			t.is("index") || t.is("database") || t.is("schema") || t.is("user") || t.is("role") {
			return false
		}
	}
	return false
}

func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Parse takes a CREATE FUNCTION statement apart (FN-1).
func Parse(q string) (*Definition, error) {
	q = strings.TrimRight(q, "; \t\r\n")
	toks := lex(q)
	d := &Definition{DataAccess: "CONTAINS SQL", Security: "DEFINER"}
	i := 0
	at := func() token {
		if i < len(toks) {
			return toks[i]
		}
		return token{}
	}
	near := func() string {
		if i < len(toks) {
			return prefix(q[toks[i].start:], 80)
		}
		return ""
	}
	if !at().is("create") {
		return nil, syntaxError(near())
	}
	i++
	if at().is("or") && i+1 < len(toks) && toks[i+1].is("replace") {
		d.OrReplace = true
		i += 2
	}
	if at().is("definer") {
		i++
		if at().text != "=" {
			return nil, syntaxError(near())
		}
		i++
		start := i
		if at().is("current_user") {
			i++
			if at().text == "(" && i+1 < len(toks) && toks[i+1].text == ")" {
				i += 2
			}
		} else {
			i++ // user
			if at().text == "@" {
				i += 2 // @ host
			}
		}
		if i > len(toks) || start >= len(toks) {
			return nil, syntaxError(near())
		}
		d.Definer = q[toks[start].start:toks[i-1].end]
	}
	if at().is("aggregate") {
		return nil, ErrAggregate
	}
	if !at().is("function") {
		return nil, syntaxError(near())
	}
	i++
	if at().is("if") && i+2 < len(toks) && toks[i+1].is("not") && toks[i+2].is("exists") {
		d.IfNotExists = true
		i += 3
	}
	name, ok := ident(at())
	if !ok {
		return nil, syntaxError(near())
	}
	i++
	if at().text == "." && i+1 < len(toks) {
		d.DB = name
		if name, ok = ident(toks[i+1]); !ok {
			return nil, syntaxError(near())
		}
		i += 2
	}
	d.Name = name
	if at().text != "(" {
		return nil, syntaxError(near())
	}
	closeAt := matching(toks, i)
	if closeAt < 0 {
		return nil, syntaxError(near())
	}
	d.ParamsText = strings.TrimSpace(q[toks[i].end:toks[closeAt].start])
	for _, p := range splitTop(toks[i+1 : closeAt]) {
		if len(p) < 2 {
			return nil, syntaxError(prefix(q[p[0].start:], 80))
		}
		pn, ok := ident(p[0])
		if !ok || p[0].is("in") || p[0].is("out") || p[0].is("inout") {
			return nil, syntaxError(prefix(q[p[0].start:], 80))
		}
		d.Params = append(d.Params, Param{Name: pn, Type: q[p[1].start:p[len(p)-1].end]})
	}
	i = closeAt + 1
	if !at().is("returns") {
		return nil, syntaxError(near())
	}
	i++
	typeStart := i
	if at().kind != 'w' {
		return nil, syntaxError(near())
	}
	i++
	if at().is("precision") || at().is("varying") { // DOUBLE PRECISION, CHAR VARYING
		i++
	}
	if at().text == "(" {
		c := matching(toks, i)
		if c < 0 {
			return nil, syntaxError(near())
		}
		i = c + 1
	}
	for i < len(toks) {
		t := at()
		switch {
		case t.is("unsigned") || t.is("signed") || t.is("zerofill") || t.is("binary") || t.is("ascii") || t.is("unicode"):
			i++
		case t.is("charset") || t.is("collate"):
			i += 2
		case t.is("character") && i+1 < len(toks) && toks[i+1].is("set"):
			i += 3
		default:
			goto typeDone
		}
	}
typeDone:
	if i > len(toks) {
		return nil, syntaxError("")
	}
	d.Returns = q[toks[typeStart].start:toks[i-1].end]
	for i < len(toks) {
		t := at()
		switch {
		case t.is("comment") && i+1 < len(toks) && toks[i+1].kind == 's':
			d.Comment = unquote(toks[i+1].text)
			i += 2
		case t.is("language") && i+1 < len(toks) && toks[i+1].is("sql"):
			i += 2
		case t.is("deterministic"):
			d.Deterministic = true
			i++
		case t.is("not") && i+1 < len(toks) && toks[i+1].is("deterministic"):
			d.Deterministic = false
			i += 2
		case t.is("contains") && i+1 < len(toks) && toks[i+1].is("sql"):
			d.DataAccess = "CONTAINS SQL"
			i += 2
		case t.is("no") && i+1 < len(toks) && toks[i+1].is("sql"):
			d.DataAccess = "NO SQL"
			i += 2
		case (t.is("reads") || t.is("modifies")) && i+2 < len(toks) && toks[i+1].is("sql") && toks[i+2].is("data"):
			d.DataAccess = strings.ToUpper(t.text) + " SQL DATA"
			i += 3
		case t.is("sql") && i+2 < len(toks) && toks[i+1].is("security") && (toks[i+2].is("definer") || toks[i+2].is("invoker")):
			d.Security = strings.ToUpper(toks[i+2].text)
			i += 3
		default:
			goto body
		}
	}
body:
	if i >= len(toks) {
		return nil, syntaxError("")
	}
	d.Body, d.BodyStart = q[toks[i].start:], toks[i].start
	if d.OrReplace && d.IfNotExists {
		return nil, mysql.NewSQLError(1221, "HY000", "Incorrect usage of OR REPLACE and IF NOT EXISTS")
	}
	return d, nil
}

// Split cuts a text that starts with a CREATE FUNCTION statement after
// that statement: a multi-statement text's first statement ends at the
// ';' after the body, which go-mysql-server's parser finds in the body
// read as a procedure's (RETURN read as SELECT, a word of the same
// length, so offsets carry over).
func Split(ctx context.Context, q string) (first, rest string) {
	d, err := Parse(q)
	if err != nil {
		return q, ""
	}
	body := []byte(d.Body)
	for _, t := range lex(d.Body) {
		if t.is("return") {
			copy(body[t.start:t.end], "SELECT")
		}
	}
	const head = "CREATE PROCEDURE strata_split() "
	probe := head + string(body)
	_, next, err := sqlparser.ParseOne(ctx, probe)
	if err != nil || next >= len(probe) || next <= len(head) {
		return q, ""
	}
	cut := d.BodyStart + next - len(head)
	return q[:cut], q[cut:]
}

// Procedure is the CREATE PROCEDURE text d runs as (FN-1).
func (d *Definition) Procedure(hiddenName string) string {
	var b strings.Builder
	b.WriteString("CREATE PROCEDURE `")
	b.WriteString(strings.ReplaceAll(hiddenName, "`", "``"))
	b.WriteString("`(")
	for i, p := range d.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("IN `")
		b.WriteString(strings.ReplaceAll(p.Name, "`", "``"))
		b.WriteString("` ")
		b.WriteString(p.Type)
	}
	b.WriteString(") ")
	// A BEGIN ... END body is the procedure's block itself (go-mysql-server's
	// interpreter does not let a nested block read the parameters), its
	// label the one LEAVE names; another body goes inside a block.
	toks := lex(d.Body)
	switch {
	case len(toks) > 0 && toks[0].is("begin"):
		b.WriteString(Label + ": ")
		b.WriteString(returnsTranslated(d.Body, Label))
	case len(toks) > 2 && toks[1].text == ":" && toks[2].is("begin"):
		label, _ := ident(toks[0])
		b.WriteString(returnsTranslated(d.Body, label))
	default:
		body := returnsTranslated(d.Body, Label)
		b.WriteString(Label + ": BEGIN ")
		b.WriteString(body)
		if !strings.HasSuffix(strings.TrimSpace(body), ";") {
			b.WriteString(";")
		}
		b.WriteString(" END")
	}
	return b.String()
}

// returnsTranslated turns each RETURN expr of body into SELECT (expr) AS
// strata_return; LEAVE label (FN-1).
func returnsTranslated(body, label string) string {
	toks := lex(body)
	var b strings.Builder
	last := 0
	for i := 0; i < len(toks); i++ {
		if !toks[i].is("return") {
			continue
		}
		// the expression: up to the statement's ';' (outside parentheses)
		j, depth := i+1, 0
		for ; j < len(toks); j++ {
			switch toks[j].text {
			case "(":
				depth++
			case ")":
				depth--
			}
			if depth == 0 && toks[j].kind == 'p' && toks[j].text == ";" {
				break
			}
		}
		if j == i+1 {
			continue // RETURN with no expression: left for the parser's error
		}
		exprEnd := toks[j-1].end
		b.WriteString(body[last:toks[i].start])
		fmt.Fprintf(&b, "SELECT (%s) AS %s; LEAVE `%s`", body[toks[i+1].start:exprEnd], ReturnColumn, strings.ReplaceAll(label, "`", "``"))
		last = exprEnd
		i = j
	}
	b.WriteString(body[last:])
	return b.String()
}

// ident is t's identifier text (backquotes removed).
func ident(t token) (string, bool) {
	switch t.kind {
	case 'w', 'q':
		return t.text, t.text != ""
	}
	return "", false
}

// matching is the index of the ')' closing toks[open], or -1.
func matching(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		switch toks[i].text {
		case "(":
			if toks[i].kind == 'p' {
				depth++
			}
		case ")":
			if toks[i].kind == 'p' {
				if depth--; depth == 0 {
					return i
				}
			}
		}
	}
	return -1
}

// splitTop splits toks at its top-level commas.
func splitTop(toks []token) [][]token {
	if len(toks) == 0 {
		return nil
	}
	var out [][]token
	depth, start := 0, 0
	for i, t := range toks {
		if t.kind != 'p' {
			continue
		}
		switch t.text {
		case "(":
			depth++
		case ")":
			depth--
		case ",":
			if depth == 0 {
				out = append(out, toks[start:i])
				start = i + 1
			}
		}
	}
	return append(out, toks[start:])
}

// unquote is a quoted string's value.
func unquote(s string) string {
	if len(s) < 2 {
		return s
	}
	q := s[0]
	s = s[1 : len(s)-1]
	s = strings.ReplaceAll(s, string([]byte{q, q}), string(q))
	if strings.Contains(s, `\`) {
		r := strings.NewReplacer(`\\`, `\`, `\'`, `'`, `\"`, `"`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\0`, "\x00")
		s = r.Replace(s)
	}
	return s
}
