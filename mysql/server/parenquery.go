package server

import (
	"regexp"
	"strings"
)

// SRV-PARENQUERY: a parenthesized query is a query, as in MySQL 8 and
// MariaDB, wherever go-mysql-server's parser takes only the bare form:
//   - `(SELECT ...)` as a whole statement is the query, and `((SELECT
//     ...)) UNION ...` loses the redundant pair (the parser takes one pair
//     in a UNION only);
//   - `(SELECT ...) ORDER BY ... [LIMIT ...]` and `(SELECT ...) LIMIT ...`
//     (the parser takes ORDER BY/LIMIT after a parenthesized query only in
//     a UNION): the query becomes the derived table of `SELECT * FROM (...)
//     AS strata_paren_q`, whose columns are the query's own, so the outer
//     ORDER BY and LIMIT apply to its result as MySQL applies them;
//   - `CREATE VIEW v AS (SELECT ...)`: the view's query loses the
//     parentheses.
// Only the statement's opening changes; what follows (ORDER BY, LIMIT,
// further statements of a multi-statement text) is kept as written. Cost:
// one byte test on the text path ('(' first, or CREATE ... VIEW).

// parenQuery applies SRV-PARENQUERY to q's first statement.
func parenQuery(q string) string {
	i := skipSpace(q, 0)
	if i < len(q) && q[i] == '(' {
		return parenStatement(q, i)
	}
	if i < len(q) && (q[i] == 'c' || q[i] == 'C') && createViewRE.MatchString(q) {
		return parenView(q)
	}
	return q
}

// unwrap strips the parentheses around q[open:close+1] while its
// content is itself one parenthesized group: the bounds of the innermost.
func unwrap(q string, open, close int) (int, int) {
	for {
		i := skipSpace(q, open+1)
		if i >= close || q[i] != '(' {
			return open, close
		}
		j := matchParen(q, i)
		if j < 0 || skipSpace(q, j+1) != close {
			return open, close
		}
		open, close = i, j
	}
}

// isQueryStart reports whether q[i:] opens a query (SELECT, WITH, VALUES
// or TABLE).
func isQueryStart(q string, i int) bool {
	return startsWithWord(q[i:], "select", "with", "values", "table")
}

// parenStatement handles a statement opening with a parenthesized query
// at q[open].
func parenStatement(q string, open int) string {
	close := matchParen(q, open)
	if close < 0 {
		return q
	}
	in, out := unwrap(q, open, close)
	if !isQueryStart(q, in+1) {
		return q
	}
	tail := q[skipSpace(q, close+1):]
	switch {
	case tail == "" || tail[0] == ';':
		return q[:open] + q[in+1:out] + q[close+1:]
	case startsWithWord(tail, "order", "limit"):
		return q[:open] + "SELECT * FROM " + q[in:out+1] + " AS strata_paren_q " + tail
	case in != open:
		return q[:open] + q[in:out+1] + q[close+1:]
	}
	return q
}

// viewAsRE finds the AS before a view's query (after the name and an
// optional column list).
var viewAsRE = regexp.MustCompile(`(?is)\bview\s+(?:` + "`[^`]*`" + `|[\w$.]+)(?:\s*\([^)]*\))?\s+as\s*\(`)

// viewTailRE is what may follow a view's query: WITH [CASCADED | LOCAL]
// CHECK OPTION, a semicolon.
var viewTailRE = regexp.MustCompile(`(?is)^\s*(?:with\s+(?:cascaded\s+|local\s+)?check\s+option\s*)?(?:;|$)`)

// parenView strips the parentheses around a view's query.
func parenView(q string) string {
	m := viewAsRE.FindStringIndex(q)
	if m == nil {
		return q
	}
	open := m[1] - 1
	close := matchParen(q, open)
	if close < 0 {
		return q
	}
	in, out := unwrap(q, open, close)
	if !isQueryStart(q, in+1) || !viewTailRE.MatchString(q[close+1:]) {
		return q
	}
	return q[:open] + strings.TrimSpace(q[in+1:out]) + q[close+1:]
}
