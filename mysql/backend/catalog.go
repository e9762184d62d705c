package backend

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"strata/engine"
	"strata/mysql/rules"
)

// The catalog (CAT-n) is the set of databases and table definitions, kept
// in the engine keyspace "sql.catalog" as JSON values:
//
//	d/<db>          -> dbDef
//	t/<db>/<table>  -> tableDef       (names lower-cased)
//	seq             -> next table id  (uint32)
//	f/<db>/<func>   -> FunctionDef    (stored functions, CAT-6)
//
// CAT-1 A table's rows live in keyspace "t<id>" (clustered by primary key,
// or by a hidden row key), each secondary index in "t<id>.i<index id>".
// Keyspaces are named by id, so RENAME TABLE only rewrites the catalog.
//
// CAT-2 Catalog changes commit in their own engine transaction (DDL commits
// implicitly). CREATE makes keyspaces before the catalog entry; DROP removes
// the entry before the keyspaces; a crash in between leaves keyspaces no
// entry names, which Open drops (gcKeyspaces). So the catalog never names a
// missing keyspace.
//
// CAT-3 Everything a column or table declares is kept as text and
// re-read at open: types, DEFAULT / ON UPDATE / generated expressions
// (handed to go-mysql-server unresolved, so its planner resolves them in
// the table's scope on each statement), CHECK constraints, comments.
//
// CAT-6 A stored function is its CREATE FUNCTION text and the procedure it
// runs as (functions.go); the procedure is found by a hidden name and
// listed nowhere.
//
// CAT-4 A VIRTUAL generated column is kept as declared in the catalog but
// served as STORED: its value is computed on write and stored.
//
// CAT-5 DECIMAL, FLOAT and DOUBLE columns declared UNSIGNED (whose types
// go-mysql-server builds signed, dropping the word) keep the flag in the
// catalog: the server hands each CREATE/ALTER TABLE's declared columns to
// the session (DeclareColumns), new definitions take the flag from there,
// and a rewrite keeps it for the columns the statement does not declare.
// rules RULE-57 reads it (UnsignedColumn): negative values are out of
// range, SHOW CREATE TABLE and SHOW COLUMNS print `unsigned`; editors
// refuse a negative value that gets past it (an ALTER's copy of rows).

// CAT-7 While the binary log is on, the commit of a DDL statement's first
// catalog change carries the statement's event (binlog BL-6;
// writeCatalog): the change is visible to other sessions, and durable,
// together with its event. CREATE TABLE (and CREATE TABLE ... SELECT) is
// atomic: the table is written "creating", seen by its own session only
// (visibleTo), its indexes, keys and rows added, and one last commit at
// the statement's end (finishCreated) makes it everyone's and carries the
// event; a statement that fails drops it (SES-5) and logs nothing, and an
// open drops a table left creating by a crash.

const catalogKeyspace = "sql.catalog"

// quoteIdent quotes a name as an identifier.
func quoteIdent(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

type columnDef struct {
	Name          string `json:"name"`
	Type          string `json:"type"`
	Nullable      bool   `json:"nullable,omitempty"`
	Default       string `json:"default,omitempty"`
	OnUpdate      string `json:"on_update,omitempty"`
	Generated     string `json:"generated,omitempty"` // expression of a generated column
	Virtual       bool   `json:"virtual,omitempty"`   // declared VIRTUAL (served as STORED: CAT-4)
	AutoIncrement bool   `json:"auto_increment,omitempty"`
	Comment       string `json:"comment,omitempty"`
	Unsigned      bool   `json:"unsigned,omitempty"` // DECIMAL/FLOAT/DOUBLE UNSIGNED (CAT-5)
}

// columnDefOf is the catalog form of a column of a table whose default
// collation is coll (CAT-3).
func columnDefOf(c *sql.Column, coll sql.CollationID) columnDef {
	typStr := c.Type.String()
	if tc, ok := c.Type.(sql.TypeWithCollation); ok {
		typStr = tc.StringWithTableCollation(coll)
	}
	typStr = rules.QuoteMembers(c.Type, typStr)
	return columnDef{Name: c.Name, Type: typStr, Nullable: c.Nullable, AutoIncrement: c.AutoIncrement,
		Comment: c.Comment, Default: exprText(c.Default), OnUpdate: exprText(c.OnUpdate),
		Generated: exprText(c.Generated), Virtual: c.Virtual}
}

// exprText is the text of a column's default, ON UPDATE or generated
// expression, with table qualifiers removed (the expression is resolved
// again in the scope of whatever table holds the column).
func exprText(v *sql.ColumnDefaultValue) string {
	if v == nil {
		return ""
	}
	if u, ok := v.Expr.(*sql.UnresolvedColumnDefault); ok {
		return u.ExprString // the catalog's own text, as it was stored
	}
	e, _, err := transform.Expr(v, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if gf, ok := e.(*expression.GetField); ok {
			return expression.NewGetField(gf.Index(), gf.Type(), gf.Name(), gf.IsNullable()).
				WithQuotedNames(sql.GlobalSchemaFormatter, gf.IsQuotedIdentifier()), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
	if err != nil {
		return v.String()
	}
	return e.String()
}

// columnExpr is the unresolved column expression for text s (nil if empty).
func columnExpr(s string) *sql.ColumnDefaultValue {
	if s == "" {
		return nil
	}
	return sql.NewUnresolvedColumnDefaultValue(s)
}

type indexDef struct {
	Name    string `json:"name"`
	ID      uint32 `json:"id"`
	Columns []int  `json:"columns"` // ordinals
	// Prefix holds, parallel to Columns, the key part's prefix length
	// (characters of a string, bytes of a binary string; 0: the whole
	// value), nil when no key part has one (IX-1).
	Prefix  []uint16 `json:"prefix,omitempty"`
	Unique  bool     `json:"unique,omitempty"`
	Comment string   `json:"comment,omitempty"`
}

// prefixOf is the prefix length of key part i (0: the whole value).
func (d *indexDef) prefixOf(i int) int {
	if i < len(d.Prefix) {
		return int(d.Prefix[i])
	}
	return 0
}

type tableDef struct {
	// Creating: made by a CREATE TABLE that has not finished (CAT-7):
	// seen by its session only, dropped at the next open.
	Creating    bool        `json:"creating,omitempty"`
	ID          uint32      `json:"id"`
	Name        string      `json:"name"`
	Columns     []columnDef `json:"columns"`
	PK          []int       `json:"pk,omitempty"` // ordinals in key order; empty: hidden row key
	Indexes     []indexDef  `json:"indexes,omitempty"`
	NextIndexID uint32      `json:"next_index_id"`
	Collation   string      `json:"collation,omitempty"`
	Comment     string      `json:"comment,omitempty"`
	// AutoIncrement is a floor for the next AUTO_INCREMENT value, written
	// by ALTER TABLE ... AUTO_INCREMENT and at clean shutdown; at open the
	// counter is max(floor, largest key + 1).
	AutoIncrement uint64 `json:"auto_increment,omitempty"`
	// RowEstimate is the planner's row count, saved at clean shutdown.
	RowEstimate int64 `json:"row_estimate,omitempty"`

	ForeignKeys []sql.ForeignKeyConstraint `json:"foreign_keys,omitempty"`
	Checks      []checkDef                 `json:"checks,omitempty"`
	// FullText are the table's FULLTEXT indexes (FT-1).
	FullText []fullTextDef `json:"fulltext,omitempty"`
	// Spatial are the table's SPATIAL indexes (FT-5).
	Spatial []spatialDef `json:"spatial,omitempty"`
	// KeyFormat is the key encoding version of the table's keys (1:
	// CODEC-8, 2: CODEC-10); tables created before it have 0.
	KeyFormat int `json:"key_format,omitempty"`
}

type dbDef struct {
	Name      string `json:"name"`
	Collation string `json:"collation,omitempty"`
}

func (d *tableDef) clone() *tableDef {
	c := *d
	c.Columns = append([]columnDef{}, d.Columns...)
	c.PK = append([]int{}, d.PK...)
	c.ForeignKeys = append([]sql.ForeignKeyConstraint{}, d.ForeignKeys...)
	c.Checks = append([]checkDef{}, d.Checks...)
	c.FullText = append([]fullTextDef{}, d.FullText...)
	c.Spatial = append([]spatialDef{}, d.Spatial...)
	c.Indexes = make([]indexDef, len(d.Indexes))
	for i, ix := range d.Indexes {
		ix.Columns = append([]int{}, ix.Columns...)
		if ix.Prefix != nil {
			ix.Prefix = append([]uint16{}, ix.Prefix...)
		}
		c.Indexes[i] = ix
	}
	return &c
}

func primaryKeyspace(id uint32) string      { return fmt.Sprintf("t%d", id) }
func indexKeyspace(id, index uint32) string { return fmt.Sprintf("t%d.i%d", id, index) }
func rowRefKeyspace(id uint32) string       { return fmt.Sprintf("t%d.r", id) }

// rowRefs reports whether the table keeps a row-reference keyspace
// (CODEC-10): no primary key, KeyFormat 2 on.
func (def *tableDef) rowRefs() bool {
	return len(def.PK) == 0 && def.KeyFormat >= keyFormatRowOrder
}

// keyspaces names every engine keyspace the table's rows and entries live
// in: the clustered one first.
func (def *tableDef) keyspaces() []string {
	out := []string{primaryKeyspace(def.ID)}
	for _, ix := range def.Indexes {
		out = append(out, indexKeyspace(def.ID, ix.ID))
	}
	if def.rowRefs() {
		out = append(out, rowRefKeyspace(def.ID))
	}
	return out
}
func dbKey(db string) []byte { return []byte("d/" + strings.ToLower(db)) }
func tableKey(db, table string) []byte {
	return []byte("t/" + strings.ToLower(db) + "/" + strings.ToLower(table))
}
func tablePrefix(db string) []byte       { return []byte("t/" + strings.ToLower(db) + "/") }
func encodeJSON(v any) []byte            { b, _ := json.Marshal(v); return b }
func decodeJSON(b []byte, v any) error   { return json.Unmarshal(b, v) }
func seqValue(n uint32) []byte           { return binary.BigEndian.AppendUint32(nil, n) }
func catalogTx(db *engine.DB) *engine.Tx { return db.Begin() }
