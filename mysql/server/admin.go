package server

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"strata/mysql/backend"
	"strata/mysql/planner"
)

// Table maintenance statements go-mysql-server's parser lacks, answered
// here with MySQL's result sets (one row per table and message):
//
//	CHECK TABLE t[, ...] [options]      backend CHK-1: rows against indexes
//	CHECKSUM TABLE t[, ...] [QUICK|EXTENDED]   backend CHK-2
//	OPTIMIZE / REPAIR [LOCAL|NO_WRITE_TO_BINLOG] TABLE t[, ...]
//	                                    a note: the engine has nothing to do
//	ANALYZE [LOCAL|NO_WRITE_TO_BINLOG] TABLE t[, ...] [PERSISTENT FOR ...]
//	                                    each table through go-mysql-server's
//	                                    ANALYZE (its statistics), named
//	                                    db.table as MySQL names it
//
// A table that does not exist gets MySQL's Error row (or a NULL checksum),
// not a statement error, as in MySQL. ANALYZE TABLE ... UPDATE/DROP
// HISTOGRAM stays go-mysql-server's.
var adminRE = regexp.MustCompile(`(?is)^\s*(CHECKSUM|CHECK|OPTIMIZE|REPAIR|ANALYZE)\s+(?:(?:NO_WRITE_TO_BINLOG|LOCAL)\s+)?TABLES?\s+(.+?)\s*;?\s*$`)

// adminOptions are the option words that may follow the table list
// (MariaDB's ANALYZE ... PERSISTENT FOR ALL | COLUMNS (...) INDEXES (...)
// among them: statistics are collected alike).
var adminOptions = regexp.MustCompile(`(?is)((\s+(QUICK|FAST|MEDIUM|EXTENDED|CHANGED|USE_FRM|FOR\s+UPGRADE))+|\s+PERSISTENT\s+FOR\s+.*)\s*$`)

var histogramRE = regexp.MustCompile(`(?i)\bHISTOGRAM\b`)

func (h *errorHandler) admin(goctx context.Context, c *mysql.Conn, query string) (*sqltypes.Result, bool, error) {
	m := adminRE.FindStringSubmatch(query)
	if m == nil || strings.EqualFold(m[1], "analyze") && histogramRE.MatchString(m[2]) {
		return nil, false, nil
	}
	s := h.session(c)
	if s == nil {
		return nil, false, nil
	}
	op := strings.ToLower(m[1])
	names, err := tableList(adminOptions.ReplaceAllString(m[2], ""))
	if err != nil {
		return nil, true, err
	}
	ctx := sql.NewContext(goctx, sql.WithSession(s))
	if op == "checksum" {
		res := &sqltypes.Result{Fields: []*querypb.Field{textField("Table"), {Name: "Checksum", Type: sqltypes.Int64, Charset: 63, ColumnLength: 21}}}
		for _, n := range names {
			db, tb, err := h.adminTable(ctx, s, n)
			if err != nil {
				return nil, true, err
			}
			sum := sqltypes.NULL
			if tb != nil {
				v, err := tb.Checksum(ctx)
				if err != nil {
					return nil, true, err
				}
				sum = sqltypes.NewInt64(int64(v))
			} else {
				s.Warn(&sql.Warning{Level: "Error", Code: mysql.ERNoSuchTable, Message: fmt.Sprintf("Table '%s.%s' doesn't exist", db, n[1])})
			}
			res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.NewVarChar(db + "." + n[1]), sum})
		}
		return res, true, nil
	}
	res := &sqltypes.Result{Fields: []*querypb.Field{textField("Table"), textField("Op"), textField("Msg_type"), textField("Msg_text")}}
	add := func(name, typ, text string) {
		res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.NewVarChar(name), sqltypes.NewVarChar(op),
			sqltypes.NewVarChar(typ), sqltypes.NewVarChar(text)})
	}
	for _, n := range names {
		db, tb, err := h.adminTable(ctx, s, n)
		if err != nil {
			return nil, true, err
		}
		full := db + "." + n[1]
		if tb == nil {
			add(full, "Error", fmt.Sprintf("Table '%s' doesn't exist", full))
			add(full, "status", "Operation failed")
			continue
		}
		switch op {
		case "analyze":
			typ, text := "status", "OK"
			// go-mysql-server runs ANALYZE only with a current database and
			// files the statistics under it, whatever the table's: the
			// table's database is current while it runs (`ANALYZE TABLE
			// db.t` without USE failed "no database selected").
			err := inDatabase(s, db, func() error {
				return h.Handler.ComQuery(goctx, c, "ANALYZE TABLE "+quoteIdent(db)+"."+quoteIdent(n[1]), func(r *sqltypes.Result, _ bool) error {
					if len(r.Rows) > 0 && len(r.Rows[0]) == 4 {
						typ, text = r.Rows[0][2].ToString(), r.Rows[0][3].ToString()
					}
					return nil
				})
			})
			if err != nil {
				return nil, true, err
			}
			add(full, typ, text)
		case "check":
			problems, err := tb.Check(ctx)
			if err != nil {
				return nil, true, err
			}
			for _, p := range problems {
				add(full, "error", p)
			}
			if len(problems) > 0 {
				add(full, "error", "Corrupt")
			} else {
				add(full, "status", "OK")
			}
		default:
			add(full, "note", "The storage engine for the table doesn't support "+op)
		}
	}
	return res, true, nil
}

// inDatabase runs fn with db as s's current database, restored after,
// even if fn panics.
func inDatabase(s *backend.Session, db string, fn func() error) error {
	cur := s.GetCurrentDatabase()
	s.SetCurrentDatabase(db)
	defer s.SetCurrentDatabase(cur)
	return fn()
}

// adminTable resolves [db.]name; a missing table is (db, nil, nil).
func (h *errorHandler) adminTable(ctx *sql.Context, s *backend.Session, n [2]string) (string, *backend.Table, error) {
	db := n[0]
	if db == "" {
		if db = s.GetCurrentDatabase(); db == "" {
			return "", nil, sql.ErrNoDatabaseSelected.New()
		}
	}
	d, err := h.b.Database(ctx, db)
	if err != nil {
		return db, nil, nil
	}
	t, ok, err := d.GetTableInsensitive(ctx, n[1])
	if err != nil || !ok {
		return db, nil, err
	}
	tb, ok := t.(*backend.Table)
	if !ok {
		return db, nil, nil
	}
	return db, tb, nil
}

func textField(name string) *querypb.Field {
	return &querypb.Field{Name: name, Type: sqltypes.VarChar, Charset: 255, ColumnLength: 1024}
}

// tableList parses "a, `b`.c, d.`e f`" into (database, table) pairs.
func tableList(s string) ([][2]string, error) {
	var out [][2]string
	var parts []string
	var cur strings.Builder
	quoted := false
	flush := func() {
		parts = append(parts, cur.String())
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '`':
			if quoted && i+1 < len(s) && s[i+1] == '`' {
				cur.WriteByte('`')
				i++
				continue
			}
			quoted = !quoted
		case quoted:
			cur.WriteByte(ch)
		case ch == '.':
			flush()
		case ch == ',':
			flush()
			if len(parts) > 2 {
				return nil, syntaxError(s)
			}
			out = append(out, pair(parts))
			parts = nil
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
		default:
			cur.WriteByte(ch)
		}
	}
	flush()
	if quoted || len(parts) > 2 {
		return nil, syntaxError(s)
	}
	out = append(out, pair(parts))
	for _, p := range out {
		if p[1] == "" {
			return nil, syntaxError(s)
		}
	}
	return out, nil
}

func pair(parts []string) [2]string {
	if len(parts) == 2 {
		return [2]string{parts[0], parts[1]}
	}
	return [2]string{"", parts[0]}
}

func syntaxError(near string) error {
	return mysql.NewSQLError(mysql.ERParseError, "42000",
		"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near %s", strconv.Quote(near))
}

// showIndexRE matches SHOW INDEX/INDEXES/KEYS FROM t [FROM db].
var showIndexRE = regexp.MustCompile("(?is)^\\s*SHOW\\s+(?:EXTENDED\\s+)?(?:INDEX|INDEXES|KEYS)\\s+(?:FROM|IN)\\s+([`\\w.$]+)(?:\\s+(?:FROM|IN)\\s+([`\\w$]+))?")

// showIndexMetadata fills what go-mysql-server leaves NULL or 0 in SHOW
// INDEX: Collation ('A': ascending, as every strata index is), Sub_part
// (the key part's prefix length, backend IX-1) and Cardinality (distinct
// values of the key's first Seq_in_index columns, backend ST-2).
func (h *errorHandler) showIndexMetadata(c *mysql.Conn, query string, res *sqltypes.Result) {
	m := showIndexRE.FindStringSubmatch(query)
	if m == nil || len(res.Fields) < 8 || res.Fields[5].Name != "Collation" || res.Fields[7].Name != "Sub_part" {
		return
	}
	s := h.session(c)
	if s == nil {
		return
	}
	names, err := tableList(m[1])
	if err != nil || len(names) != 1 {
		return
	}
	if m[2] != "" {
		names[0][0] = strings.Trim(m[2], "`")
	}
	ctx := sql.NewContext(context.Background(), sql.WithSession(s))
	_, tb, err := h.adminTable(ctx, s, names[0])
	if err != nil || tb == nil {
		return
	}
	idxs, err := tb.GetIndexes(ctx)
	if err != nil {
		return
	}
	prefix := map[string][]uint16{}
	byID := map[string]sql.Index{}
	for _, ix := range idxs {
		prefix[strings.ToLower(ix.ID())] = ix.PrefixLengths()
		byID[strings.ToLower(ix.ID())] = ix
	}
	var st planner.Statistics = tb
	for _, row := range res.Rows {
		if len(row) < 8 {
			continue
		}
		row[5] = sqltypes.NewVarChar("A")
		seq, err := strconv.Atoi(row[3].ToString())
		if err != nil {
			continue
		}
		key := strings.ToLower(row[2].ToString())
		if p := prefix[key]; seq >= 1 && seq <= len(p) && p[seq-1] > 0 {
			row[7] = sqltypes.NewInt64(int64(p[seq-1]))
		}
		if ix := byID[key]; st != nil && ix != nil {
			// the planner's estimate (backend ST-2), as InnoDB shows its own
			if d, ok := st.KeyDistinct(ctx, ix, seq); ok {
				row[6] = sqltypes.NewInt64(int64(d + 0.5))
			}
		}
	}
}
