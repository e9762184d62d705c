package server

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// createOrReplaceRE matches MariaDB's CREATE OR REPLACE [TEMPORARY] TABLE
// name at the start of a statement: the prefix (comments), TEMPORARY, the
// name (db.name, either part quoted).
var createOrReplaceRE = regexp.MustCompile("(?is)^(\\s*(?:/\\*.*?\\*/\\s*)*)CREATE\\s+OR\\s+REPLACE\\s+(TEMPORARY\\s+)?TABLE\\s+((?:`(?:[^`]|``)+`|[\\w$]+)(?:\\s*\\.\\s*(?:`(?:[^`]|``)+`|[\\w$]+))?)")

// createOrReplace answers SRV-REPLACE: MariaDB's CREATE OR REPLACE TABLE
// t ... is DROP TABLE IF EXISTS t, then CREATE TABLE t ...; the table is
// gone even when the CREATE fails, as in MariaDB. The parser knew only
// CREATE OR REPLACE VIEW (1064 near 'TABLE'). It runs the DROP and returns
// the statement without OR REPLACE; q itself when it is no such statement.
func (h *errorHandler) createOrReplace(ctx context.Context, c *mysql.Conn, q string) (string, error) {
	if len(q) < 24 || !containsFold(q[:min(len(q), 200)], "replace") {
		return q, nil
	}
	m := createOrReplaceRE.FindStringSubmatchIndex(q)
	if m == nil {
		return q, nil
	}
	temp := ""
	if m[4] >= 0 {
		temp = "TEMPORARY "
	}
	name := q[m[6]:m[7]]
	rest := q[m[7]:]
	if strings.EqualFold(name, "if") && startsWithWord(strings.TrimSpace(rest), "not") {
		return q, mysql.NewSQLError(1221, "HY000", "Incorrect usage of OR REPLACE and IF NOT EXISTS")
	}
	create := q[:m[3]] + "CREATE " + temp + "TABLE " + name + rest
	if first, _, err := sqlparser.SplitStatement(create); err != nil {
		return create, nil
	} else if _, err := sqlparser.Parse(first); err != nil {
		return create, nil // its syntax error, with nothing dropped
	}
	// The new table's source may not be the table it replaces (MariaDB
	// checks before it drops anything).
	bare := strings.ToLower(strings.ReplaceAll(name[strings.LastIndexAny(name, ".")+1:], "`", ""))
	bare = strings.TrimSpace(bare)
	if i := indexWordFold(rest, "like"); i >= 0 && hasWordFold(rest[i:], bare) {
		return q, mysql.NewSQLError(1066, "42000", "Not unique table/alias: '%s'", bare)
	}
	if i := indexWordFold(rest, "select"); i >= 0 && hasWordFold(rest[i:], bare) {
		return q, mysql.NewSQLError(1093, "HY000", "Table '%s' is specified twice, both as a target for 'CREATE' and as a separate source for data", bare)
	}
	drop := "DROP " + temp + "TABLE IF EXISTS " + name
	if err := mapError(h.Handler.ComQuery(ctx, c, drop, func(*sqltypes.Result, bool) error { return nil })); err != nil {
		var se *mysql.SQLError
		// go-mysql-server refuses DROP TEMPORARY TABLE IF EXISTS t when t
		// is a table but no temporary one: nothing to drop.
		if temp == "" || !errors.As(err, &se) || (se.Num != 1051 && se.Num != 1146) {
			return q, err
		}
	}
	return create, nil
}

// indexWordFold is the index of word w in s (case-insensitive, not part
// of a longer identifier), or -1.
func indexWordFold(s, w string) int {
	ls := strings.ToLower(s)
	for off := 0; ; {
		i := strings.Index(ls[off:], w)
		if i < 0 {
			return -1
		}
		i += off
		j := i + len(w)
		if (i == 0 || !isIdentByte(ls[i-1])) && (j == len(ls) || !isIdentByte(ls[j])) {
			return i
		}
		off = i + 1
	}
}

func hasWordFold(s, w string) bool { return w != "" && indexWordFold(s, w) >= 0 }
