package server

import (
	"bytes"
	"context"
	"errors"
	"github.com/sirupsen/logrus"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"strata/mysql/backend"
	"strata/mysql/binlog"
	"strata/mysql/fastpath"
	"strata/mysql/routines"
	"strata/mysql/rules"
)

// errorHandler wraps go-mysql-server's protocol handler to give clients
// MySQL's error codes where go-mysql-server v0.20 answers with the generic
// 1105 (ER_UNKNOWN_ERROR).
type errorHandler struct {
	mysql.Handler
	b        *backend.Backend
	fast     *fastpath.Path // nil: every statement goes to go-mysql-server
	sessions sync.Map       // connection id -> *backend.Session, read without a lock
	grants   *mysql_db.MySQLDb
	binlog   *binlog.Log             // nil: the binary log is off
	replicas sync.Map                // connection id -> replicaInfo (SRV-REPL-7)
	prepared *sqle.PreparedDataCache // the engine's PREPAREd statements (rules RULE-78)
}

// session is c's backend session (nil before go-mysql-server made it).
func (h *errorHandler) session(c *mysql.Conn) *backend.Session {
	if s, ok := h.sessions.Load(c.ConnectionID); ok {
		return s.(*backend.Session)
	}
	s := h.b.SessionByConn(c.ConnectionID)
	if s != nil {
		h.sessions.Store(c.ConnectionID, s)
	}
	return s
}

// ComResetConnection may give c a new session: forget the cached one.
// A connection that has not run a statement has no session yet: nothing
// to reset (go-mysql-server dereferenced the missing session).
func (h *errorHandler) ComResetConnection(c *mysql.Conn) (err error) {
	defer recoverCommand(c, &err)
	if h.session(c) == nil {
		return nil
	}
	h.sessions.Delete(c.ConnectionID)
	return h.Handler.ComResetConnection(c)
}

// ConnectionClosed forgets c's session.
func (h *errorHandler) ConnectionClosed(c *mysql.Conn) {
	h.sessions.Delete(c.ConnectionID)
	pendingCalls.Delete(c.ConnectionID)
	singleStatementClients.Delete(c.ConnectionID)
	handshakeApplied.Delete(c.ConnectionID)
	h.replicas.Delete(c.ConnectionID)
	h.Handler.ConnectionClosed(c)
}

// NewConnection announces autocommit in the handshake's status flags, as
// every new session starts with autocommit on.
func (h *errorHandler) NewConnection(c *mysql.Conn) {
	h.Handler.NewConnection(c)
	c.StatusFlags |= mysql.ServerStatusAutocommit
}

// done ends a statement in the session (SES-5) and sets the status flags
// of the packets still to be written.
func (h *errorHandler) done(c *mysql.Conn, err error) {
	if err == nil {
		// SRV-REPL-4: a statement whose OK did not pass through spool.
		if ferr := h.finishLogged(c); ferr != nil {
			logrus.Errorf("strata: connection %d: binary log: statement not logged: %v", c.ConnectionID, ferr)
		}
	}
	if s := h.session(c); s != nil {
		s.UnlockWarnings() // locked by beginDiagnostics
		s.StatementDone(err != nil)
		h.setStatusOf(c, s)
		// A failed statement's diagnostics are its error alone, which
		// SHOW WARNINGS lists, as in MySQL.
		var se *mysql.SQLError
		if errors.As(err, &se) {
			s.ClearWarnings()
			s.Warn(&sql.Warning{Level: "Error", Code: se.Num, Message: se.Message})
		}
	}
}

// setStatus prepares the session state the statement's first result
// packet reports: its status flags tell the truth about autocommit and
// the transaction, and its warning count leaves out false warnings.
func (h *errorHandler) setStatus(c *mysql.Conn) {
	if s := h.session(c); s != nil {
		s.DropFalseWarnings()
		fixWarnings(s)
		h.setStatusOf(c, s)
	}
}

// ignoredConditions are the codes of conditions an IGNORE statement turns
// into warnings: go-mysql-server records them as Notes, often with code
// 1105; MySQL's level is Warning, with the error's own code.
var ignoredConditions = map[uint16]bool{1048: true, 1062: true, 1105: true, 1264: true, 1265: true,
	1292: true, 1366: true, 1406: true, 1452: true, 3819: true}

// isTruncationNote is rules RULE-34's Note 1265 for digits a DECIMAL
// column dropped: a Note in MySQL too, worded as MySQL words it (the
// IGNORE notes go-mysql-server raises are worded as its errors).
func isTruncationNote(w *sql.Warning) bool {
	return w.Code == 1265 && strings.HasPrefix(w.Message, "Data truncated for column '") && strings.Contains(w.Message, "' at row ")
}

// fixWarnings gives the statement's warnings MySQL's level and code.
func fixWarnings(s *backend.Session) {
	if s.WarningCount() == 0 {
		return
	}
	for _, w := range s.Warnings() { // the session's own warnings, newest first
		if w.Level != "Note" || !ignoredConditions[uint16(w.Code)] || isTruncationNote(w) {
			continue
		}
		nw := *w
		nw.Level = "Warning"
		if se, ok := dupWording(s, mapError(mysql.NewSQLError(w.Code, "HY000", "%s", w.Message))).(*mysql.SQLError); ok {
			nw.Code, nw.Message = se.Num, se.Message
		}
		*w = nw
	}
}

// insertIDs gives an INSERT or REPLACE's OK packet and LAST_INSERT_ID()
// the ids the backend saw the statement write (backend SES-8):
// go-mysql-server repeats the session's last id after a REPLACE or an
// ON DUPLICATE KEY UPDATE that generated none.
func (h *errorHandler) insertIDs(c *mysql.Conn, res *sqltypes.Result) {
	s := h.session(c)
	if s == nil {
		return
	}
	ok, gen, genSet := s.InsertIDs()
	res.InsertID = ok
	if genSet {
		s.SetLastQueryInfoInt(sql.LastInsertId, int64(gen))
	} else {
		// Only the statement's own generated ids change it: a trigger's
		// are restored when it ends (MariaDB), go-mysql-server kept them.
		s.SetLastQueryInfoInt(sql.LastInsertId, s.LastInsertIDBefore())
	}
}

// ownsInsertID reports an INSERT or REPLACE whose insert ids insertIDs
// gives (one calling LAST_INSERT_ID(expr) keeps go-mysql-server's).
func ownsInsertID(query string) bool {
	return isInsert(query) && !containsFold(query, "last_insert_id(")
}

func (h *errorHandler) setStatusOf(c *mysql.Conn, s *backend.Session) {
	autocommit, inTx := s.TransactionState()
	f := c.StatusFlags &^ (mysql.ServerStatusAutocommit | mysql.ServerInTransaction)
	if autocommit {
		f |= mysql.ServerStatusAutocommit
	}
	if inTx {
		f |= mysql.ServerInTransaction
	}
	c.StatusFlags = f
}

func (h *errorHandler) spool(c *mysql.Conn, query string, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	first := true
	var fields []*querypb.Field // set when the result has float columns
	explain := rules.IsExplain(query)
	noInsertID := !mayGenerateID(query)
	ownInsertID := ownsInsertID(query)
	columns := showColumnsRE.MatchString(query)
	showIndex := showIndexRE.MatchString(query)
	diagnostics := startsWithWord(query, "show") && (containsFold(query, "warnings") || containsFold(query, "errors"))
	return func(res *sqltypes.Result, more bool) error {
		if len(res.Fields) == 0 {
			// An OK: other statements of a multi-statement text may follow
			// (more), each begun again.
			if err := h.finishLogged(c); err != nil {
				return err
			}
		}
		if columns {
			typeWithoutCharset(res)
		}
		if showIndex {
			h.showIndexMetadata(c, query, res)
		}
		if noInsertID {
			// go-mysql-server repeats the session's last generated id in
			// the OK packet of statements that generate none.
			res.InsertID = 0
		} else if ownInsertID && len(res.Fields) == 0 && !more {
			h.insertIDs(c, res)
		}
		if first {
			first = false
			h.setStatus(c)
			if fixFields(res) {
				fields = res.Fields
			}
			aliasesAsWritten(query, res.Fields)
			variablesAsWritten(query, res.Fields)
			if diagnostics {
				unsignedCodes(res)
			}
			if s := h.session(c); s != nil {
				namesInResultsCharset(s, res) // SRV-CHARSET
			}
		}
		if fields != nil {
			fixFloats(res, fields)
		}
		if explain {
			nullStrings(res)
		}
		// The wire library writes an OK packet's info text after a stray
		// '#' byte, which clients read as a length (the mariadb client:
		// "malformed packet" after PREPARE ... FROM): send none.
		res.Info = ""
		return cb(res, more)
	}
}

var (
	showColumnsRE = regexp.MustCompile(`(?i)^\s*(?:SHOW\s+(?:FULL\s+)?(?:COLUMNS|FIELDS)\s|DESC(?:RIBE)?\s+[^\s(])`)
	charsetClause = regexp.MustCompile(`(?i) (?:CHARACTER SET \w+|COLLATE \w+)`)
)

// typeWithoutCharset: SHOW COLUMNS and DESCRIBE give a column's Type
// without CHARACTER SET / COLLATE (MySQL shows the collation in its own
// column); go-mysql-server appended them.
func typeWithoutCharset(res *sqltypes.Result) {
	for c, f := range res.Fields {
		if f.Name != "Type" {
			continue
		}
		for _, row := range res.Rows {
			if c < len(row) && bytes.Contains(row[c].Raw(), []byte(" C")) {
				row[c] = sqltypes.MakeTrusted(f.Type, charsetClause.ReplaceAll(row[c].Raw(), nil))
			}
		}
	}
}

// mayGenerateID reports whether query can set the OK packet's insert id:
// an INSERT or REPLACE, or a statement calling LAST_INSERT_ID(expr).
func mayGenerateID(query string) bool {
	return isInsert(query) || containsFold(query, "last_insert_id(")
}

// nullStrings sends EXPLAIN's 'NULL' strings in numeric columns as NULL
// (go-mysql-server writes the text NULL; drivers fail to parse it as a
// number).
func nullStrings(res *sqltypes.Result) {
	for c, f := range res.Fields {
		if !sqltypes.IsIntegral(f.Type) && !sqltypes.IsFloat(f.Type) {
			continue
		}
		for _, row := range res.Rows {
			if c < len(row) && string(row[c].Raw()) == "NULL" {
				row[c] = sqltypes.NULL
			}
		}
	}
}

// aliasesAsWritten gives each field's table name the spelling the
// statement uses: go-mysql-server lower-cases table aliases, so SELECT *
// FROM (SELECT 1 AS one) AS A named its column's table "a" (MySQL "A";
// go-sql-driver's columnsWithAlias names columns A.one).
func aliasesAsWritten(query string, fields []*querypb.Field) {
	if !hasUpper(query) {
		return
	}
	// The distinct lower-case table names to look up (few), then one
	// pass over the statement's words for their first spellings.
	var names, spelled []string
	for _, f := range fields {
		if f.Table != "" && !hasUpper(f.Table) && !slices.Contains(names, f.Table) {
			names = append(names, f.Table)
		}
	}
	if len(names) == 0 {
		return
	}
	spelled = make([]string, len(names))
	left := len(names)
	eachWord(query, func(i, j int) bool {
		for k, n := range names {
			if spelled[k] == "" && j-i == len(n) && strings.EqualFold(query[i:j], n) {
				spelled[k] = query[i:j]
				left--
			}
		}
		return left == 0
	})
	for _, f := range fields {
		if k := slices.Index(names, f.Table); k >= 0 && spelled[k] != "" {
			f.Table = spelled[k]
		}
	}
}

// variablesAsWritten names a column that is a system variable (@@x,
// @@session.x) with the statement's spelling, as MySQL and MariaDB do:
// go-mysql-server lower-cases the name (SELECT @@SQL_MODE named its
// column @@sql_mode).
func variablesAsWritten(query string, fields []*querypb.Field) {
	if !strings.Contains(query, "@@") || !hasUpper(query) {
		return
	}
	for _, f := range fields {
		if !strings.HasPrefix(f.Name, "@@") {
			continue
		}
		for i := strings.Index(query, "@@"); i >= 0; {
			if j := i + len(f.Name); j <= len(query) && strings.EqualFold(query[i:j], f.Name) &&
				(j == len(query) || !isIdentByte(query[j]) && query[j] != '.') {
				f.Name = query[i:j]
				break
			}
			k := strings.Index(query[i+2:], "@@")
			if k < 0 {
				break
			}
			i += 2 + k
		}
	}
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// unsignedCodes: SHOW WARNINGS / SHOW ERRORS send their Code column as
// INT UNSIGNED, as MySQL does (it was signed).
func unsignedCodes(res *sqltypes.Result) {
	for _, f := range res.Fields {
		if f.Name == "Code" && sqltypes.IsIntegral(f.Type) {
			f.Flags |= uint32(querypb.MySqlFlag_UNSIGNED_FLAG)
		}
	}
}

// binaryZeroDates sends a zero DATE / DATETIME / TIMESTAMP of a binary
// protocol result with no date parts, as MySQL does: the wire library
// wrote year, month and day 0, which drivers read as the date before
// 0001-01-01 (go-sql-driver: -0001-11-30 for 0000-00-00).
func binaryZeroDates(res *sqltypes.Result, fields []*querypb.Field) {
	for c, f := range fields {
		if f.Type != sqltypes.Date && f.Type != sqltypes.Datetime && f.Type != sqltypes.Timestamp {
			continue
		}
		for _, row := range res.Rows {
			if c < len(row) && !row[c].IsNull() && isZeroDate(row[c].Raw()) {
				row[c] = sqltypes.MakeTrusted(f.Type, nil)
			}
		}
	}
}

// isZeroDate: 0000-00-00, with or without a zero time and fraction.
func isZeroDate(raw []byte) bool {
	if len(raw) < 10 {
		return false
	}
	for _, b := range raw {
		if b != '0' && b != '-' && b != ':' && b != ' ' && b != '.' {
			return false
		}
	}
	return true
}

// fixFields corrects result metadata go-mysql-server gets wrong: BIT
// columns are binary (charset 63, BINARY flag), as MySQL sends them; with
// charset 255 drivers decode their bytes as text and fail on >= 0x80.
// FLOAT and DOUBLE columns have 31 decimals (not fixed), as in MySQL.
// It reports whether the result has values fixFloats rewrites
// (floating-point columns, temporal columns with fractional seconds).
func fixFields(res *sqltypes.Result) (floats bool) {
	if res == nil {
		return false
	}
	for _, f := range res.Fields {
		f.Name = unrewriteName(f.Name)
		switch f.Type {
		case sqltypes.Bit:
			f.Charset = 63
			f.Flags |= uint32(querypb.MySqlFlag_BINARY_FLAG)
		case sqltypes.Year:
			// MySQL sends YEAR as UNSIGNED ZEROFILL (drivers scan it as
			// an unsigned integer).
			f.Flags |= uint32(querypb.MySqlFlag_UNSIGNED_FLAG | querypb.MySqlFlag_ZEROFILL_FLAG)
		case sqltypes.Float64, sqltypes.Float32:
			floats = true
			if f.Decimals == 0 {
				// MySQL's "not fixed" number of decimals (NOT_FIXED_DEC):
				// go-sql-driver's DecimalSize reports it as unbounded.
				f.Decimals = 31
			}
		case sqltypes.Datetime, sqltypes.Timestamp, sqltypes.Time:
			floats = floats || padsFraction(f)
		}
	}
	return floats
}

// padsFraction: a table column of a temporal type with fractional
// seconds. Computed columns are left as they are: go-mysql-server gives
// some functions (FROM_UNIXTIME, CONVERT_TZ) 6 decimals in the metadata
// where MySQL has 0, so their values cannot be padded by it.
func padsFraction(f *querypb.Field) bool {
	return (f.Type == sqltypes.Datetime || f.Type == sqltypes.Timestamp || f.Type == sqltypes.Time) &&
		f.Decimals > 0 && f.Decimals <= 6 && f.OrgTable != ""
}

// fractionDigits writes a DATETIME/TIMESTAMP/TIME value with exactly n
// fractional digits, as MySQL sends a column of fractional precision n
// ('10:00:00' as '10:00:00.000'; go-mysql-server dropped trailing zeros).
func fractionDigits(raw []byte, n int) []byte {
	dot := bytes.IndexByte(raw, '.')
	have := 0
	if dot >= 0 {
		have = len(raw) - dot - 1
	}
	if have >= n || len(raw) == 0 || raw[len(raw)-1] < '0' || raw[len(raw)-1] > '9' {
		return raw
	}
	out := append([]byte{}, raw...)
	if dot < 0 {
		out = append(out, '.')
	}
	for ; have < n; have++ {
		out = append(out, '0')
	}
	return out
}

// fixFloats writes floating-point values as MySQL does (floatText), and
// temporal values with their column's fractional digits
// (fractionDigits).
func fixFloats(res *sqltypes.Result, fields []*querypb.Field) {
	for c, f := range fields {
		if padsFraction(f) {
			for _, row := range res.Rows {
				if c < len(row) && !row[c].IsNull() {
					if raw := row[c].Raw(); len(raw) > 0 {
						row[c] = sqltypes.MakeTrusted(f.Type, fractionDigits(raw, int(f.Decimals)))
					}
				}
			}
			continue
		}
		if f.Type != sqltypes.Float64 && f.Type != sqltypes.Float32 {
			continue
		}
		for _, row := range res.Rows {
			if c >= len(row) || row[c].IsNull() {
				continue
			}
			if fixed, ok := floatText(row[c].Raw(), f.Type == sqltypes.Float32); ok {
				row[c] = sqltypes.MakeTrusted(f.Type, fixed)
			}
		}
	}
}

// floatText writes a FLOAT or DOUBLE value as MariaDB and MySQL write it
// (SRV-FLOATS): a FLOAT with 6 significant digits (FLT_DIG: 1234567.8 is
// 1234570), a DOUBLE with the fewest digits that read back the same;
// without an exponent from 1e-15 up to 1e15 (123456789012.5,
// 0.0000001), else with one and no '+' (1e15, 1.5e-16, -2.25e100).
// go-mysql-server used Go's %g: 1.234567890125e+11, 1e-07, and FLOAT's
// shortest float32 digits (1234567.8).
func floatText(raw []byte, float32 bool) ([]byte, bool) {
	if !float32 && bytes.IndexByte(raw, 'e') < 0 {
		// %g without an exponent: already the fewest digits, laid out
		// without one, as below (Go writes one outside exponents -4..5).
		return raw, false
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return raw, false
	}
	var e string
	if float32 {
		e = strconv.FormatFloat(v, 'e', 5, 64)
	} else {
		e = strconv.FormatFloat(v, 'e', -1, 64)
	}
	// e is [-]d[.ddd]e±xx
	i := strings.IndexByte(e, 'e')
	mant, exp := e[:i], e[i+1:]
	x, err := strconv.Atoi(exp)
	if err != nil {
		return raw, false
	}
	neg := strings.HasPrefix(mant, "-")
	digits := strings.Replace(strings.TrimPrefix(mant, "-"), ".", "", 1)
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		digits = "0"
		x = 0
	}
	var out []byte
	if neg {
		out = append(out, '-')
	}
	switch {
	case x >= 15 || x < -15:
		out = append(out, digits[0])
		if len(digits) > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		out = strconv.AppendInt(out, int64(x), 10)
	case x < 0:
		out = append(out, "0."...)
		out = append(out, strings.Repeat("0", -x-1)...)
		out = append(out, digits...)
	default:
		if len(digits) <= x+1 {
			out = append(out, digits...)
			out = append(out, strings.Repeat("0", x+1-len(digits))...)
		} else {
			out = append(out, digits[:x+1]...)
			out = append(out, '.')
			out = append(out, digits[x+1:]...)
		}
	}
	return out, !bytes.Equal(out, raw)
}

// beginDiagnostics clears the warnings of the previous statement unless
// query reads them (SHOW WARNINGS / ERRORS, @@warning_count,
// @@error_count, GET DIAGNOSTICS), as MySQL does for every statement.
// go-mysql-server clears them itself, but keeps the previous statement's
// and drops the new statement's planning warnings (DROP TABLE IF EXISTS's
// Note 1051) when there were any. A statement reading the counts keeps
// them from go-mysql-server's clearing (which comes first) until done:
// MySQL's SELECT @@warning_count leaves the diagnostics area as it was
// (backend SES-11).
func beginDiagnostics(s *backend.Session, query string) {
	s.UnlockWarnings()
	if s.WarningCount() == 0 && len(s.Warnings()) == 0 {
		return
	}
	q := query
	if containsFold(q, "@@warning_count") || containsFold(q, "@@error_count") ||
		containsFold(q, "@@session.warning_count") || containsFold(q, "@@session.error_count") ||
		startsWithWord(q, "show") && (containsFold(q, "warnings") || containsFold(q, "errors")) ||
		startsWithWord(q, "get") && containsFold(q, "diagnostics") {
		s.LockWarnings()
		return
	}
	s.ClearWarnings()
}

// errorRule maps a go-mysql-server error message (left as 1105, or with
// a code MySQL does not use for it) to MySQL's code, SQLSTATE and message.
type errorRule struct {
	from int // the code go-mysql-server gives (1105 mostly)
	re   *regexp.Regexp
	code int
	st   string
	msg  string // regexp.Expand template over re's groups
}

var errorRules = []errorRule{
	// Statements and features go-mysql-server v0.20 does not have: MySQL's
	// "not supported" (1235), not a syntax error or a garbled message.
	{1105, regexp.MustCompile(`^syntax error at position \d+ near '(?i:(xa))'$`), 1235, "42000",
		"This version of Strata doesn't yet support 'XA transactions'"},
	{1105, regexp.MustCompile(`^syntax error at position \d+ near '(?i:(function|aggregate))'$`), 1235, "42000",
		"This version of Strata doesn't yet support 'stored functions'"},
	{1105, regexp.MustCompile(`^syntax error at position \d+ near '(?i:(all|any|some))'$`), 1235, "42000",
		"This version of Strata doesn't yet support 'comparison with ALL/ANY/SOME (subquery)'"},
	{1105, regexp.MustCompile(`^syntax error at position \d+ near '(?i:(check|checksum|optimize|repair))'$`), 1235, "42000",
		"This version of Strata doesn't yet support '${1} TABLE'"},
	{1105, regexp.MustCompile(`^table doesn't support (?:INSERT INTO|UPDATE|DELETE FROM|REPLACE INTO)`), 1031, "HY000",
		"Table storage engine for this table doesn't have this option"},
	{1105, regexp.MustCompile(`^COLLATION '(.*)' is not valid for CHARACTER SET '(.*)'$`), 1253, "42000", "COLLATION '$1' is not valid for CHARACTER SET '$2'"},
	{1105, regexp.MustCompile(`^Unknown prepared statement handler \((.*)\) given to (.*)$`), 1243, "HY000", "Unknown prepared statement handler ($1) given to $2"},
	{1105, regexp.MustCompile(`^TIME length not yet supported`), 1235, "42000", "This version of Strata doesn't yet support 'TIME with fractional seconds (TIME(n))'"},
	{1048, regexp.MustCompile(`^column name '(.*)' is non-nullable but attempted to set a value of null$`), 1048, "23000", "Column '$1' cannot be null"},
	{1242, regexp.MustCompile(`^the subquery returned more than 1 row$`), 1242, "21000", "Subquery returns more than 1 row"},
	{1241, regexp.MustCompile(`^operand should have (\d+) columns, but has \d+$`), 1241, "21000", "Operand should contain $1 column(s)"},
	{1105, regexp.MustCompile(`^this form of ALL/ANY/SOME is not supported$`), 1235, "42000",
		"This version of Strata doesn't yet support 'this form of ALL/ANY/SOME'"},
	{1105, regexp.MustCompile(`^stored procedure "(.*)" does not exist`), 1305, "42000", "PROCEDURE $1 does not exist"},
	{1105, regexp.MustCompile(`^Event '(.*)' does not exist$`), 1539, "HY000", "Unknown event '$1'"},
	{1105, regexp.MustCompile(`^stored procedure "(.*)" already exists`), 1304, "42000", "PROCEDURE $1 already exists"},
	{1105, regexp.MustCompile(`^function: '(.*)' not found`), 1305, "42000", "FUNCTION $1 does not exist"},
	{1105, regexp.MustCompile(`^(?i)a SPATIAL index may only contain a geometrical type column`), 1687, "42000",
		"A SPATIAL index may only contain a geometrical type column"},
	{1105, regexp.MustCompile(`^All parts of a SPATIAL index must be NOT NULL`), 1252, "42000",
		"All parts of a SPATIAL index must be NOT NULL"},
	{1105, regexp.MustCompile(`^no matching Full-Text index found on table`), 1191, "HY000",
		"Can't find FULLTEXT index matching the column list"},
	{1105, regexp.MustCompile(`^"(IN BOOLEAN MODE|WITH QUERY EXPANSION)" is not supported yet`), 1235, "42000",
		"This version of Strata doesn't yet support 'MATCH ... AGAINST ... ${1}'"},
	{1105, regexp.MustCompile(`^(?:tables cannot be created on database|(?:table|database) does not support FULLTEXT indexes)`), 1235, "42000",
		"This version of Strata doesn't yet support 'FULLTEXT indexes'"},
	{1105, regexp.MustCompile(`^error: table is not primary key alterable`), 1235, "42000",
		"This version of Strata doesn't yet support 'changing the primary key'"},
	// go-mysql-server plans an aggregate of an outer query's column
	// inside a subquery of a grouped query (SELECT (SELECT COUNT(t1.b)
	// FROM t2) FROM t1 GROUP BY t1.a) as the subquery's aggregate and
	// fails on the first row; other outer aggregates it answers.
	{1105, regexp.MustCompile(`^unable to find field with index \d+ in row of \d+ columns`), 1235, "42000",
		"This version of Strata doesn't yet support 'this use of an outer query's column or aggregate inside a subquery'"},
	// go-mysql-server stops a recursive CTE after a fixed 10,001
	// iterations (MariaDB's max_recursive_iterations is unbounded by
	// default): MySQL's error for a recursion past its limit.
	{1105, regexp.MustCompile(`^WITH RECURSIVE iteration limit exceeded$`), 3636, "HY000",
		"Recursive query aborted after 10001 iterations. This version of Strata does not run a WITH RECURSIVE of more iterations"},
	{1105, regexp.MustCompile(`^syntax error(.*)$`), mysql.ERParseError, "42000",
		"You have an error in your SQL syntax; syntax error$1"},
	{1105, regexp.MustCompile(`column "([^"]*)" could not be found in any table in scope`), mysql.ERBadFieldError, "42S22",
		"Unknown column '$1' in 'field list'"},
	{1105, regexp.MustCompile(`^table with name (.*) already exists$`), 1050, "42S01", "Table '$1' already exists"},
	{1105, regexp.MustCompile(`^number of values does not match number of columns provided`), 1136, "21S01",
		"Column count doesn't match value count at row 1"},
	{1105, regexp.MustCompile(`^BIGINT value is out of range \((.*)\)$`), 1690, "22003", "BIGINT value is out of range in '$1'"},
	{1105, regexp.MustCompile(`^DOUBLE out of range for (?i:cot)$`), 1690, "22003", "DOUBLE value is out of range in 'cot'"},
	{1105, regexp.MustCompile(`^(.*) out of range for (.*)$`), 1264, "22003", "Out of range value ($1 for $2)"},
	{1105, regexp.MustCompile(`^Out of range value for column of Decimal type`), 1264, "22003", "Out of range value for DECIMAL column"},
	{1105, regexp.MustCompile(`(?s)^string '.*' is too large for column '(.*)'$`), 1406, "22001",
		"Data too long for column '$1' at row 1"},
	{1105, regexp.MustCompile(`^Incorrect datetime value: (.*)$`), 1292, "22007", "Incorrect datetime value: $1"},
	{1105, regexp.MustCompile(`^Invalid JSON text(.*)$`), 3140, "22032", "Invalid JSON text$1"},
	{1105, regexp.MustCompile(`^Check constraint "(.*)" violated$`), 3819, "HY000", "Check constraint '$1' is violated."},
	{1105, regexp.MustCompile(`^The value specified for generated column "(.*)" in table "(.*)" is not allowed.$`), 3105, "HY000",
		"The value specified for generated column '$1' in table '$2' is not allowed."},
	{1105, regexp.MustCompile(`^an index with id "(.*)" has already been registered$`), 1061, "42000", "Duplicate key name '$1'"},
	{1105, regexp.MustCompile(`^Duplicate key name '(.*)'$`), 1061, "42000", "Duplicate key name '$1'"},
	{1105, regexp.MustCompile(`^(?:query was interrupted|context canceled)`), 1317, "70100", "Query execution was interrupted"},
	{1105, regexp.MustCompile(`^could not find a process with id (\d+)`), 1094, "HY000", "Unknown thread id: $1"},
	{1366, regexp.MustCompile(`(?s)^error: '(.*)' is not a valid value for '(.*)'$`), 1366, "22007",
		"Incorrect $2 value: '$1'"},
	{1146, regexp.MustCompile(`^table not found: (.*)$`), 1146, "42S02", "Table '$1' doesn't exist"},
	{1105, regexp.MustCompile(`^table "(?s:.*)" does not have column "(.*)"$`), 1054, "42S22", "Unknown column '$1' in 'table'"},
	{1105, regexp.MustCompile(`^Field '(.*)' doesn't have a default value`), 1364, "HY000", "Field '$1' doesn't have a default value"},
	{1105, regexp.MustCompile(`^Not unique table/alias: (.*)$`), 1066, "42000", "Not unique table/alias: '$1'"},
	{1105, regexp.MustCompile("^duplicate column name: `(.*)`$"), 1060, "42S21", "Duplicate column name '$1'"},
	{1105, regexp.MustCompile(`^Column "(.*)" already exists$`), 1060, "42S21", "Duplicate column name '$1'"},
	{1105, regexp.MustCompile(`^there can be only one auto_increment column and it must be defined as a key`), 1075, "42000",
		"Incorrect table definition; there can be only one auto column and it must be defined as a key"},
	{1105, regexp.MustCompile(`^incompatible type for default value`), 1067, "42000", "Invalid default value"},
	{1105, regexp.MustCompile(`^length is (\d+) but max allowed is (\d+)$`), 1074, "42000",
		"Column length too big (max = $2); use BLOB or TEXT instead"},
	{1105, regexp.MustCompile(`^Too big precision (\d+) specified. Maximum is 65.$`), 1426, "42000", "Too big precision $1 specified. Maximum is 65."},
	{1105, regexp.MustCompile(`^Scale (\d+) cannot be larger than the precision (\d+)$`), 1427, "42000",
		"For float(M,D), double(M,D) or decimal(M,D), M must be >= D"},
	{1105, regexp.MustCompile("^invalid identifier: `(.*)`$"), 1059, "42000", "Identifier name '$1' is too long"},
	{1105, regexp.MustCompile(`^cannot truncate table (.*) as it is referenced in foreign key (.*) on table (.*)$`), 1701, "42000",
		"Cannot truncate a table referenced in a foreign key constraint ($3, CONSTRAINT $2)"},
	{1105, regexp.MustCompile("^cannot drop table `(.*)` as it is referenced in foreign key `(.*)`$"), 3730, "HY000",
		"Cannot drop table '$1' referenced by a foreign key constraint '$2' on table"},
	{1105, regexp.MustCompile("^column type mismatch on `(.*)` and `(.*)`$"), 3780, "HY000",
		"Referencing column '$1' and referenced column '$2' in foreign key constraint are incompatible."},
	{1105, regexp.MustCompile(`^cannot union two queries whose schemas are different lengths`), 1222, "21000",
		"The used SELECT statements have a different number of columns"},
	{1105, regexp.MustCompile(`^The used SELECT statements have a different number of columns$`), 1222, "21000",
		"The used SELECT statements have a different number of columns"},
	{1105, regexp.MustCompile(`^the given regular expression is invalid`), 1139, "42000",
		"Got error 'invalid regular expression' from regexp"},
	{1105, regexp.MustCompile(`^INTO clause is not allowed`), 3954, "42000",
		"Misplaced INTO clause, INTO is not allowed inside subqueries, and must be placed at end of UNION clauses."},
	{1105, regexp.MustCompile(`^expression '(.*)' doesn't appear in the group by expressions`), 1055, "42000",
		"Expression of SELECT list is not in GROUP BY clause and contains nonaggregated column '$1' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by"},
	{1105, regexp.MustCompile(`^ambiguous column name "(.*)", it's present in all these tables`), 1052, "23000",
		"Column '$1' in field list is ambiguous"},
	{1105, regexp.MustCompile(`^function '(.*)' expected .* arguments?, \d+ received$`), 1582, "42000",
		"Incorrect parameter count in the call to native function '$1'"},
	{1105, regexp.MustCompile(`^Unknown system variable '@*(.*)'$`), 1193, "HY000", "Unknown system variable '$1'"},
	{1105, regexp.MustCompile(`^Variable '(.*)' is a read only variable$`), 1238, "HY000", "Variable '$1' is a read only variable"},
	{1105, regexp.MustCompile(`^Variable '(.*)' is a SESSION variable and can't be used with SET GLOBAL$`), 1228, "HY000",
		"Variable '$1' is a SESSION variable and can't be used with SET GLOBAL"},
	{1105, regexp.MustCompile(`^Variable '(.*)' can't be set to the value of '(.*)'$`), 1231, "42000",
		"Variable '$1' can't be set to the value of '$2'"},
	{1105, regexp.MustCompile(`^SAVEPOINT (.*) does not exist$`), 1305, "42000", "SAVEPOINT $1 does not exist"},
	{1105, regexp.MustCompile(`^Unknown collation: (.*)$`), 1273, "HY000", "Unknown collation: '$1'"},
	{1105, regexp.MustCompile(`^Unknown character set: (.*)$`), 1115, "42000", "Unknown character set: '$1'"},
	{1105, regexp.MustCompile(`^(.*) is not a valid character set for (.*)$`), 1253, "42000", "COLLATION '$2' is not valid for CHARACTER SET '$1'"},
	{1105, regexp.MustCompile(`^value (.*) is not valid for this Enum$`), 1265, "01000", "Data truncated for column (value '$1' not in the ENUM)"},
	{1105, regexp.MustCompile(`^value (.*) was not found in the set$`), 1265, "01000", "Data truncated for column (value '$1' not in the SET)"},
	{1105, regexp.MustCompile(`^value (.*) is not a valid Year$`), 1264, "22003", "Out of range value for YEAR column ($1)"},
	{1105, regexp.MustCompile(`^value (.*) is not a valid Time$`), 1292, "22007", "Incorrect time value: '$1'"},
	{1105, regexp.MustCompile(`^value "(.*)" is outside of timestamp range$`), 1292, "22007", "Incorrect datetime value: '$1'"},
	{1105, regexp.MustCompile(`^Unknown table '(.*)'$`), 1051, "42S02", "Unknown table '$1'"},
	{1105, regexp.MustCompile(`^the view (.*) does not exist$`), 1146, "42S02", "Table '$1' doesn't exist"},
	{1105, regexp.MustCompile(`^the view (?:.*\.)?(.*) already exists$`), 1050, "42S01", "Table '$1' already exists"},
	// Character sets and collations go-mysql-server names but has not
	// implemented (rules RULE-20): MySQL's unknown character set/collation.
	{1105, regexp.MustCompile("^The character set `(.*)` has not yet been implemented"), 1115, "42000", "Unknown character set: '$1'"},
	{1105, regexp.MustCompile("^The collation `(.*)` has not yet been implemented"), 1273, "HY000", "Unknown collation: '$1'"},
	{1105, regexp.MustCompile(`^unsupported feature: unsupported character set: (.*)$`), 1115, "42000", "Unknown character set: '$1'"},
	{1235, regexp.MustCompile(`^unsupported feature: unsupported character set: (.*)$`), 1115, "42000", "Unknown character set: '$1'"},
	{1105, regexp.MustCompile(`^unsupported feature: (.*)$`), 1235, "42000", "This version of Strata doesn't yet support '$1'"},
	{1105, regexp.MustCompile(`Invalid JSON path expression`), 3143, "42000", "Invalid JSON path expression."},
	{1105, regexp.MustCompile(`^incorrect prefix key '.*'; (.*)$`), 1089, "HY000", "Incorrect prefix key; $1"},
	{1105, regexp.MustCompile(`^blob/text column '(.*)' used in key specification without a key length$`), 1170, "42000", "BLOB/TEXT column '$1' used in key specification without a key length"},
	{1105, regexp.MustCompile(`^duplicate (?:unique|primary) key given: \[(.*)\]$`), 1062, "23000", "Duplicate entry '$1' for key"},
	{1062, regexp.MustCompile(`^duplicate (?:unique|primary) key given: \[(.*)\]$`), 1062, "23000", "Duplicate entry '$1' for key"},
}

// mapError is mapError with the session's duplicate-key wording.
func (h *errorHandler) mapError(c *mysql.Conn, err error) error {
	countCaughtPanic(err) // SRV-PANIC
	err = mapError(err)
	if s := h.session(c); s != nil {
		err = dupWording(s, err)
	}
	return err
}

var dupEntryRE = regexp.MustCompile(`(?s)^Duplicate entry '(.*)' for key$`)

// dupWording completes a duplicate-key message the way MariaDB words it,
// "Duplicate entry 'v1-v2' for key 'name'" (a prefix key part shows its
// cut value), from what the backend noted when it raised the error.
func dupWording(s *backend.Session, err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || se.Num != mysql.ERDupEntry {
		return err
	}
	m := dupEntryRE.FindStringSubmatch(se.Message)
	if m == nil {
		return err
	}
	if entry, key, ok := s.DupEntry("[" + m[1] + "]"); ok {
		return mysql.NewSQLError(mysql.ERDupEntry, se.SQLState(), "Duplicate entry '%s' for key '%s'", entry, key)
	}
	return err
}

// mapError gives clients MySQL's error code for the errors go-mysql-server
// leaves as 1105 (or codes with another meaning). Applications and ORMs
// branch on these codes.
func mapError(err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) {
		return err
	}
	for _, r := range errorRules {
		if se.Num != r.from {
			continue
		}
		if m := r.re.FindStringSubmatchIndex(se.Message); m != nil {
			msg := string(r.re.ExpandString(nil, r.msg, se.Message, m))
			return mysql.NewSQLError(r.code, r.st, "%s", msg)
		}
	}
	return err
}

// rewrite applies rewriteQuery and generatedValues for the session's
// sql_mode, and starts the statement's diagnostics area.
func (h *errorHandler) rewrite(c *mysql.Conn, query string) string {
	return h.correct(c, h.begin(c, query))
}

// begin starts a statement in the session: its text in utf8mb4 (from
// character_set_client), its diagnostics area and insert ids.
func (h *errorHandler) begin(c *mysql.Conn, query string) string {
	if panicProbe != nil {
		panicProbe(query)
	}
	s := h.session(c)
	if s == nil {
		return query
	}
	query = clientText(s, query)
	if h.binlog != nil {
		h.beginLogged(s, query) // SRV-REPL-4
	}
	beginDiagnostics(s, query)
	beginInsertIDs(s, query)
	return query
}

// beginInsertIDs starts the statement's insert id record, naming an
// INSERT's or REPLACE's own table (SES-8: a trigger's writes elsewhere
// are not the statement's).
func beginInsertIDs(s *backend.Session, query string) {
	s.BeginInsertIDs()
	if isInsert(query) {
		if db, table, ok := statementTable(query, s.GetCurrentDatabase()); ok {
			s.InsertIDsOf(db, table)
		}
	}
}

// statementTable is the table an INSERT or REPLACE names, [db.]table with
// or without backquotes, in db when unqualified; false when it cannot be
// read plainly (a quoted name with a dot or a backquote).
func statementTable(query, db string) (string, string, bool) {
	m := tableOfStatementRE.FindStringSubmatch(query)
	if m == nil || notATableRE.MatchString(m[2]) || strings.EqualFold(m[2], "HIGH_PRIORITY") || strings.EqualFold(m[2], "DELAYED") {
		return "", "", false
	}
	parts := strings.Split(m[2], ".")
	if len(parts) > 2 {
		return "", "", false
	}
	for i, p := range parts {
		if strings.HasPrefix(p, "`") != strings.HasSuffix(p, "`") || len(p) == 1 {
			return "", "", false // a quoted name with a dot in it
		}
		p = strings.TrimSuffix(strings.TrimPrefix(p, "`"), "`")
		if p == "" || strings.Contains(p, "`") {
			return "", "", false
		}
		parts[i] = p
	}
	if len(parts) == 2 {
		return parts[0], parts[1], true
	}
	return db, parts[0], db != ""
}

// correct is the statement-text corrections before go-mysql-server's
// parser (rewriteText, generated-column values, INSERT ... SELECT's
// VALUES()); none applies to a statement the fast path takes (fastpath
// FP-5 accepts no comments, variables, modifiers or hints), which runs
// before them.
func (h *errorHandler) correct(c *mysql.Conn, query string) string {
	s := h.session(c)
	if s == nil {
		return rewriteText(query, true)
	}
	mode := ""
	if strings.IndexByte(query, '\\') >= 0 || h.b.HasGeneratedColumns() {
		if m, err := s.GetSessionVariable(nil, "sql_mode"); err == nil {
			mode, _ = m.(string)
			mode = strings.ToUpper(mode)
		}
	}
	query = rewriteText(query, !strings.Contains(mode, "NO_BACKSLASH_ESCAPES"))
	if h.b.HasGeneratedColumns() && !strings.Contains(mode, "STRICT_") {
		query = generatedValues(s, query)
	}
	return selectValues(s, query)
}

// rewriteText is the statement-text corrections before the parser:
// rewriteQuery's, then SRV-PARENQUERY, SRV-LOCKOPT and SRV-WORDS.
func rewriteText(query string, backslashEscapes bool) string {
	return sqlWords(lockOptions(parenQuery(rewriteQuery(query, backslashEscapes))))
}

// killRE matches KILL [QUERY | CONNECTION] id.
var killRE = regexp.MustCompile(`(?i)^\s*KILL\s+(?:QUERY\s+|CONNECTION\s+)?(\d+)\s*;?\s*$`)

// unknownThread is MySQL's 1094 for a KILL of an id no connection has;
// go-mysql-server answers OK.
func (h *errorHandler) unknownThread(query string) error {
	m := killRE.FindStringSubmatch(query)
	if m == nil {
		return nil
	}
	id, err := strconv.ParseUint(m[1], 10, 32)
	if err == nil && h.b.SessionByConn(uint32(id)) != nil {
		return nil
	}
	return mysql.NewSQLError(1094, "HY000", "Unknown thread id: %s", m[1])
}

// ComInitDB (COM_INIT_DB and the handshake's database) refuses a
// database the user holds nothing in with 1044, as MySQL.
func (h *errorHandler) ComInitDB(c *mysql.Conn, schemaName string) (err error) {
	defer recoverCommand(c, &err)
	err = h.Handler.ComInitDB(c, schemaName)
	if err != nil {
		err = privilegeWording("USE "+schemaName, mapError(sql.CastSQLError(err)))
	}
	return err
}

// packetLimit is MySQL's 1153 for a statement longer than
// max_allowed_packet (the wire library reads packets of any size).
func packetLimit(n int) error {
	if max, ok := globalInt("max_allowed_packet"); ok && int64(n) > max {
		return mysql.NewSQLError(mysql.ERNetPacketTooLarge, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes")
	}
	return nil
}

// globalInt reads an integer system variable's global value.
func globalInt(name string) (int64, bool) {
	_, v, ok := sql.SystemVariables.GetGlobal(name)
	if !ok {
		return 0, false
	}
	switch v := v.(type) {
	case int64:
		return v, true
	case uint64:
		return int64(min(v, math.MaxInt64)), true
	case int32:
		return int64(v), true
	case uint32:
		return int64(v), true
	case int8:
		return int64(v), true
	case int:
		return int64(v), true
	}
	return 0, false
}

func (h *errorHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) (err error) {
	defer recoverCommand(c, &err)
	h.handshakeCollation(ctx, c) // SRV-HANDSHAKE
	routeThroughMulti(c)         // SRV-CALL
	if err := packetLimit(len(query)); err != nil {
		return err
	}
	query = h.begin(c, query)
	if ok, err := h.fastText(ctx, c, query, cb); ok {
		return err
	}
	query = h.correct(c, query)
	if query, err = h.createOrReplace(ctx, c, query); err != nil { // SRV-REPLACE
		h.done(c, err)
		return err
	}
	if ok, err := h.intercept(ctx, c, query, cb, false); ok {
		h.done(c, err)
		return err
	}
	ch := h.chainOf(ctx, c, query)
	h.declareColumns(c, query) // backend CAT-5
	// comQuery: SRV-PARENJOIN's rewrite where the statement needs it.
	err = h.statementErrors(c, query, h.mapError(c, h.comQuery(ctx, c, query, h.spool(c, query, chainStatus(c, ch, cb)))))
	if h.ifNotExists(c, query, err) {
		h.setStatus(c)
		err = cb(&sqltypes.Result{}, false)
	}
	if err == nil {
		err = h.consistentSnapshot(ctx, c, query)
	}
	h.done(c, err)
	h.chainAfter(ctx, c, ch, err)
	return err
}

// chainAfter starts the chained transaction after a COMMIT/ROLLBACK AND
// CHAIN that succeeded. The OK packet is out: a failure to chain can only
// be logged, and the session is left outside a transaction.
func (h *errorHandler) chainAfter(ctx context.Context, c *mysql.Conn, ch *chainedTx, err error) {
	if err != nil || ch == nil {
		return
	}
	if cerr := h.chain(ctx, c, ch); cerr != nil {
		logrus.Errorf("strata: connection %d: AND CHAIN: %v", c.ConnectionID, cerr)
	}
	h.done(c, nil)
}

var nextIsolationRE = regexp.MustCompile(`(?i)^\s*SET\s+TRANSACTION\s+ISOLATION\s+LEVEL\s+(READ\s+UNCOMMITTED|READ\s+COMMITTED|REPEATABLE\s+READ|SERIALIZABLE)\s*;?\s*$`)

var chainRE = regexp.MustCompile(`(?is)^\s*(?:COMMIT|ROLLBACK)(?:\s+WORK)?\s+AND\s+CHAIN\b`)

// chainedTx is what COMMIT/ROLLBACK AND CHAIN carries into the next
// transaction (backend SES-10).
type chainedTx struct {
	level    string
	readOnly bool
}

// chainOf reads, before the statement runs, the transaction a COMMIT or
// ROLLBACK AND CHAIN ends; nil for any other statement.
func (h *errorHandler) chainOf(ctx context.Context, c *mysql.Conn, query string) *chainedTx {
	if !startsWithWord(query, "commit", "rollback") || !chainRE.MatchString(query) {
		return nil
	}
	s := h.session(c)
	if s == nil {
		return nil
	}
	level, readOnly, ok := s.ChainState(sql.NewContext(ctx, sql.WithSession(s)))
	if !ok {
		level, readOnly = "", false
	}
	return &chainedTx{level, readOnly}
}

// chain starts the transaction a COMMIT/ROLLBACK AND CHAIN asks for once
// the statement has ended the previous one (the parser drops the clause).
func (h *errorHandler) chain(ctx context.Context, c *mysql.Conn, ch *chainedTx) error {
	if ch == nil {
		return nil
	}
	start := "START TRANSACTION"
	if ch.readOnly {
		start += " READ ONLY"
	}
	if err := h.Handler.ComQuery(ctx, c, start, func(*sqltypes.Result, bool) error { return nil }); err != nil {
		return err
	}
	if s := h.session(c); s != nil && ch.level != "" {
		s.ChainIsolation(ch.level)
	}
	return nil
}

// chainStatus has the OK packet of a COMMIT/ROLLBACK AND CHAIN report the
// transaction chain starts right after it.
func chainStatus(c *mysql.Conn, ch *chainedTx, cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	if ch == nil {
		return cb
	}
	return func(res *sqltypes.Result, more bool) error {
		c.StatusFlags |= mysql.ServerInTransaction
		return cb(res, more)
	}
}

var consistentSnapshotRE = regexp.MustCompile(`(?is)^\s*START\s+TRANSACTION\b[^;]*\bWITH\s+CONSISTENT\s+SNAPSHOT\b`)

// consistentSnapshot starts the snapshot of START TRANSACTION WITH
// CONSISTENT SNAPSHOT at once (backend SES-9): the parser drops the clause.
func (h *errorHandler) consistentSnapshot(ctx context.Context, c *mysql.Conn, query string) error {
	// The word test keeps the regular expression off every other query's path.
	if !startsWithWord(query, "start") || !consistentSnapshotRE.MatchString(query) {
		return nil
	}
	s := h.session(c)
	if s == nil {
		return nil
	}
	return s.ConsistentSnapshot(sql.NewContext(ctx, sql.WithSession(s)))
}

// mayIntercept is a cheap test for the statements intercept answers.
func mayIntercept(query string) bool {
	return startsWithWord(query, "do", "kill", "check", "checksum", "optimize", "repair", "analyze", "show", "purge", "clone") || containsFold(query, "default") ||
		(startsWithWord(query, "set") && containsFold(query, "transaction")) ||
		(bigParenNumber(query) && containsFold(query, "time")) ||
		strings.Count(query, "(") > maxSubqueryNesting && containsFold(query, "select") ||
		mayCreateSelect(query) || mayBeFunctionStatement(query) ||
		startsWithWord(query, "explain", "describe", "desc") && containsFold(query, "json")
}

// bigParenNumber reports whether q has "(n" with n above 6 somewhere:
// the cheap test before tooBigTimePrecision tokenizes.
func bigParenNumber(q string) bool {
	for i := strings.IndexByte(q, '('); i >= 0 && i < len(q); {
		j := i + 1
		for j < len(q) && isSpace(q[j]) {
			j++
		}
		k := j
		for k < len(q) && q[k] >= '0' && q[k] <= '9' {
			k++
		}
		if k > j && (k-j > 1 || q[j] > '6') {
			return true
		}
		n := strings.IndexByte(q[i+1:], '(')
		if n < 0 {
			return false
		}
		i += n + 1
	}
	return false
}

// intercept answers the statements strata handles before (or instead of)
// go-mysql-server: DEFAULT(col) refused, KILL of an unknown thread, the
// table maintenance statements (admin.go), SHOW GRANTS of oneself
// (grants.go) and DO. more is the result's
// more-results flag (a multi-statement query with statements left).
func (h *errorHandler) intercept(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn, more bool) (bool, error) {
	if usesDefaultFunction(query) {
		return true, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of Strata doesn't yet support 'DEFAULT(col)'")
	}
	if misplacedDefault(query) {
		return true, mysql.NewSQLError(mysql.ERParseError, "42000", "You have an error in your SQL syntax; DEFAULT is not a value here")
	}
	if tooDeep(query) { // SRV-NESTING
		return true, errTooDeep
	}
	if err := explainJSON(query); err != nil { // SRV-WORDS
		return true, err
	}
	if n, typ, ok := tooBigTimePrecision(query); ok {
		return true, mysql.NewSQLError(1426, "42000", "Too big precision %d specified for '%s'. Maximum is 6.", n, typ)
	}
	if err := h.unknownThread(query); err != nil {
		return true, err
	}
	if m := nextIsolationRE.FindStringSubmatch(query); m != nil {
		// SET TRANSACTION ISOLATION LEVEL without a scope: the next
		// transaction only (go-mysql-server sets the session's level).
		s := h.session(c)
		if s == nil {
			return false, nil
		}
		level := strings.ToUpper(strings.Join(strings.Fields(m[1]), "-"))
		if err := s.SetNextIsolation(level); err != nil {
			return true, err
		}
		h.setStatus(c)
		return true, cb(&sqltypes.Result{}, more)
	}
	if res, ok, err := h.ownGrants(ctx, c, query); ok {
		if err == nil {
			h.setStatus(c)
			err = cb(res, more)
		}
		return true, h.mapError(c, err)
	}
	if res, ok, err := h.functionStatement(ctx, c, query); ok { // routines FN-1..FN-4
		if err == nil {
			h.setStatus(c)
			err = cb(res, more)
		}
		return true, h.mapError(c, err)
	}
	if res, ok, err := h.clone(ctx, c, query); ok { // SRV-CLONE
		if err == nil {
			h.setStatus(c)
			err = cb(res, more)
		}
		return true, h.mapError(c, err)
	}
	if res, ok := h.binlogReaderVersion(c, query); ok { // SRV-REPL-5
		h.setStatus(c)
		return true, cb(res, more)
	}
	if res, ok, err := h.replicationStatement(ctx, c, query); ok { // SRV-REPL-3
		if err == nil {
			h.setStatus(c)
			err = cb(res, more)
		}
		return true, h.mapError(c, err)
	}
	if res, ok := h.showErrors(c, query); ok { // SRV-DIAG
		h.setStatus(c)
		return true, cb(res, more)
	}
	if res, ok, err := h.admin(ctx, c, query); ok {
		if err == nil {
			h.setStatus(c)
			err = cb(res, more)
		}
		return true, h.mapError(c, err)
	}
	if ok, err := h.createSelect(ctx, c, query, cb, more); ok { // SRV-CTAS
		return true, err
	}
	if m := doRE.FindStringSubmatch(query); m != nil {
		// DO expr, ...: evaluated as a SELECT whose rows are dropped; the
		// client gets an OK (go-mysql-server's parser has no DO).
		err := mapError(h.Handler.ComQuery(ctx, c, "SELECT "+m[1], func(*sqltypes.Result, bool) error { return nil }))
		if err == nil {
			h.setStatus(c)
			err = cb(&sqltypes.Result{}, more)
		}
		return true, err
	}
	return false, nil
}

// maxPlaceholders is the most placeholders a prepared statement may have.
// MySQL allows 65,535, but the wire library keeps the count in a uint16
// and sizes the NULL bitmap of COM_STMT_EXECUTE as (count+7)/8 in uint16
// arithmetic: past 65,528 the bitmap is read as empty and the execute
// panics (the client saw "invalid connection"), and past 65,535 the count
// wraps. Such statements are refused at PREPARE with MySQL's 1390.
const maxPlaceholders = 65528

// placeholderLimit refuses a statement with more placeholders than
// maxPlaceholders (counted as the parser sees them, so a '?' in a string
// or comment does not count).
func placeholderLimit(query string) error {
	if strings.Count(query, "?") <= maxPlaceholders {
		return nil
	}
	stmt, err := sqlparser.Parse(query)
	if err != nil {
		return nil // the prepare reports it
	}
	n := 0
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if v, ok := node.(*sqlparser.SQLVal); ok && strings.HasPrefix(string(v.Val), ":v") {
			n++
		}
		return true, nil
	}, stmt)
	if n > maxPlaceholders {
		return mysql.NewSQLError(1390, "HY000", "Prepared statement contains too many placeholders (%d; strata's limit is %d)", n, maxPlaceholders)
	}
	return nil
}

var doRE = regexp.MustCompile(`(?is)^\s*DO\s+(.+?)\s*;?\s*$`)

var setStmtRE = regexp.MustCompile(`(?i)^\s*SET\s`)

// statementErrors rewords the errors whose MySQL form depends on the
// statement's text.
// ifNotExists turns "already exists" into a Note for CREATE PROCEDURE /
// TRIGGER IF NOT EXISTS (MySQL 8.0.29), which rewriteQuery marks: the
// parser does not take the clause.
// It reports whether err was such a one (the caller then answers OK).
func (h *errorHandler) ifNotExists(c *mysql.Conn, query string, err error) bool {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || (se.Num != 1304 && se.Num != 1359) || !strings.Contains(query, ifNotExistsMark) {
		return false
	}
	if s := h.session(c); s != nil {
		s.Warn(&sql.Warning{Level: "Note", Code: int(se.Num), Message: se.Message})
	}
	return true
}

func (h *errorHandler) statementErrors(c *mysql.Conn, query string, err error) error {
	if err == nil {
		return nil
	}
	db := ""
	var exists func(db, table string) bool
	if s := h.session(c); s != nil {
		db = s.GetCurrentDatabase()
		exists = func(dbName, table string) bool {
			ctx := sql.NewContext(context.Background(), sql.WithSession(s))
			d, err := h.b.Database(ctx, dbName)
			if err != nil {
				return false
			}
			_, ok, err := d.GetTableInsensitive(ctx, table)
			return err == nil && ok
		}
	}
	return privilegeWording(query, unknownVariable(query, deallocateWording(query, unknownQualifier(query, dropUnknownTable(query, db, exists, err)))))
}

var noTableRE = regexp.MustCompile(`^Table '([^'.]*)' doesn't exist$`)

// unknownQualifier answers a column qualified by a name that no table of
// the statement has (`SELECT x.a FROM t AS y`) with MySQL's 1054 "Unknown
// column 'x.a' in 'field list'"; go-mysql-server said 1146 "Table 'x'
// doesn't exist", which is the answer only when x is in a FROM clause.
// The statement is parsed on this error path only.
func unknownQualifier(query string, err error) error {
	var se *mysql.SQLError
	if !errors.As(err, &se) || se.Num != mysql.ERNoSuchTable {
		return err
	}
	m := noTableRE.FindStringSubmatch(se.Message)
	if m == nil {
		return err
	}
	stmt, perr := sqlparser.Parse(query)
	if perr != nil {
		return err
	}
	name := strings.ToLower(m[1])
	inFrom, column := false, ""
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.AliasedTableExpr:
			if tn, ok := x.Expr.(sqlparser.TableName); ok && strings.EqualFold(tn.Name.String(), name) || strings.EqualFold(x.As.String(), name) {
				inFrom = true
			}
		case sqlparser.TableName: // DELETE's targets, INSERT's table...
			if strings.EqualFold(x.Name.String(), name) {
				inFrom = true
			}
		case *sqlparser.ColName:
			if column == "" && strings.EqualFold(x.Qualifier.Name.String(), name) {
				column = x.Qualifier.Name.String() + "." + x.Name.String()
			}
			return false, nil // its qualifier names no table of the statement
		}
		return true, nil
	}, stmt)
	if inFrom || column == "" {
		return err
	}
	return mysql.NewSQLError(mysql.ERBadFieldError, "42S22", "Unknown column '%s' in 'field list'", column)
}

var (
	dropTableRE   = regexp.MustCompile(`(?is)^\s*DROP\s+(?:TEMPORARY\s+)?(?:TABLES?|VIEW)\s+(.*?)\s*;?\s*$`)
	noSuchTableRE = regexp.MustCompile(`^Table '([^']*)' doesn't exist`)
	ifExistsRE    = regexp.MustCompile(`(?i)^IF\s+EXISTS\s+`)
	dropTailRE    = regexp.MustCompile(`(?i)\s+(RESTRICT|CASCADE)\s*$`)
)

// dropUnknownTable answers DROP TABLE / DROP VIEW of a table that does not
// exist with MySQL's 1051 "Unknown table" (go-mysql-server: 1146, or 1051
// naming nothing for a view dropped as a table), the table as db.table
// (db: the current database when the statement names none); all the
// tables of the list that do not exist, as MySQL names them ('test.t2,
// test.t3'), when exists can tell.
func dropUnknownTable(query, db string, exists func(db, table string) bool, err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || (se.Num != 1146 && se.Num != 1051) || !startsWithWord(query, "drop") {
		return err
	}
	m := dropTableRE.FindStringSubmatch(query)
	if m == nil {
		return err
	}
	name := ifExistsRE.ReplaceAllString(m[1], "")
	if exists != nil && db != "" && startsWithWord(query, "drop") && !containsFold(m[0][:min(len(m[0]), 40)], "view") {
		if list, err := tableList(dropTailRE.ReplaceAllString(name, "")); err == nil {
			var missing []string
			for _, t := range list {
				d := t[0]
				if d == "" {
					d = db
				}
				if !exists(d, t[1]) {
					missing = append(missing, d+"."+t[1])
				}
			}
			if len(missing) > 0 {
				return mysql.NewSQLError(1051, "42S02", "Unknown table '%s'", strings.Join(missing, ","))
			}
		}
	}
	if sm := noSuchTableRE.FindStringSubmatch(se.Message); sm != nil {
		name = sm[1]
	}
	name = strings.ReplaceAll(strings.TrimSpace(name), "`", "")
	if !strings.Contains(name, ".") && !strings.Contains(name, ",") && db != "" {
		name = db + "." + name
	}
	return mysql.NewSQLError(1051, "42S02", "Unknown table '%s'", name)
}

// deallocateWording names DEALLOCATE PREPARE in 1243, as MySQL does
// (go-mysql-server says EXECUTE for both statements).
func deallocateWording(query string, err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || se.Num != 1243 || !startsWithWord(query, "deallocate", "drop") {
		return err
	}
	return mysql.NewSQLError(1243, "HY000", "%s", strings.Replace(se.Message, "given to EXECUTE", "given to DEALLOCATE PREPARE", 1))
}

var (
	tableDeniedRE   = regexp.MustCompile(`^Access denied for user (.*) to table '(.*)'$`)
	dbDeniedRE      = regexp.MustCompile(`^Access denied for user (.*) to database '(.*)'$`)
	commandDeniedRE = regexp.MustCompile(`^command denied to user (.*)$`)
	firstWordRE     = regexp.MustCompile(`^\s*(?:/\*.*?\*/\s*)*([A-Za-z]+)`)
)

const erTableAccessDenied = 1142 // ER_TABLEACCESS_DENIED_ERROR

// privilegeWording gives go-mysql-server's privilege refusals (1105)
// MySQL's codes: a table 1142 ("SELECT command denied to user 'u'@'h' for
// table 't'", the command being the statement's), a database 1044, any
// other 1227.
func privilegeWording(query string, err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || se.Num != mysql.ERUnknownError {
		return err
	}
	if m := tableDeniedRE.FindStringSubmatch(se.Message); m != nil {
		verb := "SELECT"
		if w := firstWordRE.FindStringSubmatch(query); w != nil {
			switch v := strings.ToUpper(w[1]); v {
			case "INSERT", "UPDATE", "DELETE", "REPLACE", "DROP", "ALTER", "CREATE", "TRUNCATE", "LOCK":
				verb = v
			}
		}
		return mysql.NewSQLError(erTableAccessDenied, "42000", "%s command denied to user %s for table '%s'", verb, m[1], m[2])
	}
	if m := dbDeniedRE.FindStringSubmatch(se.Message); m != nil {
		return mysql.NewSQLError(mysql.ERDBAccessDenied, "42000", "Access denied for user %s to database '%s'", m[1], m[2])
	}
	if m := commandDeniedRE.FindStringSubmatch(se.Message); m != nil {
		if k := killRE.FindStringSubmatch(query); k != nil {
			return mysql.NewSQLError(1095, "HY000", "You are not owner of thread %s", k[1])
		}
		if d := databaseOfStatementRE.FindStringSubmatch(query); d != nil {
			return mysql.NewSQLError(mysql.ERDBAccessDenied, "42000", "Access denied for user %s to database '%s'", m[1], strings.ReplaceAll(d[1], "`", ""))
		}
		if userStatementRE.MatchString(query) {
			return mysql.NewSQLError(mysql.ERSpecifiedAccessDenied, "42000", "Access denied; you need (at least one of) the CREATE USER privilege(s) for this operation")
		}
		if t := tableOfStatementRE.FindStringSubmatch(query); t != nil && !notATableRE.MatchString(t[2]) {
			verb := strings.ToUpper(t[1])
			name := strings.ReplaceAll(t[2], "`", "")
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
			return mysql.NewSQLError(erTableAccessDenied, "42000", "%s command denied to user %s for table '%s'", verb, m[1], name)
		}
		return mysql.NewSQLError(mysql.ERSpecifiedAccessDenied, "42000", "Access denied; you need (at least one of) the required privilege(s) for this operation")
	}
	return err
}

var (
	tableOfStatementRE = regexp.MustCompile("(?is)^\\s*(UPDATE|DELETE|REPLACE|INSERT|DROP|ALTER|TRUNCATE|CREATE)\\s+" +
		"(?:(?:LOW_PRIORITY|IGNORE|QUICK|TEMPORARY|TABLE|FROM|INTO|IF\\s+NOT\\s+EXISTS|IF\\s+EXISTS)\\s+)*([`\\w.$]+)")
	databaseOfStatementRE = regexp.MustCompile("(?is)^\\s*(?:CREATE|DROP|ALTER)\\s+(?:DATABASE|SCHEMA)\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?([`\\w$]+)")
	userStatementRE       = regexp.MustCompile("(?is)^\\s*(?:CREATE|DROP|RENAME|ALTER)\\s+(?:USER|ROLE)\\b")
	notATableRE           = regexp.MustCompile("(?i)^(?:INDEX|UNIQUE|FULLTEXT|SPATIAL|VIEW|USER|ROLE|DATABASE|SCHEMA|PROCEDURE|FUNCTION|TRIGGER|EVENT|DEFINER.*|OR|ALGORITHM.*|SQL)$")
)

// unknownVariable: in a SET statement, go-mysql-server reports an unknown
// variable as an unknown column (1054); MySQL says 1193.
func unknownVariable(query string, err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || se.Num != mysql.ERBadFieldError || !setStmtRE.MatchString(query) {
		return err
	}
	name := strings.TrimSuffix(strings.TrimPrefix(se.Message, "Unknown column '"), "' in 'field list'")
	return mysql.NewSQLError(1193, "HY000", "Unknown system variable '%s'", name)
}

func (h *errorHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) (rest string, err error) {
	defer recoverCommand(c, &err)
	h.handshakeCollation(ctx, c)                             // SRV-HANDSHAKE
	if rest, ok, err := h.nextCallResult(c, query, cb); ok { // SRV-CALL
		return rest, err
	}
	if _, single := singleStatementClients.Load(c.ConnectionID); single && !singleCall(query) {
		return "", h.ComQuery(ctx, c, query, cb)
	}
	if err := packetLimit(len(query)); err != nil {
		return "", err
	}
	query = h.begin(c, query)
	if ok, err := h.fastText(ctx, c, query, cb); ok { // one statement only (FP-5)
		return "", err
	}
	query = h.correct(c, query)
	if query, err = h.createOrReplace(ctx, c, query); err != nil { // SRV-REPLACE
		h.done(c, err)
		return "", err
	}
	if startsWithWord(query, "call") {
		return h.callWithResults(ctx, c, query, cb)
	}
	// The mariadb client sends every statement this way: the statements
	// strata answers itself are recognized in the first one (split only
	// when the text may hold one, to keep the tokenizing off the path of
	// PyMySQL's every query).
	if routines.IsCreateFunction(query) { // its body holds ';': split after it
		first, rest := routines.Split(ctx, query)
		ok, err := h.intercept(ctx, c, first, cb, strings.TrimSpace(rest) != "")
		if ok {
			h.done(c, err)
			if err != nil {
				return "", err
			}
			return rest, nil
		}
	}
	if mayIntercept(query) {
		if first, rest, err := sqlparser.SplitStatement(query); err == nil {
			if ok, err := h.intercept(ctx, c, first, cb, strings.TrimSpace(rest) != ""); ok {
				h.done(c, err)
				if err != nil {
					return "", err
				}
				return rest, nil
			}
		}
	}
	ch := h.chainOf(ctx, c, query)
	h.declareColumns(c, query)                                        // backend CAT-5
	if rest, ok, err := h.parenJoinFirst(ctx, c, query, ch, cb); ok { // SRV-PARENJOIN
		return rest, err
	}
	rest, err = h.Handler.ComMultiQuery(ctx, c, query, h.spool(c, query, chainStatus(c, ch, cb)))
	if err != nil && (mayUseAlias(query) || mayCorrelateDML(query)) { // SRV-ORDERALIAS, SRV-DMLJOIN on the first statement
		if first, more, serr := sqlparser.SplitStatement(query); serr == nil {
			spool := h.spool(c, first, chainStatus(c, ch, cb))
			more = strings.TrimSpace(more)
			if rerr := h.retryParsed(ctx, c, first, nil, err, func(r *sqltypes.Result, m bool) error {
				return spool(r, m || more != "")
			}); rerr != err {
				query, rest, err = first, more, rerr
			}
		}
	}
	err = h.statementErrors(c, query, h.mapError(c, err))
	if h.ifNotExists(c, query, err) {
		h.setStatus(c)
		err = cb(&sqltypes.Result{}, rest != "")
	}
	if err == nil {
		err = h.consistentSnapshot(ctx, c, query)
	}
	h.done(c, err)
	h.chainAfter(ctx, c, ch, err)
	return rest, err
}

// fastText answers a text statement on the fast path if it can (ok), as
// ComQuery would through go-mysql-server (fastpath FP-5).
func (h *errorHandler) fastText(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) (bool, error) {
	if h.fast == nil {
		return false, nil
	}
	res, ok, err := h.fast.Text(ctx, c, query)
	if !ok {
		return false, nil
	}
	if err != nil {
		err = h.mapError(c, sql.CastSQLError(err))
		h.done(c, err)
		return true, err
	}
	h.setStatus(c)
	if fixFields(res) {
		fixFloats(res, res.Fields) // the text protocol sends floats as text
	}
	if len(res.Fields) == 0 && ownsInsertID(query) {
		h.insertIDs(c, res) // backend SES-8, as spool does
	}
	err = cb(res, false)
	h.done(c, err)
	return true, err
}

func (h *errorHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, p *mysql.PrepareData) (f []*querypb.Field, err error) {
	defer func() {
		if err != nil {
			// The wire library keeps a failed statement's entry (and its id)
			// in the connection's map: drop it.
			delete(c.PrepareData, c.StatementID)
		}
	}()
	defer recoverCommand(c, &err) // runs before the deferred cleanup above
	h.handshakeCollation(ctx, c)  // SRV-HANDSHAKE
	// A connection holds at most max_prepared_stmt_count statements
	// (MySQL counts them server-wide; the wire library keeps them per
	// connection, where they can be counted without a lock).
	if max, ok := globalInt("max_prepared_stmt_count"); ok && int64(len(c.PrepareData)) > max {
		return nil, mysql.NewSQLError(1461, "42000", "Can't create more than max_prepared_stmt_count statements (current value: %d)", max)
	}
	if err := placeholderLimit(query); err != nil {
		return nil, err
	}
	if err := packetLimit(len(query)); err != nil {
		return nil, err
	}
	if q := h.rewrite(c, query); q != query {
		query, p.PrepareStmt = q, q // COM_STMT_EXECUTE runs PrepareStmt
	}
	if s := h.session(c); s != nil && h.binlog != nil {
		s.LogStatement("", "") // SRV-REPL-4: begun by each COM_STMT_EXECUTE, not by the prepare
	}
	if misplacedDefault(query) {
		return nil, mysql.NewSQLError(mysql.ERParseError, "42000", "You have an error in your SQL syntax; DEFAULT is not a value here")
	}
	if tooDeep(query) { // SRV-NESTING
		return nil, errTooDeep
	}
	f, err = h.Handler.ComPrepare(ctx, c, query, p)
	fixFields(&sqltypes.Result{Fields: f})
	return f, privilegeWording(query, mapError(err))
}

func (h *errorHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) (err error) {
	defer recoverCommand(c, &err)
	if s := h.session(c); s != nil {
		beginDiagnostics(s, p.PrepareStmt)
		beginInsertIDs(s, p.PrepareStmt)
		if h.binlog != nil {
			h.beginLogged(s, p.PrepareStmt) // SRV-REPL-4: DDL prepared too (JDBC's server-side prepares)
		}
	}
	if h.fast != nil {
		if res, ok, err := h.fast.Prepared(ctx, c, p); ok {
			if err != nil {
				err = h.mapError(c, sql.CastSQLError(err))
				h.done(c, err)
				return err
			}
			h.setStatus(c)
			binaryZeroDates(res, res.Fields)
			if len(res.Fields) == 0 && ownsInsertID(p.PrepareStmt) {
				h.insertIDs(c, res) // backend SES-8
			}
			return cb(res)
		}
	}
	first := true
	var fields, all []*querypb.Field
	err = h.mapError(c, h.Handler.ComStmtExecute(ctx, c, p, func(res *sqltypes.Result) error {
		if first {
			first = false
			h.setStatus(c)
			all = res.Fields
			if fixFields(res) {
				fields = res.Fields
			}
			aliasesAsWritten(p.PrepareStmt, res.Fields)
			if s := h.session(c); s != nil {
				namesInResultsCharset(s, res) // SRV-CHARSET
			}
		}
		if fields != nil {
			fixFloats(res, fields)
		}
		binaryZeroDates(res, all)
		if len(res.Fields) == 0 && ownsInsertID(p.PrepareStmt) {
			h.insertIDs(c, res)
		}
		res.Info = "" // as in spool
		if len(res.Fields) == 0 {
			if err := h.finishLogged(c); err != nil {
				return err
			}
		}
		return cb(res)
	}))
	err = privilegeWording(p.PrepareStmt, err)
	h.done(c, err)
	return err
}
