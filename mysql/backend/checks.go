package backend

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// CHECK constraints are kept in the table's definition (CAT-3): name,
// expression text (as go-mysql-server prints it, re-parsed by its planner
// on every statement) and whether it is enforced. go-mysql-server
// evaluates them on INSERT and UPDATE; CREATE TABLE ... CHECK adds them
// through CreateCheck after the table exists, validating existing rows
// first for ALTER TABLE ADD CHECK.

type checkDef struct {
	Name     string `json:"name"`
	Expr     string `json:"expr"`
	Enforced bool   `json:"enforced"`
}

var (
	_ sql.CheckTable          = (*Table)(nil)
	_ sql.CheckAlterableTable = (*Table)(nil)
)

// GetChecks implements sql.CheckTable (from the current definition, as
// CREATE TABLE adds several checks through one resolved table).
func (tb *Table) GetChecks(ctx *sql.Context) ([]sql.CheckDefinition, error) {
	t := tb.t
	if cur, err := tb.current(); err == nil {
		t = cur
	}
	out := make([]sql.CheckDefinition, len(t.def.Checks))
	for i, c := range t.def.Checks {
		out[i] = sql.CheckDefinition{Name: c.Name, CheckExpression: c.Expr, Enforced: c.Enforced}
	}
	return out, nil
}

// CreateCheck implements sql.CheckAlterableTable.
func (tb *Table) CreateCheck(ctx *sql.Context, check *sql.CheckDefinition) error {
	return tb.alterDef(ctx, func(def *tableDef) error {
		for _, c := range def.Checks {
			if strings.EqualFold(c.Name, check.Name) {
				return mysql.NewSQLError(3822, "HY000", "Duplicate check constraint name '%s'.", check.Name)
			}
		}
		def.Checks = append(def.Checks, checkDef{Name: check.Name, Expr: check.CheckExpression, Enforced: check.Enforced})
		return nil
	})
}

// DropCheck implements sql.CheckAlterableTable.
func (tb *Table) DropCheck(ctx *sql.Context, name string) error {
	return tb.alterDef(ctx, func(def *tableDef) error {
		for i, c := range def.Checks {
			if strings.EqualFold(c.Name, name) {
				def.Checks = append(def.Checks[:i:i], def.Checks[i+1:]...)
				return nil
			}
		}
		return sql.ErrUnknownConstraint.New(name)
	})
}
