package backend

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Temporary tables (TMP-n):
//
// TMP-1 A temporary table belongs to the session that created it: it has
// keyspaces like any table (under an id no catalog entry names) but no
// catalog entry, so it is never durable; the session's map names it, and
// it hides a regular table of the same name from that session only.
// TMP-2 Its rows change in the session's engine transaction like any
// table's (ROLLBACK undoes them, as InnoDB's temporary tables).
// TMP-3 Its definition changes (indexes) swap the runtime table in the
// session's slot instead of the catalog; RENAME and ALTER TABLE rewrites
// are refused (1235); TRUNCATE deletes its rows.
// TMP-4 It goes when dropped or when the session ends; after a crash its
// keyspaces are ones no catalog entry names, which Open drops (CAT-2).

var (
	_ sql.TemporaryTableCreator  = (*Database)(nil)
	_ sql.TemporaryTableDatabase = (*Database)(nil)
)

// tempSlot holds the current runtime form of a temporary table.
type tempSlot struct {
	t *table
	s *Session
}

func tempKey(db, name string) string { return strings.ToLower(db) + "/" + strings.ToLower(name) }

// temporary returns the session's temporary table db.name, or nil.
func (s *Session) temporary(db, name string) *table {
	if s == nil || len(s.temps) == 0 {
		return nil
	}
	if slot := s.temps[tempKey(db, name)]; slot != nil {
		return slot.t
	}
	return nil
}

// CreateTemporaryTable implements sql.TemporaryTableCreator.
func (d *Database) CreateTemporaryTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, coll sql.CollationID) error {
	s, err := sessionOf(ctx)
	if err != nil {
		return err
	}
	if s.temporary(d.name, name) != nil {
		return sql.ErrTableAlreadyExists.New(name)
	}
	def, err := d.newTable(ctx, name, sch, coll, "")
	if err != nil {
		return err
	}
	t, err := openTable(ctx, d, def)
	if err != nil {
		d.b.dropKeyspaces(def)
		return err
	}
	slot := &tempSlot{t: t, s: s}
	t.temp = slot
	if s.temps == nil {
		s.temps = map[string]*tempSlot{}
	}
	s.temps[tempKey(d.name, name)] = slot
	return nil
}

// GetAllTemporaryTables implements sql.TemporaryTableDatabase.
func (d *Database) GetAllTemporaryTables(ctx *sql.Context) ([]sql.Table, error) {
	s, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	var out []sql.Table
	prefix := strings.ToLower(d.name) + "/"
	for k, slot := range s.temps {
		if strings.HasPrefix(k, prefix) {
			out = append(out, &Table{t: slot.t})
		}
	}
	return out, nil
}

// dropTemporary drops the session's temporary table db.name (TMP-4); ok
// false when there is none.
func (s *Session) dropTemporary(db, name string) (ok bool, err error) {
	k := tempKey(db, name)
	slot := s.temps[k]
	if slot == nil {
		return false, nil
	}
	delete(s.temps, k)
	// Its rows may be in the open transaction's write set: they are
	// dropped with the keyspaces (TMP-2 ends here, as in MySQL, where
	// DROP TEMPORARY TABLE does not commit).
	return true, slot.t.dropKeyspaces()
}

// dropAllTemporary drops every temporary table of the session (TMP-4).
func (s *Session) dropAllTemporary() {
	for k, slot := range s.temps {
		delete(s.temps, k)
		slot.t.dropKeyspaces()
	}
}

var errTempNotSupported = mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
	"This version of Strata doesn't yet support 'RENAME or ALTER TABLE of a temporary table'")
