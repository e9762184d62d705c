package backend

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"

	"strata/engine"
	"strata/mysql/rules"
)

// Fast-path access: the engine operations behind the server's fast path
// (mysql/server/fastpath.go), which answers the common single-table OLTP
// statements without go-mysql-server's per-execute analysis.
//
// FPB-1 Only tables with a primary key qualify, and only INSERT takes a
// table whose primary key has several columns (SingleKey: the keyed
// operations read one key column). Every
// operation returns ErrFallback, having undone whatever it did, when it
// meets anything it does not handle exactly as go-mysql-server would; the
// server then runs the statement through go-mysql-server.
// FPB-2 Reads run in the session's transaction (the open engine
// transaction, or a fresh read-only one released at once), with
// go-mysql-server's visibility.
// FPB-3 Writes run as one statement: in the open transaction (after the
// table's metadata lock, undone to the statement's savepoint on failure),
// or in autocommit mode in their own engine transaction, committed
// durably before the reply. They go through the same editor code as
// go-mysql-server's writes (indexes, unique checks, row counters), and
// only on tables without triggers or foreign keys (either side) or enforced
// CHECK constraints (go-mysql-server evaluates them), with no
// generated or ON UPDATE columns, while the server is not read_only.
// FPB-4 A string stored into a character column converts to itself when it
// is valid UTF-8 within the column's length limit (characters, bytes for
// TEXT; its byte length bounds its characters): what go-mysql-server's
// StringType.Convert returns then, without its two copies. Anything else
// goes through Convert.
// FPB-6 A write may run with triggers only where the fast path says so
// for the triggers of the table's database, under the metadata lock too
// (AllowTriggers): those the statement fires are none, or those it runs
// itself (fastpath FP-12: an INSERT's AFTER INSERT trigger updating
// another table by key, through UpdateByKeyWithin in the INSERT's
// statement and transaction, after each row: Insert's after).
// FPB-5 A plain decimal literal stored into a DECIMAL column of at most
// 18 digits, exact at the column's scale and in its range, is the
// column's decimal directly (PlainDecimal); anything else goes through
// Convert and the exactness check of FP-9.

// PlainDecimal converts s, a plain decimal literal ([-]digits[.digits]),
// for DECIMAL column o when the value is exact at the column's scale and
// in its range (FPB-5): the decimal go-mysql-server's Convert gives then
// (the digits at the column's scale, exponent -scale), without its three
// parses. Anything else is false: Convert decides.
func (ft *FastTable) PlainDecimal(o int, s string) (decimal.Decimal, bool) {
	dt, ok := ft.t.sch[o].Type.(sql.DecimalType)
	if !ok {
		return decimal.Decimal{}, false
	}
	return plainDecimal(s, int(dt.Precision()), int(dt.Scale()), ft.t.def.Columns[o].Unsigned)
}

// plainDecimal is PlainDecimal for a DECIMAL(prec, scale) [UNSIGNED].
func plainDecimal(s string, prec, scale int, unsigned bool) (decimal.Decimal, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		if unsigned {
			return decimal.Decimal{}, false // CAT-5: the general path's answer
		}
		s = s[1:]
	}
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || dot && frac == "" || len(frac) > scale || prec > 18 {
		return decimal.Decimal{}, false
	}
	var coef int64
	digits := 0 // of the whole part, past leading zeros
	for i := 0; i < len(whole); i++ {
		c := whole[i]
		if c < '0' || c > '9' {
			return decimal.Decimal{}, false
		}
		if digits > 0 || c != '0' {
			digits++
		}
		coef = coef*10 + int64(c-'0')
	}
	if digits > prec-scale {
		return decimal.Decimal{}, false // out of range: Convert's error
	}
	for i := 0; i < scale; i++ {
		d := int64(0)
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return decimal.Decimal{}, false
			}
			d = int64(c - '0')
		}
		coef = coef*10 + d
	}
	if neg {
		coef = -coef
	}
	return decimal.New(coef, -int32(scale)), true
}

// convertsToItself reports a string that column c's type converts to the
// same string (FPB-4).
func (c *colCodec) convertsToItself(v any) bool {
	s, ok := v.(string)
	return ok && c.kind == kString && len(s) <= c.strMax && utf8.ValidString(s)
}

// ErrFallback tells the fast path to hand the statement to go-mysql-server.
var ErrFallback = errors.New("backend: not a fast-path statement")

// FastTable is a table resolved for one fast-path execution.
type FastTable struct {
	s *Session
	t *table
	// triggersOK decides, from the definitions of the triggers of the
	// table's database, whether the statement may run with them (FPB-6);
	// nil: only without any.
	triggersOK func([]sql.TriggerDefinition) bool
}

// FastTable resolves table in the current database if its primary key is
// a single column (FPB-1).
func (s *Session) FastTable(table string) (*FastTable, bool) {
	s.b.mu.RLock()
	d := s.b.dbs[strings.ToLower(s.GetCurrentDatabase())]
	s.b.mu.RUnlock()
	if d == nil {
		return nil, false
	}
	t := d.lookup(table)
	if s.temporary(d.name, table) != nil {
		return nil, false // a temporary table is go-mysql-server's to serve
	}
	if t == nil || len(t.pk) == 0 || !t.visibleTo(s) {
		return nil, false
	}
	return &FastTable{s: s, t: t}, true
}

// SingleKey reports a primary key of one column, which the keyed
// operations need (FPB-1).
func (ft *FastTable) SingleKey() bool { return len(ft.t.pk) == 1 }

// IsKey reports whether name is the primary key's only column.
func (ft *FastTable) IsKey(name string) bool {
	return ft.SingleKey() && strings.EqualFold(ft.t.sch[ft.t.pk[0]].Name, name)
}

// Ordinal is the position of column name in the table's rows, or -1.
func (ft *FastTable) Ordinal(name string) int { return ft.t.sch.IndexOfColName(name) }

// Column is the table's column at ordinal o.
func (ft *FastTable) Column(o int) *sql.Column { return ft.t.sch[o] }

// Width is the number of columns of the table's rows.
func (ft *FastTable) Width() int { return len(ft.t.cols) }

// KeyOrdinal is the primary key column's ordinal.
func (ft *FastTable) KeyOrdinal() int { return ft.t.pk[0] }

// ResultColumn is the metadata go-mysql-server gives the projected column
// at ordinal o written as name in the query: the name as written, the
// table name lower-cased.
func (ft *FastTable) ResultColumn(name string, o int) *sql.Column {
	col := ft.t.sch[o]
	return &sql.Column{Name: name, Source: strings.ToLower(ft.t.def.Name), DatabaseSource: ft.t.db.name,
		Type: col.Type, Nullable: col.Nullable}
}

// Convert converts v to column o's type; ok is false if go-mysql-server
// would not store it unchanged (an error, a value out of range).
func (ft *FastTable) Convert(ctx *sql.Context, o int, v any) (any, bool) {
	if ft.t.cols[o].convertsToItself(v) { // FPB-4
		return v, true
	}
	if types.IsDecimal(ft.t.sch[o].Type) { // rules RULE-25, on the general path
		switch s := v.(type) {
		case string:
			if rules.HugeExponent(s) {
				return nil, false
			}
		case []byte:
			if rules.HugeExponent(string(s)) {
				return nil, false
			}
		}
	}
	cv, inRange, err := ft.t.sch[o].Type.Convert(ctx, v)
	if err != nil || inRange != sql.InRange {
		return nil, false
	}
	if ft.t.def.Columns[o].Unsigned && negative(cv) { // CAT-5: the general path's RULE-57 answers
		return nil, false
	}
	if ts, ok := cv.(types.Timespan); ok && int64(ts)%1e6 != 0 { // RULE-59 rounds it
		return nil, false
	}
	if _, err := ft.t.cols[o].canonical(ctx, cv); err != nil {
		return nil, false
	}
	return cv, true
}

// encodeKey encodes a primary key value; one outside the column's range
// falls back (go-mysql-server v0.20 clamps it to the range's end).
// AddInt returns v, a value of integer column o, plus delta; false for
// NULL, a non-integer or an overflow of 64 bits (go-mysql-server's error).
// The caller converts the result to the target column (Convert).
func (ft *FastTable) AddInt(ctx *sql.Context, o int, v any, delta int64) (any, bool) {
	if v == nil {
		return nil, false
	}
	cv, err := ft.t.cols[o].canonical(ctx, v)
	if err != nil {
		return nil, false
	}
	switch x := cv.(type) {
	case int64:
		r := x + delta
		if (delta > 0 && r < x) || (delta < 0 && r > x) {
			return nil, false
		}
		return r, true
	case uint64:
		if delta >= 0 {
			r := x + uint64(delta)
			return r, r >= x
		}
		if uint64(-delta) > x {
			return nil, false
		}
		return x - uint64(-delta), true
	}
	return nil, false
}

// AddDecimal returns v, a value of DECIMAL column o, plus d, converted
// to the column: false for NULL, a non-decimal, or a sum the column does
// not hold exactly (go-mysql-server rounds it or fails the statement).
func (ft *FastTable) AddDecimal(ctx *sql.Context, o int, v any, d decimal.Decimal) (any, bool) {
	x, ok := v.(decimal.Decimal)
	if !ok {
		return nil, false
	}
	sum := x.Add(d)
	cv, ok := ft.Convert(ctx, o, sum)
	if !ok {
		return nil, false
	}
	if c, ok := cv.(decimal.Decimal); !ok || !c.Equal(sum) {
		return nil, false
	}
	return cv, true
}

func (ft *FastTable) encodeKey(ctx *sql.Context, key any) ([]byte, error) {
	key, ok := ft.Convert(ctx, ft.t.pk[0], key)
	if !ok {
		return nil, ErrFallback
	}
	k, err := ft.t.primaryKey(ctx, keyRow(ft.t, key))
	if err != nil {
		return nil, ErrFallback
	}
	return k, nil
}

// AppendEqualityKey appends to b an encoding of value v of column o under
// which two values are equal exactly when the column's type says so (its
// collation's weights for strings: CODEC-1, CODEC-3).
func (ft *FastTable) AppendEqualityKey(ctx *sql.Context, b []byte, o int, v any) ([]byte, error) {
	return ft.t.cols[o].appendKey(ctx, b, v)
}

// StringOrder returns the order of column o's stored string values that
// AppendEqualityKey's keys have (CODEC-14): cmp compares two values, and
// where two values' prefixes (both ok) differ, so do the values, the same
// way. Both are nil when o is not a string column; their ok is false for a
// malformed string (prefix: also where it has none).
func (ft *FastTable) StringOrder(o int) (cmp func(a, b string) (int, bool), prefix func(s string) (uint64, bool)) {
	c := &ft.t.cols[o]
	if c.kind != kString {
		return nil, nil
	}
	return c.compareStrings, c.weightPrefix
}

func keyRow(t *table, key any) sql.Row {
	row := make(sql.Row, len(t.cols))
	row[t.pk[0]] = key
	return row
}

// readTx returns the transaction a read runs in (FPB-2) and its release.
// Its plain reads go through the transaction's snapshot (SES-9); outside a
// transaction a range scan takes a snapshot of its own, so that the one
// statement reads one state of the table, and a point read needs none.
func (s *Session) readTx(ctx *sql.Context, scan bool) (*engine.Tx, func(), error) {
	if s.tx == nil && s.GetTransaction() == nil {
		tmp := s.b.db.Begin()
		if scan && s.isolation(ctx) != "READ-UNCOMMITTED" {
			tmp.SetSnapshot()
		}
		return tmp, tmp.Rollback, nil
	}
	if s.txIsolation == "SERIALIZABLE" || (s.txIsolation == "" && s.serializableRead(ctx)) {
		return nil, nil, ErrFallback // its plain reads lock (SES-9)
	}
	tx, err := s.engineTx()
	if err != nil {
		return nil, nil, err
	}
	s.consistentRead(ctx, tx)
	return tx, func() {}, nil
}

// Get reads the row with primary key key: the columns with need[o] (all
// if need is nil), the others nil.
func (ft *FastTable) Get(ctx *sql.Context, key any, need []bool) (sql.Row, bool, error) {
	s, t := ft.s, ft.t
	k, err := ft.encodeKey(ctx, key)
	if err != nil {
		return nil, false, err
	}
	tx, release, err := s.readTx(ctx, false)
	if err != nil {
		return nil, false, err
	}
	defer release()
	v, found, err := tx.Get(t.primary, k)
	if err != nil || !found {
		return nil, false, s.engineErr(err)
	}
	row := make(sql.Row, len(t.cols))
	if err := decodeColumns(ctx, v, t.cols, row, need, nil); err != nil {
		return nil, false, err
	}
	s.rowsRead.Add(1)
	return row, true, nil
}

// Scan calls fn with every row whose primary key is between lo and hi
// inclusive, in key order: the columns with need[o] (all if need is nil),
// the others nil. fn must not keep the row.
func (ft *FastTable) Scan(ctx *sql.Context, lo, hi any, need []bool, fn func(sql.Row) error) error {
	s, t := ft.s, ft.t
	loKey, err := ft.encodeKey(ctx, lo)
	if err != nil {
		return err
	}
	hiKey, err := ft.encodeKey(ctx, hi)
	if err != nil {
		return err
	}
	tx, release, err := s.readTx(ctx, true)
	if err != nil {
		return err
	}
	defer release()
	return ft.eachRow(ctx, tx.Scan(t.primary, loKey, prefixEnd(hiKey), false), need, fn,
		func(it *engine.Iterator) ([]byte, error) { return it.Value(), nil })
}

// eachRow calls fn with the row of every entry of it, closing it: the
// encoded row is value(it) (the entry's value in the primary keyspace, or
// its row read by primary key from a secondary index).
func (ft *FastTable) eachRow(ctx *sql.Context, it *engine.Iterator, need []bool, fn func(sql.Row) error,
	value func(*engine.Iterator) ([]byte, error)) error {
	defer it.Close()
	s, t := ft.s, ft.t
	row := make(sql.Row, len(t.cols))
	n := uint64(0)
	for it.Next() {
		v, err := value(it)
		if err != nil {
			return err
		}
		if err := decodeColumns(ctx, v, t.cols, row, need, nil); err != nil {
			return err
		}
		n++
		if err := fn(row); err != nil {
			return err
		}
	}
	s.rowsRead.Add(n)
	return s.engineErr(it.Err())
}

// IndexOrdinal is the column ordinal of an integer or string column that
// a single-column secondary index without a prefix length covers, or -1
// (the columns LookupEqual reads through; a string's index key is its
// collation key, CODEC-1, so equal keys are the collation's equal values).
func (ft *FastTable) IndexOrdinal(name string) int {
	o := ft.t.sch.IndexOfColName(name)
	if o < 0 || !types.IsInteger(ft.t.sch[o].Type) && !types.IsTextOnly(ft.t.sch[o].Type) || ft.equalityIndex(o) == nil {
		return -1
	}
	return o
}

func (ft *FastTable) equalityIndex(o int) *index {
	for _, ix := range ft.t.indexes {
		if len(ix.cols) == 1 && ix.cols[0] == o && ix.def.Prefix == nil {
			return ix
		}
	}
	return nil
}

// LookupEqual calls fn with every row whose column o (an IndexOrdinal)
// equals key, in primary key order, read through the
// column's index in the session's transaction (FPB-2): the columns with
// need[o] (all if need is nil), the others nil. fn must not keep the row.
// A key outside the column's range falls back (go-mysql-server compares
// it as a number; the index holds the column's range only).
func (ft *FastTable) LookupEqual(ctx *sql.Context, o int, key any, need []bool, fn func(sql.Row) error) error {
	s, t := ft.s, ft.t
	ix := ft.equalityIndex(o)
	if ix == nil {
		return ErrFallback
	}
	v, ok := ft.Convert(ctx, o, key)
	if !ok {
		return ErrFallback
	}
	probe := make(sql.Row, len(t.cols))
	probe[o] = v
	prefix, err := ix.prefixKey(ctx, probe)
	if err != nil {
		return ErrFallback
	}
	tx, release, err := s.readTx(ctx, true)
	if err != nil {
		return err
	}
	defer release()
	return ft.eachRow(ctx, tx.Scan(ix.ks, prefix, prefixEnd(prefix), false), need, fn,
		func(it *engine.Iterator) ([]byte, error) {
			val, found, err := tx.Get(t.primary, it.Key()[len(prefix):])
			if err != nil {
				return nil, s.engineErr(err)
			}
			if !found {
				return nil, ErrFallback // an index entry without its row: go-mysql-server's to report
			}
			return val, nil
		})
}

// Count is the number of rows the session's statement sees (FPB-2),
// counted over the primary keys without decoding a row.
func (ft *FastTable) Count(ctx *sql.Context) (int64, error) {
	s, t := ft.s, ft.t
	tx, release, err := s.readTx(ctx, true)
	if err != nil {
		return 0, err
	}
	defer release()
	it := tx.Scan(t.primary, nil, nil, false)
	defer it.Close()
	n := int64(0)
	for it.Next() {
		n++
	}
	s.rowsRead.Add(uint64(n))
	return n, s.engineErr(it.Err())
}

// Triggered reports whether the statement may not run with the triggers
// of the table's database (FPB-3, FPB-6): the fast path asks before it
// converts a write's values and begins its transaction (trigger-maintained
// tables cost both, then fell back on every INSERT); write asks again
// under the metadata lock.
func (ft *FastTable) Triggered() bool {
	defs := ft.Triggers()
	return len(defs) > 0 && (ft.triggersOK == nil || !ft.triggersOK(defs))
}

// Triggers are the definitions of the triggers of the table's database.
func (ft *FastTable) Triggers() []sql.TriggerDefinition {
	d := ft.t.db
	d.mu.RLock()
	defer d.mu.RUnlock()
	if len(d.triggers) == 0 {
		return nil
	}
	out := make([]sql.TriggerDefinition, 0, len(d.triggers))
	for _, t := range d.triggers {
		out = append(out, t)
	}
	return out
}

// HasTable reports whether the table's database has a table name (a
// trigger naming another, a renamed table's, may be on this one: FPB-6).
func (ft *FastTable) HasTable(name string) bool { return ft.t.db.lookup(name) != nil }

// AllowTriggers makes ok decide whether the statement may run with the
// triggers of the table's database (FPB-6): those it fires are none, or
// the ones the caller runs itself.
func (ft *FastTable) AllowTriggers(ok func([]sql.TriggerDefinition) bool) { ft.triggersOK = ok }

// writable reports whether writes to the table may take the fast path
// (FPB-3).
func (ft *FastTable) writable(ctx *sql.Context) bool {
	t := ft.t
	if len(t.def.ForeignKeys) > 0 || len(t.def.FullText) > 0 { // FT-3
		return false
	}
	for _, c := range t.def.Checks {
		if c.Enforced {
			return false // go-mysql-server evaluates CHECK constraints (3819)
		}
	}
	for _, c := range t.sch {
		if c.Generated != nil || c.OnUpdate != nil {
			return false
		}
	}
	if _, ro, ok := sql.SystemVariables.GetGlobal("read_only"); ok {
		if on, err := sql.ConvertToBool(ctx, ro); err != nil || on {
			return false
		}
	}
	// A read-only transaction or session: the general path refuses the
	// write with 1792 (rules RULE-52, go-mysql-server's own check).
	if ft.s.gtx != nil && ft.s.gtx.readOnly {
		return false
	}
	if ro, err := ft.s.GetSessionVariable(ctx, "transaction_read_only"); err != nil {
		return false
	} else if on, err := sql.ConvertToBool(ctx, ro); err != nil || on {
		return false
	}
	if ft.Triggered() {
		return false
	}
	refs, err := (&Table{t: t}).GetReferencedForeignKeys(ctx)
	return err == nil && len(refs) == 0
}

// write runs fn as one statement (FPB-3). fn returning ErrFallback, or an
// error the editors report as a statement error go-mysql-server words
// itself (a duplicate key), undoes the statement and returns ErrFallback.
func (ft *FastTable) write(ctx *sql.Context, fn func(e *editor, tx *engine.Tx) error) error {
	s := ft.s
	auto := s.GetTransaction() == nil
	if auto && s.tx != nil {
		return ErrFallback // a leftover the next StartTransaction would clean
	}
	e := &editor{t: ft.t, s: s}
	tx, err := e.begin() // takes the table's metadata lock
	if err != nil {
		if auto {
			s.endTx(false)
		}
		if isLockError(err) {
			// Already mapped (a deadlock also ended the transaction,
			// SES-4): the client's answer, not a reason to retry.
			return err
		}
		return ErrFallback
	}
	switch {
	case e.t != ft.t:
		// DDL published a new definition after this statement resolved the
		// table: resolve again through go-mysql-server.
		err = ErrFallback
	case !ft.writable(ctx):
		err = ErrFallback
	default:
		err = fn(e, tx)
	}
	if err == nil {
		s.b.fastWrites.Add(1)
		if auto {
			return s.endTx(true)
		}
		return nil
	}
	// The statement's changes are undone before the error is mapped (a
	// deadlock ends the transaction there, SES-4).
	s.rollbackTo(tx, e.sp)
	var uk *sql.UniqueKeyError
	switch {
	case errors.Is(err, engine.ErrDeadlock) || errors.Is(err, engine.ErrLockWaitTimeout):
		err = s.engineErr(err)
	case isLockError(err):
	case errors.As(err, &uk), sql.ErrUniqueKeyViolation.Is(err):
		err = ErrFallback
	default:
		err = mapEngineErr(err)
	}
	if auto {
		s.endTx(false)
	}
	return err
}

// isLockError reports a deadlock or lock wait timeout already mapped for
// the client.
func isLockError(err error) bool {
	var se *mysql.SQLError
	return errors.As(err, &se) && (se.Num == mysql.ERLockDeadlock || se.Num == mysql.ERLockWaitTimeout)
}

// UpdateByKey changes the row with primary key key to change(row) (which
// may modify row in place and must not change the key); matched is 0 or 1
// and changed 0 when change left the row equal (go-mysql-server's
// counting: no write then).
func (ft *FastTable) UpdateByKey(ctx *sql.Context, key any, change func(sql.Row) error) (matched, changed int64, err error) {
	k, err := ft.encodeKey(ctx, key)
	if err != nil {
		return 0, 0, err
	}
	err = ft.write(ctx, func(e *editor, tx *engine.Tx) error {
		matched, changed, err = ft.updateKey(ctx, e, tx, k, change)
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	return matched, changed, nil
}

// UpdateByKeyWithin is UpdateByKey made inside another fast-path
// statement's write (FPB-6: a trigger the fast path runs), in its
// transaction: the outer statement's failure undoes it too. ErrFallback
// when the table may not be written on the fast path.
func (ft *FastTable) UpdateByKeyWithin(ctx *sql.Context, key any, change func(sql.Row) error) (matched, changed int64, err error) {
	k, err := ft.encodeKey(ctx, key)
	if err != nil {
		return 0, 0, err
	}
	tx, err := ft.s.engineTx() // the outer statement's
	if err != nil {
		return 0, 0, err
	}
	e := &editor{t: ft.t, s: ft.s, tx: tx, sp: tx.Savepoint()}
	// The table's metadata lock; an error stays raw: the outer write undoes
	// the statement first, then maps it (a deadlock ends the transaction).
	if err := ft.s.lockTableShared(ft.t); err != nil {
		return 0, 0, err
	}
	if ft.t.latest() != ft.t || !ft.writable(ctx) {
		return 0, 0, ErrFallback
	}
	return ft.updateKey(ctx, e, tx, k, change)
}

// updateKey is UpdateByKey's change of the row under encoded key k.
func (ft *FastTable) updateKey(ctx *sql.Context, e *editor, tx *engine.Tx, k []byte, change func(sql.Row) error) (matched, changed int64, err error) {
	t := ft.t
	v, found, err := tx.GetForUpdate(t.primary, k)
	if err != nil || !found {
		return 0, 0, err
	}
	old := make(sql.Row, len(t.cols))
	if err := decodeRow(ctx, v, t.cols, old); err != nil {
		return 0, 0, err
	}
	row := old.Copy()
	if err := change(row); err != nil {
		return 0, 0, err
	}
	pk := t.pk[0]
	if c, err := t.sch[pk].Type.Compare(ctx, row[pk], old[pk]); err != nil || c != 0 {
		return 0, 0, ErrFallback
	}
	if eq, err := old.Equals(ctx, row, t.sch); err != nil || eq {
		return 1, 0, err
	}
	for i, c := range t.sch {
		if row[i] == nil && !c.Nullable {
			return 0, 0, ErrFallback // go-mysql-server's nullability error
		}
	}
	if err := e.update(ctx, tx, old, row); err != nil {
		return 0, 0, err
	}
	ft.s.rowsWritten.Add(1)
	return 1, 1, nil
}

// DeleteByKey deletes the row with primary key key; n is 0 or 1.
func (ft *FastTable) DeleteByKey(ctx *sql.Context, key any) (n int64, err error) {
	k, err := ft.encodeKey(ctx, key)
	if err != nil {
		return 0, err
	}
	t := ft.t
	err = ft.write(ctx, func(e *editor, tx *engine.Tx) error {
		v, found, err := tx.GetForUpdate(t.primary, k)
		if err != nil || !found {
			return err
		}
		row := make(sql.Row, len(t.cols))
		if err := decodeRow(ctx, v, t.cols, row); err != nil {
			return err
		}
		if err := e.delete(ctx, tx, row); err != nil {
			return err
		}
		n = 1
		t.ctr.rows.Add(-1)
		ft.s.rowsWritten.Add(1)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// AutoIncrementOrdinal is the AUTO_INCREMENT column's ordinal, or -1.
func (ft *FastTable) AutoIncrementOrdinal() int { return ft.t.autoCol }

// Insert inserts rows, as one statement, each with a value for every
// column already converted to the column's type, except the
// AUTO_INCREMENT column when generate is set (its value is generated for
// every row, as go-mysql-server's AutoIncrement expression does for an
// omitted column). The statement's insert ids are recorded in the session,
// where the handler takes the OK packet's id and LAST_INSERT_ID() from
// (SES-8). A fallback after values were generated gives them back if no
// other statement took one since, so that go-mysql-server's run of the
// statement generates the same ones.
// after, if set, runs after each row is inserted, in the statement (FPB-6:
// the triggers the fast path runs itself); its error undoes the statement.
func (ft *FastTable) Insert(ctx *sql.Context, rows []sql.Row, generate bool, after func(sql.Row) error) (err error) {
	t := ft.t
	if generate && t.autoCol < 0 {
		return ErrFallback
	}
	for _, row := range rows {
		if len(row) != len(t.cols) {
			return ErrFallback
		}
		for i, c := range t.sch {
			if row[i] == nil && !c.Nullable && !(generate && i == t.autoCol) {
				return ErrFallback
			}
		}
		if t.autoCol >= 0 && !generate {
			v := row[t.autoCol]
			if v == nil {
				return ErrFallback
			}
			if zero, err := t.sch[t.autoCol].Type.Compare(ctx, v, 0); err != nil || zero == 0 {
				return ErrFallback // 0 generates a value (unless NO_AUTO_VALUE_ON_ZERO)
			}
		}
	}
	var first, next uint64
	defer func() {
		if err != nil && next > 0 {
			t.ctr.mu.Lock()
			if t.ctr.autoNext == next {
				t.ctr.autoNext = first
			}
			t.ctr.mu.Unlock()
			ft.s.BeginInsertIDs()
		}
	}()
	err = ft.write(ctx, func(e *editor, tx *engine.Tx) error {
		for _, row := range rows {
			if generate {
				v, err := (&Table{t: t}).GetNextAutoIncrementValue(ctx, nil)
				if err != nil {
					return err
				}
				if next == 0 {
					first = v
				}
				next = v + 1
				var ok bool
				if row[t.autoCol], ok = ft.Convert(ctx, t.autoCol, v); !ok {
					return ErrFallback
				}
			}
			if err := e.insert(ctx, tx, row); err != nil {
				return err
			}
			if t.autoCol >= 0 && !generate {
				// Moves the counter past the given value, as go-mysql-server's
				// AutoIncrement expression does.
				if _, err := (&Table{t: t}).GetNextAutoIncrementValue(ctx, row[t.autoCol]); err != nil {
					return err
				}
			}
			e.inserted(ctx, row)
			if after != nil {
				if err := after(row); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return err
}

// SessionByConn returns the session of a client connection, or nil.
func (b *Backend) SessionByConn(id uint32) *Session {
	b.sessMu.Lock()
	defer b.sessMu.Unlock()
	return b.sessions[id]
}
