package server

import (
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
)

// SRV-WORDS: spellings of MySQL's grammar go-mysql-server's parser lacks,
// put in the forms it takes before it parses (text and the multi-statement
// path; the wire library parses COM_STMT_PREPARE itself):
//   - the compound units of INTERVAL (MINUTE_SECOND, DAY_HOUR, YEAR_MONTH,
//     ...): the parser takes them only in EXTRACT and as an identifier
//     after INTERVAL, so they are quoted as one (`MINUTE_SECOND`), which
//     go-mysql-server's INTERVAL arithmetic reads. EXTRACT(DAY_HOUR FROM
//     d), where the word is followed by FROM, is left as is. A value of
//     one number (INTERVAL 5 MINUTE_SECOND) is the rightmost field, as
//     MySQL reads it: the unit becomes that field's (the result's name
//     then says INTERVAL 5 SECOND);
//   - USE / IGNORE / FORCE KEY, an index hint's synonym of INDEX, and
//     PRIMARY in a hint's list (quoted: the parser takes names only);
//   - EXPLAIN FORMAT=TRADITIONAL is EXPLAIN; FORMAT=JSON is 1235.

// compoundUnits are INTERVAL's units of two fields.
var compoundUnits = map[string]bool{
	"SECOND_MICROSECOND": true, "MINUTE_MICROSECOND": true, "MINUTE_SECOND": true,
	"HOUR_MICROSECOND": true, "HOUR_SECOND": true, "HOUR_MINUTE": true, "DAY_MICROSECOND": true,
	"DAY_SECOND": true, "DAY_MINUTE": true, "DAY_HOUR": true, "YEAR_MONTH": true,
}

// keyHintRE is an index hint written with KEY.
var keyHintRE = regexp.MustCompile(`(?i)\b(USE|IGNORE|FORCE)(\s+)KEY\b`)

// primaryHintRE is an index hint whose list names PRIMARY.
var primaryHintRE = regexp.MustCompile(`(?i)^(?:USE|IGNORE|FORCE)\s+(?:INDEX|KEY)(?:\s+FOR\s+(?:JOIN|ORDER\s+BY|GROUP\s+BY))?\s*\(([^)]*)\)`)

// primaryWordRE is PRIMARY as a word of an index list.
var primaryWordRE = regexp.MustCompile(`(?i)\bPRIMARY\b`)

// explainFormatRE is EXPLAIN with a FORMAT option: TRADITIONAL is the
// plain EXPLAIN (go-mysql-server knows only TREE); JSON it lacks
// (explainJSON answers 1235).
var explainFormatRE = regexp.MustCompile(`(?is)^(\s*(?:EXPLAIN|DESCRIBE|DESC))\s+FORMAT\s*=\s*(?:'TRADITIONAL'|"TRADITIONAL"|TRADITIONAL\b)`)

var explainJSONRE = regexp.MustCompile(`(?is)^\s*(?:EXPLAIN|DESCRIBE|DESC)\s+(?:ANALYZE\s+)?FORMAT\s*=\s*(?:'JSON'|"JSON"|JSON\b)`)

// explainJSON is the answer to EXPLAIN FORMAT=JSON: not supported (1235),
// not a syntax error.
func explainJSON(q string) error {
	if !explainJSONRE.MatchString(q) {
		return nil
	}
	return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of Strata doesn't yet support 'EXPLAIN FORMAT=JSON'")
}

// sqlWords applies SRV-WORDS to q.
func sqlWords(q string) string {
	if startsWithWord(q, "explain", "describe", "desc") && containsFold(q, "traditional") {
		q = explainFormatRE.ReplaceAllString(q, "$1")
	}
	if containsFold(q, "interval") && strings.IndexByte(q, '_') >= 0 {
		q = quoteIntervalUnits(q)
	}
	if containsFold(q, "key") && (containsFold(q, "use") || containsFold(q, "ignore") || containsFold(q, "force")) &&
		keyHintRE.MatchString(q) {
		q = spliceWords(q, func(i, j int) (int, int, string, bool) {
			if w := strings.ToUpper(q[i:j]); w == "USE" || w == "IGNORE" || w == "FORCE" {
				if m := keyHintRE.FindStringSubmatchIndex(q[i:]); m != nil && m[0] == 0 {
					k := i + m[5] // after the spaces: KEY
					return k, k + len("KEY"), "INDEX", true
				}
			}
			return 0, 0, "", false
		})
	}
	if containsFold(q, "primary") && (containsFold(q, "use") || containsFold(q, "ignore") || containsFold(q, "force")) {
		q = quotePrimaryHints(q)
	}
	return q
}

// quotePrimaryHints quotes PRIMARY in index hints' lists (`USE INDEX
// (PRIMARY)`): the parser takes only names there.
func quotePrimaryHints(q string) string {
	return spliceWords(q, func(i, j int) (int, int, string, bool) {
		if w := strings.ToUpper(q[i:j]); w != "USE" && w != "IGNORE" && w != "FORCE" {
			return 0, 0, "", false
		}
		m := primaryHintRE.FindStringSubmatchIndex(q[i:])
		if m == nil {
			return 0, 0, "", false
		}
		return i + m[2], i + m[3], primaryWordRE.ReplaceAllString(q[i+m[2]:i+m[3]], "`$0`"), true
	})
}

// quoteIntervalUnits quotes the compound units not followed by FROM.
func quoteIntervalUnits(q string) string {
	return spliceWords(q, func(i, j int) (int, int, string, bool) {
		if j-i < 8 || !compoundUnits[strings.ToUpper(q[i:j])] {
			return 0, 0, "", false
		}
		if k := skipSpace(q, j); k+4 <= len(q) && strings.EqualFold(q[k:k+4], "from") && (k+4 == len(q) || !isIdentByte(q[k+4])) {
			return 0, 0, "", false // EXTRACT(unit FROM d)
		}
		if singleNumberBefore(q, i) {
			// INTERVAL 5 MINUTE_SECOND: a value of one part is the
			// rightmost field (MySQL assumes the leftmost left out);
			// go-mysql-server wants every field.
			unit := strings.ToUpper(q[i:j])
			return i, j, unit[strings.LastIndexByte(unit, '_')+1:], true
		}
		return i, j, "`" + q[i:j] + "`", true
	})
}

// spliceWords rebuilds q with the replacements edit gives for its words
// (outside strings and comments): q[from:to] becomes repl. A replacement
// that starts before the end of the previous one is dropped. q itself when
// there are none.
func spliceWords(q string, edit func(i, j int) (from, to int, repl string, ok bool)) string {
	var out strings.Builder
	last, changed := 0, false
	eachWord(q, func(i, j int) bool {
		if from, to, repl, ok := edit(i, j); ok && from >= last {
			out.WriteString(q[last:from])
			out.WriteString(repl)
			last, changed = to, true
		}
		return false
	})
	if !changed {
		return q
	}
	out.WriteString(q[last:])
	return out.String()
}

// unquoteIntervalUnits undoes quoteIntervalUnits in a result column's
// name, which go-mysql-server takes from the statement's text.
func unquoteIntervalUnits(name string) string {
	for u := range compoundUnits {
		if i := strings.Index(strings.ToUpper(name), "`"+u+"`"); i >= 0 {
			name = name[:i] + name[i+1:i+1+len(u)] + name[i+2+len(u):]
		}
	}
	return name
}

// singleNumberBefore reports whether the unit at q[i] follows `INTERVAL
// n` or `INTERVAL 'n'` with n digits only.
func singleNumberBefore(q string, i int) bool {
	k := i
	for k > 0 && isSpace(q[k-1]) {
		k--
	}
	quote := byte(0)
	if k > 0 && (q[k-1] == '\'' || q[k-1] == '"') {
		quote = q[k-1]
		k--
	}
	digitsEnd := k
	for k > 0 && q[k-1] >= '0' && q[k-1] <= '9' {
		k--
	}
	if k == digitsEnd {
		return false
	}
	if quote != 0 {
		if k == 0 || q[k-1] != quote {
			return false
		}
		k--
	} else if k > 0 && isIdentByte(q[k-1]) {
		return false
	}
	for k > 0 && isSpace(q[k-1]) {
		k--
	}
	return k >= len("interval") && strings.EqualFold(q[k-len("interval"):k], "interval") &&
		(k == len("interval") || !isIdentByte(q[k-len("interval")-1]))
}
