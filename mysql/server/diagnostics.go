package server

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// SRV-DIAG: the diagnostics area's statements go-mysql-server lacks,
// answered from the session's warnings (the previous statement's; see
// beginDiagnostics): SHOW ERRORS [LIMIT [offset,] n] lists its Error rows
// as SHOW WARNINGS lists all; SHOW COUNT(*) WARNINGS and SHOW COUNT(*)
// ERRORS are @@session.warning_count and @@session.error_count (backend
// SES-11), as MySQL defines them.
var showDiagRE = regexp.MustCompile(`(?is)^\s*SHOW\s+(COUNT\s*\(\s*\*\s*\)\s+)?(WARNINGS|ERRORS)(?:\s+LIMIT\s+(\d+)(?:\s*(,|OFFSET)\s*(\d+))?)?\s*;?\s*$`)

// showErrors answers SHOW ERRORS and SHOW COUNT(*) WARNINGS|ERRORS; ok is
// false for any other statement (SHOW WARNINGS stays go-mysql-server's).
func (h *errorHandler) showErrors(c *mysql.Conn, query string) (*sqltypes.Result, bool) {
	if !startsWithWord(query, "show") {
		return nil, false
	}
	m := showDiagRE.FindStringSubmatch(query)
	if m == nil || m[1] == "" && strings.EqualFold(m[2], "warnings") {
		return nil, false
	}
	s := h.session(c)
	if s == nil {
		return nil, false
	}
	errorsOnly := strings.EqualFold(m[2], "errors")
	if m[1] != "" {
		n := s.DiagnosticsCount(errorsOnly)
		name := "@@session.warning_count"
		if errorsOnly {
			name = "@@session.error_count"
		}
		return &sqltypes.Result{
			Fields: []*querypb.Field{{Name: name, Type: sqltypes.Uint64, Charset: 63, ColumnLength: 21, Flags: uint32(querypb.MySqlFlag_UNSIGNED_FLAG)}},
			Rows:   [][]sqltypes.Value{{sqltypes.NewUint64(n)}},
		}, true
	}
	res := &sqltypes.Result{Fields: []*querypb.Field{textField("Level"),
		{Name: "Code", Type: sqltypes.Uint32, Charset: 63, ColumnLength: 4}, textField("Message")}}
	warnings := s.Warnings() // newest first
	for i := len(warnings) - 1; i >= 0; i-- {
		if w := warnings[i]; w.Level == "Error" {
			res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.NewVarChar(w.Level),
				sqltypes.NewUint32(uint32(w.Code)), sqltypes.NewVarChar(w.Message)})
		}
	}
	if m[3] != "" {
		limit, _ := strconv.Atoi(m[3])
		offset := 0
		if m[5] != "" { // LIMIT offset, n or LIMIT n OFFSET offset
			other, _ := strconv.Atoi(m[5])
			if m[4] == "," {
				offset, limit = limit, other
			} else {
				offset = other
			}
		}
		rows := res.Rows[min(offset, len(res.Rows)):]
		res.Rows = rows[:min(limit, len(rows))]
	}
	return res, true
}
