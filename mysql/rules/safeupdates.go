package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// safeUpdates implements RULE-68: under sql_safe_updates (the mysql and
// mariadb clients' --safe-updates, MySQL Workbench's default), an UPDATE
// or DELETE that would read a table whole, with no LIMIT, is refused with
// 1175 before it changes anything, as MySQL refuses it. A table is read
// whole unless an index narrows its access (a key lookup or range); a
// LIMIT above the access makes the statement safe. go-mysql-server
// accepted the variable and ignored it (`DELETE FROM t` emptied the
// table).
func safeUpdates(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch n.(type) {
	case *plan.Update, *plan.DeleteFrom:
	default:
		return n, transform.SameTree, nil
	}
	if v, err := ctx.GetSessionVariable(ctx, "sql_safe_updates"); err != nil || isZero(v) {
		return n, transform.SameTree, nil
	}
	whole := false
	transform.Inspect(n, func(n sql.Node) bool {
		switch n.(type) {
		case *plan.Limit, *plan.TopN, *plan.IndexedTableAccess:
			return false
		case *plan.ResolvedTable:
			whole = true
		}
		return !whole
	})
	if whole {
		return nil, transform.SameTree, mysql.NewSQLError(1175, "HY000",
			"You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column")
	}
	return n, transform.SameTree, nil
}
