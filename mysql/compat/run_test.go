package compat

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// sqlMode is MySQL 8.0's default sql_mode, set on both servers at the
// start of every script.
const sqlMode = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE," +
	"ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// stmtTimeout bounds one statement (both servers use a 2 s lock wait).
const stmtTimeout = 20 * time.Second

// outcome is what one server answered to one statement.
type outcome struct {
	errCode  int    // MySQL error number; -1: not a MySQL error (driver, connection)
	errMsg   string // for the report only
	isErr    bool
	hasRows  bool
	cols     []string
	types    []string // normalized: see normalizeType
	rows     [][]*string
	exec     bool
	affected int64
	insertID int64
	warnings []string // "Level Code", Error-level entries dropped
}

// render is the canonical text compared between the servers (and shown
// in the report), under the statement's directives.
func (o *outcome) render(st *statement) []string {
	if o.isErr {
		return []string{fmt.Sprintf("error %d", o.errCode)}
	}
	if st.flags.ignoreResult {
		return []string{"ok"}
	}
	var out []string
	switch {
	case o.hasRows:
		// SHOW WARNINGS / SHOW ERRORS: the Message column is server prose.
		skip := make([]bool, len(o.cols))
		if isShowWarnings(st.text) {
			for i, c := range o.cols {
				skip[i] = strings.EqualFold(c, "Message")
			}
		}
		var cols []string
		for i := range o.cols {
			if !skip[i] {
				cols = append(cols, o.cols[i]+" "+o.types[i])
			}
		}
		out = append(out, "columns: "+strings.Join(cols, ", "))
		rows := make([]string, len(o.rows))
		for i, r := range o.rows {
			var vals []string
			for j, v := range r {
				switch {
				case skip[j]:
				case v == nil:
					vals = append(vals, "NULL")
				default:
					vals = append(vals, strconv.Quote(*v))
				}
			}
			rows[i] = "(" + strings.Join(vals, ", ") + ")"
		}
		if st.flags.sorted {
			sort.Strings(rows)
		}
		out = append(out, rows...)
		out = append(out, fmt.Sprintf("%d row(s)", len(o.rows)))
	case o.exec && isDML(st.text):
		s := fmt.Sprintf("affected %d", o.affected)
		if w := firstWord(st.text); w == "INSERT" || w == "REPLACE" {
			s += fmt.Sprintf(", insert_id %d", o.insertID)
		}
		out = append(out, s)
	default:
		out = append(out, "ok")
	}
	return out
}

func (o *outcome) renderWarnings(st *statement) []string {
	if st.flags.ignoreWarnings || st.flags.ignoreResult || isShowWarnings(st.text) || len(o.warnings) == 0 {
		return nil
	}
	return []string{"warnings: " + strings.Join(o.warnings, ", ")}
}

// normalizeType maps go-sql-driver's DatabaseTypeName to the type compared.
// Only wire types that legitimately differ between MySQL 8.0 (which strata
// follows) and MariaDB for the same value are merged:
//
//   - JSON -> TEXT: MariaDB has no JSON wire type (its JSON is LONGTEXT with
//     a json_valid CHECK, sent like every TEXT column as type BLOB, which
//     the driver names TEXT).
//
// Unless the script asks for @exact-types, also:
//
//   - TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT -> INT (UNSIGNED kept): the
//     integer wire type of an expression is derived from its display
//     width, and MariaDB and MySQL derive widths differently (SELECT 1 is
//     INT in MariaDB, BIGINT in MySQL 8.0).
//   - CHAR, VARCHAR, TINYTEXT, TEXT, MEDIUMTEXT, LONGTEXT -> TEXT and
//     BINARY, VARBINARY, TINYBLOB, BLOB, MEDIUMBLOB, LONGBLOB -> BLOB: the
//     same for the maximum length of string expressions.
//
// Column types of tables are compared exactly in the @exact-types scripts.
func normalizeType(t string, exact bool) string {
	if t == "JSON" {
		t = "TEXT"
	}
	if exact {
		return t
	}
	unsigned := strings.HasPrefix(t, "UNSIGNED ")
	switch strings.TrimPrefix(t, "UNSIGNED ") {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT":
		if unsigned {
			return "UNSIGNED INT"
		}
		return "INT"
	case "CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT":
		return "TEXT"
	case "BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB":
		return "BLOB"
	}
	return t
}

// session is one connection to one server for one script.
type session struct {
	name       string // "strata" / "mariadb"
	db         *sql.DB
	conn       *sql.Conn
	dbName     string
	exactTypes bool
	// clearWarnings: MariaDB clears the diagnostics area only at statements
	// that use tables; MySQL 5.7+ (WL#5928) at every nondiagnostic
	// statement. After a statement that left conditions, the harness runs a
	// statement reading an information_schema table on MariaDB before the
	// next nondiagnostic statement, so that it starts with an empty list as
	// on MySQL 8.0.
	clearWarnings bool
	mustClear     bool
}

func openSession(name string, db *sql.DB, dbName string, sc *script) (*session, error) {
	s := &session{name: name, db: db, dbName: dbName, exactTypes: sc.exactTypes, clearWarnings: name == "mariadb"}
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	s.conn = c
	create := "CREATE DATABASE " + quoteIdent(dbName)
	if !sc.defaultCollation {
		create += " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
	}
	// The servers are fresh: no DROP DATABASE IF EXISTS (its note would
	// be the first statement's warning on MariaDB).
	if _, err := c.ExecContext(ctx, create); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %s: %w", name, create, err)
	}
	if err := s.setup(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// setup makes the session state every script starts with.
func (s *session) setup(ctx context.Context) error {
	for _, q := range []string{"USE " + quoteIdent(s.dbName), "SET sql_mode='" + sqlMode + "'",
		"SET NAMES utf8mb4", "SET time_zone='+00:00'"} {
		if _, err := s.conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %s: %w", s.name, q, err)
		}
	}
	return nil
}

// reconnect replaces a connection the server dropped (the script goes on
// with a fresh session; the statement that lost it is reported).
func (s *session) reconnect() error {
	s.conn.Raw(func(any) error { return driver.ErrBadConn }) // discard, do not reuse
	s.conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	c, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	s.conn = c
	return s.setup(ctx)
}

func (s *session) close() {
	if s != nil && s.conn != nil {
		s.conn.Close()
	}
}

// run executes one statement and then SHOW WARNINGS.
func (s *session) run(st *statement) *outcome {
	o := &outcome{}
	ctx, cancel := context.WithTimeout(context.Background(), stmtTimeout)
	defer cancel()
	var err error
	if s.mustClear && !isShowWarnings(st.text) {
		s.mustClear = false
		if _, err := s.conn.ExecContext(ctx, "SELECT 1 FROM information_schema.ENGINES LIMIT 0"); err != nil {
			o.isErr, o.errCode, o.errMsg = true, -1, "harness: clearing warnings: "+err.Error()
			return o
		}
	}
	if returnsRows(st.text) {
		err = s.query(ctx, st.text, o)
	} else {
		o.exec = true
		var res sql.Result
		res, err = s.conn.ExecContext(ctx, st.text)
		if err == nil {
			o.affected, _ = res.RowsAffected()
			o.insertID, _ = res.LastInsertId()
		}
	}
	if err != nil {
		o.isErr = true
		o.errMsg = err.Error()
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			o.errCode = int(me.Number)
		} else {
			o.errCode = -1
			if rerr := s.reconnect(); rerr != nil {
				o.errMsg += "; reconnect: " + rerr.Error()
			}
			return o
		}
	}
	if !isShowWarnings(st.text) {
		o.warnings, err = s.warnings(ctx)
		if err != nil {
			o.warnings = []string{"(SHOW WARNINGS failed: " + err.Error() + ")"}
		}
	}
	return o
}

func (s *session) query(ctx context.Context, q string, o *outcome) error {
	rows, err := s.conn.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	if len(cols) == 0 {
		return rows.Close()
	}
	o.hasRows = true
	for _, c := range cols {
		o.cols = append(o.cols, c.Name())
		o.types = append(o.types, normalizeType(c.DatabaseTypeName(), s.exactTypes))
	}
	raw := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		r := make([]*string, len(cols))
		for i, b := range raw {
			if b != nil {
				v := string(b)
				r[i] = &v
			}
		}
		o.rows = append(o.rows, r)
	}
	if err := rows.Err(); err != nil {
		o.hasRows, o.rows = false, nil
		return err
	}
	return nil
}

func (s *session) warnings(ctx context.Context) ([]string, error) {
	rows, err := s.conn.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	n := 0
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return nil, err
		}
		n++
		if strings.EqualFold(level, "Error") {
			continue
		}
		out = append(out, fmt.Sprintf("%s %d", level, code))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if n > 0 && s.clearWarnings {
		s.mustClear = true
	}
	return out, nil
}
