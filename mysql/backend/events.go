package backend

import (
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Events are not supported (DB-EV): a database has none, so SHOW EVENTS
// and information_schema.EVENTS answer with no rows (go-mysql-server's
// grant-checking wrapper fails on a database without the interface, which
// broke `mariadb-dump --events`), and CREATE/ALTER EVENT get 1235.

var _ sql.EventDatabase = (*Database)(nil)

func errEvents() error {
	return mysql.NewSQLError(mysql.ERNotSupportedYet, "42000", "This version of Strata doesn't yet support 'events'")
}

func (d *Database) GetEvent(*sql.Context, string) (sql.EventDefinition, bool, error) {
	return sql.EventDefinition{}, false, nil
}
func (d *Database) GetEvents(*sql.Context) ([]sql.EventDefinition, interface{}, error) {
	return nil, nil, nil
}
func (d *Database) SaveEvent(*sql.Context, sql.EventDefinition) (bool, error) {
	return false, errEvents()
}
func (d *Database) DropEvent(_ *sql.Context, name string) error {
	return sql.ErrEventDoesNotExist.New(name)
}
func (d *Database) UpdateEvent(*sql.Context, string, sql.EventDefinition) (bool, error) {
	return false, errEvents()
}
func (d *Database) UpdateLastExecuted(*sql.Context, string, time.Time) error { return nil }
func (d *Database) NeedsToReloadEvents(*sql.Context, interface{}) (bool, error) {
	return false, nil
}
