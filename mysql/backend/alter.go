package backend

import (
	"errors"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"strata/engine"
)

// ALTER TABLE column changes (ADD/DROP/MODIFY/CHANGE/RENAME COLUMN,
// ALTER COLUMN SET/DROP DEFAULT) rewrite the table (ALT-n):
//
// ALT-1 go-mysql-server reads every row, converts it to the new schema and
// hands it to our RewriteInserter, which writes it into a new table id with
// new keyspaces, in batches of engine transactions.
// ALT-2 The old table's metadata lock is held exclusively from the start
// of the rewrite to its end, so no writer changes the old rows meanwhile.
// ALT-3 Close publishes the new definition in one catalog write, then
// drops the old keyspaces; a crash before the catalog write leaves the new
// keyspaces unnamed (dropped at Open, CAT-2) and the old table intact.
// ALT-4 ADD PRIMARY KEY and DROP PRIMARY KEY are rewrites too: rows are
// inserted under the new key (a duplicate is 1062 and the old table stays,
// ALT-3), or under a hidden row id for a keyless table. A primary key over
// a column prefix is 1235.
//
// ALT-5 In an ALTER TABLE of several clauses each rewrite keeps what the
// earlier clauses did to the other columns (renamesKept): go-mysql-server
// builds a clause's new schema from the table as planned.

var (
	_ sql.RewritableTable          = (*Table)(nil)
	_ sql.PrimaryKeyAlterableTable = (*Table)(nil)
)

var errNeedsRewrite = errors.New("strata: column changes go through a table rewrite")

// AddColumn, DropColumn, CreatePrimaryKey and DropPrimaryKey are never
// called: every change of the row format is a rewrite (ShouldRewriteTable).
func (tb *Table) AddColumn(*sql.Context, *sql.Column, *sql.ColumnOrder) error { return errNeedsRewrite }
func (tb *Table) DropColumn(*sql.Context, string) error                       { return errNeedsRewrite }
func (tb *Table) CreatePrimaryKey(*sql.Context, []sql.IndexColumn) error      { return errNeedsRewrite }
func (tb *Table) DropPrimaryKey(*sql.Context) error                           { return errNeedsRewrite }

// ModifyColumn changes what go-mysql-server changes without a rewrite:
// the name (RENAME COLUMN), the default, the comment. Rows are stored by
// ordinal, so none of them moves a byte of data.
func (tb *Table) ModifyColumn(ctx *sql.Context, name string, col *sql.Column, order *sql.ColumnOrder) error {
	if s, err := sessionOf(ctx); err == nil {
		if err := s.implicitCommit(); err != nil {
			return err
		}
	}
	b := tb.t.db.b
	defer b.lockTable(tb.t.def.ID)() // MDL-3
	b.ddl.Lock()
	defer b.ddl.Unlock()
	t, err := tb.current()
	if err != nil {
		return err
	}
	o := t.sch.IndexOfColName(name)
	if o < 0 {
		return sql.ErrTableColumnNotFound.New(t.def.Name, name)
	}
	if order != nil || col.Type.String() != t.sch[o].Type.String() || col.Nullable != t.sch[o].Nullable ||
		declaredChange(ctx, col.Name, t.def.Columns[o].Unsigned) {
		return errNeedsRewrite
	}
	def := t.def.clone()
	cd := &def.Columns[o]
	typ := cd.Type
	unsigned := cd.Unsigned
	*cd = columnDefOf(col, sql.Collation_Unspecified)
	cd.Type, cd.Unsigned = typ, unsigned
	mdl, err := b.exclusiveMDL(t)
	if err != nil {
		return err
	}
	defer mdl.Rollback()
	_, err = t.db.replaceTable(ctx, t, def)
	return err
}

// ShouldRewriteTable implements sql.RewritableTable: always (ALT-1).
func (tb *Table) ShouldRewriteTable(*sql.Context, sql.PrimaryKeySchema, sql.PrimaryKeySchema, *sql.Column, *sql.Column) bool {
	return true
}

// RewriteInserter implements sql.RewritableTable.
func (tb *Table) RewriteInserter(ctx *sql.Context, oldSch, newSch sql.PrimaryKeySchema, oldCol, newCol *sql.Column, idxCols []sql.IndexColumn) (sql.RowInserter, error) {
	for _, c := range idxCols {
		if c.Length > 0 { // ALT-4
			return nil, sql.ErrUnsupportedFeature.New("a primary key over a column prefix")
		}
	}
	if cur, err := tb.current(); err == nil && len(cur.def.FullText) > 0 { // FT-4
		return nil, sql.ErrUnsupportedFeature.New("ALTER TABLE that rewrites a table with a FULLTEXT index (drop the index first)")
	}
	if s, err := sessionOf(ctx); err == nil {
		if err := s.implicitCommit(); err != nil {
			return nil, err
		}
	}
	b := tb.t.db.b
	unlockTable := b.lockTable(tb.t.def.ID) // MDL-3: held until the rewriter ends
	b.ddl.Lock()
	unlock := true
	defer func() {
		if unlock {
			b.ddl.Unlock()
			unlockTable()
		}
	}()
	old, err := tb.current()
	if err != nil {
		return nil, err
	}
	newSch = renamesKept(old.sch, newSch, oldCol, newCol)
	def, err := rewrittenDef(old, newSch, oldCol, newCol)
	if err != nil {
		return nil, err
	}
	if oldCol != nil && newCol != nil {
		declareRewrite(ctx, def, old, oldCol.Name, newCol.Name)
	} else {
		declareRewrite(ctx, def, old, "", "")
	}
	b.mu.Lock()
	def.ID = b.nextTID
	b.nextTID++
	b.mu.Unlock()
	if _, err := openTableDef(ctx, old.db, def, nil); err != nil {
		return nil, err
	}
	mdl, err := b.exclusiveMDL(old)
	if err != nil {
		return nil, err
	}
	rw := &rewriter{b: b, old: old, def: def, mdl: mdl, unlockTable: unlockTable}
	unlock = false // the rewriter holds the locks now: abort, Close or DiscardChanges releases them
	if err := b.createKeyspaces(def); err != nil {
		rw.abort()
		return nil, err
	}
	if rw.nt, err = openTable(ctx, old.db, def); err != nil {
		rw.abort()
		return nil, err
	}
	old.ctr.mu.Lock()
	rw.nt.ctr.autoNext, rw.nt.ctr.autoInit = old.ctr.autoNext, old.ctr.autoInit
	old.ctr.mu.Unlock()
	rw.nt.ctr.rowsCounted = true
	return rw, nil
}

// rewrittenDef maps old's definition onto the new schema: columns by name
// (oldCol renamed to newCol), indexes losing dropped columns (and vanishing
// when none is left), foreign keys kept.
func rewrittenDef(old *table, newSch sql.PrimaryKeySchema, oldCol, newCol *sql.Column) (*tableDef, error) {
	def := old.def.clone()
	coll, _ := sql.ParseCollation("", def.Collation, false)
	if def.Collation == "" {
		coll = sql.Collation_Default
	}
	def.Columns = nil
	for _, c := range newSch.Schema {
		def.Columns = append(def.Columns, columnDefOf(c, coll))
	}
	def.PK = append([]int{}, newSch.PkOrdinals...)
	newName := func(o int) string {
		name := old.sch[o].Name
		if oldCol != nil && newCol != nil && strings.EqualFold(name, oldCol.Name) {
			return newCol.Name
		}
		return name
	}
	def.Indexes = nil
	for _, ix := range old.def.Indexes {
		var cols []int
		var prefix []uint16
		for i, o := range ix.Columns {
			if n := newSch.Schema.IndexOfColName(newName(o)); n >= 0 {
				cols = append(cols, n)
				// A prefix the new type cannot take goes (as in MariaDB):
				// the column is no longer a string, or no longer than it.
				p := ix.prefixOf(i)
				if st, ok := newSch.Schema[n].Type.(sql.StringType); !ok || (!types.IsTextBlob(st) && int64(p) >= st.MaxCharacterLength()) {
					p = 0
				}
				prefix = append(prefix, uint16(p))
			}
		}
		if len(cols) > 0 {
			ix.Columns = cols
			ix.Prefix = nil
			if slices.ContainsFunc(prefix, func(p uint16) bool { return p > 0 }) {
				ix.Prefix = prefix
			}
			def.Indexes = append(def.Indexes, ix)
		}
	}
	def.Spatial = nil // FT-5: follow their column, go with it
	for _, sp := range old.def.Spatial {
		if n := newSch.Schema.IndexOfColName(newName(sp.Columns[0])); n >= 0 {
			sp.Columns = []int{n}
			def.Spatial = append(def.Spatial, sp)
		}
	}
	def.RowEstimate = 0
	for o, c := range def.Columns { // an AUTO_INCREMENT column leads a key (MySQL's 1075)
		if !c.AutoIncrement {
			continue
		}
		keyed := len(def.PK) > 0 && def.PK[0] == o
		for _, ix := range def.Indexes {
			keyed = keyed || ix.Columns[0] == o
		}
		if !keyed {
			return nil, sql.ErrInvalidAutoIncCols.New()
		}
	}
	return def, nil
}

// renamesKept is ALT-5: in an ALTER TABLE of several clauses,
// go-mysql-server builds each clause's new schema from the table as it
// was planned, before the earlier clauses ran, so it could drop their
// changes (ALTER TABLE t CHANGE a a1 INT, CHANGE c c1 INT lost a1; CHANGE
// a1 a2 BIGINT, ADD x INT, MODIFY b SMALLINT lost the BIGINT). A clause
// changes its own column only: without it on each side, the current
// columns and the new schema's are the same in the same order, and each
// of the new schema's takes the current definition.
func renamesKept(cur sql.Schema, newSch sql.PrimaryKeySchema, oldCol, newCol *sql.Column) sql.PrimaryKeySchema {
	var curRest []int
	for i, c := range cur {
		if oldCol == nil || !strings.EqualFold(c.Name, oldCol.Name) {
			curRest = append(curRest, i)
		}
	}
	var newRest []int
	for i, c := range newSch.Schema {
		if newCol == nil || !strings.EqualFold(c.Name, newCol.Name) {
			newRest = append(newRest, i)
		}
	}
	if len(curRest) != len(newRest) {
		return newSch
	}
	out := newSch
	copied := false
	for k, i := range newRest {
		c, want := newSch.Schema[i], cur[curRest[k]]
		if strings.EqualFold(c.Name, want.Name) && c.Type.Equals(want.Type) && c.Nullable == want.Nullable {
			continue
		}
		if !copied {
			out.Schema = append(sql.Schema{}, newSch.Schema...)
			copied = true
		}
		nc := want.Copy()
		nc.Source = c.Source
		nc.PrimaryKey = c.PrimaryKey
		out.Schema[i] = nc
	}
	return out
}

// rewriter is the RowInserter of a table rewrite.
type rewriter struct {
	b   *Backend
	old *table
	def *tableDef
	nt  *table
	mdl *engine.Tx
	// unlockTable releases the old table's DDL lock (MDL-3), after ddl.
	unlockTable func()
	tx          *engine.Tx
	n           int
	done        bool
}

const rewriteBatch = 1000

func (rw *rewriter) StatementBegin(*sql.Context)          {}
func (rw *rewriter) StatementComplete(*sql.Context) error { return nil }

func (rw *rewriter) Insert(ctx *sql.Context, row sql.Row) error {
	if rw.tx == nil {
		rw.tx = rw.b.db.Begin()
	}
	e := &editor{t: rw.nt}
	e.s, _ = sessionOf(ctx) // duplicate-key errors word themselves through it
	if err := e.insert(ctx, rw.tx, row); err != nil {
		return mapEngineErr(err)
	}
	rw.nt.ctr.rows.Add(1)
	if rw.n++; rw.n%rewriteBatch == 0 {
		err := rw.tx.Commit()
		rw.tx = nil
		return mapEngineErr(err)
	}
	return nil
}

// DiscardChanges abandons the rewrite: the new keyspaces go, the old
// table stays.
func (rw *rewriter) DiscardChanges(ctx *sql.Context, cause error) error {
	rw.abort()
	return nil
}

func (rw *rewriter) abort() {
	if rw.done {
		return
	}
	rw.done = true
	if rw.tx != nil {
		rw.tx.Rollback()
	}
	rw.b.dropKeyspaces(rw.def)
	rw.mdl.Rollback()
	rw.b.ddl.Unlock()
	rw.unlockTable()
}

// Close publishes the rewritten table (ALT-3).
func (rw *rewriter) Close(ctx *sql.Context) error {
	if rw.done {
		return nil
	}
	if rw.tx != nil {
		if err := rw.tx.Commit(); err != nil {
			rw.tx = nil
			rw.abort()
			return mapEngineErr(err)
		}
		rw.tx = nil
	}
	d := rw.old.db
	if err := rw.b.writeCatalog(sessionFor(ctx), map[string][]byte{
		string(tableKey(d.name, rw.def.Name)): encodeJSON(rw.def),
		"seq":                                 seqValue(rw.def.ID + 1),
	}); err != nil {
		rw.abort()
		return err
	}
	rw.done = true
	d.mu.Lock()
	d.tables[strings.ToLower(rw.def.Name)] = rw.nt
	d.mu.Unlock()
	err := rw.old.dropKeyspaces()
	rw.mdl.Rollback()
	rw.b.ddl.Unlock()
	rw.unlockTable()
	return err
}
