package backend

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"strata/engine"
)

// Metadata locks (MDL-n):
//
// MDL-1 A transaction that writes a table holds a shared lock on the
// table's metadata ("mdl/<id>" in the catalog keyspace) until it ends.
// MDL-2 DDL that rewrites a table's keyspaces (CREATE/DROP INDEX, TRUNCATE)
// takes that lock exclusively: it waits for open writers of the table to
// finish and holds new ones back, so an index build never misses a row
// written by a transaction that commits later.
// MDL-3 CREATE INDEX builds without the backend's DDL lock (ddl): it holds
// the table's own DDL lock (lockTable) and its exclusive metadata lock,
// and takes ddl only to check the table and reserve the index, then to
// publish it, checking the table is still the one it built from (else
// 1412, ER_TABLE_DEF_CHANGED). Index builds on different tables run in
// parallel (sysbench prepare and parallel restores build one per table at
// once). Lock order: table DDL lock, then ddl, then metadata locks; every
// DDL that waits for a table's metadata lock while holding ddl takes that
// table's DDL lock first, so it waits for a build before ddl, not while
// holding what the build needs to publish.

// Index prefix lengths (IX-n):
//
// IX-1 A secondary index key part may carry a prefix length n (a string or
// binary string column; n at most the column's length, and n equal to a
// CHAR/VARCHAR's whole length is no prefix). Its key holds the value cut
// to n characters or bytes (CODEC-9), so uniqueness is on the cut value,
// a lookup through it reads a superset that the backend filters
// (keyRange reports it inexact), and the index reports no order (Order,
// Reversible; rules RULE-18). A primary key part takes no prefix length.

func mdlKey(id uint32) []byte { return []byte(fmt.Sprintf("mdl/%d", id)) }

// erTableDefChanged is MySQL's ER_TABLE_DEF_CHANGED (vitess names no 1412).
const erTableDefChanged = 1412

// lockTable takes table id's DDL lock (MDL-3) and returns its release.
func (b *Backend) lockTable(id uint32) (unlock func()) {
	b.tableDDLMu.Lock()
	if b.tableDDL == nil {
		b.tableDDL = map[uint32]*sync.Mutex{}
	}
	m := b.tableDDL[id]
	if m == nil {
		m = new(sync.Mutex)
		b.tableDDL[id] = m
	}
	b.tableDDLMu.Unlock()
	m.Lock()
	return m.Unlock
}

// exclusiveMDL returns a transaction holding table t's metadata lock
// exclusively; the caller rolls it back to release it.
func (b *Backend) exclusiveMDL(t *table) (*engine.Tx, error) {
	tx := b.db.Begin()
	if err := tx.Lock(b.cat, mdlKey(t.def.ID)); err != nil {
		tx.Rollback()
		return nil, mapEngineErr(err)
	}
	return tx, nil
}

// current returns the table's latest runtime form (DDL swaps it).
func (tb *Table) current() (*table, error) {
	t := tb.t.latest()
	if t == nil || t.def.ID != tb.t.def.ID {
		return nil, sql.ErrTableNotFound.New(tb.t.def.Name)
	}
	return t, nil
}

// alterDef applies change to a copy of the current definition and
// publishes it (a catalog-only change: no rows move).
func (tb *Table) alterDef(ctx *sql.Context, change func(def *tableDef) error) error {
	b := tb.t.db.b
	defer b.lockTable(tb.t.def.ID)() // MDL-3
	b.ddl.Lock()
	defer b.ddl.Unlock()
	t, err := tb.current()
	if err != nil {
		return err
	}
	def := t.def.clone()
	if err := change(def); err != nil {
		return err
	}
	_, err = t.db.replaceTable(ctx, t, def)
	return err
}

// CreateIndex implements sql.IndexAlterableTable: the index is built from
// the table's rows in batches while writers are held off (MDL-2), without
// the backend's DDL lock (MDL-3), then published in the catalog.
func (tb *Table) CreateIndex(ctx *sql.Context, def sql.IndexDef) error {
	switch def.Constraint {
	case sql.IndexConstraint_None, sql.IndexConstraint_Unique:
	case sql.IndexConstraint_Spatial:
		return tb.createSpatialIndex(ctx, def) // FT-5
	default:
		return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "strata supports BTREE indexes only (index %s)", def.Name)
	}
	b := tb.t.db.b
	if s, err := sessionOf(ctx); err == nil {
		if err := s.implicitCommit(); err != nil {
			return err
		}
	}
	defer b.lockTable(tb.t.def.ID)() // MDL-3
	b.ddl.Lock()
	ddlHeld := true
	defer func() {
		if ddlHeld {
			b.ddl.Unlock()
		}
	}()
	t, err := tb.current()
	if err != nil {
		return err
	}
	for _, ix := range t.indexes {
		if strings.EqualFold(ix.def.Name, def.Name) {
			return sql.ErrDuplicateKey.New(def.Name)
		}
	}
	nd := indexDef{Name: def.Name, ID: t.def.NextIndexID, Unique: def.IsUnique(), Comment: def.Comment}
	var prefix []uint16
	for _, c := range def.Columns {
		o := t.sch.IndexOfColName(c.Name)
		if o < 0 {
			return sql.ErrKeyColumnDoesNotExist.New(c.Name)
		}
		nd.Columns = append(nd.Columns, o)
		n, err := t.prefixLength(o, c.Length)
		if err != nil {
			return err
		}
		prefix = append(prefix, n)
	}
	if slices.ContainsFunc(prefix, func(n uint16) bool { return n > 0 }) {
		nd.Prefix = prefix
	}
	ndef := t.def.clone()
	ndef.Indexes = append(ndef.Indexes, nd)
	ndef.NextIndexID++
	if _, err := openTableDef(ctx, t.db, ndef, nil); err != nil {
		return err
	}
	mdl, err := b.exclusiveMDL(t)
	if err != nil {
		return err
	}
	defer mdl.Rollback()
	ksName := indexKeyspace(t.def.ID, nd.ID)
	ks, err := b.db.CreateKeyspace(ksName)
	if err != nil {
		return err
	}
	b.ddl.Unlock() // MDL-3: build with only this table's locks
	ddlHeld = false
	ix := &index{t: t, def: nd, cols: nd.Columns, ks: ks}
	if err := backfill(ctx, b.db, t, ix); err != nil {
		b.db.DropKeyspace(ksName)
		return err
	}
	b.ddl.Lock()
	ddlHeld = true
	if cur, err := tb.current(); err != nil || cur != t {
		b.db.DropKeyspace(ksName)
		if err != nil {
			return err
		}
		return mysql.NewSQLError(erTableDefChanged, "HY000", "Table definition has changed, please retry transaction")
	}
	if _, err := t.db.replaceTable(ctx, t, ndef); err != nil {
		b.db.DropKeyspace(ksName)
		return err
	}
	return nil
}

// prefixLength validates the prefix length n declared for key part
// column o (IX-1): only string and binary string columns take one, at
// most the column's length; one equal to a CHAR/VARCHAR/BINARY/VARBINARY
// column's whole length is no prefix (as InnoDB keeps it).
func (t *table) prefixLength(o int, n int64) (uint16, error) {
	if n <= 0 {
		return 0, nil
	}
	c := t.cols[o]
	st, ok := t.sch[o].Type.(sql.StringType)
	if !ok || (c.kind != kString && c.kind != kBytes) || n > math.MaxUint16 {
		return 0, errWrongSubKey()
	}
	max := st.MaxCharacterLength()
	if c.kind == kBytes {
		max = st.MaxByteLength()
	}
	if n > max {
		return 0, errWrongSubKey()
	}
	if n == max && !types.IsTextBlob(t.sch[o].Type) {
		return 0, nil
	}
	return uint16(n), nil
}

// errWrongSubKey is MySQL's 1089 for a prefix length a key part cannot take.
func errWrongSubKey() error {
	return mysql.NewSQLError(mysql.ERWrongSubKey, "HY000",
		"Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys")
}

// Index builds (IX-n, continued):
//
// IX-2 CREATE INDEX fills the new index from one pass over the table
// under the exclusive metadata lock (MDL-2): entries are collected in
// chunks of at most indexBuildChunk bytes, each chunk sorted and written
// in key order (so the tree's leaves fill as they are appended, BT-6). A
// unique index's duplicates are found among sorted neighbours within a
// chunk, and through the tree for a chunk after the first (which may meet
// entries already written).
//
// IX-4 Each sorted chunk goes into the new, still unnamed index keyspace
// straight through its B+tree (engine LoadSorted: mini-transactions of
// many entries, no transaction, write set or version), durable before the
// catalog entry commits; a crash before leaves a valid, unnamed keyspace,
// dropped with its pages (CAT-2).
//
// IX-3 A non-locking read through a secondary index whose projected
// columns are all integer key parts of the index or of the primary key
// (not cut to a prefix) returns them from the index entries, without the
// primary-key lookup: an integer's key encoding gives its value back (a
// string's is its collation weight and does not), and the entry is the
// one the statement's snapshot sees, as the row would be.
//
// IX-5 A non-locking lookup whose range sets every primary-key column to
// one value (none cut to a prefix) reads that key with one Get, without
// a range iterator: the same row a scan of [key, prefixEnd(key)) returns
// (no other key starts with a complete primary key's encoding), through
// the same snapshot and own writes. A lookup join makes one per outer
// row; locking reads keep the scan (SES-9/SES-12 paths).
//
// IX-6 A non-locking read through a secondary index at a snapshot takes
// each entry's row without encoding the entry again from it to compare:
// the entry and the row both come from the statement's snapshot and the
// transaction's own writes (as IX-3's covered reads rely on), so they
// agree. A locking read (the latest versions) and a read without a
// snapshot (READ UNCOMMITTED) still compare, since the row may have
// changed after the entry was read.
//
// IX-7 A lookup join's equality of integer keys on a prefix of an index's
// columns (rules RULE-86) is read from the prefix of their encoded keys,
// [prefix, prefixEnd(prefix)), built from the values directly: the same
// rows as the range go-mysql-server builds for the lookup would give,
// since an integer's key is its value's whatever the column's width (a
// value beyond the column's range equals no stored key), and only
// integers of the column's sign, never cut to a prefix, are taken.

// indexBuildChunk is a variable for the tests, which shrink it to build
// through many chunks.
var indexBuildChunk = 64 << 20

// buildEntries is one chunk of an index build: entries in one arena.
type buildEntries struct {
	arena  []byte
	starts []int // entry i is arena[starts[i]:starts[i+1]]
	plen   []int // its prefix's length (the key parts; the rest is the primary key), -1 if a key part is NULL
}

func (e *buildEntries) add(entry []byte, prefixLen int) {
	if len(e.starts) == 0 {
		e.starts = append(e.starts, 0)
	}
	if cap(e.arena) == 0 { // a chunk's size, once: growing by copies cost a fifth of a build
		e.arena = make([]byte, 0, indexBuildChunk+indexBuildChunk/8)
	}
	e.arena = append(e.arena, entry...)
	e.starts = append(e.starts, len(e.arena))
	e.plen = append(e.plen, prefixLen)
}

func (e *buildEntries) len() int { return len(e.plen) }

func (e *buildEntries) entry(i int) []byte { return e.arena[e.starts[i]:e.starts[i+1]] }

func (e *buildEntries) reset() {
	e.arena, e.starts, e.plen = e.arena[:0], e.starts[:0], e.plen[:0]
}

// backfillHook, if set (tests), runs as a build starts.
var backfillHook func(t *table)

// backfill writes ix's entry for every row of t (IX-2).
func backfill(ctx *sql.Context, db *engine.DB, t *table, ix *index) error {
	if backfillHook != nil {
		backfillHook(t)
	}
	const scanBatch = 2000
	var from []byte
	row := make(sql.Row, len(t.cols))
	need := make([]bool, len(t.cols)) // only the index's columns are decoded
	for _, o := range ix.cols {
		need[o] = true
	}
	var entry []byte
	var chunk buildEntries
	chunks := 0
	for {
		tx := db.Begin()
		it := tx.Scan(t.primary, from, nil, false)
		n := 0
		var last []byte
		for n < scanBatch && it.Next() {
			pk := it.Key()
			if err := decodeColumns(ctx, it.Value(), t.cols, row, need, nil); err != nil {
				tx.Rollback()
				return err
			}
			var err error
			if entry, err = ix.appendPrefixKey(ctx, entry[:0], row); err != nil {
				tx.Rollback()
				return err
			}
			plen := len(entry)
			if ix.hasNull(row) {
				plen = -1
			}
			entry = append(entry, pk...)
			if err := checkKeyLen(entry); err != nil {
				tx.Rollback()
				return err
			}
			chunk.add(entry, plen)
			last = append(last[:0], pk...)
			n++
		}
		err := it.Err()
		it.Close()
		tx.Rollback()
		if err != nil {
			return err
		}
		done := n < scanBatch
		if done || len(chunk.arena) >= indexBuildChunk {
			if err := writeChunk(ctx, db, t, ix, &chunk, chunks > 0); err != nil {
				return err
			}
			chunks++
			chunk.reset()
		}
		if done {
			return nil
		}
		from = append(last, 0) // the next key after last
	}
}

// writeChunk sorts a chunk of index entries and writes them in key order,
// checking a unique index's entries (IX-2): against their neighbours, and
// against the tree when earlier chunks were written (probeTree).
func writeChunk(ctx *sql.Context, db *engine.DB, t *table, ix *index, c *buildEntries, probeTree bool) error {
	order, err := sortChunk(ctx, db, t, ix, c)
	if err != nil {
		return err
	}
	if probeTree && ix.def.Unique {
		// Against the entries of the chunks written before (IX-2).
		tx := db.Begin()
		defer tx.Rollback()
		for _, i := range order {
			entry, plen := c.entry(int(i)), c.plen[i]
			if plen < 0 {
				continue
			}
			prefix := entry[:plen]
			dup := tx.Scan(ix.ks, prefix, prefixEnd(prefix), false)
			for dup.Next() {
				if !bytes.Equal(dup.Key()[len(prefix):], entry[plen:]) {
					dup.Close()
					return duplicateEntry(ctx, db, t, entry[plen:])
				}
			}
			err := dup.Err()
			dup.Close()
			if err != nil {
				return mapEngineErr(err)
			}
		}
	}
	// IX-4: straight through the new, unnamed keyspace's tree.
	return mapEngineErr(db.LoadSorted(ix.ks, func(yield func(key, val []byte) bool) error {
		var touch byte
		for k, i := range order {
			// Entries are read in key order, scattered over the arena: a
			// load of one a few ahead overlaps its cache miss with this one.
			if k+prefetchAhead < len(order) {
				touch += c.arena[c.starts[order[k+prefetchAhead]]]
			}
			if !yield(c.entry(int(i)), nil) {
				break
			}
		}
		runtime.KeepAlive(touch) // the touches are not optimized away
		return nil
	}))
}

// prefetchAhead is how far ahead writeChunk touches entries.
const prefetchAhead = 8

// sortChunk returns the order of c's entries by key, refusing a unique
// index's duplicates among neighbours (IX-2).
func sortChunk(ctx *sql.Context, db *engine.DB, t *table, ix *index, c *buildEntries) ([]int32, error) {
	// Sorted by each entry's first 8 bytes held beside its number (one
	// cache line holds several), the arena read only on equal heads: a
	// head zero-padded past a short entry orders as the entry does.
	type ref struct {
		head uint64
		i    int32
	}
	refs := make([]ref, c.len())
	for i := range refs {
		var h [8]byte
		copy(h[:], c.entry(i))
		refs[i] = ref{binary.BigEndian.Uint64(h[:]), int32(i)}
	}
	slices.SortFunc(refs, func(a, b ref) int {
		if a.head != b.head {
			return cmp.Compare(a.head, b.head)
		}
		return bytes.Compare(c.entry(int(a.i)), c.entry(int(b.i)))
	})
	order := make([]int32, len(refs))
	for k, r := range refs {
		order[k] = r.i
	}
	if ix.def.Unique {
		for k := 1; k < len(order); k++ {
			a, b := int(order[k-1]), int(order[k])
			if c.plen[b] >= 0 && c.plen[a] == c.plen[b] && bytes.Equal(c.entry(a)[:c.plen[a]], c.entry(b)[:c.plen[b]]) {
				return nil, duplicateEntry(ctx, db, t, c.entry(b)[c.plen[b]:])
			}
		}
	}
	return order, nil
}

// duplicateEntry is the error for a unique index build meeting the row
// with primary key pk a second time.
func duplicateEntry(ctx *sql.Context, db *engine.DB, t *table, pk []byte) error {
	tx := db.Begin()
	defer tx.Rollback()
	v, found, err := tx.Get(t.primary, pk)
	if err != nil || !found {
		return sql.NewUniqueKeyErr(fmt.Sprintf("%x", pk), false, nil)
	}
	row := make(sql.Row, len(t.cols))
	if err := decodeRow(ctx, v, t.cols, row); err != nil {
		return err
	}
	return sql.NewUniqueKeyErr(fmt.Sprint(row), false, nil)
}

// DropIndex implements sql.IndexAlterableTable.
func (tb *Table) DropIndex(ctx *sql.Context, name string) error {
	b := tb.t.db.b
	if s, err := sessionOf(ctx); err == nil {
		if err := s.implicitCommit(); err != nil {
			return err
		}
	}
	defer b.lockTable(tb.t.def.ID)() // MDL-3
	b.ddl.Lock()
	defer b.ddl.Unlock()
	t, err := tb.current()
	if err != nil {
		return err
	}
	ndef := t.def.clone()
	var gone *indexDef
	for i, ix := range ndef.Indexes {
		if strings.EqualFold(ix.Name, name) {
			g := ix
			gone = &g
			ndef.Indexes = append(ndef.Indexes[:i], ndef.Indexes[i+1:]...)
			break
		}
	}
	if gone == nil {
		for i, ix := range ndef.FullText { // FT-1: go-mysql-server drops its pseudo-tables
			if strings.EqualFold(ix.Name, name) {
				ndef.FullText = append(ndef.FullText[:i], ndef.FullText[i+1:]...)
				_, err := t.db.replaceTable(ctx, t, ndef)
				return err
			}
		}
		for i, ix := range ndef.Spatial { // FT-5
			if strings.EqualFold(ix.Name, name) {
				ndef.Spatial = append(ndef.Spatial[:i], ndef.Spatial[i+1:]...)
				_, err := t.db.replaceTable(ctx, t, ndef)
				return err
			}
		}
		return sql.ErrIndexNotFound.New(name)
	}
	mdl, err := b.exclusiveMDL(t)
	if err != nil {
		return err
	}
	defer mdl.Rollback()
	if _, err := t.db.replaceTable(ctx, t, ndef); err != nil {
		return err
	}
	return b.db.DropKeyspace(indexKeyspace(t.def.ID, gone.ID))
}

// RenameIndex implements sql.IndexAlterableTable.
func (tb *Table) RenameIndex(ctx *sql.Context, from, to string) error {
	b := tb.t.db.b
	if s, err := sessionOf(ctx); err == nil {
		if err := s.implicitCommit(); err != nil {
			return err
		}
	}
	defer b.lockTable(tb.t.def.ID)() // MDL-3
	b.ddl.Lock()
	defer b.ddl.Unlock()
	t, err := tb.current()
	if err != nil {
		return err
	}
	ndef := t.def.clone()
	if ndef.hasIndexNamed(to) {
		return sql.ErrDuplicateKey.New(to)
	}
	found := false
	for _, n := range ndef.indexNames() { // B-tree, FULLTEXT (FT-1), SPATIAL (FT-5)
		if strings.EqualFold(*n, from) {
			*n = to
			found = true
		}
	}
	if !found {
		return sql.ErrIndexNotFound.New(from)
	}
	_, err = t.db.replaceTable(ctx, t, ndef)
	return err
}

// Truncate implements sql.TruncateableTable: the table gets fresh
// keyspaces under a new id (crash-safe by CAT-2) and its AUTO_INCREMENT
// restarts.
//
// go-mysql-server also calls Truncate for a DELETE without WHERE (its
// processTruncate rule, not removable), which must stay a DML statement:
// inside the transaction, undone by ROLLBACK, no implicit commit, the
// savepoints kept. Such a call deletes the rows one by one instead.
func (tb *Table) Truncate(ctx *sql.Context) (int, error) {
	if isDeleteStatement(ctx.Query()) || tb.t.temp != nil { // TMP-3
		return tb.deleteAll(ctx)
	}
	b := tb.t.db.b
	if s, err := sessionOf(ctx); err == nil {
		if err := s.implicitCommit(); err != nil {
			return 0, err
		}
	}
	defer b.lockTable(tb.t.def.ID)() // MDL-3
	b.ddl.Lock()
	defer b.ddl.Unlock()
	t, err := tb.current()
	if err != nil {
		return 0, err
	}
	mdl, err := b.exclusiveMDL(t)
	if err != nil {
		return 0, err
	}
	defer mdl.Rollback()
	count := 0
	{
		tx := b.db.Begin()
		it := tx.Scan(t.primary, nil, nil, false)
		for it.Next() {
			count++
		}
		tx.Rollback()
	}
	ndef := t.def.clone()
	ndef.AutoIncrement = 0
	b.mu.Lock()
	ndef.ID = b.nextTID
	b.nextTID++
	b.mu.Unlock()
	if err := b.createKeyspaces(ndef); err != nil {
		b.dropKeyspaces(ndef)
		return 0, err
	}
	nt, err := openTable(ctx, t.db, ndef)
	if err != nil {
		return 0, err
	}
	if err := b.writeCatalog(sessionFor(ctx), map[string][]byte{
		string(tableKey(t.db.name, ndef.Name)): encodeJSON(ndef),
		"seq":                                  seqValue(ndef.ID + 1),
	}); err != nil {
		return 0, err
	}
	nt.ctr.rowSeq.Store(uint64(time.Now().UnixNano()))
	t.db.mu.Lock()
	t.db.tables[strings.ToLower(ndef.Name)] = nt
	t.db.mu.Unlock()
	return count, t.dropKeyspaces()
}

var _ sql.IndexBuildingTable = (*Table)(nil)

// ShouldBuildIndex implements sql.IndexBuildingTable: CreateIndex builds
// and checks the index itself, under the metadata lock.
func (tb *Table) ShouldBuildIndex(*sql.Context, sql.IndexDef) (bool, error) { return false, nil }

// BuildIndex implements sql.IndexBuildingTable; go-mysql-server calls it
// for unique indexes, which CreateIndex has already built and checked.
func (tb *Table) BuildIndex(*sql.Context, sql.IndexDef) (sql.RowInserter, error) {
	return builtIndex{}, nil
}

type builtIndex struct{}

func (builtIndex) StatementBegin(*sql.Context)              {}
func (builtIndex) DiscardChanges(*sql.Context, error) error { return nil }
func (builtIndex) StatementComplete(*sql.Context) error     { return nil }
func (builtIndex) Insert(*sql.Context, sql.Row) error       { return nil }
func (builtIndex) Close(*sql.Context) error                 { return nil }

// isDeleteStatement reports whether query, past comments and blanks, is a
// DELETE (rather than TRUNCATE).
func isDeleteStatement(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	for {
		switch {
		case strings.HasPrefix(q, "/*"):
			end := strings.Index(q, "*/")
			if end < 0 {
				return false
			}
			q = strings.TrimLeft(q[end+2:], " \t\r\n(")
		case strings.HasPrefix(q, "#"), strings.HasPrefix(q, "-- "):
			end := strings.IndexByte(q, '\n')
			if end < 0 {
				return false
			}
			q = strings.TrimLeft(q[end+1:], " \t\r\n(")
		default:
			return len(q) >= 6 && strings.EqualFold(q[:6], "delete")
		}
	}
}

// deleteAll deletes every row of the table in the session's transaction,
// as a DELETE statement: all or nothing (ED-1 per row, the statement's
// savepoint for the whole).
func (tb *Table) deleteAll(ctx *sql.Context) (int, error) {
	s, err := sessionOf(ctx)
	if err != nil {
		return 0, err
	}
	e := tb.newEditor(ctx, false)
	tx, err := e.begin()
	if err != nil {
		return 0, err
	}
	t := e.t
	var rows []sql.Row
	it := tx.Scan(t.primary, nil, nil, false)
	for it.Next() {
		row := make(sql.Row, len(t.cols))
		if err := decodeRow(ctx, it.Value(), t.cols, row); err != nil {
			it.Close()
			return 0, err
		}
		rows = append(rows, row)
	}
	err = it.Err()
	it.Close()
	if err != nil {
		return 0, s.engineErr(err)
	}
	for _, row := range rows {
		if err := e.delete(ctx, tx, row); err != nil {
			s.rollbackTo(tx, e.sp)
			return 0, s.engineErr(err)
		}
	}
	t.ctr.rows.Add(-int64(len(rows)))
	s.rowsWritten.Add(uint64(len(rows)))
	return len(rows), nil
}
