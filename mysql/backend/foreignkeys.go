package backend

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// Foreign keys are declared in the child table's definition; go-mysql-server
// enforces them through the editors and index lookups of both tables.

var _ sql.ForeignKeyTable = (*Table)(nil)

// GetDeclaredForeignKeys implements sql.ForeignKeyTable.
// It reads the current definition: CREATE TABLE adds its foreign keys one
// by one through the same resolved table, and go-mysql-server numbers the
// unnamed ones (<table>_ibfk_<n>) from what this returns.
func (tb *Table) GetDeclaredForeignKeys(ctx *sql.Context) ([]sql.ForeignKeyConstraint, error) {
	t := tb.t
	if cur, err := tb.current(); err == nil {
		t = cur
	}
	return append([]sql.ForeignKeyConstraint{}, t.def.ForeignKeys...), nil
}

// GetReferencedForeignKeys implements sql.ForeignKeyTable: the foreign
// keys of every table that name this one as parent.
func (tb *Table) GetReferencedForeignKeys(ctx *sql.Context) ([]sql.ForeignKeyConstraint, error) {
	b := tb.t.db.b
	var out []sql.ForeignKeyConstraint
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, d := range b.dbs {
		d.mu.RLock()
		for _, t := range d.tables {
			for _, fk := range t.def.ForeignKeys {
				if strings.EqualFold(fk.ParentDatabase, tb.t.db.name) && strings.EqualFold(fk.ParentTable, tb.t.def.Name) {
					out = append(out, fk)
				}
			}
		}
		d.mu.RUnlock()
	}
	return out, nil
}

// alterForeignKeys applies change to the current definition and publishes it.
func (tb *Table) alterForeignKeys(ctx *sql.Context, change func(fks []sql.ForeignKeyConstraint) ([]sql.ForeignKeyConstraint, error)) error {
	return tb.alterDef(ctx, func(def *tableDef) (err error) {
		def.ForeignKeys, err = change(def.ForeignKeys)
		return err
	})
}

func findFK(fks []sql.ForeignKeyConstraint, name string) int {
	for i, fk := range fks {
		if strings.EqualFold(fk.Name, name) {
			return i
		}
	}
	return -1
}

// AddForeignKey implements sql.ForeignKeyTable.
func (tb *Table) AddForeignKey(ctx *sql.Context, fk sql.ForeignKeyConstraint) error {
	return tb.alterForeignKeys(ctx, func(fks []sql.ForeignKeyConstraint) ([]sql.ForeignKeyConstraint, error) {
		if findFK(fks, fk.Name) >= 0 {
			return nil, sql.ErrForeignKeyDuplicateName.New(fk.Name)
		}
		return append(fks, fk), nil
	})
}

// DropForeignKey implements sql.ForeignKeyTable.
func (tb *Table) DropForeignKey(ctx *sql.Context, name string) error {
	return tb.alterForeignKeys(ctx, func(fks []sql.ForeignKeyConstraint) ([]sql.ForeignKeyConstraint, error) {
		i := findFK(fks, name)
		if i < 0 {
			return nil, sql.ErrForeignKeyNotFound.New(name, tb.t.def.Name)
		}
		return append(fks[:i], fks[i+1:]...), nil
	})
}

// UpdateForeignKey implements sql.ForeignKeyTable.
func (tb *Table) UpdateForeignKey(ctx *sql.Context, name string, fk sql.ForeignKeyConstraint) error {
	return tb.alterForeignKeys(ctx, func(fks []sql.ForeignKeyConstraint) ([]sql.ForeignKeyConstraint, error) {
		i := findFK(fks, name)
		if i < 0 {
			return nil, sql.ErrForeignKeyNotFound.New(name, tb.t.def.Name)
		}
		fks[i] = fk
		return fks, nil
	})
}

// CreateIndexForForeignKey implements sql.ForeignKeyTable.
func (tb *Table) CreateIndexForForeignKey(ctx *sql.Context, def sql.IndexDef) error {
	return tb.CreateIndex(ctx, def)
}

// GetForeignKeyEditor implements sql.ForeignKeyTable.
func (tb *Table) GetForeignKeyEditor(ctx *sql.Context) sql.ForeignKeyEditor {
	if len(tb.t.def.FullText) > 0 { // FT-3: cascades keep the FULLTEXT indexes too
		if fe, ok := tb.withFullText(ctx, tb.newEditor(ctx, false)).(sql.ForeignKeyEditor); ok {
			return fe
		}
	}
	return &fkEditor{editor: tb.newEditor(ctx, false), Table: tb}
}

// fkEditor edits rows and looks them up by index (cascades).
type fkEditor struct {
	*editor
	*Table
}

func (f *fkEditor) Close(ctx *sql.Context) error { return f.editor.Close(ctx) }
