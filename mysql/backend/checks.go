package backend

import (
	"fmt"
	"strconv"
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
	Name      string `json:"name"`
	Expr      string `json:"expr"`
	Enforced  bool   `json:"enforced"`
	Generated bool   `json:"generated,omitempty"` // name made up by Strata
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
		name, generated := check.Name, check.Name == ""
		if generated {
			name = nextCheckName(def)
		}
		for i, c := range def.Checks {
			if !strings.EqualFold(c.Name, name) {
				continue
			}
			if !c.Generated || generated {
				return mysql.NewSQLError(3822, "HY000", "Duplicate check constraint name '%s'.", name)
			}
			// An explicit name wins over one made up for an unnamed
			// check earlier in the same CREATE TABLE (MariaDB's dumps
			// have an inline CHECK before a named <table>_chk_1).
			def.Checks[i].Name = nextCheckName(def)
		}
		def.Checks = append(def.Checks, checkDef{Name: name, Expr: check.CheckExpression, Enforced: check.Enforced, Generated: generated})
		return nil
	})
}

// nextCheckName is MySQL's name for an unnamed check: <table>_chk_<n>, n
// past the largest in use.
func nextCheckName(def *tableDef) string {
	prefix, n := strings.ToLower(def.Name)+"_chk_", 0
	for _, c := range def.Checks {
		if k, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(c.Name), prefix)); err == nil && k > n {
			n = k
		}
	}
	return fmt.Sprintf("%s_chk_%d", def.Name, n+1)
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
