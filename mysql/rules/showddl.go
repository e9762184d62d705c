package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// readOnlyShows clears the DDL flag of read-only statements (RULE-12): a
// view's definition is parsed as its CREATE VIEW statement, which flags
// the query as DDL, and go-mysql-server commits the open transaction after
// a DDL query: a SELECT from a view, or SHOW CREATE TABLE or SHOW FIELDS
// of one, committed the client's transaction and lost its savepoints
// (mariadb-dump --single-transaction failed on ROLLBACK TO SAVEPOINT).
func readOnlyShows(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, qFlags *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if qFlags == nil || !qFlags.IsSet(sql.QFlagDDL) {
		return n, transform.SameTree, nil
	}
	if !plan.IsDDLNode(n) && n.IsReadOnly() {
		qFlags.Unset(sql.QFlagDDL)
	}
	return n, transform.SameTree, nil
}
