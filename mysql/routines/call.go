package routines

import (
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"strata/mysql/backend"
)

// Install makes the stored functions of b callable in expressions (FN-2,
// FN-3): runner runs their procedures; builtins are the names that stay
// built-in functions.
func Install(runner sql.StatementRunner, b *backend.Backend, builtins []string) {
	p := &provider{runner: runner, b: b, builtins: map[string]bool{}}
	for _, n := range builtins {
		p.builtins[strings.ToLower(n)] = true
	}
	analyzer.ExternalFunctionProvider = p
}

type provider struct {
	runner   sql.StatementRunner
	b        *backend.Backend
	builtins map[string]bool
	returns  sync.Map // "db.name" -> typeCache
	params   sync.Map // "db.name" -> paramCache
}

type typeCache struct {
	returns string
	typ     sql.Type
}

// Function implements sql.FunctionProvider: a stored function of the
// current database, unless name is a built-in (FN-3).
func (p *provider) Function(ctx *sql.Context, name string) (sql.Function, bool) {
	if p.builtins[strings.ToLower(name)] || ctx == nil || ctx.Session == nil {
		return nil, false
	}
	dbName := ctx.GetCurrentDatabase()
	if dbName == "" {
		return nil, false
	}
	db, err := p.b.Database(ctx, dbName)
	if err != nil {
		return nil, false
	}
	d, ok := db.(*backend.Database)
	if !ok {
		return nil, false
	}
	def, ok := d.Function(name)
	if !ok {
		return nil, false
	}
	typ, err := p.returnType(d.Name(), def)
	if err != nil {
		return nil, false
	}
	return sql.FunctionN{Name: def.Name, Fn: func(args ...sql.Expression) (sql.Expression, error) {
		if len(args) != len(def.ParamNames) {
			return nil, mysql.NewSQLError(1318, "42000", "Incorrect number of arguments for FUNCTION %s.%s; expected %d, got %d",
				d.Name(), def.Name, len(def.ParamNames), len(args))
		}
		c := &call{p: p, db: d.Name(), name: def.Name, args: args, typ: typ}
		if pt, ok := p.paramTypes(d.Name(), def); ok {
			c.expr, c.paramTypes = ReturnExpression(def.Body, def.ParamNames), pt
		}
		return c, nil
	}}, true
}

// mayExecute reports whether ctx's user holds EXECUTE globally or on db
// (FN-4); otherwise a call takes the CALL's way, which checks it fully
// (a routine-level grant included) and words the refusal.
func mayExecute(ctx *sql.Context, db string) bool {
	ps, _ := ctx.GetPrivilegeSet()
	if ps == nil {
		return false
	}
	return ps.Has(sql.PrivilegeType_Execute) || ps.Database(db).Has(sql.PrivilegeType_Execute)
}

// paramTypes are def's parameters' types, parsed once per definition.
func (p *provider) paramTypes(db string, def backend.FunctionDef) ([]sql.Type, bool) {
	key := strings.ToLower(db + "." + def.Name)
	if c, ok := p.params.Load(key); ok && c.(paramCache).text == def.Params {
		return c.(paramCache).types, c.(paramCache).ok
	}
	pc := paramCache{text: def.Params, ok: true}
	d, err := Parse("CREATE FUNCTION f(" + def.Params + ") RETURNS INT RETURN 1")
	if err != nil || len(d.Params) != len(def.ParamNames) {
		pc.ok = false
	} else {
		for _, prm := range d.Params {
			t, err := ParseType(prm.Type)
			if err != nil {
				pc.ok = false
				break
			}
			pc.types = append(pc.types, t)
		}
	}
	p.params.Store(key, pc)
	return pc.types, pc.ok
}

type paramCache struct {
	text  string
	types []sql.Type
	ok    bool
}

// returnType is def's RETURNS type, parsed once per definition.
func (p *provider) returnType(db string, def backend.FunctionDef) (sql.Type, error) {
	key := strings.ToLower(db + "." + def.Name)
	if c, ok := p.returns.Load(key); ok && c.(typeCache).returns == def.Returns {
		return c.(typeCache).typ, nil
	}
	typ, err := ParseType(def.Returns)
	if err != nil {
		return nil, err
	}
	p.returns.Store(key, typeCache{returns: def.Returns, typ: typ})
	return typ, nil
}

// ParseType is the SQL type a column definition's type text names.
func ParseType(text string) (sql.Type, error) {
	stmt, err := sqlparser.Parse("CREATE TABLE t (c " + text + ")")
	if err != nil {
		return nil, err
	}
	ddl, ok := stmt.(*sqlparser.DDL)
	if !ok || ddl.TableSpec == nil || len(ddl.TableSpec.Columns) != 1 {
		return nil, fmt.Errorf("not a type: %s", text)
	}
	return types.ColumnTypeToType(&ddl.TableSpec.Columns[0].Type)
}

// active holds the functions each session is running (FN-2's recursion
// check); an entry lives as long as its call.
var active sync.Map // activeCall -> true

type activeCall struct {
	session uint32
	fn      string // db.name, lower case
}

// call is one call of a stored function in an expression (FN-2).
type call struct {
	p        *provider
	db, name string
	args     []sql.Expression
	typ      sql.Type
	expr     *returnExpr // a body that is one RETURN: evaluated as a SELECT (FN-2)
	// paramTypes convert the arguments for expr as a CALL converts them.
	paramTypes []sql.Type
}

var _ sql.Expression = (*call)(nil)

func (c *call) Resolved() bool {
	for _, a := range c.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}
func (c *call) IsNullable() bool           { return true }
func (c *call) Type() sql.Type             { return c.typ }
func (c *call) Children() []sql.Expression { return c.args }
func (c *call) FunctionName() string       { return c.name }
func (c *call) Description() string        { return "stored function " + c.name }
func (c *call) IsNonDeterministic() bool   { return true }
func (c *call) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_Default, 2
}
func (c *call) String() string {
	parts := make([]string, len(c.args))
	for i, a := range c.args {
		parts[i] = a.String()
	}
	return c.name + "(" + strings.Join(parts, ", ") + ")"
}
func (c *call) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != len(c.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), len(c.args))
	}
	nc := *c
	nc.args = children
	return &nc, nil
}

func (c *call) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lits := make([]string, len(c.args))
	direct := c.expr != nil && ctx.GetCurrentDatabase() == c.db && mayExecute(ctx, c.db)
	for i, a := range c.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if direct && v != nil {
			// as the parameter's type, as a CALL passes it; a value it does
			// not take goes the CALL's way, for the CALL's error
			if cv, inRange, err := c.paramTypes[i].Convert(ctx, v); err == nil && inRange == sql.InRange {
				v = cv
			} else {
				direct = false
			}
		}
		if lits[i], err = literal(ctx, v); err != nil {
			return nil, err
		}
	}
	key := activeCall{ctx.Session.ID(), strings.ToLower(c.db + "." + c.name)}
	if _, loop := active.LoadOrStore(key, true); loop {
		return nil, mysql.NewSQLError(1424, "HY000", "Recursive stored functions and triggers are not allowed.")
	}
	defer active.Delete(key)
	q := "CALL " + quote(c.db) + "." + quote(backend.FunctionProcedurePrefix+c.name) + "(" + strings.Join(lits, ", ") + ")"
	if direct {
		q = "SELECT (" + c.expr.with(lits) + ") AS " + ReturnColumn
	}
	// A copy of ctx is marked interpreted: the statement's own context is
	// read meanwhile by the goroutine writing its rows.
	v, err := sql.RunInterpreted(ctx.WithContext(ctx.Context), func(ictx *sql.Context) (any, error) {
		sch, iter, _, err := c.p.runner.QueryWithBindings(ictx, q, nil, nil, nil)
		if err != nil {
			return nil, err
		}
		var first sql.Row
		for {
			r, err := iter.Next(ictx)
			if err == io.EOF {
				break
			}
			if err != nil {
				iter.Close(ictx)
				return nil, err
			}
			if first == nil {
				first = r
			}
		}
		if err := iter.Close(ictx); err != nil {
			return nil, err
		}
		if len(sch) != 1 || sch[0].Name != ReturnColumn || first == nil {
			return nil, mysql.NewSQLError(1321, "2F005", "FUNCTION %s ended without RETURN", c.name)
		}
		return first[0], nil
	})
	if err != nil || v == nil {
		return nil, err
	}
	out, _, err := c.typ.Convert(ctx, v)
	return out, err
}

// returnExpr is a function body that is a single RETURN expr: the
// expression's text cut at its parameters, which a call fills with its
// arguments' literals (FN-2). Running SELECT (expr) skips the procedure
// interpreter, whose per-statement sessions cost most of a call.
type returnExpr struct {
	parts  []string // text between parameter references
	params []int    // the parameter each gap takes
}

func (r *returnExpr) with(lits []string) string {
	var b strings.Builder
	for i, p := range r.parts {
		b.WriteString(p)
		if i < len(r.params) {
			b.WriteString(lits[r.params[i]])
		}
	}
	return b.String()
}

// ReturnExpression is body's returnExpr, or nil when body is more than one
// RETURN statement.
func ReturnExpression(body string, params []string) *returnExpr {
	toks := lex(body)
	if len(toks) < 2 || !toks[0].is("return") {
		return nil
	}
	end := len(body)
	for i, t := range toks {
		if t.kind == 'p' && t.text == ";" {
			if i != len(toks)-1 {
				return nil
			}
			end = t.start
		}
	}
	index := map[string]int{}
	for i, p := range params {
		index[strings.ToLower(p)] = i
	}
	r := &returnExpr{}
	last := toks[1].start
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		if t.start >= end || t.kind != 'w' && t.kind != 'q' {
			continue
		}
		n, ok := index[strings.ToLower(t.text)]
		if !ok || i > 0 && toks[i-1].text == "." || i+1 < len(toks) && (toks[i+1].text == "." || toks[i+1].text == "(") {
			continue
		}
		r.parts = append(r.parts, body[last:t.start])
		r.params = append(r.params, n)
		last = t.end
	}
	r.parts = append(r.parts, body[last:end])
	return r
}

func quote(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// literal is v as a SQL literal of a CALL's argument list.
func literal(ctx *sql.Context, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case bool:
		if x {
			return "1", nil
		}
		return "0", nil
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint:
		return fmt.Sprint(x), nil
	case float32:
		return strconv.FormatFloat(float64(x), 'e', -1, 32), nil
	case float64:
		return strconv.FormatFloat(x, 'e', -1, 64), nil
	case []byte:
		return "X'" + hex.EncodeToString(x) + "'", nil
	}
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return "", err
	}
	text, _ := s.(string)
	text = strings.ReplaceAll(text, "'", "''")
	if !noBackslashEscapes(ctx) {
		text = strings.ReplaceAll(text, `\`, `\\`)
	}
	return "'" + text + "'", nil
}

func noBackslashEscapes(ctx *sql.Context) bool {
	v, err := ctx.GetSessionVariable(ctx, "sql_mode")
	if err != nil {
		return false
	}
	s, _ := v.(string)
	return strings.Contains(strings.ToUpper(s), "NO_BACKSLASH_ESCAPES")
}

// RoutineRows are information_schema.ROUTINES' rows of b's stored
// functions that ctx's user may see (a privilege on their database or a
// global one), in go-mysql-server's column order.
func RoutineRows(b *backend.Backend) func(ctx *sql.Context) ([]sql.Row, error) {
	return func(ctx *sql.Context) ([]sql.Row, error) {
		ps, _ := ctx.GetPrivilegeSet()
		var rows []sql.Row
		for _, db := range b.AllDatabases(ctx) {
			d, ok := db.(*backend.Database)
			if !ok {
				continue
			}
			if ps != nil && ps.Count() == 0 && !ps.Database(d.Name()).HasPrivileges() {
				continue
			}
			for _, f := range d.Functions() {
				dataType := strings.ToLower(strings.Fields(f.Returns + " x")[0])
				if i := strings.IndexByte(dataType, '('); i >= 0 {
					dataType = dataType[:i]
				}
				deterministic := "NO"
				if f.Deterministic {
					deterministic = "YES"
				}
				rows = append(rows, sql.Row{
					f.Name, "def", d.Name(), f.Name, "FUNCTION", dataType,
					nil, nil, nil, nil, nil, nil, nil, // lengths, precision, scale, datetime precision, charset, collation
					strings.ToLower(f.Returns), "SQL", f.Body,
					nil, "SQL", "SQL", deterministic, f.DataAccess, nil, f.Security,
					f.CreatedAt.UTC(), f.ModifiedAt.UTC(), f.SqlMode, f.Comment, f.Definer,
					f.CharacterSet, f.Collation, f.DBCollation,
				})
			}
		}
		return rows, nil
	}
}
