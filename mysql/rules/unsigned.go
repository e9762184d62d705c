package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// UnsignedColumn reports whether column of table db.table is a DECIMAL,
// FLOAT or DOUBLE declared UNSIGNED (RULE-57). go-mysql-server's types
// drop the word, so the storage layer keeps it (backend CAT-5) and sets
// this.
var UnsignedColumn = func(ctx *sql.Context, db, table, column string) bool { return false }

// fittedUnsigned is a value going into a FLOAT or DOUBLE UNSIGNED column
// (RULE-57): below zero it is out of range, error 1264 in strict mode
// without IGNORE, else 0 with Warning 1264.
type fittedUnsigned struct {
	over
	col  string
	fail bool
	rows *rowCounter
}

func (f *fittedUnsigned) Type() sql.Type { return f.child.Type() }

func (f *fittedUnsigned) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	nf := *f
	nf.child = children[0]
	return &nf, nil
}

func (f *fittedUnsigned) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n := f.rows.next(ctx)
	v, err := f.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	fv, _, err := types.Float64.Convert(ctx, v)
	if err != nil {
		return v, nil // left to go-mysql-server's conversion
	}
	if x, ok := fv.(float64); !ok || x >= 0 {
		return v, nil
	}
	if f.fail {
		return nil, mysql.NewSQLError(1264, "22003", "Out of range value for column '%s' at row %d", f.col, n)
	}
	ctx.Warn(1264, "Out of range value for column '%s' at row %d", f.col, n)
	return float64(0), nil
}

// unsignedShows implements RULE-57's display: SHOW CREATE TABLE and SHOW
// COLUMNS / DESCRIBE write `unsigned` after the type of an UNSIGNED
// DECIMAL, FLOAT or DOUBLE column.
func unsignedShows(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch s := n.(type) {
	case *plan.ShowCreateTable:
		if s.IsView {
			return n, transform.SameTree, nil
		}
		db, table := tableOf(s.Child)
		return &unsignedShow{UnaryNode: plan.UnaryNode{Child: n}, db: db, table: table, create: true}, transform.NewTree, nil
	case *plan.ShowColumns:
		db, table := tableOf(s.Child)
		return &unsignedShow{UnaryNode: plan.UnaryNode{Child: n}, db: db, table: table}, transform.NewTree, nil
	}
	return n, transform.SameTree, nil
}

func tableOf(n sql.Node) (db, table string) {
	if rt, ok := n.(*plan.ResolvedTable); ok {
		if rt.SqlDatabase != nil {
			db = rt.SqlDatabase.Name()
		}
		return db, rt.Name()
	}
	return "", ""
}

// unsignedShow runs a SHOW CREATE TABLE (create) or SHOW COLUMNS of
// db.table and adds `unsigned` to the types of its UNSIGNED columns; in
// SHOW COLUMNS, the Default of a column declared DEFAULT NULL is NULL
// and a string default is its value (go-mysql-server wrote the texts
// NULL and 'abc'), and SHOW FULL COLUMNS gives each column's collation.
type unsignedShow struct {
	plan.UnaryNode
	db, table string
	create    bool
}

var _ sql.ExecSourceRel = (*unsignedShow)(nil)

func (u *unsignedShow) String() string   { return u.Child.String() }
func (u *unsignedShow) IsReadOnly() bool { return true }
func (u *unsignedShow) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(u, len(children), 1)
	}
	nu := *u
	nu.Child = children[0]
	return &nu, nil
}

func (u *unsignedShow) RowIter(ctx *sql.Context, r sql.Row) (sql.RowIter, error) {
	it, err := Exec.Build(ctx, u.Child, r)
	if err != nil {
		return nil, err
	}
	var cols []*sql.Column
	shownDefaults := map[string]any{} // SHOW COLUMNS' Default where go-mysql-server's text is not MySQL's
	for _, c := range u.Child.Children()[0].Schema() {
		if (types.IsDecimal(c.Type) || types.IsFloat(c.Type)) && UnsignedColumn(ctx, u.db, u.table, c.Name) {
			cols = append(cols, c)
		}
		if d := c.Default; d != nil {
			if d.String() == "NULL" || d.String() == "(NULL)" {
				shownDefaults[strings.ToLower(c.Name)] = nil
			} else if v, ok := unquotedDefault(d); ok {
				shownDefaults[strings.ToLower(c.Name)] = v
			}
		}
	}
	defaultAt, collationAt, privilegesAt := -1, -1, -1 // SHOW COLUMNS' Default and (FULL) Collation, Privileges
	if !u.create {
		for i, c := range u.Child.Schema() {
			switch c.Name {
			case "Default":
				defaultAt = i
			case "Collation":
				collationAt = i
			case "Privileges":
				privilegesAt = i
			}
		}
	}
	privileges := ""
	if privilegesAt >= 0 {
		privileges = columnPrivileges(ctx, u.db, u.table)
	}
	// SHOW FULL COLUMNS: each string column's own collation (go-mysql-server
	// wrote its compiled-in default for every text column and none for
	// ENUM, SET and CHAR BINARY's kin); binary strings have none.
	collations := map[string]any{}
	if collationAt >= 0 {
		for _, c := range u.Child.Children()[0].Schema() {
			var coll any
			if tc, ok := c.Type.(sql.TypeWithCollation); ok && tc.Collation() != sql.Collation_binary {
				coll = tc.Collation().Name()
			}
			collations[strings.ToLower(c.Name)] = coll
		}
	}
	if len(cols) == 0 && (len(shownDefaults) == 0 || defaultAt < 0) && collationAt < 0 {
		return it, nil
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		// SHOW COLUMNS: a column declared DEFAULT NULL has the NULL
		// default, a string default its value (go-mysql-server wrote the
		// texts NULL and 'abc').
		if defaultAt >= 0 && defaultAt < len(row) {
			if name, ok := row[0].(string); ok {
				if v, ok := shownDefaults[strings.ToLower(name)]; ok {
					row[defaultAt] = v
				}
			}
		}
		if privilegesAt >= 0 && privilegesAt < len(row) {
			row[privilegesAt] = privileges
		}
		if collationAt >= 0 && collationAt < len(row) {
			if name, ok := row[0].(string); ok {
				if v, ok := collations[strings.ToLower(name)]; ok {
					row[collationAt] = v
				}
			}
		}
		if u.create {
			if len(row) > 1 {
				if s, ok := row[1].(string); ok {
					row[1] = unsignedDDL(s, cols)
				}
			}
			continue
		}
		if len(row) > 1 {
			for _, c := range cols {
				if name, ok := row[0].(string); ok && strings.EqualFold(name, c.Name) {
					if typ, ok := row[1].(string); ok {
						row[1] = typ + " unsigned"
					}
				}
			}
		}
	}
	return sql.RowsToRowIter(rows...), nil
}

// columnPrivileges is SHOW FULL COLUMNS' Privileges: which of select,
// insert, update and references the user holds on db.table (globally, on
// the database or on the table), as MySQL lists them.
func columnPrivileges(ctx *sql.Context, db, table string) string {
	ps, _ := ctx.GetPrivilegeSet()
	var out []string
	for _, p := range []struct {
		t    sql.PrivilegeType
		name string
	}{{sql.PrivilegeType_Select, "select"}, {sql.PrivilegeType_Insert, "insert"},
		{sql.PrivilegeType_Update, "update"}, {sql.PrivilegeType_References, "references"}} {
		if ps == nil || ps.Has(p.t) || ps.Database(db).Has(p.t) || ps.Database(db).Table(table).Has(p.t) {
			out = append(out, p.name)
		}
	}
	return strings.Join(out, ",")
}

// unsignedDDL adds `unsigned` after the type in the column definition
// lines of cols in a CREATE TABLE statement.
func unsignedDDL(ddl string, cols []*sql.Column) string {
	lines := strings.Split(ddl, "\n")
	for i, l := range lines {
		for _, c := range cols {
			prefix := "  " + sql.QuoteIdentifier(c.Name) + " " + c.Type.String()
			if strings.HasPrefix(l, prefix) {
				lines[i] = prefix + " unsigned" + l[len(prefix):]
			}
		}
	}
	return strings.Join(lines, "\n")
}

// unquotedDefault is a string literal default's value: the catalog keeps
// defaults as their SQL text ('it”s'), which go-mysql-server printed.
func unquotedDefault(d *sql.ColumnDefaultValue) (string, bool) {
	t := d.String()
	if strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") { // an unresolved default's text
		t = t[1 : len(t)-1]
	}
	if len(t) < 2 || t[0] != '\'' || t[len(t)-1] != '\'' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(t)-1; i++ {
		switch ch := t[i]; {
		case ch == '\'' && i+1 < len(t)-1 && t[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case ch == '\'':
			return "", false // not one literal ('a' 'b')
		case ch == '\\' && i+1 < len(t)-1:
			i++
			switch t[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte(t[i])
			}
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), true
}
