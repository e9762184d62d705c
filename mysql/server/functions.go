package server

import (
	"context"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"strata/mysql/backend"
	"strata/mysql/routines"
)

// Stored functions' statements (package routines, FN-1..FN-4), none of
// which go-mysql-server's parser takes: CREATE FUNCTION, DROP FUNCTION,
// SHOW CREATE FUNCTION and SHOW FUNCTION STATUS.

var (
	dropFunctionRE       = regexp.MustCompile(`(?is)^\s*DROP\s+FUNCTION\s+(IF\s+EXISTS\s+)?(.+?)\s*;?\s*$`)
	showCreateFunctionRE = regexp.MustCompile(`(?is)^\s*SHOW\s+CREATE\s+FUNCTION\s+(.+?)\s*;?\s*$`)
	showFunctionStatusRE = regexp.MustCompile(`(?is)^\s*SHOW\s+FUNCTION\s+STATUS(?:\s+(LIKE|WHERE)\s+(.+?))?\s*;?\s*$`)
)

// mayBeFunctionStatement is the cheap test before functionStatement.
func mayBeFunctionStatement(q string) bool {
	return (startsWithWord(q, "create", "drop", "show") || strings.HasPrefix(strings.TrimLeft(q, " \t\r\n"), "/*!")) && containsFold(q, "function")
}

// versionedRE is a MySQL executable comment, /*!50003 text */, whose text
// MySQL runs (dumps wrap DROP FUNCTION and CREATE's parts in them).
var versionedRE = regexp.MustCompile(`(?s)/\*!\d{0,6}\s?(.*?)\*/`)

// executableText is q with its executable comments' texts in place.
func executableText(q string) string {
	if !strings.Contains(q, "/*!") {
		return q
	}
	return versionedRE.ReplaceAllString(q, "$1")
}

// functionStatement answers the statements about stored functions; ok is
// false for every other statement.
func (h *errorHandler) functionStatement(goctx context.Context, c *mysql.Conn, q string) (res *sqltypes.Result, ok bool, err error) {
	if !mayBeFunctionStatement(q) {
		return nil, false, nil
	}
	q = executableText(q)
	var m []string
	switch {
	case routines.IsCreateFunction(q):
	case dropFunctionRE.MatchString(q):
		m = dropFunctionRE.FindStringSubmatch(q)
	case showCreateFunctionRE.MatchString(q):
		m = showCreateFunctionRE.FindStringSubmatch(q)
	case showFunctionStatusRE.MatchString(q):
		m = showFunctionStatusRE.FindStringSubmatch(q)
	default:
		return nil, false, nil
	}
	s := h.session(c)
	if s == nil {
		return nil, false, nil
	}
	ctx := sql.NewContext(goctx, sql.WithSession(s))
	switch {
	case routines.IsCreateFunction(q):
		return h.createFunction(goctx, ctx, c, s, q)
	case strings.HasPrefix(strings.ToUpper(strings.TrimSpace(q)), "DROP"):
		return h.dropFunction(goctx, ctx, c, s, m[1] != "", m[2])
	case m[0] != "" && showCreateFunctionRE.MatchString(q):
		return h.showCreateFunction(ctx, s, m[1])
	}
	return h.showFunctionStatus(goctx, c, ctx, m[1], m[2])
}

// functionDatabase resolves [db.]name to the database and the name.
func (h *errorHandler) functionDatabase(ctx *sql.Context, s *backend.Session, dbName, name string) (*backend.Database, error) {
	if dbName == "" {
		if dbName = s.GetCurrentDatabase(); dbName == "" {
			return nil, sql.ErrNoDatabaseSelected.New()
		}
	}
	db, err := h.b.Database(ctx, dbName)
	if err != nil {
		return nil, mysql.NewSQLError(mysql.ERBadDb, "42000", "Unknown database '%s'", dbName)
	}
	d, ok := db.(*backend.Database)
	if !ok {
		return nil, mysql.NewSQLError(mysql.ERBadDb, "42000", "Unknown database '%s'", dbName)
	}
	return d, nil
}

// routinePrivilege checks p on db for the session's user (FN-4).
func (h *errorHandler) routinePrivilege(ctx *sql.Context, s *backend.Session, db string, p sql.PrivilegeType) error {
	if h.grants == nil || !h.grants.Enabled() {
		return nil
	}
	ps := h.grants.UserActivePrivilegeSet(ctx)
	if ps.Has(p) || ps.Database(db).Has(p) {
		return nil
	}
	cl := s.Client()
	return mysql.NewSQLError(1044, "42000", "Access denied for user '%s'@'%s' to database '%s'", cl.User, cl.Address, db)
}

func (h *errorHandler) createFunction(goctx context.Context, ctx *sql.Context, c *mysql.Conn, s *backend.Session, q string) (*sqltypes.Result, bool, error) {
	def, err := routines.Parse(q)
	if err != nil {
		return nil, true, err
	}
	d, err := h.functionDatabase(ctx, s, def.DB, def.Name)
	if err != nil {
		return nil, true, err
	}
	if err := h.routinePrivilege(ctx, s, d.Name(), sql.PrivilegeType_CreateRoutine); err != nil {
		return nil, true, err
	}
	if _, err := routines.ParseType(def.Returns); err != nil {
		return nil, true, mysql.NewSQLError(mysql.ERParseError, "42000", "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s'", def.Returns)
	}
	proc := def.Procedure(backend.FunctionProcedurePrefix + def.Name)
	if _, err := sqlparser.Parse(proc); err != nil {
		return nil, true, mysql.NewSQLError(mysql.ERParseError, "42000", "You have an error in your SQL syntax; %s", strings.TrimPrefix(err.Error(), "syntax error "))
	}
	// CREATE FUNCTION commits the open transaction, as DDL does in MySQL.
	if err := h.Handler.ComQuery(goctx, c, "COMMIT", func(*sqltypes.Result, bool) error { return nil }); err != nil {
		return nil, true, err
	}
	if _, exists := d.Function(def.Name); exists {
		switch {
		case def.IfNotExists:
			s.Warn(&sql.Warning{Level: "Note", Code: 1304, Message: fmt.Sprintf("FUNCTION %s already exists", def.Name)})
			return &sqltypes.Result{}, true, nil
		case def.OrReplace:
			if err := h.routinePrivilege(ctx, s, d.Name(), sql.PrivilegeType_AlterRoutine); err != nil {
				return nil, true, err
			}
			if _, err := d.DropFunction(s, def.Name); err != nil {
				return nil, true, err
			}
		default:
			return nil, true, mysql.NewSQLError(1304, "42000", "FUNCTION %s already exists", def.Name)
		}
	}
	definer := plainAccount(def.Definer)
	if definer == "" || strings.EqualFold(strings.TrimSuffix(definer, "()"), "current_user") {
		definer = h.accountName(s)
	}
	names := make([]string, len(def.Params))
	for i, p := range def.Params {
		names[i] = p.Name
	}
	now := time.Now().UTC().Truncate(time.Second)
	sqlMode, _ := s.GetSessionVariable(ctx, "sql_mode")
	csClient, _ := s.GetSessionVariable(ctx, "character_set_client")
	collConn, _ := s.GetSessionVariable(ctx, "collation_connection")
	err = d.SaveFunction(s, backend.FunctionDef{
		Name: def.Name, CreateStatement: canonicalCreate(def, definer), Procedure: proc,
		Params: def.ParamsText, ParamNames: names, Returns: def.Returns, Body: def.Body, Deterministic: def.Deterministic,
		DataAccess: def.DataAccess, Security: def.Security, Comment: def.Comment, Definer: definer,
		SqlMode: fmt.Sprint(sqlMode), CharacterSet: fmt.Sprint(csClient), Collation: fmt.Sprint(collConn),
		DBCollation: d.GetCollation(ctx).Name(), CreatedAt: now, ModifiedAt: now,
	})
	if err != nil {
		if sql.ErrStoredProcedureAlreadyExists.Is(err) {
			return nil, true, mysql.NewSQLError(1304, "42000", "FUNCTION %s already exists", def.Name)
		}
		return nil, true, err
	}
	return &sqltypes.Result{}, true, nil
}

// canonicalCreate is the CREATE FUNCTION text SHOW CREATE FUNCTION gives,
// as MySQL writes it: DEFINER, the name, the parameters, RETURNS and the
// characteristics that differ from the defaults, then the body as written.
func canonicalCreate(def *routines.Definition, definer string) string {
	var b strings.Builder
	user, host, _ := strings.Cut(definer, "@")
	fmt.Fprintf(&b, "CREATE DEFINER=%s@%s FUNCTION %s(%s) RETURNS %s", quoteIdent(user), quoteIdent(host), quoteIdent(def.Name), def.ParamsText, def.Returns)
	if def.Deterministic {
		b.WriteString("\n    DETERMINISTIC")
	}
	if def.DataAccess != "CONTAINS SQL" {
		b.WriteString("\n    " + def.DataAccess)
	}
	if def.Security != "DEFINER" {
		b.WriteString("\n    SQL SECURITY " + def.Security)
	}
	if def.Comment != "" {
		b.WriteString("\n    COMMENT '" + strings.ReplaceAll(def.Comment, "'", "''") + "'")
	}
	b.WriteString("\n")
	b.WriteString(def.Body)
	return b.String()
}

// plainAccount is a DEFINER's account as user@host, its quotes removed.
func plainAccount(s string) string {
	user, host, found := strings.Cut(s, "@")
	unq := func(p string) string {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '`' || p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
			p = p[1 : len(p)-1]
		}
		return p
	}
	if !found {
		return unq(user)
	}
	return unq(user) + "@" + unq(host)
}

// accountName is the session's account as user@host (its grant-table
// entry's host, as CURRENT_USER() names it).
func (h *errorHandler) accountName(s *backend.Session) string {
	cl := s.Client()
	host := cl.Address
	if h.grants != nil && h.grants.Enabled() {
		rd := h.grants.Reader()
		if u := h.grants.GetUser(rd, cl.User, cl.Address, false); u != nil {
			host = u.Host
		}
		rd.Close()
	}
	return cl.User + "@" + host
}

// qualifiedFunction resolves a statement's [db.]name: the database and
// the name.
func (h *errorHandler) qualifiedFunction(ctx *sql.Context, s *backend.Session, qualified string) (*backend.Database, string, error) {
	pairs, err := tableList(qualified)
	if err != nil || len(pairs) != 1 {
		return nil, "", syntaxError(qualified)
	}
	d, err := h.functionDatabase(ctx, s, pairs[0][0], pairs[0][1])
	return d, pairs[0][1], err
}

func (h *errorHandler) dropFunction(goctx context.Context, ctx *sql.Context, c *mysql.Conn, s *backend.Session, ifExists bool, qualified string) (*sqltypes.Result, bool, error) {
	d, name, err := h.qualifiedFunction(ctx, s, qualified)
	if err != nil {
		return nil, true, err
	}
	if err := h.routinePrivilege(ctx, s, d.Name(), sql.PrivilegeType_AlterRoutine); err != nil {
		return nil, true, err
	}
	if err := h.Handler.ComQuery(goctx, c, "COMMIT", func(*sqltypes.Result, bool) error { return nil }); err != nil {
		return nil, true, err
	}
	dropped, err := d.DropFunction(s, name)
	if err != nil {
		return nil, true, err
	}
	if !dropped {
		if !ifExists {
			return nil, true, mysql.NewSQLError(1305, "42000", "FUNCTION %s.%s does not exist", d.Name(), name)
		}
		s.Warn(&sql.Warning{Level: "Note", Code: 1305, Message: fmt.Sprintf("FUNCTION %s.%s does not exist", d.Name(), name)})
	}
	return &sqltypes.Result{}, true, nil
}

func (h *errorHandler) showCreateFunction(ctx *sql.Context, s *backend.Session, qualified string) (*sqltypes.Result, bool, error) {
	d, name, err := h.qualifiedFunction(ctx, s, qualified)
	if err != nil {
		return nil, true, err
	}
	f, ok := d.Function(name)
	if !ok || !h.mayShowRoutines(ctx, d.Name()) {
		return nil, true, mysql.NewSQLError(1305, "42000", "FUNCTION %s does not exist", name)
	}
	res := &sqltypes.Result{Fields: fieldsOf("Function", "sql_mode", "Create Function", "character_set_client", "collation_connection", "Database Collation")}
	res.Rows = append(res.Rows, varchars(f.Name, f.SqlMode, f.CreateStatement, f.CharacterSet, f.Collation, f.DBCollation))
	return res, true, nil
}

// mayShowRoutines: a user sees the routines of databases on which it has
// some privilege (or global ones).
func (h *errorHandler) mayShowRoutines(ctx *sql.Context, db string) bool {
	if h.grants == nil || !h.grants.Enabled() {
		return true
	}
	ps := h.grants.UserActivePrivilegeSet(ctx)
	return ps.GlobalCount() > 0 || ps.Database(db).HasPrivileges()
}

// showFunctionStatus answers SHOW FUNCTION STATUS [LIKE | WHERE] by
// running a SELECT over the functions' rows, so WHERE takes any
// expression as in MySQL (mariadb-dump sends WHERE Db = '...').
func (h *errorHandler) showFunctionStatus(goctx context.Context, c *mysql.Conn, ctx *sql.Context, kind, cond string) (*sqltypes.Result, bool, error) {
	cols := []string{"Db", "Name", "Type", "Definer", "Modified", "Created", "Security_type", "Comment",
		"character_set_client", "collation_connection", "Database Collation"}
	var selects []string
	dbs := h.b.AllDatabases(ctx)
	for _, db := range dbs {
		d, ok := db.(*backend.Database)
		if !ok || !h.mayShowRoutines(ctx, d.Name()) {
			continue
		}
		for _, f := range d.Functions() {
			vals := []string{sqlString(d.Name()), sqlString(f.Name), "'FUNCTION'", sqlString(f.Definer),
				"CAST(" + sqlString(f.ModifiedAt.Format("2006-01-02 15:04:05")) + " AS DATETIME)",
				"CAST(" + sqlString(f.CreatedAt.Format("2006-01-02 15:04:05")) + " AS DATETIME)",
				sqlString(f.Security), sqlString(f.Comment), sqlString(f.CharacterSet), sqlString(f.Collation), sqlString(f.DBCollation)}
			for i := range vals {
				vals[i] += " AS " + quoteIdent(cols[i])
			}
			selects = append(selects, "SELECT "+strings.Join(vals, ", "))
		}
	}
	if len(selects) == 0 {
		vals := make([]string, len(cols))
		for i, col := range cols {
			vals[i] = "'' AS " + quoteIdent(col)
		}
		selects = append(selects, "SELECT "+strings.Join(vals, ", ")+" FROM DUAL WHERE FALSE")
	}
	q := "SELECT * FROM (" + strings.Join(selects, " UNION ALL ") + ") AS strata_function_status"
	switch strings.ToUpper(kind) {
	case "LIKE":
		q += " WHERE `Name` LIKE " + cond
	case "WHERE":
		q += " WHERE " + cond
	}
	q += " ORDER BY `Db`, `Name`"
	res := &sqltypes.Result{}
	err := h.Handler.ComQuery(goctx, c, q, func(r *sqltypes.Result, _ bool) error {
		if res.Fields == nil {
			res.Fields = r.Fields
		}
		res.Rows = append(res.Rows, r.Rows...)
		return nil
	})
	return res, true, err
}

// sqlString is s as a literal any sql_mode reads alike.
func sqlString(s string) string {
	return "CONVERT(X'" + hex.EncodeToString([]byte(s)) + "' USING utf8mb4)"
}

func fieldsOf(names ...string) []*querypb.Field {
	out := make([]*querypb.Field, len(names))
	for i, n := range names {
		out[i] = textField(n)
	}
	return out
}

func varchars(vals ...string) []sqltypes.Value {
	out := make([]sqltypes.Value, len(vals))
	for i, v := range vals {
		out[i] = sqltypes.NewVarChar(v)
	}
	return out
}
