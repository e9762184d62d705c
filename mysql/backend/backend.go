// Package backend plugs the Strata storage engine into go-mysql-server: it
// owns the SQL catalog (databases, tables, indexes, AUTO_INCREMENT counters,
// persisted in an engine keyspace), the mapping of rows and index entries to
// engine keys (memcomparable, collation-aware: codec.go), index range
// lookups, row editors, and sessions whose transactions are engine
// transactions.
//
// Invariants:
//   - Every row of a table is in its clustered keyspace under its primary
//     key (or a hidden row key), and each secondary index holds exactly one
//     entry per row: index columns + primary key (IDX-1). Both change in the
//     same engine transaction, so a crash never separates them.
//   - A statement that fails leaves nothing behind: editors take a savepoint
//     at StatementBegin and roll back to it in DiscardChanges (SES-2).
//   - Rows read by UPDATE, DELETE, REPLACE, INSERT ... SELECT and SELECT ...
//     FOR UPDATE are read under an exclusive row lock (locking reads,
//     SES-3), so read-modify-write statements never lose an update.
//   - Engine deadlocks roll the whole transaction back and reach the client
//     as 1213; lock wait timeouts roll back the statement only (1205).
//
// This package tree (mysql/...) is the only one importing go-mysql-server.
package backend

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"

	"strata/engine"
	"strata/mysql/binlog"
)

// Backend is the go-mysql-server DatabaseProvider over one engine.
type Backend struct {
	db  *engine.DB
	cat *engine.Keyspace

	ddl sync.Mutex // serializes DDL and catalog writes

	tableDDLMu sync.Mutex
	tableDDL   map[uint32]*sync.Mutex // per-table DDL locks (MDL-3), by table id

	mu      sync.RWMutex
	dbs     map[string]*Database // by lower-case name
	nextTID uint32

	rowsRead, rowsWritten atomic.Uint64
	coveredReads          atomic.Uint64 // rows read from index entries alone (IX-3)
	pointReads            atomic.Uint64 // primary keys read with one Get (IX-5)
	lookupRows            atomic.Uint64 // lookups run through Table.LookupRows (rules RULE-86)
	fastSelects           atomic.Uint64
	fastWrites            atomic.Uint64
	fastTxControl         atomic.Uint64
	generatedSeen         atomic.Bool // a table with a generated column was opened

	sessMu   sync.Mutex
	sessions map[uint32]*Session // by connection id (the server's fast path)

	binlog *binlog.Log // nil: the binary log is off
}

// SetBinlog turns on row capture into l for the sessions made after
// (binlog BL-2); call before serving.
func (b *Backend) SetBinlog(l *binlog.Log) { b.binlog = l }

var _ sql.DatabaseProvider = (*Backend)(nil)
var _ sql.MutableDatabaseProvider = (*Backend)(nil)

// New loads the catalog from db (creating it, with an empty database named
// defaultDB if not empty, on first use) and drops keyspaces left behind by
// a DDL statement cut short by a crash (CAT-2).
func New(db *engine.DB, defaultDB string) (*Backend, error) {
	b := &Backend{db: db, dbs: map[string]*Database{}, nextTID: 1, sessions: map[uint32]*Session{}}
	cat, err := db.Keyspace(catalogKeyspace)
	fresh := false
	if err != nil {
		if cat, err = db.CreateKeyspace(catalogKeyspace); err != nil {
			return nil, err
		}
		fresh = true
	}
	b.cat = cat
	if err := b.load(); err != nil {
		return nil, err
	}
	if err := b.gcKeyspaces(); err != nil {
		return nil, err
	}
	if fresh && defaultDB != "" {
		if err := b.CreateDatabase(sql.NewEmptyContext(), defaultDB); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// RowCounters returns the rows read and written through this backend
// (index use shows as few rows read per query).
func (b *Backend) RowCounters() (read, written uint64) {
	return b.rowsRead.Load(), b.rowsWritten.Load()
}

// FastSelects counts the selects the server's fast path answered;
// CountFastSelect counts one (a select that fell back is not one).
// CoveredReads counts the rows read from secondary-index entries without
// their primary-key lookup (IX-3).
func (b *Backend) CoveredReads() uint64 { return b.coveredReads.Load() }

// PointReads is how many lookups read one primary key with a Get (IX-5).
func (b *Backend) PointReads() uint64 { return b.pointReads.Load() }

// LookupRowsRun is how many lookups ran through Table.LookupRows.
func (b *Backend) LookupRowsRun() uint64 { return b.lookupRows.Load() }

func (b *Backend) FastSelects() uint64 { return b.fastSelects.Load() }
func (b *Backend) CountFastSelect()    { b.fastSelects.Add(1) }

// FastTxControl counts the BEGIN, COMMIT and ROLLBACK statements the
// server's fast path ran; CountFastTxControl counts one.
func (b *Backend) FastTxControl() uint64 { return b.fastTxControl.Load() }
func (b *Backend) CountFastTxControl()   { b.fastTxControl.Add(1) }

// FastWrites counts the write statements the server's fast path applied.
func (b *Backend) FastWrites() uint64 { return b.fastWrites.Load() }

// Engine is the storage engine under this backend.
func (b *Backend) Engine() *engine.DB { return b.db }

// HasGeneratedColumns reports whether a table with a generated column has
// been opened since start (statements that may name one get a closer look).
func (b *Backend) HasGeneratedColumns() bool { return b.generatedSeen.Load() }

func (b *Backend) load() error {
	tx := b.db.Begin()
	defer tx.Rollback()
	it := tx.Scan(b.cat, nil, nil, false)
	ctx := sql.NewEmptyContext()
	var tables []*tableDef
	var owners []string
	type view struct {
		owner string
		def   sql.ViewDefinition
	}
	var views []view
	type trigger struct {
		owner string
		def   sql.TriggerDefinition
	}
	var triggers []trigger
	type procedure struct {
		owner string
		def   sql.StoredProcedureDetails
	}
	var procs []procedure
	type function struct {
		owner string
		def   FunctionDef
	}
	var funcs []function
	unfinished := map[string][]byte{}
	for it.Next() {
		k, v := string(it.Key()), it.Value()
		switch {
		case k == "seq":
			b.nextTID = uint32(v[0])<<24 | uint32(v[1])<<16 | uint32(v[2])<<8 | uint32(v[3])
		case strings.HasPrefix(k, "d/"):
			var d dbDef
			if err := decodeJSON(v, &d); err != nil {
				return err
			}
			b.dbs[strings.ToLower(d.Name)] = newDatabase(b, d)
		case strings.HasPrefix(k, "t/"):
			var t tableDef
			if err := decodeJSON(v, &t); err != nil {
				return err
			}
			if t.Creating { // CAT-7: a CREATE TABLE a crash cut short
				unfinished[k] = nil
				continue
			}
			tables = append(tables, &t)
			owners = append(owners, strings.SplitN(k, "/", 3)[1])
		case strings.HasPrefix(k, "v/"):
			var vd sql.ViewDefinition
			if err := decodeJSON(v, &vd); err != nil {
				return err
			}
			views = append(views, view{strings.SplitN(k, "/", 3)[1], vd})
		case strings.HasPrefix(k, "g/"):
			var td sql.TriggerDefinition
			if err := decodeJSON(v, &td); err != nil {
				return err
			}
			triggers = append(triggers, trigger{strings.SplitN(k, "/", 3)[1], td})
		case strings.HasPrefix(k, "r/"):
			var pd sql.StoredProcedureDetails
			if err := decodeJSON(v, &pd); err != nil {
				return err
			}
			procs = append(procs, procedure{strings.SplitN(k, "/", 3)[1], pd})
		case strings.HasPrefix(k, "f/"):
			var fd FunctionDef
			if err := decodeJSON(v, &fd); err != nil {
				return err
			}
			funcs = append(funcs, function{strings.SplitN(k, "/", 3)[1], fd})
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if len(unfinished) > 0 { // their keyspaces go with gcKeyspaces
		if err := b.writeCatalog(nil, unfinished); err != nil {
			return err
		}
	}
	for _, v := range views {
		if d := b.dbs[v.owner]; d != nil {
			if d.viewDefs == nil {
				d.viewDefs = map[string]sql.ViewDefinition{}
			}
			d.viewDefs[strings.ToLower(v.def.Name)] = v.def
		}
	}
	for _, g := range triggers {
		if d := b.dbs[g.owner]; d != nil {
			if d.triggers == nil {
				d.triggers = map[string]sql.TriggerDefinition{}
			}
			d.triggers[strings.ToLower(g.def.Name)] = g.def
		}
	}
	for _, p := range procs {
		if d := b.dbs[p.owner]; d != nil {
			if d.procs == nil {
				d.procs = map[string]sql.StoredProcedureDetails{}
			}
			d.procs[strings.ToLower(p.def.Name)] = p.def
		}
	}
	for _, f := range funcs {
		if d := b.dbs[f.owner]; d != nil {
			if d.funcs == nil {
				d.funcs = map[string]FunctionDef{}
			}
			d.funcs[strings.ToLower(f.def.Name)] = f.def
		}
	}
	for i, def := range tables {
		d := b.dbs[owners[i]]
		if d == nil {
			continue // database dropped, table entry removed later by gc
		}
		t, err := openTable(ctx, d, def)
		if err != nil {
			return err
		}
		d.tables[strings.ToLower(def.Name)] = t
	}
	return nil
}

// createKeyspaces creates the keyspaces of a new table definition.
func (b *Backend) createKeyspaces(def *tableDef) error {
	for _, name := range def.keyspaces() {
		if _, err := b.db.CreateKeyspace(name); err != nil {
			return err
		}
	}
	return nil
}

// dropKeyspaces drops the keyspaces of a table definition; the first
// error is returned, after trying them all.
func (b *Backend) dropKeyspaces(def *tableDef) error {
	var first error
	for _, name := range def.keyspaces() {
		if err := b.db.DropKeyspace(name); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// gcKeyspaces drops table keyspaces no catalog entry names (CAT-2).
func (b *Backend) gcKeyspaces() error {
	used := map[string]bool{catalogKeyspace: true}
	for _, d := range b.dbs {
		for _, t := range d.tables {
			for _, name := range t.def.keyspaces() {
				used[name] = true
			}
		}
	}
	for _, name := range b.db.Keyspaces() {
		if !used[name] && strings.HasPrefix(name, "t") {
			if err := b.db.DropKeyspace(name); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeCatalog commits puts (value nil: delete) in one engine transaction,
// with the binary log's event of s's statement if it is the statement's
// first (CAT-7); s is nil for a change no client statement makes.
func (b *Backend) writeCatalog(s *Session, puts map[string][]byte) error {
	tx := b.db.Begin()
	for k, v := range puts {
		var err error
		if v == nil {
			err = tx.Delete(b.cat, []byte(k))
		} else {
			err = tx.Put(b.cat, []byte(k), v)
		}
		if err != nil {
			tx.Rollback()
			return err
		}
	}
	var p *binlog.Pending
	if s != nil && b.binlog != nil && s.stmtText != "" && !s.stmtLogged && !s.binlogText {
		p = b.binlog.PrepareStatement(tx, s.stmtDB, s.stmtText)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if p != nil {
		s.stmtLogged = true
		b.binlog.Committed(p)
	}
	return nil
}

// sessionFor is ctx's strata session, nil for another (CAT-7's callers).
func sessionFor(ctx *sql.Context) *Session {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Session.(*Session)
	return s
}

// Database implements sql.DatabaseProvider.
func (b *Backend) Database(ctx *sql.Context, name string) (sql.Database, error) {
	b.mu.RLock()
	d := b.dbs[strings.ToLower(name)]
	b.mu.RUnlock()
	if d == nil {
		return nil, sql.ErrDatabaseNotFound.New(name)
	}
	return d, nil
}

// HasDatabase implements sql.DatabaseProvider.
func (b *Backend) HasDatabase(ctx *sql.Context, name string) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.dbs[strings.ToLower(name)] != nil
}

// AllDatabases implements sql.DatabaseProvider.
func (b *Backend) AllDatabases(ctx *sql.Context) []sql.Database {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]sql.Database, 0, len(b.dbs))
	for _, d := range b.dbs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// CreateDatabase implements sql.MutableDatabaseProvider.
func (b *Backend) CreateDatabase(ctx *sql.Context, name string) error {
	b.ddl.Lock()
	defer b.ddl.Unlock()
	if b.HasDatabase(ctx, name) {
		return sql.ErrDatabaseExists.New(name)
	}
	// MySQL 8's default (the server's CREATE DATABASE then sets the one the
	// statement asks for); entries written before without one stay
	// utf8mb4_0900_bin.
	def := dbDef{Name: name, Collation: sql.Collation_utf8mb4_0900_ai_ci.Name()}
	if err := b.writeCatalog(sessionFor(ctx), map[string][]byte{string(dbKey(name)): encodeJSON(def)}); err != nil {
		return err
	}
	b.mu.Lock()
	b.dbs[strings.ToLower(name)] = newDatabase(b, def)
	b.mu.Unlock()
	return nil
}

// DropDatabase implements sql.MutableDatabaseProvider: the catalog entries
// go in one transaction, then the keyspaces.
func (b *Backend) DropDatabase(ctx *sql.Context, name string) error {
	b.ddl.Lock()
	defer b.ddl.Unlock()
	b.mu.RLock()
	d := b.dbs[strings.ToLower(name)]
	b.mu.RUnlock()
	if d == nil {
		return sql.ErrDatabaseNotFound.New(name)
	}
	puts := map[string][]byte{string(dbKey(name)): nil}
	d.mu.RLock()
	tables := make([]*table, 0, len(d.tables))
	for _, t := range d.tables {
		tables = append(tables, t)
		puts[string(tableKey(name, t.def.Name))] = nil
	}
	for _, v := range d.viewDefs {
		puts[viewKey(name, v.Name)] = nil
	}
	for _, p := range d.procs {
		puts[procedureKey(name, p.Name)] = nil
	}
	for _, f := range d.funcs {
		puts[functionKey(name, f.Name)] = nil
	}
	for _, g := range d.triggers {
		puts[triggerKey(name, g.Name)] = nil
	}
	d.mu.RUnlock()
	if err := b.writeCatalog(sessionFor(ctx), puts); err != nil {
		return err
	}
	b.mu.Lock()
	delete(b.dbs, strings.ToLower(name))
	b.mu.Unlock()
	for _, t := range tables {
		if err := t.dropKeyspaces(); err != nil {
			return err
		}
	}
	return nil
}

// CloseCounters persists AUTO_INCREMENT counters (clean shutdown).
func (b *Backend) CloseCounters() error {
	b.ddl.Lock()
	defer b.ddl.Unlock()
	puts := map[string][]byte{}
	b.mu.RLock()
	for _, d := range b.dbs {
		d.mu.RLock()
		for _, t := range d.tables {
			def := t.def.clone()
			if next, ok := t.peekAuto(); ok && next > def.AutoIncrement {
				def.AutoIncrement = next
			}
			t.ctr.rowsMu.Lock()
			if t.ctr.rowsCounted {
				def.RowEstimate = max(t.ctr.rows.Load(), 1)
			}
			t.ctr.rowsMu.Unlock()
			if def.AutoIncrement != t.def.AutoIncrement || def.RowEstimate != t.def.RowEstimate {
				puts[string(tableKey(d.name, def.Name))] = encodeJSON(def)
			}
		}
		d.mu.RUnlock()
	}
	b.mu.RUnlock()
	if len(puts) == 0 {
		return nil
	}
	return b.writeCatalog(nil, puts)
}
