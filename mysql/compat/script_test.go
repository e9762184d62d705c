package compat

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// statement is one statement of a corpus script with the directives
// written on the comment lines before it.
type statement struct {
	file  string // base name, e.g. "queries.sql"
	num   int    // 1-based position in the file
	line  int    // line the statement starts on
	text  string // as written, without the final ';'
	key   string // identity in ACCEPTED: see acceptedKey
	flags directives
}

type directives struct {
	ignoreResult   bool // @ignore-result: compare the error code only
	ignoreWarnings bool // @ignore-warnings: do not compare SHOW WARNINGS
	sorted         bool // @sorted: compare rows as a multiset
}

// script is one corpus file.
type script struct {
	file  string
	stmts []statement
	// defaultCollation: the file's database is created with the servers'
	// default character set and collation instead of utf8mb4_bin
	// (file directive @default-collation).
	defaultCollation bool
	// exactTypes: no integer/string type merging (file directive
	// @exact-types).
	exactTypes bool
}

var spaceRun = regexp.MustCompile(`\s+`)

// normalizeText collapses runs of white space, for keys.
func normalizeText(s string) string { return strings.TrimSpace(spaceRun.ReplaceAllString(s, " ")) }

// parseScript splits a corpus file into statements. A statement ends with
// ';' at the end of a line (trailing white space allowed) outside quotes
// ('...', "..." with backslash escapes and doubled quotes, `...`). Lines
// whose first non-blank characters are "--" outside a statement's quotes
// are comments; "-- @name" comments are directives for the next
// statement (or, for file directives, the file).
func parseScript(path, name string) (*script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := &script{file: name}
	var (
		cur       strings.Builder
		curLine   int
		pending   directives
		quote     byte // open quote character, 0 outside
		seenTexts = map[string]int{}
	)
	lines := strings.Split(string(data), "\n")
	for i, ln := range lines {
		lineNo := i + 1
		trimmed := strings.TrimSpace(ln)
		if quote == 0 && strings.HasPrefix(trimmed, "--") {
			d := strings.TrimSpace(strings.TrimPrefix(trimmed, "--"))
			if strings.HasPrefix(d, "@") {
				for _, w := range strings.Fields(d) {
					switch w {
					case "@ignore-result":
						pending.ignoreResult = true
					case "@ignore-warnings":
						pending.ignoreWarnings = true
					case "@sorted":
						pending.sorted = true
					case "@default-collation":
						sc.defaultCollation = true
					case "@exact-types":
						sc.exactTypes = true
					default:
						if strings.HasPrefix(w, "@") {
							return nil, fmt.Errorf("%s:%d: unknown directive %s", name, lineNo, w)
						}
					}
				}
			}
			continue
		}
		if quote == 0 && trimmed == "" && cur.Len() == 0 {
			continue
		}
		if cur.Len() == 0 {
			curLine = lineNo
		} else {
			cur.WriteByte('\n')
		}
		cur.WriteString(ln)
		// Scan the line for quotes.
		for j := 0; j < len(ln); j++ {
			c := ln[j]
			switch {
			case quote == 0:
				if c == '\'' || c == '"' || c == '`' {
					quote = c
				}
			case c == '\\' && quote != '`':
				j++
			case c == quote:
				if j+1 < len(ln) && ln[j+1] == quote {
					j++
				} else {
					quote = 0
				}
			}
		}
		if quote == 0 && strings.HasSuffix(strings.TrimRight(ln, " \t\r"), ";") {
			text := strings.TrimRight(cur.String(), " \t\r")
			text = strings.TrimSpace(strings.TrimSuffix(text, ";"))
			cur.Reset()
			if text == "" {
				continue
			}
			norm := normalizeText(text)
			seenTexts[norm]++
			st := statement{file: name, num: len(sc.stmts) + 1, line: curLine, text: text,
				key: acceptedKey(name, norm, seenTexts[norm]), flags: pending}
			pending = directives{}
			sc.stmts = append(sc.stmts, st)
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%s:%d: unterminated quote %c", name, curLine, quote)
	}
	if strings.TrimSpace(cur.String()) != "" {
		return nil, fmt.Errorf("%s:%d: statement without a final ';'", name, curLine)
	}
	return sc, nil
}

// acceptedKey identifies a statement in ACCEPTED: the file, the statement
// text with white space collapsed and, for the second and later statements
// of a file with the same text, "#n" (the n-th occurrence). Keys survive
// statements being added or removed elsewhere in the file.
func acceptedKey(file, norm string, occurrence int) string {
	if occurrence > 1 {
		return fmt.Sprintf("%s#%d: %s", file, occurrence, norm)
	}
	return file + ": " + norm
}

// firstWord is the statement's first keyword, upper-cased ("(" for a
// parenthesized query).
func firstWord(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	if strings.HasPrefix(t, "(") {
		return "("
	}
	end := strings.IndexFunc(t, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_')
	})
	if end < 0 {
		end = len(t)
	}
	return strings.ToUpper(t[:end])
}

// returnsRows: statements run with Query (result set compared); all
// others run with Exec.
func returnsRows(text string) bool {
	switch firstWord(text) {
	case "SELECT", "SHOW", "WITH", "VALUES", "TABLE", "EXPLAIN", "DESCRIBE", "DESC", "(", "CHECKSUM", "CHECK", "REPAIR", "OPTIMIZE":
		return true
	}
	return false
}

// isDML: statements whose affected-rows count is compared.
func isDML(text string) bool {
	switch firstWord(text) {
	case "INSERT", "REPLACE", "UPDATE", "DELETE":
		return true
	}
	return false
}

// isShowWarnings: SHOW WARNINGS / SHOW ERRORS (and their COUNT forms)
// are not followed by the harness's own SHOW WARNINGS.
func isShowWarnings(text string) bool {
	f := strings.Fields(strings.ToUpper(text))
	if len(f) >= 2 && f[0] == "SHOW" && (f[1] == "WARNINGS" || f[1] == "ERRORS") {
		return true
	}
	if len(f) >= 4 && f[0] == "SHOW" && f[1] == "COUNT(*)" && (f[2] == "WARNINGS" || f[2] == "ERRORS") {
		return true
	}
	return false
}
