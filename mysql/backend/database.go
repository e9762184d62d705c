package backend

import (
	"sort"
	"strata/mysql/seqengine"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
)

// Database is one SQL database (schema) of the catalog.
type Database struct {
	b    *Backend
	name string
	coll sql.CollationID

	mu       sync.RWMutex
	tables   map[string]*table // by lower-case name
	viewDefs map[string]sql.ViewDefinition
	triggers map[string]sql.TriggerDefinition
	procs    map[string]sql.StoredProcedureDetails
	funcs    map[string]FunctionDef // stored functions (CAT-6)
}

var _ sql.Database = (*Database)(nil)
var _ sql.TableCreator = (*Database)(nil)
var _ sql.TableDropper = (*Database)(nil)
var _ sql.TableRenamer = (*Database)(nil)
var _ sql.CollatedDatabase = (*Database)(nil)

func newDatabase(b *Backend, d dbDef) *Database {
	coll := sql.Collation_Default
	if d.Collation != "" {
		if c, err := sql.ParseCollation("", d.Collation, false); err == nil {
			coll = c
		}
	}
	return &Database{b: b, name: d.Name, coll: coll, tables: map[string]*table{}}
}

// Name implements sql.Nameable.
func (d *Database) Name() string { return d.name }

func (d *Database) lookup(name string) *table {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.tables[strings.ToLower(name)]
}

// lockNamed takes the DDL lock of the table called name, if there is one,
// then ddl (MDL-3), and returns the table (nil if none) with both held.
func (d *Database) lockNamed(name string) (*table, func()) {
	for {
		t := d.lookup(name)
		unlockTable := func() {}
		if t != nil {
			unlockTable = d.b.lockTable(t.def.ID)
		}
		d.b.ddl.Lock()
		cur := d.lookup(name)
		if cur == nil || (t != nil && cur.def.ID == t.def.ID) {
			return cur, func() { d.b.ddl.Unlock(); unlockTable() }
		}
		// Created or rewritten (a new id) since the lookup: lock that one.
		d.b.ddl.Unlock()
		unlockTable()
	}
}

// GetTableInsensitive implements sql.Database.
func (d *Database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	if s, err := sessionOf(ctx); err == nil {
		if t := s.temporary(d.name, name); t != nil { // TMP-1
			return &Table{t: t}, true, nil
		}
	}
	t := d.lookup(name)
	if t != nil && !t.visibleTo(sessionFor(ctx)) {
		t = nil // CAT-7
	}
	if t == nil {
		if st, ok := seqengine.Lookup(d.name, name); ok { // SEQ-1
			return st, true, nil
		}
		return nil, false, nil
	}
	return &Table{t: t}, true, nil
}

// GetTableNames implements sql.Database.
func (d *Database) GetTableNames(ctx *sql.Context) ([]string, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	names := make([]string, 0, len(d.tables))
	s := sessionFor(ctx)
	for _, t := range d.tables {
		if !isFullTextTable(t.def.Name) && t.visibleTo(s) { // FT-2, CAT-7
			names = append(names, t.def.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// GetCollation implements sql.CollatedDatabase.
func (d *Database) GetCollation(ctx *sql.Context) sql.CollationID { return d.coll }

// SetCollation implements sql.CollatedDatabase.
func (d *Database) SetCollation(ctx *sql.Context, c sql.CollationID) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	def := dbDef{Name: d.name, Collation: c.Name()}
	if err := d.b.writeCatalog(sessionFor(ctx), map[string][]byte{string(dbKey(d.name)): encodeJSON(def)}); err != nil {
		return err
	}
	d.coll = c
	return nil
}

// newTable makes the definition of a new table under a fresh id, checks
// it, and creates its keyspaces (CAT-2: before any catalog entry).
func (d *Database) newTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, coll sql.CollationID, comment string) (*tableDef, error) {
	def := &tableDef{Name: name, Collation: coll.Name(), Comment: comment, NextIndexID: 1, KeyFormat: newTableKeyFormat}
	for _, c := range sch.Schema {
		def.Columns = append(def.Columns, columnDefOf(c, coll))
	}
	d.declareNew(ctx, def)
	def.PK = append([]int{}, sch.PkOrdinals...)
	d.b.mu.Lock()
	def.ID = d.b.nextTID
	d.b.nextTID++
	d.b.mu.Unlock()
	// Validate before touching the engine.
	if _, err := openTableDef(ctx, d, def, nil); err != nil {
		return nil, err
	}
	if err := d.b.createKeyspaces(def); err != nil {
		d.b.dropKeyspaces(def)
		return nil, err
	}
	return def, nil
}

// CreateTable implements sql.TableCreator (CAT-2: keyspace, then entry).
func (d *Database) CreateTable(ctx *sql.Context, name string, sch sql.PrimaryKeySchema, coll sql.CollationID, comment string) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	if d.lookup(name) != nil {
		return sql.ErrTableAlreadyExists.New(name)
	}
	def, err := d.newTable(ctx, name, sch, coll, comment)
	if err != nil {
		return err
	}
	s := sessionFor(ctx)
	if s != nil && s.stmtText != "" {
		def.Creating = true // CAT-7: finished by finishCreated, logged then
	}
	if err := d.b.writeCatalog(nil, map[string][]byte{
		string(tableKey(d.name, name)): encodeJSON(def),
		"seq":                          seqValue(def.ID + 1),
	}); err != nil {
		return err
	}
	t, err := openTable(ctx, d, def)
	if err != nil {
		return err
	}
	if def.Creating {
		t.creator.Store(s)
	}
	d.mu.Lock()
	d.tables[strings.ToLower(name)] = t
	d.mu.Unlock()
	if s != nil {
		s.created = append(s.created, createdTable{db: d, name: name, id: def.ID})
	}
	return nil
}

// DropTable implements sql.TableDropper (CAT-2: entry, then keyspaces).
func (d *Database) DropTable(ctx *sql.Context, name string) error {
	if s, err := sessionOf(ctx); err == nil {
		if ok, err := s.dropTemporary(d.name, name); ok || err != nil {
			return err
		}
		if err := s.implicitCommit(); err != nil {
			return err
		}
	}
	var pseudo []string // FT-2: a FULLTEXT index's tables go with its table
	if t := d.lookup(name); t != nil {
		for _, ft := range t.def.FullText {
			pseudo = append(pseudo, ft.Tables.Position, ft.Tables.DocCount, ft.Tables.GlobalCount, ft.Tables.RowCount)
			if len(pseudo) == 4 {
				pseudo = append(pseudo, ft.Tables.Config)
			}
		}
	}
	if err := d.dropTable(sessionFor(ctx), name, 0); err != nil {
		return err
	}
	for _, p := range pseudo {
		if err := d.dropTable(sessionFor(ctx), p, 0); err != nil && !sql.ErrTableNotFound.Is(err) {
			return err
		}
	}
	return nil
}

// dropTable drops table name (only if its id is id, when id is not 0).
func (d *Database) dropTable(s *Session, name string, id uint32) error {
	t, unlock := d.lockNamed(name)
	defer unlock()
	if t == nil || (id != 0 && t.def.ID != id) {
		return sql.ErrTableNotFound.New(name)
	}
	mdl, err := d.b.exclusiveMDL(t)
	if err != nil {
		return err
	}
	defer mdl.Rollback()
	if err := d.b.writeCatalog(s, map[string][]byte{string(tableKey(d.name, name)): nil}); err != nil {
		return err
	}
	d.mu.Lock()
	delete(d.tables, strings.ToLower(name))
	d.mu.Unlock()
	return t.dropKeyspaces()
}

// RenameTable implements sql.TableRenamer.
func (d *Database) RenameTable(ctx *sql.Context, oldName, newName string) error {
	if s, err := sessionOf(ctx); err == nil && s.temporary(d.name, oldName) != nil {
		return errTempNotSupported
	}
	t, unlock := d.lockNamed(oldName)
	defer unlock()
	if t == nil {
		return sql.ErrTableNotFound.New(oldName)
	}
	if !strings.EqualFold(oldName, newName) && d.lookup(newName) != nil {
		return sql.ErrTableAlreadyExists.New(newName)
	}
	def := t.def.clone()
	def.Name = newName
	if err := d.b.writeCatalog(sessionFor(ctx), map[string][]byte{
		string(tableKey(d.name, oldName)): nil,
		string(tableKey(d.name, newName)): encodeJSON(def),
	}); err != nil {
		return err
	}
	nt, err := openTable(ctx, d, def)
	if err != nil {
		return err
	}
	nt.shareCounters(t)
	d.mu.Lock()
	delete(d.tables, strings.ToLower(oldName))
	d.tables[strings.ToLower(newName)] = nt
	d.mu.Unlock()
	return nil
}

// replaceTable persists def and swaps in its runtime table (DDL on one
// table: indexes, AUTO_INCREMENT). Caller holds ddl.
func (d *Database) replaceTable(ctx *sql.Context, old *table, def *tableDef) (*table, error) {
	nt, err := openTable(ctx, d, def)
	if err != nil {
		return nil, err
	}
	if old.temp != nil { // TMP-3: the session's slot, not the catalog
		if def.ID != old.def.ID || def.Name != old.def.Name {
			return nil, errTempNotSupported
		}
		nt.temp = old.temp
		nt.shareCounters(old)
		old.temp.t = nt
		return nt, nil
	}
	s := sessionFor(ctx)
	if def.Creating {
		s = nil // CAT-7: logged when the CREATE finishes
	}
	if err := d.b.writeCatalog(s, map[string][]byte{string(tableKey(d.name, def.Name)): encodeJSON(def)}); err != nil {
		return nil, err
	}
	nt.creator.Store(old.creator.Load())
	nt.shareCounters(old)
	d.mu.Lock()
	d.tables[strings.ToLower(def.Name)] = nt
	d.mu.Unlock()
	return nt, nil
}
