package backend

import (
	"errors"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// ErrFallback tells the fast path to hand the statement to go-mysql-server
// (a key value it cannot encode as the column's type, say).
var ErrFallback = errors.New("backend: not a fast-path lookup")

// KeyLookup reads one row by primary key for the server's fast path: the
// projected columns of a table with a single-column primary key.
type KeyLookup struct {
	s    *Session
	t    *table
	ords []int
	sch  sql.Schema
}

// PrepareKeyLookup resolves table (in the current database), keyCol (its
// whole primary key) and cols for a point read; ok is false for anything
// else.
func (s *Session) PrepareKeyLookup(ctx *sql.Context, table, keyCol string, cols []string) (*KeyLookup, bool) {
	s.b.mu.RLock()
	d := s.b.dbs[strings.ToLower(s.GetCurrentDatabase())]
	s.b.mu.RUnlock()
	if d == nil {
		return nil, false
	}
	t := d.lookup(table)
	if t == nil || len(t.pk) != 1 || !strings.EqualFold(t.sch[t.pk[0]].Name, keyCol) {
		return nil, false
	}
	kl := &KeyLookup{s: s, t: t, ords: make([]int, len(cols)), sch: make(sql.Schema, len(cols))}
	for i, c := range cols {
		o := t.sch.IndexOfColName(c)
		if o < 0 {
			return nil, false
		}
		col := t.sch[o]
		kl.ords[i] = o
		// The metadata go-mysql-server gives a projected column: the name as
		// written in the query, the table name lower-cased.
		kl.sch[i] = &sql.Column{Name: c, Source: strings.ToLower(t.def.Name), DatabaseSource: d.name,
			Type: col.Type, Nullable: col.Nullable}
	}
	return kl, true
}

// KeyType is the primary key column's type.
func (kl *KeyLookup) KeyType() sql.Type { return kl.t.sch[kl.t.pk[0]].Type }

// Schema is the result schema.
func (kl *KeyLookup) Schema() sql.Schema { return kl.sch }

// Get reads the row with primary key key in the session's transaction
// (FP-2): the open engine transaction, or a fresh one released at once.
func (kl *KeyLookup) Get(ctx *sql.Context, key any) (sql.Row, bool, error) {
	s, t := kl.s, kl.t
	s.b.fastSelects.Add(1)
	k, err := t.primaryKey(ctx, keyRow(t, key))
	if err != nil {
		return nil, false, ErrFallback
	}
	tx := s.tx
	if tx == nil && s.GetTransaction() != nil {
		if tx, err = s.engineTx(); err != nil {
			return nil, false, err
		}
	}
	var v []byte
	var found bool
	if tx != nil {
		v, found, err = tx.Get(t.primary, k)
	} else {
		tmp := s.b.db.Begin()
		v, found, err = tmp.Get(t.primary, k)
		tmp.Rollback()
	}
	if err != nil || !found {
		return nil, false, s.engineErr(err)
	}
	full := make(sql.Row, len(t.cols))
	if err := decodeRow(ctx, v, t.cols, full); err != nil {
		return nil, false, err
	}
	s.rowsRead.Add(1)
	out := make(sql.Row, len(kl.ords))
	for i, o := range kl.ords {
		out[i] = full[o]
	}
	return out, true, nil
}

func keyRow(t *table, key any) sql.Row {
	row := make(sql.Row, len(t.cols))
	row[t.pk[0]] = key
	return row
}

// SessionByConn returns the session of a client connection, or nil.
func (b *Backend) SessionByConn(id uint32) *Session {
	b.sessMu.Lock()
	defer b.sessMu.Unlock()
	return b.sessions[id]
}
