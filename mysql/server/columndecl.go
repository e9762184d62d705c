package server

import (
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"strata/mysql/backend"
)

// declareColumns hands the session what a CREATE TABLE or ALTER TABLE
// statement declares that go-mysql-server's plan drops (backend CAT-5):
// which DECIMAL, FLOAT and DOUBLE columns are UNSIGNED, and the source of
// CREATE TABLE ... LIKE. The session forgets it when the statement ends.
func (h *errorHandler) declareColumns(c *mysql.Conn, query string) {
	if !isDDL(query) {
		return
	}
	s := h.session(c)
	if s == nil {
		return
	}
	if d := columnDecl(query); d != nil {
		s.DeclareColumns(d)
	}
}

// columnDecl reads the column declarations of the first statement of q
// (nil when it is not a CREATE TABLE or ALTER TABLE, or declares none).
func columnDecl(q string) *backend.ColumnDecl {
	if startsWithWord(q, "create") && !containsFold(q, "unsigned") && !containsFold(q, "like") {
		return nil // nothing to declare: every column is signed
	}
	first, _, err := sqlparser.SplitStatement(q)
	if err != nil {
		return nil
	}
	stmt, err := sqlparser.Parse(first)
	if err != nil {
		return nil
	}
	d := &backend.ColumnDecl{Unsigned: map[string]bool{}}
	add := func(spec *sqlparser.TableSpec) {
		if spec == nil {
			return
		}
		for _, col := range spec.Columns {
			d.Unsigned[col.Name.Lowered()] = bool(col.Type.Unsigned) && unsignable(col.Type.Type)
		}
	}
	switch st := stmt.(type) {
	case *sqlparser.DDL:
		if st.Action != sqlparser.CreateStr {
			return nil
		}
		if st.OptLike != nil && len(st.OptLike.LikeTables) > 0 {
			lt := st.OptLike.LikeTables[0]
			d.LikeDB, d.LikeTable = lt.DbQualifier.String(), lt.Name.String()
		}
		add(st.TableSpec)
	case *sqlparser.AlterTable:
		for _, sub := range st.Statements {
			add(sub.TableSpec)
		}
	default:
		return nil
	}
	if len(d.Unsigned) == 0 && d.LikeTable == "" {
		return nil
	}
	return d
}

// unsignable: the types whose UNSIGNED go-mysql-server drops.
func unsignable(typ string) bool {
	switch strings.ToLower(typ) {
	case "decimal", "dec", "numeric", "fixed", "float", "double", "real", "double precision":
		return true
	}
	return false
}
