package backend

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"

	"strata/mysql/rules"
)

// ColumnDecl is what a CREATE TABLE or ALTER TABLE statement declares
// about its columns that go-mysql-server's plan does not carry (CAT-5):
// the server reads it from the statement and hands it to the session for
// the statement's length (DeclareColumns).
type ColumnDecl struct {
	// Unsigned maps each column the statement defines (lower-case name)
	// to whether it is a DECIMAL, FLOAT or DOUBLE declared UNSIGNED.
	Unsigned map[string]bool
	// LikeDB, LikeTable name the source of CREATE TABLE ... LIKE.
	LikeDB, LikeTable string
}

// DeclareColumns sets (nil: clears) the running statement's column
// declarations (CAT-5).
func (s *Session) DeclareColumns(d *ColumnDecl) { s.decl = d }

// declareNew sets the UNSIGNED flags of def, a table being created, from
// the statement's declarations: its own column definitions, or the
// source table of CREATE TABLE ... LIKE (CAT-5).
func (d *Database) declareNew(ctx *sql.Context, def *tableDef) {
	s, err := sessionOf(ctx)
	if err != nil || s.decl == nil {
		return
	}
	if s.decl.LikeTable != "" {
		db := s.decl.LikeDB
		if db == "" {
			db = d.name
		}
		st := s.visibleTable(ctx, db, s.decl.LikeTable)
		if st == nil {
			return
		}
		for i := range def.Columns {
			for _, sc := range st.def.Columns {
				if strings.EqualFold(sc.Name, def.Columns[i].Name) {
					def.Columns[i].Unsigned = sc.Unsigned
				}
			}
		}
		return
	}
	for i := range def.Columns {
		def.Columns[i].Unsigned = s.decl.Unsigned[strings.ToLower(def.Columns[i].Name)]
	}
}

// declareRewrite sets the UNSIGNED flags of def, the new form of table
// old under ALTER TABLE: a column the statement defines takes its
// declaration, any other keeps its flag (found by name; renamed from
// oldName to newName by CHANGE/RENAME COLUMN).
func declareRewrite(ctx *sql.Context, def *tableDef, old *table, oldName, newName string) {
	var decl *ColumnDecl
	if s, err := sessionOf(ctx); err == nil {
		decl = s.decl
	}
	for i := range def.Columns {
		name := strings.ToLower(def.Columns[i].Name)
		if decl != nil {
			if u, ok := decl.Unsigned[name]; ok {
				def.Columns[i].Unsigned = u
				continue
			}
		}
		if newName != "" && strings.EqualFold(name, newName) {
			name = strings.ToLower(oldName)
		}
		def.Columns[i].Unsigned = false
		for _, oc := range old.def.Columns {
			if strings.ToLower(oc.Name) == name {
				def.Columns[i].Unsigned = oc.Unsigned
			}
		}
	}
}

// declaredChange reports whether the statement declares column name with
// an UNSIGNED flag other than unsigned, the column's (ALTER ... MODIFY: a
// rewrite).
func declaredChange(ctx *sql.Context, name string, unsigned bool) bool {
	s, err := sessionOf(ctx)
	if err != nil || s.decl == nil {
		return false
	}
	u, ok := s.decl.Unsigned[strings.ToLower(name)]
	return ok && u != unsigned
}

// unsignedColumn answers rules.UnsignedColumn from the catalog (CAT-5).
func unsignedColumn(ctx *sql.Context, db, tableName, column string) bool {
	s, err := sessionOf(ctx)
	if err != nil || tableName == "" {
		return false
	}
	if db == "" {
		db = ctx.GetCurrentDatabase()
	}
	t := s.visibleTable(ctx, db, tableName)
	if t == nil {
		return false
	}
	for _, cd := range t.def.Columns {
		if strings.EqualFold(cd.Name, column) {
			return cd.Unsigned
		}
	}
	return false
}

func init() { rules.UnsignedColumn = unsignedColumn }

// visibleTable is the table db.name as the session sees it: its temporary
// table of that name (TMP-1), else the catalog's; nil if neither.
func (s *Session) visibleTable(ctx *sql.Context, db, name string) *table {
	if t := s.temporary(db, name); t != nil {
		return t
	}
	d, err := s.b.Database(ctx, db)
	if err != nil {
		return nil
	}
	return d.(*Database).lookup(name)
}

// negative reports whether v, a value of a DECIMAL, FLOAT or DOUBLE
// column, is below zero.
func negative(v any) bool {
	switch x := v.(type) {
	case decimal.Decimal:
		return x.Sign() < 0
	case decimal.NullDecimal:
		return x.Valid && x.Decimal.Sign() < 0
	case float64:
		return x < 0
	case float32:
		return x < 0
	}
	return false
}

// checkUnsigned refuses a row holding a negative value in an UNSIGNED
// DECIMAL/FLOAT/DOUBLE column (CAT-5): rules RULE-57 fits the values of
// INSERT and UPDATE before they get here; what reaches this is an ALTER
// TABLE's copy of rows into a column it made UNSIGNED.
func (t *table) checkUnsigned(row sql.Row) error {
	for o, cd := range t.def.Columns {
		if cd.Unsigned && o < len(row) && negative(row[o]) {
			return mysql.NewSQLError(1264, "22003", "Out of range value for column '%s' at row 1", cd.Name)
		}
	}
	return nil
}
