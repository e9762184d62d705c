package backend

import (
	"sort"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// Stored functions are catalog entries "f/<db>/<function>" holding a
// FunctionDef (CAT-6). Package routines parses and runs them: each runs as
// a procedure whose text the definition carries, reachable under a hidden
// name (FunctionProcedurePrefix + name) through GetStoredProcedure only, so
// SHOW PROCEDURE STATUS, information_schema.ROUTINES' procedures and dumps
// never list it.

// FunctionProcedurePrefix starts the hidden name of a function's procedure.
const FunctionProcedurePrefix = "strata_function_"

// FunctionDef is a stored function as the catalog keeps it.
type FunctionDef struct {
	Name            string
	CreateStatement string   // as written (SHOW CREATE FUNCTION)
	Procedure       string   // the CREATE PROCEDURE text it runs as
	Params          string   // the parameter list as written
	ParamNames      []string // each parameter's name, in order
	Returns         string   // the RETURNS type as written
	Body            string   // the routine body as written
	Deterministic   bool
	DataAccess      string // CONTAINS SQL, NO SQL, READS SQL DATA, MODIFIES SQL DATA
	Security        string // DEFINER or INVOKER
	Comment         string
	Definer         string
	SqlMode         string
	CharacterSet    string // character_set_client, collation_connection at creation
	Collation       string
	DBCollation     string
	CreatedAt       time.Time
	ModifiedAt      time.Time
}

func functionKey(db, name string) string {
	return "f/" + strings.ToLower(db) + "/" + strings.ToLower(name)
}

// Function returns the stored function name of d.
func (d *Database) Function(name string) (FunctionDef, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	f, ok := d.funcs[strings.ToLower(name)]
	return f, ok
}

// Functions lists d's stored functions by name.
func (d *Database) Functions() []FunctionDef {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]FunctionDef, 0, len(d.funcs))
	for _, f := range d.funcs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SaveFunction adds a stored function (1304 when the name is taken).
func (d *Database) SaveFunction(s *Session, f FunctionDef) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	if _, exists := d.Function(f.Name); exists {
		return sql.ErrStoredProcedureAlreadyExists.New(f.Name)
	}
	if err := d.b.writeCatalog(s, map[string][]byte{functionKey(d.name, f.Name): encodeJSON(f)}); err != nil {
		return err
	}
	d.mu.Lock()
	if d.funcs == nil {
		d.funcs = map[string]FunctionDef{}
	}
	d.funcs[strings.ToLower(f.Name)] = f
	d.mu.Unlock()
	return nil
}

// DropFunction removes a stored function; false when there is none.
func (d *Database) DropFunction(s *Session, name string) (bool, error) {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	if _, ok := d.Function(name); !ok {
		return false, nil
	}
	if err := d.b.writeCatalog(s, map[string][]byte{functionKey(d.name, name): nil}); err != nil {
		return false, err
	}
	d.mu.Lock()
	delete(d.funcs, strings.ToLower(name))
	d.mu.Unlock()
	return true, nil
}

// functionProcedure is the hidden procedure of a function name (CAT-6).
func (d *Database) functionProcedure(name string) (sql.StoredProcedureDetails, bool) {
	if len(name) <= len(FunctionProcedurePrefix) || !strings.EqualFold(name[:len(FunctionProcedurePrefix)], FunctionProcedurePrefix) {
		return sql.StoredProcedureDetails{}, false
	}
	f, ok := d.Function(name[len(FunctionProcedurePrefix):])
	if !ok {
		return sql.StoredProcedureDetails{}, false
	}
	return sql.StoredProcedureDetails{Name: FunctionProcedurePrefix + f.Name, CreateStatement: f.Procedure,
		CreatedAt: f.CreatedAt, ModifiedAt: f.ModifiedAt, SqlMode: f.SqlMode}, true
}
