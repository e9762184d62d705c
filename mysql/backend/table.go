package backend

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"strata/btree"
	"strata/engine"
	"strata/memgov"
	"strata/mysql/binlog"
	"strata/mysql/scanfilter"
)

// table is the runtime form of a tableDef, shared by all sessions. DDL
// never mutates one: it builds a new table and swaps it into the database.
type table struct {
	db      *Database
	def     *tableDef
	sch     sql.Schema
	pkSch   sql.PrimaryKeySchema
	cols    []colCodec
	pk      []int // ordinals; empty: hidden row key (CODEC-10)
	autoCol int   // ordinal of the AUTO_INCREMENT column, -1 if none
	primary *engine.Keyspace
	indexes []*index
	refs    *engine.Keyspace // keyless tables since KeyFormat 2: hash(row) + row id (CODEC-10)
	ctr     *counters
	temp    *tempSlot    // a session's temporary table (TMP-1), else nil
	pkStats keyStatsSlot // ST-2, for the primary key

	unsigned bool // a DECIMAL/FLOAT/DOUBLE column is UNSIGNED (CAT-5)

	binlog atomic.Pointer[binlog.Table] // its binary log description, made at its first logged change

	creator atomic.Pointer[Session] // CAT-7: the session whose CREATE TABLE has not finished
}

// visibleTo reports whether session s (nil: no session) sees t (CAT-7).
func (t *table) visibleTo(s *Session) bool {
	c := t.creator.Load()
	return c == nil || c == s
}

// latest returns t's current runtime form (DDL swaps it), or nil if the
// table is gone.
func (t *table) latest() *table {
	if t.temp != nil {
		if t.temp.s.temporary(t.db.name, t.def.Name) == nil {
			return nil
		}
		return t.temp.t
	}
	return t.db.lookup(t.def.Name)
}

// counters outlive DDL swaps of a table.
type counters struct {
	mu       sync.Mutex
	autoInit bool
	autoNext uint64
	rowSeq   atomic.Uint64 // hidden row keys (CODEC-10)

	// rows estimates the row count for the planner: sampled from the
	// primary B+tree once (or loaded from the catalog after a clean
	// shutdown), then moved by each insert and delete as it is made
	// (rollbacks are not subtracted).
	rowsMu      sync.Mutex
	rowsCounted bool
	rows        atomic.Int64
}

type index struct {
	t     *table
	def   indexDef
	cols  []int
	ks    *engine.Keyspace
	stats keyStatsSlot // ST-2
}

// maxDeclaredKey is MySQL's InnoDB limit on a declared index key; keys are
// also checked when written against the engine's limit (btree.MaxKey).
const maxDeclaredKey = 3072

// openTableDef builds the runtime table and validates the definition; with
// a nil ctx... keyspaces are resolved only by openTable.
func openTableDef(ctx *sql.Context, d *Database, def *tableDef, _ any) (*table, error) {
	t := &table{db: d, def: def, autoCol: -1, ctr: &counters{}}
	t.ctr.rowSeq.Store(uint64(time.Now().UnixNano()))
	tableColl := sql.Collation_Default
	if c, err := sql.ParseCollation("", def.Collation, false); err == nil && def.Collation != "" {
		tableColl = c
	}
	for i, cd := range def.Columns {
		typ, err := planbuilder.ParseColumnTypeString(cd.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: type %q: %w", cd.Name, cd.Type, err)
		}
		// A type string leaves out a collation equal to the default: the
		// parsed type has none, and takes the table's, as at CREATE.
		if tc, ok := typ.(sql.TypeWithCollation); ok && tc.Collation() == sql.Collation_Unspecified {
			if typ, err = tc.WithNewCollation(tableColl); err != nil {
				return nil, err
			}
		}
		t.unsigned = t.unsigned || cd.Unsigned
		c := &sql.Column{Name: cd.Name, Type: typ, Nullable: cd.Nullable, Source: def.Name,
			DatabaseSource: d.name, AutoIncrement: cd.AutoIncrement, Comment: cd.Comment}
		c.Default, c.OnUpdate = columnExpr(cd.Default), columnExpr(cd.OnUpdate)
		if et, ok := typ.(sql.EnumType); ok && c.Default == nil && !cd.Nullable && cd.Generated == "" && len(et.Values()) > 0 {
			// MySQL: a NOT NULL ENUM's implicit default is its first member.
			c.Default = columnExpr("'" + strings.ReplaceAll(et.Values()[0], "'", "''") + "'")
		}
		// A VIRTUAL column is stored as if STORED (CAT-4): go-mysql-server
		// wraps a table with virtual columns in a node that hides its
		// indexes and CHECK constraints from SHOW CREATE TABLE, SHOW INDEX
		// and the INSERT/UPDATE check loader.
		c.Generated = columnExpr(cd.Generated)
		c.Extra = columnExtra(cd)
		if cd.AutoIncrement {
			t.autoCol = i
			c.Extra = "auto_increment"
		}
		codec, err := tableColCodec(typ, def.KeyFormat)
		if err != nil {
			return nil, sql.ErrUnsupportedFeature.New(err.Error())
		}
		t.cols = append(t.cols, codec)
		t.sch = append(t.sch, c)
	}
	for _, o := range def.PK {
		t.sch[o].PrimaryKey = true
	}
	t.pk = def.PK
	t.pkSch = sql.NewPrimaryKeySchema(t.sch, def.PK...)
	if err := t.checkKeyColumns("PRIMARY", def.PK, nil, nil); err != nil {
		return nil, err
	}
	for _, ixd := range def.Indexes {
		if err := t.checkKeyColumns(ixd.Name, ixd.Columns, ixd.Prefix, def.PK); err != nil {
			return nil, err
		}
		t.indexes = append(t.indexes, &index{t: t, def: ixd, cols: ixd.Columns})
	}
	return t, nil
}

// columnExtra is the column's Extra in SHOW COLUMNS and
// information_schema.COLUMNS, as MySQL 8 writes it (dump tools leave
// generated columns out of their INSERTs by it).
func columnExtra(cd columnDef) string {
	var parts []string
	switch {
	case cd.Generated != "": // VIRTUAL ones too (CAT-4)
		parts = append(parts, "STORED GENERATED")
	case cd.Default != "" && !isLiteralDefault(cd.Default):
		parts = append(parts, "DEFAULT_GENERATED")
	}
	if cd.OnUpdate != "" {
		parts = append(parts, "on update "+cd.OnUpdate)
	}
	return strings.Join(parts, " ")
}

// isLiteralDefault: a default that is a constant (NULL, a number, a
// quoted string), not an expression or function.
func isLiteralDefault(s string) bool {
	if s == "NULL" || strings.HasPrefix(s, "'") || strings.HasPrefix(s, "\"") {
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func (t *table) checkKeyColumns(name string, cols []int, prefix []uint16, suffix []int) error {
	total := 0
	for i, o := range append(append([]int{}, cols...), suffix...) {
		ok, n := t.cols[o].keyable()
		if i < len(cols) && i < len(prefix) && prefix[i] > 0 { // IX-1
			c := t.cols[o]
			switch {
			case c.kind == kBytes:
				ok, n = true, 1+int(prefix[i])+2
			case c.kind == kString:
				ok, n = true, 1+int(prefix[i])*5+1
			default:
				return errWrongSubKey()
			}
		}
		if !ok {
			return mysql.NewSQLError(mysql.ERBlobKeyWithoutLength, "42000",
				"BLOB/TEXT column '%s' used in key specification without a key length", t.sch[o].Name)
		}
		total += n
	}
	if total > maxDeclaredKey+64 {
		return mysql.NewSQLError(mysql.ERTooLongKey, "42000",
			"Specified key was too long; max key length is %d bytes (index %s)", maxDeclaredKey, name)
	}
	return nil
}

// openTable builds the runtime table and resolves its keyspaces.
func openTable(ctx *sql.Context, d *Database, def *tableDef) (*table, error) {
	t, err := openTableDef(ctx, d, def, nil)
	if err != nil {
		return nil, err
	}
	if t.primary, err = d.b.db.Keyspace(primaryKeyspace(def.ID)); err != nil {
		return nil, fmt.Errorf("table %s: %w", def.Name, err)
	}
	for _, ix := range t.indexes {
		if ix.ks, err = d.b.db.Keyspace(indexKeyspace(def.ID, ix.def.ID)); err != nil {
			return nil, fmt.Errorf("table %s index %s: %w", def.Name, ix.def.Name, err)
		}
	}
	if def.rowRefs() {
		if t.refs, err = d.b.db.Keyspace(rowRefKeyspace(def.ID)); err != nil {
			return nil, fmt.Errorf("table %s row references: %w", def.Name, err)
		}
		if err := t.initRowIDs(); err != nil {
			return nil, fmt.Errorf("table %s: %w", def.Name, err)
		}
	}
	for _, c := range def.Columns {
		if c.Generated != "" {
			d.b.generatedSeen.Store(true)
		}
	}
	return t, nil
}

func (t *table) shareCounters(old *table) { t.ctr = old.ctr }

func (t *table) dropKeyspaces() error { return t.db.b.dropKeyspaces(t.def) }

// ---- keys ----

func (t *table) keyless() bool { return len(t.pk) == 0 }

// primaryKey encodes the primary key of row (tables with a primary key).
func (t *table) primaryKey(ctx context.Context, row sql.Row) ([]byte, error) {
	var b []byte
	var err error
	for _, o := range t.pk {
		if b, err = t.cols[o].appendKey(ctx, b, row[o]); err != nil {
			return nil, err
		}
	}
	return b, checkKeyLen(b)
}

// rowHash is the first half of a hidden row key.
func rowHash(val []byte) []byte {
	h := fnv.New64a()
	h.Write(val)
	return h.Sum(nil)
}

// newHiddenKey is the key of a new row of a keyless table: its row id
// (CODEC-10), or before KeyFormat 2 hash(row) + a sequence number unique
// in this table.
func (t *table) newHiddenKey(val []byte) []byte {
	if t.refs != nil {
		return appendUint64(nil, t.ctr.rowSeq.Add(1))
	}
	k := rowHash(val)
	return appendUint64(k, t.ctr.rowSeq.Add(1))
}

// rowRef is the row-reference entry of a stored row value under its row
// id (CODEC-10).
func rowRef(val, key []byte) []byte { return append(rowHash(val), key...) }

// initRowIDs moves the row id counter past the largest stored id
// (CODEC-10): ids grow in insertion order across restarts even if the
// clock went back.
func (t *table) initRowIDs() error {
	tx := t.db.b.db.Begin()
	defer tx.Rollback()
	it := tx.Scan(t.primary, nil, nil, true)
	defer it.Close()
	if it.Next() && len(it.Key()) == 8 {
		if last := binary.BigEndian.Uint64(it.Key()); last >= t.ctr.rowSeq.Load() {
			t.ctr.rowSeq.Store(last)
		}
	}
	return it.Err()
}

func (ix *index) entryKey(ctx context.Context, row sql.Row, pk []byte) ([]byte, error) {
	b, err := ix.prefixKey(ctx, row)
	if err != nil {
		return nil, err
	}
	b = append(b, pk...)
	return b, checkKeyLen(b)
}

func (ix *index) prefixKey(ctx context.Context, row sql.Row) ([]byte, error) {
	return ix.appendPrefixKey(ctx, nil, row)
}

// appendPrefixKey appends ix's key parts of row to b.
func (ix *index) appendPrefixKey(ctx context.Context, b []byte, row sql.Row) ([]byte, error) {
	var err error
	for i, o := range ix.cols {
		if b, err = ix.t.cols[o].appendKeyPrefix(ctx, b, row[o], ix.def.prefixOf(i)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// hasNull reports whether an index column of row is NULL (NULLs never
// conflict in a unique index).
func (ix *index) hasNull(row sql.Row) bool {
	for _, o := range ix.cols {
		if row[o] == nil {
			return true
		}
	}
	return false
}

// splitEntry returns the primary key at the end of an index entry.
func (ix *index) splitEntry(key []byte) ([]byte, error) {
	off := 0
	for _, o := range ix.cols {
		n, err := ix.t.cols[o].skipKey(key[off:])
		if err != nil {
			return nil, err
		}
		off += n
	}
	return key[off:], nil
}

func checkKeyLen(b []byte) error {
	if len(b) > btree.MaxKey {
		return mysql.NewSQLError(mysql.ERTooLongKey, "42000",
			"Specified key was too long; max key length is %d bytes", btree.MaxKey)
	}
	return nil
}

// ---- AUTO_INCREMENT ----

// initAuto finds the counter's start: max(floor in the catalog, largest
// value + 1). Caller holds ctr.mu.
func (t *table) initAuto(ctx context.Context) error {
	if t.ctr.autoInit {
		return nil
	}
	next := t.def.AutoIncrement
	if next == 0 {
		next = 1
	}
	if t.autoCol < 0 {
		// ALTER TABLE adding AUTO_INCREMENT asks the old table for values.
		t.ctr.autoNext, t.ctr.autoInit = next, true
		return nil
	}
	tx := t.db.b.db.Begin()
	defer tx.Rollback()
	c := t.cols[t.autoCol]
	if len(t.pk) > 0 && t.pk[0] == t.autoCol {
		it := tx.Scan(t.primary, nil, nil, true)
		if it.Next() {
			if v, ok := c.decodeIntKey(it.Key()); ok && v+1 > next {
				next = v + 1
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
	} else {
		it := tx.Scan(t.primary, nil, nil, false)
		row := make(sql.Row, len(t.cols))
		for it.Next() {
			if err := decodeRow(ctx, it.Value(), t.cols, row); err != nil {
				return err
			}
			if cv, err := c.canonical(ctx, row[t.autoCol]); err == nil {
				var v uint64
				switch x := cv.(type) {
				case int64:
					if x > 0 {
						v = uint64(x)
					}
				case uint64:
					v = x
				}
				if v+1 > next {
					next = v + 1
				}
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
	}
	t.ctr.autoNext = next
	t.ctr.autoInit = true
	return nil
}

func (t *table) peekAuto() (uint64, bool) {
	if t.autoCol < 0 {
		return 0, false
	}
	t.ctr.mu.Lock()
	defer t.ctr.mu.Unlock()
	return t.ctr.autoNext, t.ctr.autoInit
}

// ---- the go-mysql-server view of a table ----

// Table is what go-mysql-server sees: a runtime table, optionally with an
// index lookup and a column projection.
type Table struct {
	t       *table
	lookup  *sql.IndexLookup
	proj    []string
	projIdx []int
	projSch sql.Schema
	unread  []bool            // columns read as NULL, undecoded (rules RULE-92), or nil
	checks  []scanfilter.Cond // CODEC-14: checks on stored rows, by column
	reads   readPlan          // PartitionRows' last plan, by index
}

// readPlan is what a read of a partition without a filter through index
// ix (nil: the primary keyspace) decodes, and the index entries' columns
// it returns instead of the row's (IX-3); read-only once made.
type readPlan struct {
	ok    bool
	ix    *index
	need  []bool
	cover []coverCol
}

var (
	_ sql.Table                 = (*Table)(nil)
	_ sql.PrimaryKeyTable       = (*Table)(nil)
	_ sql.ProjectedTable        = (*Table)(nil)
	_ sql.IndexAddressableTable = (*Table)(nil)
	_ sql.IndexedTable          = (*Table)(nil)
	_ sql.InsertableTable       = (*Table)(nil)
	_ sql.UpdatableTable        = (*Table)(nil)
	_ sql.DeletableTable        = (*Table)(nil)
	_ sql.ReplaceableTable      = (*Table)(nil)
	_ sql.TruncateableTable     = (*Table)(nil)
	_ sql.AutoIncrementTable    = (*Table)(nil)
	_ sql.IndexAlterableTable   = (*Table)(nil)
	_ sql.CommentedTable        = (*Table)(nil)
	_ sql.Databaseable          = (*Table)(nil)
	_ sql.StatisticsTable       = (*Table)(nil)
)

// RowCount implements sql.StatisticsTable with an estimate (never exact:
// go-mysql-server would answer COUNT(*) from an exact one).
func (tb *Table) RowCount(ctx *sql.Context) (uint64, bool, error) {
	c := tb.t.ctr
	c.rowsMu.Lock()
	defer c.rowsMu.Unlock()
	if !c.rowsCounted {
		// ST-1: the rows inserted and deleted since the table was opened
		// are already counted; a saved estimate predates them, a sample
		// of the tree includes them.
		if tb.t.def.RowEstimate > 0 {
			c.rows.Add(tb.t.def.RowEstimate)
		} else {
			// No estimate saved (first use, or after a crash): sample the
			// primary B+tree rather than scan it, whatever its size.
			n, err := tb.t.db.b.db.EstimateEntries(tb.t.primary)
			if err != nil {
				return 0, false, err
			}
			c.rows.Store(n)
		}
		c.rowsCounted = true
	}
	n := c.rows.Load()
	if n < 0 {
		n = 0
	}
	return uint64(n), false, nil
}

// DataLength implements sql.StatisticsTable (an estimate).
func (tb *Table) DataLength(ctx *sql.Context) (uint64, error) {
	n, _, err := tb.RowCount(ctx)
	return n * 128, err
}

func (tb *Table) Name() string { return tb.t.def.Name }

// CatalogIdentity is the table's catalog object, which every change of
// its definition (ALTER, CREATE/DROP INDEX, RENAME, DROP and CREATE)
// replaces: a plan that rules RULE-85 keeps is used only while its
// tables' identities stand.
func (tb *Table) CatalogIdentity() any { return tb.t }
func (tb *Table) String() string       { return tb.t.def.Name }
func (tb *Table) Database() string     { return tb.t.db.name }
func (tb *Table) Comment() string      { return tb.t.def.Comment }

func (tb *Table) Schema() sql.Schema {
	if tb.projSch != nil {
		return tb.projSch
	}
	return tb.t.sch
}

func (tb *Table) Collation() sql.CollationID {
	if c, err := sql.ParseCollation("", tb.t.def.Collation, false); err == nil {
		return c
	}
	return sql.Collation_Default
}

func (tb *Table) PrimaryKeySchema() sql.PrimaryKeySchema { return tb.t.pkSch }

// WithProjections implements sql.ProjectedTable.
func (tb *Table) WithProjections(names []string) sql.Table {
	nt := *tb
	nt.reads = readPlan{} // another projection
	nt.proj = names
	nt.projIdx = make([]int, 0, len(names))
	nt.projSch = make(sql.Schema, 0, len(names))
	for _, n := range names {
		i := tb.t.sch.IndexOfColName(n)
		if i < 0 {
			continue
		}
		nt.projIdx = append(nt.projIdx, i)
		nt.projSch = append(nt.projSch, tb.t.sch[i])
	}
	return &nt
}

func (tb *Table) Projections() []string { return tb.proj }

// WithUnread returns the table reading the named columns as NULL without
// decoding them: no expression of the statement reads them (rules
// RULE-92). The schema is unchanged.
func (tb *Table) WithUnread(names []string) sql.Table {
	nt := *tb
	nt.reads = readPlan{}
	nt.unread = make([]bool, len(tb.t.cols))
	for _, n := range names {
		if i := tb.t.sch.IndexOfColName(n); i >= 0 {
			nt.unread[i] = true
		}
	}
	return &nt
}

// ---- partitions ----

// keyRange is [lo, hi) of a keyspace; point marks a range of the
// primary keyspace that holds at most the one key lo (every primary-key
// column a point, none cut: IX-5).
type keyRange struct {
	lo, hi []byte
	point  bool
}

type partition struct {
	ranges []keyRange
	ix     *index // nil: the clustered keyspace
	rev    bool
	filter sql.Expression // rows must match it (inexact ranges), or nil
}

func (p *partition) Key() []byte { return []byte("p") }

// Partitions implements sql.Table: one partition, the whole table.
func (tb *Table) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	if tb.lookup != nil {
		return tb.LookupPartitions(ctx, *tb.lookup)
	}
	return sql.PartitionsToPartitionIter(&partition{ranges: []keyRange{{}}}), nil
}

// PartitionRows implements sql.Table.
func (tb *Table) PartitionRows(ctx *sql.Context, p sql.Partition) (sql.RowIter, error) {
	return tb.partitionRows(ctx, p.(*partition), nil)
}

// partitionRows is PartitionRows into ri (nil: a new one).
func (tb *Table) partitionRows(ctx *sql.Context, part *partition, ri *rowIter) (sql.RowIter, error) {
	s, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := s.engineTx()
	if err != nil {
		return nil, err
	}
	locking := s.lockingReads(ctx)
	if !locking && s.serializableRead(ctx) { // SES-9
		locking, s.lockShared = true, true
	}
	if !locking {
		s.consistentRead(ctx, tx) // SES-9
	} else {
		tx.SetInterrupt(ctx.Done()) // KILL QUERY ends a lock wait (1317)
	}
	if ri == nil {
		ri = new(rowIter)
	}
	*ri = rowIter{tb: tb, t: tb.t, s: s, tx: tx, part: part, locking: locking, arena: &s.arena}
	if part.filter != nil {
		ri.need = ri.needed()
		return ri, nil
	}
	// What to decode and what an index covers depend on the table's
	// projection and the partition's index only: worked out once per
	// index for this table node (a lookup join reads a partition per
	// outer row).
	rp := &tb.reads
	if !rp.ok || rp.ix != part.ix {
		*rp = readPlan{ok: true, ix: part.ix, need: ri.needed()}
		if part.ix != nil {
			rp.cover = coverPlan(tb.t, part.ix, tb.projIdx)
		}
	}
	ri.need = rp.need
	if part.ix != nil && !locking {
		ri.cover = rp.cover
	}
	return ri, nil
}

// ---- index access ----

// GetIndexes implements sql.IndexAddressable.
//
// It lists the current definition's indexes (same table id, so the same
// rows): CREATE TABLE adds its indexes and then its foreign keys through
// one resolved table, and a foreign key reuses an index declared before
// it (KEY fk (c), CONSTRAINT fk FOREIGN KEY (c): what SHOW CREATE TABLE
// and dumps print) only if it sees it.
func (tb *Table) GetIndexes(ctx *sql.Context) ([]sql.Index, error) {
	t := tb.t
	if cur, err := tb.current(); err == nil {
		t = cur
	}
	var out []sql.Index
	if !t.keyless() {
		out = append(out, &Index{t: t})
	}
	for _, ix := range t.indexes {
		out = append(out, &Index{t: t, ix: ix})
	}
	for _, ft := range t.def.FullText { // FT-1
		out = append(out, newFullTextIndex(t, ft))
	}
	for _, sp := range t.def.Spatial { // FT-5
		out = append(out, newSpatialIndex(t, sp))
	}
	return out, nil
}

// IndexedAccess implements sql.IndexAddressable.
func (tb *Table) IndexedAccess(ctx *sql.Context, lookup sql.IndexLookup) sql.IndexedTable {
	nt := *tb
	nt.reads = readPlan{}
	nt.lookup = &lookup
	return &nt
}

// PreciseMatch implements sql.IndexAddressable: a lookup returns exactly
// the rows in its ranges (exact key ranges, or a superset filtered by the
// ranges in the backend), so go-mysql-server may drop those filters.
func (tb *Table) PreciseMatch() bool { return true }

// LookupPartitions implements sql.IndexedTable.
func (tb *Table) LookupPartitions(ctx *sql.Context, lookup sql.IndexLookup) (sql.PartitionIter, error) {
	part, err := tb.lookupPartition(ctx, lookup)
	if err != nil {
		return nil, err
	}
	return sql.PartitionsToPartitionIter(part), nil
}

// LookupRows is the rows of lookup: LookupPartitions and PartitionRows of
// its one partition in one step, without go-mysql-server's partition and
// table iterators (rules RULE-86 builds a lookup join's inner side with it,
// once per outer row).
func (tb *Table) LookupRows(ctx *sql.Context, lookup sql.IndexLookup) (sql.RowIter, error) {
	part, err := tb.lookupPartition(ctx, lookup)
	if err != nil {
		return nil, err
	}
	tb.t.db.b.lookupRows.Add(1)
	return tb.PartitionRows(ctx, part)
}

// LookupEqualRows is LookupRows for a lookup join's equality lookup: the
// rows whose first len(vals) columns of index equal vals, integers of the
// columns' own sign (IX-6). Their key prefix is encoded directly, without
// go-mysql-server's ranges (its range builder, this package's range
// conversion and rules RULE-86's key checks were a tenth of a three-table
// lookup join's CPU). An integer beyond a column's width matches no row,
// as its key equals no stored key. ok is false, nothing done, for
// anything else (a NULL, another type, a prefix-cut column).
func (tb *Table) LookupEqualRows(ctx *sql.Context, index sql.Index, vals []any) (_ sql.RowIter, ok bool, _ error) {
	idx, isIdx := index.(*Index)
	if !isIdx || idx.t != tb.t {
		return nil, false, nil
	}
	cols := tb.t.pk
	var cut []uint16
	if idx.ix != nil {
		cols, cut = idx.ix.cols, idx.ix.def.Prefix
	}
	if len(vals) == 0 || len(vals) > len(cols) {
		return nil, false, nil
	}
	// One allocation for the lookup: its iterator, partition, range and
	// key bytes (a lookup join makes one per outer row).
	l := &equalLookup{}
	prefix := l.key[:0]
	for i, v := range vals {
		c := tb.t.cols[cols[i]]
		if v == nil || c.kind != kInt && c.kind != kUint || i < len(cut) && cut[i] != 0 {
			return nil, false, nil
		}
		if !sameIntegerSign(c.kind, v) {
			return nil, false, nil // a signed key for an unsigned column, or the reverse
		}
		k, err := c.appendKey(ctx, prefix, v)
		if err != nil {
			return nil, false, nil
		}
		prefix = k
	}
	end := prefixEndIn(prefix[len(prefix):], prefix) // after prefix in l.key while it fits
	// Both capped: nothing appended to one may write into the other.
	l.r[0] = keyRange{lo: prefix[:len(prefix):len(prefix)], hi: end[:len(end):len(end)], point: idx.ix == nil && len(vals) == len(cols)}
	l.part = partition{ix: idx.ix, ranges: l.r[:]}
	tb.t.db.b.lookupRows.Add(1)
	it, err := tb.partitionRows(ctx, &l.part, &l.ri)
	return it, true, err
}

// equalLookup is what LookupEqualRows allocates: an integer key is 9
// bytes, so key holds the prefix and its end for up to three columns.
type equalLookup struct {
	ri   rowIter
	part partition
	r    [1]keyRange
	key  [56]byte
}

// sameIntegerSign reports v a Go integer of kind k's sign (canonical
// would convert another, clamping it).
func sameIntegerSign(k kind, v any) bool {
	switch v.(type) {
	case int8, int16, int32, int64, int:
		return k == kInt
	case uint8, uint16, uint32, uint64, uint:
		return k == kUint
	}
	return false
}

// lookupPartition is the one partition of lookup.
func (tb *Table) lookupPartition(ctx *sql.Context, lookup sql.IndexLookup) (*partition, error) {
	idx, ok := lookup.Index.(*Index)
	if !ok {
		return nil, fmt.Errorf("strata: foreign index %T", lookup.Index)
	}
	part := &partition{ix: idx.ix, rev: lookup.IsReverse}
	if !lookup.IsEmptyRange {
		ranges, ok := lookup.Ranges.(sql.MySQLRangeCollection)
		if !ok {
			return nil, fmt.Errorf("strata: unsupported range type %T", lookup.Ranges)
		}
		cols := tb.t.pk
		var prefix []uint16
		if idx.ix != nil {
			cols, prefix = idx.ix.cols, idx.ix.def.Prefix
		}
		exact := true
		part.ranges = make([]keyRange, 0, len(ranges))
		for _, r := range ranges {
			kr, empty, ex := tb.t.keyRange(ctx, cols, prefix, r)
			exact = exact && ex
			if !empty {
				part.ranges = append(part.ranges, kr)
			}
		}
		part.ranges = mergeRanges(part.ranges)
		if !exact {
			// Some key range is a superset: filter rows by the ranges here,
			// since go-mysql-server drops the filters a precise lookup covers.
			ords := idx.extended() // ranges may cover the primary key columns too
			exprs := make([]sql.Expression, len(ords))
			for i, o := range ords {
				c := tb.t.sch[o]
				exprs[i] = expression.NewGetFieldWithTable(o, 0, c.Type, tb.t.db.name, tb.t.def.Name, c.Name, c.Nullable)
			}
			f, err := expression.NewRangeFilterExpr(exprs, ranges)
			if err != nil {
				return nil, err
			}
			part.filter = f
		}
	}
	return part, nil
}

// mergeRanges sorts key ranges and merges the overlapping ones: ranges
// widened to a superset may overlap, and a row must be read once.
func mergeRanges(rs []keyRange) []keyRange {
	if len(rs) < 2 { // a lookup join's: one range per outer row
		return rs
	}
	sort.Slice(rs, func(i, j int) bool { return bytes.Compare(rs[i].lo, rs[j].lo) < 0 })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.hi == nil || bytes.Compare(r.lo, last.hi) <= 0 {
				if last.hi != nil && (r.hi == nil || bytes.Compare(r.hi, last.hi) > 0) {
					last.hi = r.hi
				}
				last.point = last.point && r.point && bytes.Equal(last.lo, r.lo)
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// keyRange maps one range over index columns cols to a key range that
// contains every matching key. exact reports that it holds nothing else:
// points on a prefix of the columns, then at most one column with bounds,
// then unconstrained columns, every value encodable, no key part cut to a
// prefix length (IX-1: values cut to their prefix bound a superset). An
// inexact range is a superset; the lookup then filters rows itself
// (RangeFilterExpr).
func (t *table) keyRange(ctx *sql.Context, cols []int, cut []uint16, r sql.MySQLRange) (kr keyRange, empty, exact bool) {
	var prefix []byte
	whole := true // no key part so far was cut to a prefix length
	cutOf := func(i int) int {
		if i < len(cut) {
			return int(cut[i])
		}
		return 0
	}
	unconstrained := func(rest sql.MySQLRange) bool {
		for _, ce := range rest {
			if ce.Type() != sql.RangeType_All {
				return false
			}
		}
		return true
	}
	for i, ce := range r {
		if i >= len(cols) {
			return keyRange{lo: prefix, hi: prefixEnd(prefix)}, false, whole && unconstrained(r[i:])
		}
		c := t.cols[cols[i]]
		n := cutOf(i)        // IX-1: bounds are cut values, inclusive
		if isNullRange(ce) { // IS NULL (NULL keys are not cut)
			prefix = append(prefix, keyNull)
			continue
		}
		lb, lok := ce.LowerBound.(sql.Below)
		ub, uok := ce.UpperBound.(sql.Above)
		if lok && uok {
			if cmp, err := ce.Typ.Compare(ctx, lb.Key, ub.Key); err == nil && cmp == 0 {
				k, err := c.appendKeyPrefix(ctx, append([]byte{}, prefix...), lb.Key, n)
				if err != nil {
					// Superset: bounded by the prefix only.
					return keyRange{lo: prefix, hi: prefixEnd(prefix)}, false, false
				}
				prefix = k
				whole = whole && n == 0
				continue
			}
		}
		// The first column that is not a point bounds the range.
		exact = whole && (n == 0 || ce.Type() == sql.RangeType_All) && unconstrained(r[i+1:])
		lo := append([]byte{}, prefix...)
		switch b := ce.LowerBound.(type) {
		case sql.BelowNull:
		case sql.AboveNull:
			lo = append(lo, keyValue)
		case sql.Below:
			if k, err := c.appendKeyPrefix(ctx, lo, b.Key, n); err == nil {
				lo = k
			} else {
				exact = false
			}
		case sql.Above:
			if k, err := c.appendKeyPrefix(ctx, lo, b.Key, n); err != nil {
				exact = false
			} else if n == 0 {
				lo = prefixEnd(k)
			} else {
				lo = k // values above b may share its cut
			}
		case sql.AboveAll:
			return keyRange{}, true, true
		}
		hi := prefixEnd(prefix)
		switch b := ce.UpperBound.(type) {
		case sql.AboveAll:
		case sql.Above:
			if k, err := c.appendKeyPrefix(ctx, append([]byte{}, prefix...), b.Key, n); err == nil {
				hi = prefixEnd(k)
			} else {
				exact = false
			}
		case sql.Below:
			if k, err := c.appendKeyPrefix(ctx, append([]byte{}, prefix...), b.Key, n); err != nil {
				exact = false
			} else if n == 0 {
				hi = k
			} else {
				hi = prefixEnd(k) // values below b may share its cut
			}
		case sql.AboveNull:
			hi = append(append([]byte{}, prefix...), keyValue)
		case sql.BelowNull:
			return keyRange{}, true, true
		}
		if hi != nil && bytes.Compare(lo, hi) >= 0 {
			return keyRange{}, true, true
		}
		return keyRange{lo: lo, hi: hi}, false, exact
	}
	return keyRange{lo: prefix, hi: prefixEnd(prefix), point: whole && len(r) == len(cols)}, false, whole
}

// isNullRange reports an IS NULL range column (exact under a prefix cut:
// NULL keys are not cut).
func isNullRange(ce sql.MySQLRangeColumnExpr) bool {
	_, lowNull := ce.LowerBound.(sql.BelowNull)
	_, upNull := ce.UpperBound.(sql.AboveNull)
	return lowNull && upNull
}

// tableColCodec is the codec of a column of type typ in a table of key
// format keyFormat.
func tableColCodec(typ sql.Type, keyFormat int) (colCodec, error) {
	codec, err := newColCodec(typ)
	if err != nil {
		return codec, err
	}
	if keyFormat >= keyFormatPadSpace && codec.kind == kString {
		codec.padKey = codec.coll.PadAttribute() == "PAD SPACE"                 // CODEC-8
		codec.char = codec.qt == sqltypes.Char                                  // CODEC-7
		codec.dense = keyFormat >= keyFormatDenseWeights && codec.weight != nil // CODEC-12
	}
	codec.utc = keyFormat >= keyFormatPadSpace && codec.qt == sqltypes.Timestamp // CODEC-5
	return codec, nil
}

// ---- row iteration ----

type rowIter struct {
	tb      *Table
	t       *table
	s       *Session
	tx      *engine.Tx
	arena   *valueArena // CODEC-13: the session's
	part    *partition
	locking bool
	next    int
	it      *engine.Iterator
	row     sql.Row    // scratch for the whole row when only a projection is returned
	need    []bool     // the columns to decode (nil: all)
	cover   []coverCol // IX-3: the projection read from index entries, else nil
	reads   uint32
	clock   uint64 // the commit clock before the current range's scan began
}

func (ri *rowIter) Next(ctx *sql.Context) (sql.Row, error) {
	if ri.reads++; ri.reads >= memgov.MinRows && ri.reads%64 == 0 && memgov.Check() != nil {
		// A statement reading rows may be what holds them (a sort, a
		// hash join, a buffered result): stop it (memgov MEM-3).
		return nil, ErrOutOfMemory()
	}
	for {
		if ri.it == nil {
			if ri.next >= len(ri.part.ranges) {
				return nil, ioEOF
			}
			i := ri.next
			if ri.part.rev {
				i = len(ri.part.ranges) - 1 - ri.next
			}
			ri.next++
			r := ri.part.ranges[i]
			if r.point && ri.part.ix == nil && !ri.locking {
				// IX-5: one key of the primary keyspace, read without
				// an iterator (a lookup join reads one per outer row).
				row, ok, err := ri.point(ctx, r.lo)
				if err != nil {
					return nil, ri.s.engineErr(err)
				}
				if ok {
					ri.s.rowsRead.Add(1)
					return row, nil
				}
				continue
			}
			ks := ri.t.primary
			if ri.part.ix != nil {
				ks = ri.part.ix.ks
			}
			if ri.locking { // SES-9: locking statements search the latest versions
				ri.clock = ri.tx.CommitClock()
				ri.it = ri.tx.ScanCurrent(ks, r.lo, r.hi, ri.part.rev)
			} else {
				ri.it = ri.tx.Scan(ks, r.lo, r.hi, ri.part.rev)
			}
		}
		if !ri.it.Next() {
			err := ri.it.Err()
			ri.it.Close()
			ri.it = nil
			if err != nil {
				return nil, ri.s.engineErr(err)
			}
			continue
		}
		row, ok, err := ri.load(ctx, ri.it.Key(), ri.it.Value())
		if err != nil {
			return nil, ri.s.engineErr(err)
		}
		if ok {
			ri.s.rowsRead.Add(1)
			return row, nil
		}
	}
}

// point reads the row of primary key pk (IX-5); ok is false when there
// is none (or it fails the partition's filter).
func (ri *rowIter) point(ctx *sql.Context, pk []byte) (sql.Row, bool, error) {
	ri.s.b.pointReads.Add(1)
	v, found, err := ri.tx.Get(ri.t.primary, pk)
	if err != nil || !found {
		return nil, false, err
	}
	return ri.load(ctx, pk, v)
}

// load turns a key/value of the scanned keyspace into a row; ok is false
// when the row vanished or no longer matches the index entry.
func (ri *rowIter) load(ctx *sql.Context, key, val []byte) (sql.Row, bool, error) {
	t := ri.t
	pk := key
	ix := ri.part.ix
	if ix != nil {
		var err error
		if pk, err = ix.splitEntry(key); err != nil {
			return nil, false, err
		}
	}
	if ri.cover != nil {
		return ri.fromEntry(key)
	}
	if ix != nil || ri.locking {
		var v []byte
		var found bool
		var err error
		if ri.locking && ri.s.lockPolicy != lockWaits { // SES-12
			v, found, err = ri.tx.TryGetLocked(t.primary, pk, ri.s.lockShared)
			if ri.s.lockPolicy == lockSkipped && errors.Is(err, engine.ErrLockNotAvailable) {
				return nil, false, nil
			}
		} else if ri.locking && ix == nil {
			// The scan read the row: unless a commit came between, it
			// is still the latest (no second search).
			v, found, err = ri.tx.GetLockedScanned(t.primary, pk, ri.s.lockShared, ri.clock, val)
			if err == nil && found && !ri.s.lockShared { // the UPDATE or DELETE locates it next
				l := &ri.s.lastLocked
				l.ks, l.pk, l.val, l.clock = t.primary, append(l.pk[:0], pk...), append(l.val[:0], v...), ri.clock
			}
		} else if ri.locking && ri.s.lockShared {
			v, found, err = ri.tx.GetForShare(t.primary, pk)
		} else if ri.locking {
			v, found, err = ri.tx.GetForUpdate(t.primary, pk)
		} else {
			v, found, err = ri.tx.Get(t.primary, pk)
		}
		if err != nil || !found {
			return nil, false, err
		}
		val = v
	}
	if ri.tb.checks != nil && !passesChecks(val, t.cols, ri.tb.checks) { // CODEC-14
		ri.s.rowsRead.Add(1) // read, as a row a filter above drops
		return nil, false, nil
	}
	var full sql.Row
	if ri.tb.projIdx != nil {
		if ri.row == nil {
			ri.row = make(sql.Row, len(t.cols))
		}
		full = ri.row
	} else {
		full = ri.arena.row(len(t.cols))
	}
	if err := decodeColumns(ctx, val, t.cols, full, ri.need, ri.arena); err != nil {
		return nil, false, err
	}
	if ix != nil && (ri.locking || !ri.tx.HasSnapshot()) {
		// The row may have changed since the index entry was read (a
		// read at a snapshot took both from it: IX-6).
		want, err := ix.entryKey(ctx, full, pk)
		if err != nil || !bytes.Equal(want, key) {
			return nil, false, err
		}
	}
	if f := ri.part.filter; f != nil {
		if ok, err := sql.EvaluateCondition(ctx, f, full); err != nil || !sql.IsTrue(ok) {
			return nil, false, err
		}
	}
	if ri.tb.projIdx == nil {
		return full, true, nil
	}
	out := ri.arena.row(len(ri.tb.projIdx))
	for i, o := range ri.tb.projIdx {
		out[i] = full[o]
	}
	return out, true, nil
}

// needed returns the columns a load must decode: the projection's, the
// index's (an entry is checked against its row) and, under a range
// filter, every column; nil means all.
func (ri *rowIter) needed() []bool {
	if (ri.tb.projIdx == nil && ri.tb.unread == nil) || ri.part.filter != nil {
		return nil
	}
	need := make([]bool, len(ri.t.cols))
	if ri.tb.projIdx == nil {
		for i := range need {
			need[i] = true
		}
	}
	for _, o := range ri.tb.projIdx {
		need[o] = true
	}
	for i, u := range ri.tb.unread {
		if u {
			need[i] = false
		}
	}
	if ix := ri.part.ix; ix != nil {
		for _, o := range ix.cols {
			need[o] = true
		}
	}
	return need
}

// coverCol is one projected column read from an index entry (IX-3): the
// entry's key part at index part of the index columns (the primary key's
// after them), decoded as an integer of kind k.
type coverCol struct {
	part int
	c    colCodec
}

// LockingReads reports whether the statement's reads lock the rows they
// read (SES-9): the planner keeps such a statement's index ranges
// (planner PL-9), since a scan would lock every row of the table.
// EXPLAIN answers for the statement it explains.
func (tb *Table) LockingReads(ctx *sql.Context) bool {
	s, err := sessionOf(ctx)
	if err != nil {
		return true
	}
	if q, ok := explained(ctx.Query()); ok {
		locking, _ := isLockingStatement(q)
		return locking
	}
	return s.lockingReads(ctx)
}

// explained returns the statement an EXPLAIN (DESCRIBE) statement q
// explains: from its first word that starts a statement, past the
// EXPLAIN's options.
func explained(q string) (string, bool) {
	fields := strings.Fields(q)
	if len(fields) < 2 {
		return "", false
	}
	switch strings.ToUpper(fields[0]) {
	case "EXPLAIN", "DESCRIBE", "DESC":
	default:
		return "", false
	}
	for i, f := range fields[1:] {
		switch strings.ToUpper(strings.TrimLeft(f, "(")) {
		case "SELECT", "WITH", "UPDATE", "DELETE", "INSERT", "REPLACE":
			return strings.Join(fields[1+i:], " "), true
		}
	}
	return "", false
}

// Covers reports whether a non-locking read through idx returns this
// table's projection from the index entries alone (IX-3; the planner
// costs such a read without the primary-key lookup).
func (tb *Table) Covers(idx sql.Index) bool {
	x, ok := idx.(*Index)
	return ok && x.ix != nil && coverPlan(tb.t, x.ix, tb.projIdx) != nil
}

// coverPlan returns how to read the projection projIdx from ix's entries
// alone (IX-3), or nil: only when every projected column is an integer key
// part of the index or of the primary key (their key encoding gives the
// value back; a string's is its collation weight).
func coverPlan(t *table, ix *index, projIdx []int) []coverCol {
	if projIdx == nil || t.keyless() {
		return nil
	}
	parts := append(append([]int{}, ix.cols...), t.pk...)
	var out []coverCol
	for _, o := range projIdx {
		c := t.cols[o]
		if c.kind != kInt && c.kind != kUint || c.qt == sqltypes.Year {
			return nil
		}
		at := -1
		for i, p := range parts {
			if p == o && (i >= len(ix.cols) || ix.def.prefixOf(i) == 0) {
				at = i
				break
			}
		}
		if at < 0 {
			return nil
		}
		out = append(out, coverCol{part: at, c: c})
	}
	return out
}

// fromEntry builds the projected row from an index entry (IX-3): the
// entry is the snapshot's, as the row would be.
func (ri *rowIter) fromEntry(key []byte) (sql.Row, bool, error) {
	t, ix := ri.t, ri.part.ix
	var offs [16]int
	starts := offs[:0]
	off := 0
	for _, cols := range [2][]int{ix.cols, t.pk} { // coverPlan's key parts
		for _, o := range cols {
			starts = append(starts, off)
			n, err := t.cols[o].skipKey(key[off:])
			if err != nil {
				return nil, false, err
			}
			off += n
		}
	}
	out := ri.arena.row(len(ri.cover))
	for i := range ri.cover {
		cc := &ri.cover[i]
		b := key[starts[cc.part]:]
		if b[0] == keyNull {
			continue
		}
		if len(b) < 9 {
			return nil, false, errCorruptKey
		}
		u := binary.BigEndian.Uint64(b[1:9])
		if cc.c.kind == kInt {
			out[i] = ri.arena.typedInt(&cc.c, int64(u^(1<<63)))
		} else {
			out[i] = ri.arena.typedUint(&cc.c, u)
		}
	}
	ri.s.b.coveredReads.Add(1)
	return out, true, nil
}

func (ri *rowIter) Close(*sql.Context) error {
	if ri.it != nil {
		ri.it.Close()
		ri.it = nil
	}
	return nil
}

// ---- Index ----

// Index is the go-mysql-server view of the primary key (ix == nil) or a
// secondary index.
type Index struct {
	t  *table
	ix *index
}

var _ sql.Index = (*Index)(nil)
var _ sql.OrderedIndex = (*Index)(nil)
var _ sql.ExtendedIndex = (*Index)(nil)

func (x *Index) ordinals() []int {
	if x.ix == nil {
		return x.t.pk
	}
	return x.ix.cols
}

func (x *Index) ID() string {
	if x.ix == nil {
		return "PRIMARY"
	}
	return x.ix.def.Name
}
func (x *Index) Database() string { return x.t.db.name }
func (x *Index) Table() string    { return x.t.def.Name }

// exprs names the columns ords as go-mysql-server names an index's
// expressions (table.column).
func (t *table) exprs(ords []int) []string {
	out := make([]string, len(ords))
	for i, o := range ords {
		out[i] = t.def.Name + "." + t.sch[o].Name
	}
	return out
}

func (x *Index) extended() []int {
	ords := append([]int{}, x.ordinals()...)
	if x.ix == nil {
		return ords
	}
	for _, p := range x.t.pk {
		dup := false
		for _, o := range ords {
			dup = dup || o == p
		}
		if !dup {
			ords = append(ords, p)
		}
	}
	return ords
}

func (x *Index) Expressions() []string         { return x.t.exprs(x.ordinals()) }
func (x *Index) ExtendedExpressions() []string { return x.t.exprs(x.extended()) }
func (x *Index) IsUnique() bool                { return x.ix == nil || x.ix.def.Unique }
func (x *Index) IsSpatial() bool               { return false }
func (x *Index) IsFullText() bool              { return false }
func (x *Index) IsVector() bool                { return false }
func (x *Index) IsGenerated() bool             { return false }
func (x *Index) IndexType() string             { return "BTREE" }

// PrefixLengths: go-mysql-server keeps the filters of a lookup on an index
// with prefix lengths (IX-1) and prints them in SHOW CREATE TABLE.
func (x *Index) PrefixLengths() []uint16 {
	if x.ix == nil {
		return nil
	}
	return x.ix.def.Prefix
}

// Order: an index with a prefix length is not in the order of its columns'
// values (IX-1), so no merge join or sort elimination may rely on it.
func (x *Index) Order() sql.IndexOrder {
	if len(x.PrefixLengths()) > 0 {
		return sql.IndexOrderNone
	}
	return sql.IndexOrderAsc
}
func (x *Index) Reversible() bool { return len(x.PrefixLengths()) == 0 }

func (x *Index) Comment() string {
	if x.ix == nil {
		return ""
	}
	return x.ix.def.Comment
}

func (t *table) cets(ords []int) []sql.ColumnExpressionType {
	names := t.exprs(ords)
	out := make([]sql.ColumnExpressionType, len(ords))
	for i, o := range ords {
		out[i] = sql.ColumnExpressionType{Expression: names[i], Type: t.sch[o].Type}
	}
	return out
}

func (x *Index) ColumnExpressionTypes() []sql.ColumnExpressionType { return x.t.cets(x.ordinals()) }
func (x *Index) ExtendedColumnExpressionTypes() []sql.ColumnExpressionType {
	return x.t.cets(x.extended())
}
func (x *Index) CanSupport(*sql.Context, ...sql.Range) bool { return true }
func (x *Index) CanSupportOrderBy(sql.Expression) bool      { return false }

// IsTemporary implements sql.TemporaryTable (go-mysql-server v0.20 needs
// it to check writes in READ ONLY transactions); strata has no temporary
// tables.
func (tb *Table) IsTemporary() bool { return tb.t.temp != nil }
