package backend

import (
	"github.com/dolthub/vitess/go/mysql"
	"sort"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// Views are catalog entries "v/<db>/<view>" holding the definition
// (CAT-3); they have no keyspace.

var _ sql.ViewDatabase = (*Database)(nil)

func viewKey(db, view string) string { return "v/" + strings.ToLower(db) + "/" + strings.ToLower(view) }

// CreateView implements sql.ViewDatabase.
func (d *Database) CreateView(ctx *sql.Context, name, selectStmt, createStmt string) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	if _, ok := d.views()[strings.ToLower(name)]; ok {
		return sql.ErrExistingView.New(d.name, name)
	}
	if d.lookup(name) != nil {
		return sql.ErrTableAlreadyExists.New(name)
	}
	def := sql.ViewDefinition{Name: name, TextDefinition: selectStmt, CreateViewStatement: createStmt,
		SqlMode: sql.LoadSqlMode(ctx).String()}
	if err := d.b.writeCatalog(sessionFor(ctx), map[string][]byte{viewKey(d.name, name): encodeJSON(def)}); err != nil {
		return err
	}
	d.mu.Lock()
	if d.viewDefs == nil {
		d.viewDefs = map[string]sql.ViewDefinition{}
	}
	d.viewDefs[strings.ToLower(name)] = def
	d.mu.Unlock()
	return nil
}

// DropView implements sql.ViewDatabase.
func (d *Database) DropView(ctx *sql.Context, name string) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	if _, ok := d.views()[strings.ToLower(name)]; !ok {
		return sql.ErrViewDoesNotExist.New(d.name, name)
	}
	if err := d.b.writeCatalog(sessionFor(ctx), map[string][]byte{viewKey(d.name, name): nil}); err != nil {
		return err
	}
	d.mu.Lock()
	delete(d.viewDefs, strings.ToLower(name))
	d.mu.Unlock()
	return nil
}

func (d *Database) views() map[string]sql.ViewDefinition {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.viewDefs
}

// GetViewDefinition implements sql.ViewDatabase.
func (d *Database) GetViewDefinition(ctx *sql.Context, name string) (sql.ViewDefinition, bool, error) {
	v, ok := d.views()[strings.ToLower(name)]
	return v, ok, nil
}

// AllViews implements sql.ViewDatabase.
func (d *Database) AllViews(ctx *sql.Context) ([]sql.ViewDefinition, error) {
	var out []sql.ViewDefinition
	for _, v := range d.views() {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Triggers are catalog entries "g/<db>/<trigger>" holding the definition
// (CAT-3); go-mysql-server runs them.

var _ sql.TriggerDatabase = (*Database)(nil)

func triggerKey(db, name string) string {
	return "g/" + strings.ToLower(db) + "/" + strings.ToLower(name)
}

// GetTriggers implements sql.TriggerDatabase.
func (d *Database) GetTriggers(ctx *sql.Context) ([]sql.TriggerDefinition, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]sql.TriggerDefinition, 0, len(d.triggers))
	for _, t := range d.triggers {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// CreateTrigger implements sql.TriggerDatabase.
func (d *Database) CreateTrigger(ctx *sql.Context, def sql.TriggerDefinition) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	d.mu.RLock()
	_, exists := d.triggers[strings.ToLower(def.Name)]
	d.mu.RUnlock()
	if exists { // MySQL's 1359 (it replaced the trigger silently)
		return errTriggerExists
	}
	if err := d.b.writeCatalog(sessionFor(ctx), map[string][]byte{triggerKey(d.name, def.Name): encodeJSON(def)}); err != nil {
		return err
	}
	d.mu.Lock()
	if d.triggers == nil {
		d.triggers = map[string]sql.TriggerDefinition{}
	}
	d.triggers[strings.ToLower(def.Name)] = def
	d.mu.Unlock()
	return nil
}

var errTriggerExists = mysql.NewSQLError(1359, "HY000", "Trigger already exists")

// DropTrigger implements sql.TriggerDatabase.
func (d *Database) DropTrigger(ctx *sql.Context, name string) error {
	d.b.ddl.Lock()
	defer d.b.ddl.Unlock()
	d.mu.RLock()
	_, ok := d.triggers[strings.ToLower(name)]
	d.mu.RUnlock()
	if !ok {
		return sql.ErrTriggerDoesNotExist.New(name)
	}
	if err := d.b.writeCatalog(sessionFor(ctx), map[string][]byte{triggerKey(d.name, name): nil}); err != nil {
		return err
	}
	d.mu.Lock()
	delete(d.triggers, strings.ToLower(name))
	d.mu.Unlock()
	return nil
}
