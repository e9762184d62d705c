package fastpath

import (
	"regexp"
	"strconv"
	"strings"
)

const (
	ident = "`?(\\w+)`?"
	tail  = "\\s*;?\\s*$"
)

var (
	pointSelectRE = regexp.MustCompile("(?is)^\\s*SELECT\\s+(.+?)\\s+FROM\\s+" + ident + "\\s+WHERE\\s+" + ident + "\\s*=\\s*\\?" +
		"(?:\\s+ORDER\\s+BY\\s+" + ident + "(?:\\s+ASC)?)?" + tail)
	rangeSelectRE = regexp.MustCompile("(?is)^\\s*SELECT\\s+(DISTINCT\\s+)?(.+?)\\s+FROM\\s+" + ident + "\\s+WHERE\\s+" + ident +
		"\\s+BETWEEN\\s+\\?\\s+AND\\s+\\?(?:\\s+ORDER\\s+BY\\s+" + ident + "(?:\\s+ASC)?)?" + tail)
	updateRE   = regexp.MustCompile("(?is)^\\s*UPDATE\\s+" + ident + "\\s+SET\\s+(.+?)\\s+WHERE\\s+" + ident + "\\s*=\\s*\\?" + tail)
	deleteRE   = regexp.MustCompile("(?is)^\\s*DELETE\\s+FROM\\s+" + ident + "\\s+WHERE\\s+" + ident + "\\s*=\\s*\\?" + tail)
	insertRE   = regexp.MustCompile("(?is)^\\s*INSERT\\s+INTO\\s+" + ident + "\\s*(?:\\(([^()]*)\\)\\s*)?VALUES\\s*\\(\\s*\\?((?:\\s*,\\s*\\?)*)\\s*\\)" + tail)
	countRE    = regexp.MustCompile("(?is)^\\s*SELECT\\s+(COUNT\\(\\s*\\*\\s*\\))\\s+FROM\\s+" + ident + tail)
	beginRE    = regexp.MustCompile("(?i)^\\s*(?:BEGIN(?:\\s+WORK)?|START\\s+TRANSACTION)" + tail)
	commitRE   = regexp.MustCompile("(?i)^\\s*COMMIT(?:\\s+WORK)?" + tail)
	rollbackRE = regexp.MustCompile("(?i)^\\s*ROLLBACK(?:\\s+WORK)?" + tail)
	identRE    = regexp.MustCompile("^" + ident + "$")
	sumRE      = regexp.MustCompile("(?i)^SUM\\(\\s*" + ident + "\\s*\\)$")
	setRE      = regexp.MustCompile("(?i)^" + ident + "\\s*=\\s*(?:(\\?)|" + ident + "\\s*([-+])\\s*(\\d{1,19}|\\?))$")
	// keywordRE: words that may not be read as column or table names (a
	// backquoted column with such a name is left to go-mysql-server).
	keywordRE = regexp.MustCompile("(?i)^(select|from|where|distinct|all|as|and|or|not|xor|div|mod|is|in|like|null|true|false|unknown|default|" +
		"order|by|asc|desc|between|set|values|value|into|limit|for|lock|union|binary|interval|case|when|then|else|end|exists|" +
		"current_date|current_time|current_timestamp|current_user|localtime|localtimestamp|utc_date|utc_time|utc_timestamp|" +
		"sum|count|min|max|avg|high_priority|low_priority|delayed|ignore|straight_join|distinctrow|sql_small_result|sql_big_result|" +
		"sql_buffer_result|sql_no_cache|sql_cache|sql_calc_found_rows|quick)$")
)

type kind uint8

const (
	pointSelect kind = iota + 1
	rangeSelect
	countRows // SELECT COUNT(*) FROM t (FP-10)
	updateByKey
	deleteByKey
	insertValues
	txBegin
	txCommit
	txRollback
)

// shape is a recognized statement (tables resolve per execution: the
// current database and the catalog can change).
type shape struct {
	kind     kind
	table    string
	keyCol   string
	cols     []string // selected or inserted columns (nil: INSERT without a column list, every column in order)
	sum      string   // SELECT SUM(col) / COUNT(*): the expression as written (SUM: cols[0] is col)
	distinct bool
	orderBy  string
	sets     []setClause
	params   int // per row
	tuples   int // a prepared multi-row INSERT's rows (FP-7); 0 otherwise
}

// setClause is one assignment of an UPDATE: col = ? (param) or col = src
// + delta, the delta written in the statement or a parameter (deltaParam,
// negated when neg: col = src - ?).
type setClause struct {
	col, src   string
	param      bool
	delta      int64
	deltaParam bool
	neg        bool
}

// identList splits "a, `b`, c" into names; nil if any item is not a plain
// column name.
func identList(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		m := identRE.FindStringSubmatch(strings.TrimSpace(c))
		if m == nil || !plainIdent(m[1]) {
			return nil
		}
		out = append(out, m[1])
	}
	return out
}

// parseShape recognizes a statement, or returns nil; every name in it must
// be a plain identifier (not a number, not a keyword).
func parseShape(q string) *shape {
	sh := matchShape(q)
	if sh == nil {
		return nil
	}
	names := append([]string{sh.table, sh.keyCol, sh.orderBy}, sh.cols...)
	for _, sc := range sh.sets {
		names = append(names, sc.col, sc.src)
	}
	for _, n := range names {
		if n != "" && !plainIdent(n) {
			return nil
		}
	}
	return sh
}

func plainIdent(n string) bool {
	return (n[0] < '0' || n[0] > '9') && !keywordRE.MatchString(n)
}

func matchShape(q string) *shape {
	switch {
	case beginRE.MatchString(q):
		return &shape{kind: txBegin}
	case commitRE.MatchString(q):
		return &shape{kind: txCommit}
	case rollbackRE.MatchString(q):
		return &shape{kind: txRollback}
	}
	if m := countRE.FindStringSubmatch(q); m != nil {
		return &shape{kind: countRows, sum: m[1], table: m[2]}
	}
	if m := pointSelectRE.FindStringSubmatch(q); m != nil {
		if cols := identList(m[1]); cols != nil {
			return &shape{kind: pointSelect, cols: cols, table: m[2], keyCol: m[3], orderBy: m[4], params: 1}
		}
		return nil
	}
	if m := rangeSelectRE.FindStringSubmatch(q); m != nil {
		sh := &shape{kind: rangeSelect, distinct: m[1] != "", table: m[3], keyCol: m[4], orderBy: m[5], params: 2}
		list := strings.TrimSpace(m[2])
		if sm := sumRE.FindStringSubmatch(list); sm != nil {
			if sh.distinct || sh.orderBy != "" {
				return nil
			}
			sh.sum, sh.cols = list, []string{sm[1]}
			return sh
		}
		if sh.cols = identList(list); sh.cols == nil {
			return nil
		}
		return sh
	}
	if m := updateRE.FindStringSubmatch(q); m != nil {
		sh := &shape{kind: updateByKey, table: m[1], keyCol: m[3], params: 1}
		for _, a := range strings.Split(m[2], ",") {
			am := setRE.FindStringSubmatch(strings.TrimSpace(a))
			if am == nil {
				return nil
			}
			sc := setClause{col: am[1], param: am[2] != ""}
			if sc.param {
				sh.params++
			} else {
				sc.src = am[3]
				if am[5] == "?" {
					sc.deltaParam, sc.neg = true, am[4] == "-"
					sh.params++
				} else {
					d, err := strconv.ParseInt(am[5], 10, 64)
					if err != nil {
						return nil
					}
					if am[4] == "-" {
						d = -d
					}
					sc.delta = d
				}
			}
			sh.sets = append(sh.sets, sc)
		}
		return sh
	}
	if m := deleteRE.FindStringSubmatch(q); m != nil {
		return &shape{kind: deleteByKey, table: m[1], keyCol: m[2], params: 1}
	}
	if m := insertRE.FindStringSubmatchIndex(q); m != nil {
		table, params := q[m[2]:m[3]], 1+strings.Count(q[m[6]:m[7]], "?")
		if m[4] < 0 {
			return &shape{kind: insertValues, table: table, params: params}
		}
		cols := identList(q[m[4]:m[5]])
		if cols == nil || len(cols) != params {
			return nil
		}
		return &shape{kind: insertValues, table: table, cols: cols, params: params}
	}
	return nil
}

// execute answers the statement if it can (ok); with ok false the caller

// oneTuple is the text of a multi-row INSERT ... VALUES (...), (...) with
// the first tuple only, and the number of tuples, when every tuple is
// written as the first (FP-7: "(?, ?)" each time, as drivers and dumps
// write them); ok is false for any other text.
func oneTuple(q []byte) (single []byte, rows int, ok bool) {
	i := valuesAt(q)
	if i < 0 {
		return nil, 0, false
	}
	for i < len(q) && isSpaceByte(q[i]) {
		i++
	}
	if i == len(q) || q[i] != '(' {
		return nil, 0, false
	}
	end := i + 1
	for end < len(q) && q[end] != ')' && q[end] != '(' && q[end] != '`' {
		end++
	}
	if end == len(q) || q[end] != ')' {
		return nil, 0, false
	}
	tuple := q[i : end+1]
	j, rows := end+1, 1
	for {
		k := j
		for k < len(q) && isSpaceByte(q[k]) {
			k++
		}
		if k == len(q) || q[k] != ',' {
			break
		}
		k++
		for k < len(q) && isSpaceByte(q[k]) {
			k++
		}
		if len(q)-k < len(tuple) || string(q[k:k+len(tuple)]) != string(tuple) {
			return nil, 0, false
		}
		j, rows = k+len(tuple), rows+1
	}
	if rows == 1 || strings.TrimLeft(string(q[j:]), " \t\r\n;") != "" {
		return nil, 0, false // one row, or clauses after the tuples
	}
	single = append(append(make([]byte, 0, end+1+len(q)-j), q[:end+1]...), q[j:]...)
	return single, rows, true
}

// valuesAt is the offset just after the first word VALUES outside
// backquotes, or -1.
func valuesAt(q []byte) int {
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '`':
			j := i + 1
			for j < len(q) && q[j] != '`' {
				j++
			}
			i = j
		case c == 'v' || c == 'V':
			if (i == 0 || !isIdentByte(q[i-1])) && i+6 <= len(q) && strings.EqualFold(string(q[i:i+6]), "values") &&
				(i+6 == len(q) || !isIdentByte(q[i+6])) {
				return i + 6
			}
		}
	}
	return -1
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$'
}

// read reports a SELECT.
func (sh *shape) read() bool {
	return sh.kind == pointSelect || sh.kind == rangeSelect || sh.kind == countRows
}
