package backend

import (
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// Stored procedures are catalog entries "r/<db>/<procedure>" holding
// go-mysql-server's details (the CREATE PROCEDURE text, times, sql_mode)
// (CAT-3); go-mysql-server parses and runs them.

var _ sql.StoredProcedureDatabase = (*Database)(nil)

func procedureKey(db, name string) string {
	return "r/" + strings.ToLower(db) + "/" + strings.ToLower(name)
}

// GetStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedure(ctx *sql.Context, name string) (sql.StoredProcedureDetails, bool, error) {
	d.mu.RLock()
	p, ok := d.procs[strings.ToLower(name)]
	d.mu.RUnlock()
	if !ok {
		p, ok = d.functionProcedure(name) // CAT-6
	}
	return p, ok, nil
}

// GetStoredProcedures implements sql.StoredProcedureDatabase.
func (d *Database) GetStoredProcedures(ctx *sql.Context) ([]sql.StoredProcedureDetails, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]sql.StoredProcedureDetails, 0, len(d.procs))
	for _, p := range d.procs {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SaveStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) SaveStoredProcedure(ctx *sql.Context, spd sql.StoredProcedureDetails) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	d.mu.RLock()
	_, exists := d.procs[strings.ToLower(spd.Name)]
	d.mu.RUnlock()
	if exists {
		return sql.ErrStoredProcedureAlreadyExists.New(spd.Name)
	}
	if err := d.b.writeCatalog(sessionFor(ctx), map[string][]byte{procedureKey(d.name, spd.Name): encodeJSON(spd)}); err != nil {
		return err
	}
	d.mu.Lock()
	if d.procs == nil {
		d.procs = map[string]sql.StoredProcedureDetails{}
	}
	d.procs[strings.ToLower(spd.Name)] = spd
	d.mu.Unlock()
	return nil
}

// DropStoredProcedure implements sql.StoredProcedureDatabase.
func (d *Database) DropStoredProcedure(ctx *sql.Context, name string) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	d.mu.RLock()
	_, ok := d.procs[strings.ToLower(name)]
	d.mu.RUnlock()
	if !ok {
		return sql.ErrStoredProcedureDoesNotExist.New(name)
	}
	if err := d.b.writeCatalog(sessionFor(ctx), map[string][]byte{procedureKey(d.name, name): nil}); err != nil {
		return err
	}
	d.mu.Lock()
	delete(d.procs, strings.ToLower(name))
	d.mu.Unlock()
	return nil
}
