package backend

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/fulltext"
	"github.com/dolthub/vitess/go/mysql"
)

// FULLTEXT indexes are go-mysql-server's (package fulltext): each index is
// kept in five pseudo-tables go-mysql-server creates, fills and reads
// (words and positions per row, counts), which are ordinary strata tables
// of the same database, so they change in the same engine transaction as
// the rows they index.
//
// FT-1 A table's FULLTEXT indexes are in its definition (tableDef.FullText:
// name, columns, the key columns go-mysql-server identifies rows by, the
// pseudo-tables' names), apart from its B-tree indexes: no keyspace of
// their own, and no B-tree code path sees them.
// FT-2 The pseudo-tables are named strata_ft_<table>_<index>_<part> (a
// digest where that passes 64 characters) and are not listed by
// GetTableNames: SHOW TABLES, information_schema and dumps do not show
// them; a dump's CREATE TABLE recreates them.
// FT-3 Every editor of a table with FULLTEXT indexes writes through
// go-mysql-server's FULLTEXT editor as well; the fast path leaves such
// tables' writes to the general path (FPB-3).
// FT-5 SPATIAL indexes are kept in the definition too (tableDef.Spatial),
// for DDL and dumps; no lookup uses them (spatialIndex below).
// FT-4 ALTER TABLE that rewrites the rows of a table with a FULLTEXT index
// is 1235 (drop the index, alter, add it again): the indexes would name
// column positions the rewrite moves.

// FullTextPrefix starts the names of FULLTEXT pseudo-tables (FT-2).
const FullTextPrefix = "strata_ft_"

type fullTextDef struct {
	Name         string                   `json:"name"`
	Columns      []int                    `json:"columns"` // ordinals
	Comment      string                   `json:"comment,omitempty"`
	KeyType      fulltext.KeyType         `json:"key_type"`
	KeyName      string                   `json:"key_name,omitempty"`
	KeyPositions []int                    `json:"key_positions"`
	Tables       fulltext.IndexTableNames `json:"tables"`
}

var _ fulltext.Database = (*Database)(nil)
var _ fulltext.IndexAlterableTable = (*Table)(nil)

// CreateFulltextTableNames implements fulltext.Database (FT-2).
func (d *Database) CreateFulltextTableNames(ctx *sql.Context, parent, index string) (fulltext.IndexTableNames, error) {
	name := func(parts ...string) string {
		n := FullTextPrefix + strings.ToLower(strings.Join(parts, "_"))
		if len(n) > 64 {
			sum := sha1.Sum([]byte(strings.ToLower(strings.Join(parts, "\x00"))))
			n = FullTextPrefix + hex.EncodeToString(sum[:12]) + "_" + parts[len(parts)-1]
		}
		return n
	}
	// A name still taken (a renamed table keeps its pseudo-tables' names)
	// gets a number.
	free := func(n string) string {
		for i := 2; d.lookup(n) != nil; i++ {
			n = fmt.Sprintf("%s_%d", strings.TrimRight(n, "_0123456789"), i)
		}
		return n
	}
	config := name(parent, "config")
	if t := d.lookup(parent); t != nil && len(t.def.FullText) > 0 {
		config = t.def.FullText[0].Tables.Config // shared by the table's indexes
	} else {
		config = free(config)
	}
	return fulltext.IndexTableNames{
		Config:      config,
		Position:    free(name(parent, index, "position")),
		DocCount:    free(name(parent, index, "doccount")),
		GlobalCount: free(name(parent, index, "globalcount")),
		RowCount:    free(name(parent, index, "rowcount")),
	}, nil
}

// isFullTextTable reports whether name is a pseudo-table's (FT-2).
func isFullTextTable(name string) bool {
	return len(name) > len(FullTextPrefix) && strings.EqualFold(name[:len(FullTextPrefix)], FullTextPrefix)
}

// CreateFulltextIndex implements fulltext.IndexAlterableTable (FT-1):
// go-mysql-server has made the pseudo-tables; it fills them afterwards.
func (tb *Table) CreateFulltextIndex(ctx *sql.Context, def sql.IndexDef, keyCols fulltext.KeyColumns, names fulltext.IndexTableNames) error {
	return tb.alterDef(ctx, func(d *tableDef) error {
		if d.hasIndexNamed(def.Name) {
			return sql.ErrDuplicateKey.New(def.Name)
		}
		nd := fullTextDef{Name: def.Name, Comment: def.Comment, KeyType: keyCols.Type, KeyName: keyCols.Name,
			KeyPositions: append([]int{}, keyCols.Positions...), Tables: names}
		for _, c := range def.Columns {
			o := -1
			for i, col := range d.Columns {
				if strings.EqualFold(col.Name, c.Name) {
					o = i
				}
			}
			if o < 0 {
				return sql.ErrKeyColumnDoesNotExist.New(c.Name)
			}
			nd.Columns = append(nd.Columns, o)
		}
		d.FullText = append(d.FullText, nd)
		return nil
	})
}

// lookuplessIndex is what FULLTEXT and SPATIAL indexes share as
// go-mysql-server sees them: named columns of the table, no range lookups
// (FT-1, FT-5).
type lookuplessIndex struct {
	t       *table
	name    string
	columns []int
	comment string
}

func (x lookuplessIndex) ID() string                                 { return x.name }
func (x lookuplessIndex) Database() string                           { return x.t.db.name }
func (x lookuplessIndex) Table() string                              { return x.t.def.Name }
func (x lookuplessIndex) Expressions() []string                      { return x.t.exprs(x.columns) }
func (x lookuplessIndex) IsUnique() bool                             { return false }
func (x lookuplessIndex) IsVector() bool                             { return false }
func (x lookuplessIndex) IsGenerated() bool                          { return false }
func (x lookuplessIndex) Comment() string                            { return x.comment }
func (x lookuplessIndex) CanSupport(*sql.Context, ...sql.Range) bool { return false }
func (x lookuplessIndex) CanSupportOrderBy(sql.Expression) bool      { return false }
func (x lookuplessIndex) PrefixLengths() []uint16                    { return nil }
func (x lookuplessIndex) ColumnExpressionTypes() []sql.ColumnExpressionType {
	return x.t.cets(x.columns)
}

// fullTextIndex is a FULLTEXT index as go-mysql-server sees it.
type fullTextIndex struct {
	lookuplessIndex
	def fullTextDef
}

var _ fulltext.Index = (*fullTextIndex)(nil)

func newFullTextIndex(t *table, def fullTextDef) *fullTextIndex {
	return &fullTextIndex{lookuplessIndex{t, def.Name, def.Columns, def.Comment}, def}
}

func (x *fullTextIndex) IsSpatial() bool   { return false }
func (x *fullTextIndex) IsFullText() bool  { return true }
func (x *fullTextIndex) IndexType() string { return "FULLTEXT" }
func (x *fullTextIndex) FullTextTableNames(*sql.Context) (fulltext.IndexTableNames, error) {
	return x.def.Tables, nil
}
func (x *fullTextIndex) FullTextKeyColumns(*sql.Context) (fulltext.KeyColumns, error) {
	return fulltext.KeyColumns{Type: x.def.KeyType, Name: x.def.KeyName, Positions: x.def.KeyPositions}, nil
}

// withFullText is e, writing the table's FULLTEXT indexes as well (FT-3).
// A pseudo-table's own editor also looks rows up by key, as
// go-mysql-server's FULLTEXT editor needs.
func (tb *Table) withFullText(ctx *sql.Context, e *editor) sql.TableEditor {
	t := tb.t
	if isFullTextTable(t.def.Name) {
		e.byKey = !t.keyless()
		return &fkEditor{editor: e, Table: tb}
	}
	if len(t.def.FullText) == 0 || e.err != nil {
		return e
	}
	pseudo := func(name string) (fulltext.EditableTable, error) {
		pt, ok, err := t.db.GetTableInsensitive(ctx, name)
		if err != nil {
			return nil, err
		}
		et, isEditable := pt.(fulltext.EditableTable)
		if !ok || !isEditable {
			return nil, sql.ErrTableNotFound.New(name)
		}
		return et, nil
	}
	var config fulltext.EditableTable
	var sets []fulltext.TableSet
	for _, def := range t.def.FullText {
		var err error
		if config == nil {
			if config, err = pseudo(def.Tables.Config); err != nil {
				return failedEditor(err)
			}
		}
		set := fulltext.TableSet{Index: newFullTextIndex(t, def)}
		for _, p := range []struct {
			name string
			to   *fulltext.EditableTable
		}{{def.Tables.Position, &set.Position}, {def.Tables.DocCount, &set.DocCount},
			{def.Tables.GlobalCount, &set.GlobalCount}, {def.Tables.RowCount, &set.RowCount}} {
			if *p.to, err = pseudo(p.name); err != nil {
				return failedEditor(err)
			}
		}
		sets = append(sets, set)
	}
	ft, err := fulltext.CreateEditor(ctx, tb, config, sets...)
	if err != nil {
		return failedEditor(err)
	}
	multi, err := fulltext.CreateMultiTableEditor(ctx, &ftPrimary{fkEditor: &fkEditor{editor: e, Table: tb}, auto: &autoSetter{tb: tb}}, ft)
	if err != nil {
		return failedEditor(err)
	}
	return multi
}

// ftPrimary is the parent table's editor under go-mysql-server's
// multi-table editor, which wants key lookups and the AUTO_INCREMENT
// setter from it.
type ftPrimary struct {
	*fkEditor
	auto *autoSetter
}

func (p *ftPrimary) SetAutoIncrementValue(ctx *sql.Context, v uint64) error {
	return p.auto.SetAutoIncrementValue(ctx, v)
}
func (p *ftPrimary) AcquireAutoIncrementLock(ctx *sql.Context) (func(), error) {
	return p.auto.AcquireAutoIncrementLock(ctx)
}
func (p *ftPrimary) Close(ctx *sql.Context) error { return p.fkEditor.Close(ctx) }

// failedEditor is an editor whose every write fails with err.
func failedEditor(err error) *editor { return &editor{err: err} }

// SPATIAL indexes (FT-5): kept in the definition (tableDef.Spatial) and
// shown by SHOW CREATE TABLE and information_schema, so schemas and dumps
// that declare them load and round-trip; no lookups use them (CanSupport
// is false), so spatial predicates scan, with the same results.
type spatialDef struct {
	Name    string `json:"name"`
	Columns []int  `json:"columns"`
	Comment string `json:"comment,omitempty"`
}

type spatialIndex struct{ lookuplessIndex }

func newSpatialIndex(t *table, def spatialDef) *spatialIndex {
	return &spatialIndex{lookuplessIndex{t, def.Name, def.Columns, def.Comment}}
}

func (x *spatialIndex) IsSpatial() bool   { return true }
func (x *spatialIndex) IsFullText() bool  { return false }
func (x *spatialIndex) IndexType() string { return "SPATIAL" }

// createSpatialIndex records a SPATIAL index (FT-5): over one geometry
// column declared NOT NULL, as MySQL requires (1252).
func (tb *Table) createSpatialIndex(ctx *sql.Context, def sql.IndexDef) error {
	if len(def.Columns) != 1 {
		return mysql.NewSQLError(1070, "42000", "Too many key parts specified; max 1 parts allowed")
	}
	return tb.alterDef(ctx, func(d *tableDef) error {
		if d.hasIndexNamed(def.Name) {
			return sql.ErrDuplicateKey.New(def.Name)
		}
		o := -1
		for i, col := range d.Columns {
			if strings.EqualFold(col.Name, def.Columns[0].Name) {
				o = i
			}
		}
		if o < 0 {
			return sql.ErrKeyColumnDoesNotExist.New(def.Columns[0].Name)
		}
		t := tb.t
		if c := t.cols[o]; c.kind != kGeometry {
			return mysql.NewSQLError(1687, "42000", "A SPATIAL index may only contain a geometrical type column")
		}
		if t.sch[o].Nullable {
			return mysql.NewSQLError(1252, "42000", "All parts of a SPATIAL index must be NOT NULL")
		}
		d.Spatial = append(d.Spatial, spatialDef{Name: def.Name, Columns: []int{o}, Comment: def.Comment})
		return nil
	})
}

// indexNames are the names of all of d's indexes (B-tree, FULLTEXT,
// SPATIAL), to check or to change.
func (d *tableDef) indexNames() []*string {
	var out []*string
	for i := range d.Indexes {
		out = append(out, &d.Indexes[i].Name)
	}
	for i := range d.FullText {
		out = append(out, &d.FullText[i].Name)
	}
	for i := range d.Spatial {
		out = append(out, &d.Spatial[i].Name)
	}
	return out
}

// hasIndexNamed reports whether any index of d is called name.
func (d *tableDef) hasIndexNamed(name string) bool {
	for _, n := range d.indexNames() {
		if strings.EqualFold(*n, name) {
			return true
		}
	}
	return false
}
