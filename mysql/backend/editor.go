package backend

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"strata/engine"
	"strata/mysql/binlog"
)

// editor applies one statement's row changes to the session's engine
// transaction (SES-2: savepoint at StatementBegin, rollback to it on
// DiscardChanges). Every write keeps the clustered keyspace and each
// secondary index in step (IDX-1).
//
// ED-1 A row change is atomic: a row insert, update or delete that fails
// part way (a unique index conflict found after the clustered row was
// written) undoes its own writes before returning. INSERT IGNORE and ON
// DUPLICATE KEY UPDATE carry on after such an error, so a half-written
// row would otherwise stay (a row without its index entries).
type editor struct {
	t       *table
	s       *Session
	tx      *engine.Tx
	sp      int
	err     error
	replace bool // Delete removes the row with the same primary key (REPLACE)
	// byKey: Update and Delete act on the row stored under the given
	// row's primary key, without SES-3's comparison with it (FULLTEXT
	// pseudo-tables, whose editor computes old rows rather than reads
	// them: FT-3).
	byKey bool
	// rowBuf is insertRow's encoding scratch: the engine copies a value
	// it is given (Tx.Insert), so one buffer serves every row of a
	// multi-row INSERT (growing it per row was 10% of a bulk load's CPU).
	rowBuf []byte
}

var _ sql.TableEditor = (*editor)(nil)

func (tb *Table) newEditor(ctx *sql.Context, replace bool) *editor {
	e := &editor{t: tb.t, replace: replace}
	e.s, e.err = sessionOf(ctx)
	return e
}

func (tb *Table) Inserter(ctx *sql.Context) sql.RowInserter {
	return tb.withFullText(ctx, tb.newEditor(ctx, false))
}
func (tb *Table) Updater(ctx *sql.Context) sql.RowUpdater {
	return tb.withFullText(ctx, tb.newEditor(ctx, false))
}
func (tb *Table) Deleter(ctx *sql.Context) sql.RowDeleter {
	return tb.withFullText(ctx, tb.newEditor(ctx, false))
}
func (tb *Table) Replacer(ctx *sql.Context) sql.RowReplacer {
	return tb.withFullText(ctx, tb.newEditor(ctx, true))
}

// begin binds the editor to the session's transaction (lazily: GMS does
// not call StatementBegin on every path) and takes the table's shared
// metadata lock.
func (e *editor) begin() (*engine.Tx, error) {
	if e.err != nil {
		return nil, e.err
	}
	if e.s.gtx != nil && e.s.gtx.readOnly {
		return nil, sql.ErrReadOnlyTransaction.New()
	}
	tx, err := e.s.engineTx()
	if err != nil {
		return nil, err
	}
	if tx != e.tx {
		e.tx = tx
		e.sp = tx.Savepoint()
		if err := e.s.lockTableShared(e.t); err != nil {
			return nil, e.s.engineErr(err)
		}
		// The statement resolved the table before taking the metadata
		// lock: DDL may have published a new definition meanwhile. Indexes
		// added or dropped: write through the current one. Rows rewritten
		// (new id): the statement must be retried.
		cur := e.t.latest()
		if cur != e.t {
			if cur == nil || cur.def.ID != e.t.def.ID || len(cur.cols) != len(e.t.cols) {
				return nil, mysql.NewSQLError(1412, "HY000",
					"Table definition has changed, please retry transaction")
			}
			e.t = cur
		}
	}
	return tx, nil
}

// StatementBegin marks where DiscardChanges rolls back to. INSERT IGNORE
// calls it before every row (go-mysql-server's checkpointing editor), so
// a row that fails undoes only itself.
func (e *editor) StatementBegin(ctx *sql.Context) {
	var tx *engine.Tx
	if tx, e.err = e.begin(); e.err == nil {
		e.sp = tx.Savepoint()
		tx.SetInterrupt(ctx.Done()) // KILL QUERY ends a lock wait (1317)
	}
}

func (e *editor) DiscardChanges(ctx *sql.Context, cause error) error {
	if e.tx != nil && e.s.tx == e.tx {
		e.s.rollbackTo(e.tx, e.sp)
	}
	return nil
}

func (e *editor) StatementComplete(ctx *sql.Context) error { return nil }
func (e *editor) Close(ctx *sql.Context) error             { return nil }

// Insert implements sql.RowInserter.
func (e *editor) Insert(ctx *sql.Context, row sql.Row) error {
	tx, err := e.begin()
	if err != nil {
		return err
	}
	sp := tx.Savepoint()
	if err := e.insert(ctx, tx, row); err != nil {
		e.s.rollbackTo(tx, sp) // ED-1
		return e.s.engineErr(err)
	}
	e.inserted(ctx, row)
	return nil
}

// inserted counts a row a statement inserted and records its
// AUTO_INCREMENT value for the statement's insert ids (SES-8).
func (e *editor) inserted(ctx *sql.Context, row sql.Row) {
	e.t.ctr.rows.Add(1)
	e.s.rowsWritten.Add(1)
	e.s.wrote(ctx, e.t, row, true) // SES-8
}

func (e *editor) insertRow(ctx *sql.Context, tx *engine.Tx, row sql.Row) error {
	t := e.t
	if t.unsigned {
		if err := t.checkUnsigned(row); err != nil {
			return err
		}
	}
	var scratch []byte
	if !t.keyless() { // a keyless row's value is part of its keys (hidden key, CODEC-10): its own
		scratch = e.rowBuf[:0]
	}
	val, err := appendRow(ctx, scratch, t.cols, row)
	if err != nil {
		return err
	}
	if !t.keyless() {
		e.rowBuf = val
	}
	var key []byte
	if t.keyless() {
		key = t.newHiddenKey(val)
		if t.refs == nil {
			err = tx.Put(t.primary, key, val)
		} else if err = tx.Insert(t.primary, key, val); err == nil { // CODEC-10
			err = tx.Put(t.refs, rowRef(val, key), nil)
		}
	} else {
		if key, err = t.primaryKey(ctx, row); err != nil {
			return err
		}
		err = tx.Insert(t.primary, key, val)
		if errors.Is(err, engine.ErrKeyExists) {
			return e.dupErr(ctx, tx, "PRIMARY", nil, row, key)
		}
	}
	if err != nil {
		return err
	}
	for _, ix := range t.indexes {
		entry, err := ix.entryKey(ctx, row, key)
		if err != nil {
			return err
		}
		if ix.def.Unique && !ix.hasNull(row) {
			if err := e.checkUnique(ctx, tx, ix, row, key); err != nil {
				return err
			}
		}
		if err := tx.Put(ix.ks, entry, nil); err != nil {
			return err
		}
	}
	return nil
}

// checkUnique locks the index value of row and fails if another row holds
// it. Writers of one value serialize on that lock, so the scan is exact.
func (e *editor) checkUnique(ctx *sql.Context, tx *engine.Tx, ix *index, row sql.Row, pk []byte) error {
	prefix, err := ix.prefixKey(ctx, row)
	if err != nil {
		return err
	}
	if err := tx.Lock(ix.ks, prefix); err != nil {
		return err
	}
	it := tx.ScanCurrent(ix.ks, prefix, prefixEnd(prefix), false) // a current read (EN-8)
	defer it.Close()
	for it.Next() {
		other := it.Key()[len(prefix):]
		if !bytes.Equal(other, pk) {
			return e.dupErr(ctx, tx, ix.def.Name, ix, row, append([]byte{}, other...))
		}
	}
	return it.Err()
}

// lockUniqueValues takes the value locks of row's unique index entries
// (a delete or update must hold them so a concurrent insert of the same
// value waits for the outcome).
func (e *editor) lockUniqueValues(ctx *sql.Context, tx *engine.Tx, row sql.Row) error {
	for _, ix := range e.t.indexes {
		if ix.def.Unique && !ix.hasNull(row) {
			prefix, err := ix.prefixKey(ctx, row)
			if err != nil {
				return err
			}
			if err := tx.Lock(ix.ks, prefix); err != nil {
				return err
			}
		}
	}
	return nil
}

// dupErr builds go-mysql-server's unique key error (so INSERT IGNORE and
// ON DUPLICATE KEY UPDATE work) with the existing row.
func (e *editor) dupErr(ctx *sql.Context, tx *engine.Tx, name string, ix *index, row sql.Row, existingPK []byte) error {
	var existing sql.Row
	if v, found, err := tx.GetCurrent(e.t.primary, existingPK); err == nil && found {
		existing = make(sql.Row, len(e.t.cols))
		if decodeRow(ctx, v, e.t.cols, existing) != nil {
			existing = nil
		}
	}
	ords := e.t.pk
	if ix != nil {
		ords = ix.cols
	}
	vals := make([]string, len(ords))
	for i, o := range ords {
		switch v := row[o].(type) {
		case []byte:
			vals[i] = string(v)
		case string:
			vals[i] = v
		default:
			vals[i] = fmt.Sprint(v)
		}
		if ix != nil { // a key part cut to a prefix shows the cut (IX-1)
			if n := ix.def.prefixOf(i); n > 0 {
				if _, ok := row[o].([]byte); ok && len(vals[i]) > n {
					vals[i] = vals[i][:n]
				} else if r := []rune(vals[i]); len(r) > n {
					vals[i] = string(r[:n])
				}
			}
		}
	}
	// go-mysql-server's text stays as its tests know it; the server's
	// error mapping asks the session for MariaDB's (DupEntry).
	keyStr := "[" + strings.Join(vals, ",") + "]"
	e.s.noteDup(keyStr, strings.Join(vals, "-"), name)
	return sql.NewUniqueKeyErr(keyStr, ix == nil, existing)
}

// locate finds the stored key and value of row, locking the row.
func (e *editor) locate(ctx *sql.Context, tx *engine.Tx, row sql.Row) (key, stored []byte, found bool, err error) {
	t := e.t
	if !t.keyless() {
		if key, err = t.primaryKey(ctx, row); err != nil {
			return nil, nil, false, err
		}
		if l := &e.s.lastLocked; l.ks == t.primary && bytes.Equal(l.pk, key) {
			// The row the statement's locking scan just returned: no
			// second search unless a commit came since (or own writes).
			stored, found, err = tx.GetLockedScanned(t.primary, key, false, l.clock, l.val)
			if found {
				stored = append([]byte(nil), stored...)
			}
			return key, stored, found, err
		}
		stored, found, err = tx.GetForUpdate(t.primary, key)
		return key, stored, found, err
	}
	val, err := appendRow(ctx, nil, t.cols, row)
	if err != nil {
		return nil, nil, false, err
	}
	h := rowHash(val)
	if t.refs != nil {
		return e.locateByRef(tx, h, val)
	}
	it := tx.ScanCurrent(t.primary, h, prefixEnd(h), false)
	defer it.Close()
	for it.Next() {
		if bytes.Equal(it.Value(), val) {
			key = append([]byte{}, it.Key()...)
			break
		}
	}
	if err := it.Err(); err != nil || key == nil {
		return nil, nil, false, err
	}
	stored, found, err = tx.GetForUpdate(t.primary, key)
	if found && !bytes.Equal(stored, val) {
		found = false
	}
	return key, stored, found, err
}

// locateByRef finds a keyless row of value val (hash h) through the
// row references (CODEC-10): the first row id under h whose stored value
// is val, read under an exclusive lock.
func (e *editor) locateByRef(tx *engine.Tx, h, val []byte) (key, stored []byte, found bool, err error) {
	t := e.t
	var ids [][]byte
	it := tx.ScanCurrent(t.refs, h, prefixEnd(h), false)
	for it.Next() {
		ids = append(ids, append([]byte{}, it.Key()[len(h):]...))
	}
	err = it.Err()
	it.Close()
	if err != nil {
		return nil, nil, false, err
	}
	for _, id := range ids {
		stored, found, err = tx.GetForUpdate(t.primary, id)
		if err != nil {
			return nil, nil, false, err
		}
		if found && bytes.Equal(stored, val) {
			return id, stored, true, nil
		}
	}
	return nil, nil, false, nil
}

func (e *editor) changedErr() error {
	return mysql.NewSQLError(1020, "HY000", "Record has changed since last read in table '%s'", e.t.def.Name)
}

// Delete implements sql.RowDeleter.
func (e *editor) Delete(ctx *sql.Context, row sql.Row) error {
	tx, err := e.begin()
	if err != nil {
		return err
	}
	sp := tx.Savepoint()
	if err := e.delete(ctx, tx, row); err != nil {
		e.s.rollbackTo(tx, sp) // ED-1
		if sql.ErrDeleteRowNotFound.Is(err) {
			return err
		}
		return e.s.engineErr(err)
	}
	e.t.ctr.rows.Add(-1)
	e.s.rowsWritten.Add(1)
	return nil
}

func (e *editor) deleteRow(ctx *sql.Context, tx *engine.Tx, row sql.Row) (sql.Row, error) {
	t := e.t
	key, stored, found, err := e.locate(ctx, tx, row)
	if err != nil {
		return nil, err
	}
	if !found {
		if e.replace {
			return nil, sql.ErrDeleteRowNotFound.New()
		}
		return nil, e.changedErr()
	}
	if e.replace {
		// REPLACE passes the new row: delete what is stored under its key.
		old := make(sql.Row, len(t.cols))
		if err := decodeRow(ctx, stored, t.cols, old); err != nil {
			return nil, err
		}
		row = old
	} else if want, err := appendRow(ctx, nil, t.cols, row); err != nil {
		return nil, err
	} else if !bytes.Equal(want, stored) {
		if !e.byKey {
			return nil, e.changedErr() // SES-3 safety net: the row changed after it was read
		}
		row = make(sql.Row, len(t.cols)) // FT-3: the stored row is the one deleted
		if err := decodeRow(ctx, stored, t.cols, row); err != nil {
			return nil, err
		}
	}
	if err := e.lockUniqueValues(ctx, tx, row); err != nil {
		return nil, err
	}
	if err := tx.Delete(t.primary, key); err != nil {
		return nil, err
	}
	if t.refs != nil {
		if err := tx.Delete(t.refs, rowRef(stored, key)); err != nil {
			return nil, err
		}
	}
	for _, ix := range t.indexes {
		entry, err := ix.entryKey(ctx, row, key)
		if err != nil {
			return nil, err
		}
		if err := tx.Delete(ix.ks, entry); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// Update implements sql.RowUpdater.
func (e *editor) Update(ctx *sql.Context, old, row sql.Row) error {
	if e.t.unsigned {
		if err := e.t.checkUnsigned(row); err != nil {
			return err
		}
	}
	tx, err := e.begin()
	if err != nil {
		return err
	}
	for i, c := range e.t.sch {
		if row[i] == nil && !c.Nullable {
			// go-mysql-server checks this for UPDATE but not for the
			// update of INSERT ... ON DUPLICATE KEY UPDATE.
			return mysql.NewSQLError(1048, "23000", "Column '%s' cannot be null", c.Name)
		}
	}
	sp := tx.Savepoint()
	if err := e.update(ctx, tx, old, row); err != nil {
		e.s.rollbackTo(tx, sp) // ED-1
		return e.s.engineErr(err)
	}
	e.s.rowsWritten.Add(1)
	if e.t.autoCol >= 0 && rowChanged(ctx, e.t.sch, old, row) {
		e.s.wrote(ctx, e.t, row, false) // SES-8
	}
	return nil
}

func (e *editor) updateRow(ctx *sql.Context, tx *engine.Tx, old, row sql.Row) error {
	t := e.t
	if t.keyless() && t.refs == nil {
		if _, err := e.deleteRow(ctx, tx, old); err != nil {
			return err
		}
		return e.insertRow(ctx, tx, row)
	}
	oldKey, stored, found, err := e.locate(ctx, tx, old)
	if err != nil {
		return err
	}
	oldVal, err := appendRow(ctx, nil, t.cols, old)
	if err != nil {
		return err
	}
	if !found || !bytes.Equal(oldVal, stored) && !e.byKey {
		return e.changedErr() // SES-3 safety net
	}
	if e.byKey && !bytes.Equal(oldVal, stored) { // the stored row is the old one (FT-3)
		old = make(sql.Row, len(t.cols))
		if err := decodeRow(ctx, stored, t.cols, old); err != nil {
			return err
		}
	}
	newKey := oldKey // a keyless row keeps its row id (CODEC-10)
	if !t.keyless() {
		if newKey, err = t.primaryKey(ctx, row); err != nil {
			return err
		}
	}
	newVal, err := appendRow(ctx, nil, t.cols, row)
	if err != nil {
		return err
	}
	if t.refs != nil {
		if err := tx.Delete(t.refs, rowRef(stored, oldKey)); err != nil {
			return err
		}
		if err := tx.Put(t.refs, rowRef(newVal, newKey), nil); err != nil {
			return err
		}
	}
	if bytes.Equal(oldKey, newKey) {
		if err := tx.Put(t.primary, newKey, newVal); err != nil {
			return err
		}
	} else {
		if err := tx.Insert(t.primary, newKey, newVal); errors.Is(err, engine.ErrKeyExists) {
			return e.dupErr(ctx, tx, "PRIMARY", nil, row, newKey)
		} else if err != nil {
			return err
		}
		if err := tx.Delete(t.primary, oldKey); err != nil {
			return err
		}
	}
	for _, ix := range t.indexes {
		oe, err := ix.entryKey(ctx, old, oldKey)
		if err != nil {
			return err
		}
		ne, err := ix.entryKey(ctx, row, newKey)
		if err != nil {
			return err
		}
		if bytes.Equal(oe, ne) {
			continue
		}
		if ix.def.Unique {
			if err := e.lockUniqueValues(ctx, tx, old); err != nil {
				return err
			}
		}
		// The old entry goes before the check: when only the primary key
		// changed, the row's own entry (same value, old key) is not a
		// duplicate of it.
		if err := tx.Delete(ix.ks, oe); err != nil {
			return err
		}
		if ix.def.Unique && !ix.hasNull(row) {
			if err := e.checkUnique(ctx, tx, ix, row, newKey); err != nil {
				return err
			}
		}
		if err := tx.Put(ix.ks, ne, nil); err != nil {
			return err
		}
	}
	return nil
}

// ---- AUTO_INCREMENT (sql.AutoIncrementTable) ----

func (tb *Table) PeekNextAutoIncrementValue(ctx *sql.Context) (uint64, error) {
	t := tb.t
	if t.autoCol < 0 {
		return 0, nil
	}
	t.ctr.mu.Lock()
	defer t.ctr.mu.Unlock()
	if err := t.initAuto(ctx); err != nil {
		return 0, err
	}
	return t.ctr.autoNext, nil
}

// GetNextAutoIncrementValue hands out the next value when given is nil and
// otherwise moves the counter past the given value.
func (tb *Table) GetNextAutoIncrementValue(ctx *sql.Context, given any) (uint64, error) {
	t := tb.t
	t.ctr.mu.Lock()
	defer t.ctr.mu.Unlock()
	if err := t.initAuto(ctx); err != nil {
		return 0, err
	}
	if given == nil {
		v := t.ctr.autoNext
		t.ctr.autoNext++
		if s, err := sessionOf(ctx); err == nil {
			s.handOut(t, v) // SES-8
		}
		return v, nil
	}
	var cv any
	var err error
	if t.autoCol >= 0 {
		cv, err = t.cols[t.autoCol].canonical(ctx, given)
	} else {
		cv, _, err = types.Uint64.Convert(ctx, given)
	}
	if err != nil {
		return 0, err
	}
	var v uint64
	switch x := cv.(type) {
	case int64:
		if x > 0 {
			v = uint64(x)
		}
	case uint64:
		v = x
	case float64:
		if x > 0 {
			v = uint64(x)
		}
	}
	if v+1 > t.ctr.autoNext {
		t.ctr.autoNext = v + 1
	}
	return v, nil
}

func (tb *Table) AutoIncrementSetter(ctx *sql.Context) sql.AutoIncrementSetter {
	return &autoSetter{tb: tb}
}

type autoSetter struct{ tb *Table }

func (a *autoSetter) SetAutoIncrementValue(ctx *sql.Context, v uint64) error {
	t := a.tb.t
	d := t.db
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	cur := t.latest()
	if cur == nil {
		return sql.ErrTableNotFound.New(t.def.Name)
	}
	def := cur.def.clone()
	def.AutoIncrement = v
	if _, err := d.replaceTable(ctx, cur, def); err != nil {
		return err
	}
	cur.ctr.mu.Lock()
	cur.ctr.autoNext, cur.ctr.autoInit = v, false
	cur.ctr.mu.Unlock()
	return nil
}

func (a *autoSetter) AcquireAutoIncrementLock(ctx *sql.Context) (func(), error) {
	return func() {}, nil
}

func (a *autoSetter) Close(*sql.Context) error { return nil }

// insert, delete and update make a row change and capture it for the
// binary log (binlog BL-2: tagged with the savepoint before it, so that a
// rollback to a savepoint drops it with the change).
func (e *editor) insert(ctx *sql.Context, tx *engine.Tx, row sql.Row) error {
	sp := tx.Savepoint()
	if err := e.insertRow(ctx, tx, row); err != nil {
		return err
	}
	bt, err := e.binlogTable()
	if bt == nil || err != nil {
		return err
	}
	return e.s.binlog.Insert(sp, bt, row)
}

func (e *editor) delete(ctx *sql.Context, tx *engine.Tx, row sql.Row) error {
	sp := tx.Savepoint()
	deleted, err := e.deleteRow(ctx, tx, row)
	if err != nil {
		return err
	}
	bt, err := e.binlogTable()
	if bt == nil || err != nil {
		return err
	}
	return e.s.binlog.Delete(sp, bt, deleted)
}

func (e *editor) update(ctx *sql.Context, tx *engine.Tx, old, row sql.Row) error {
	sp := tx.Savepoint()
	if err := e.updateRow(ctx, tx, old, row); err != nil {
		return err
	}
	bt, err := e.binlogTable()
	if bt == nil || err != nil {
		return err
	}
	return e.s.binlog.Update(sp, bt, old, row)
}

// binlogTable is the table as the binary log describes it, or nil when
// its changes are not logged: the log is off, the statement is logged as
// its text (a DDL, CAT-7: an ALTER's copy of the rows; LogAsText), a
// temporary table, a FULLTEXT pseudo-table (byKey, FT-3).
func (e *editor) binlogTable() (*binlog.Table, error) {
	if e.s.binlog == nil || e.s.binlogText || e.s.stmtText != "" || e.byKey || e.t.temp != nil {
		return nil, nil
	}
	t := e.t
	if bt := t.binlog.Load(); bt != nil {
		return bt, nil
	}
	bt, err := binlog.NewTable(uint64(t.def.ID), t.db.name, t.def.Name, t.sch)
	if err != nil {
		return nil, err
	}
	t.binlog.Store(bt)
	return bt, nil
}
