package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// readOnlySessions implements RULE-52: in a session whose transactions
// are read-only (SET SESSION TRANSACTION READ ONLY, transaction_read_only
// = ON), a statement that writes (DML or DDL) fails with 1792, as in
// MySQL. go-mysql-server checked only START TRANSACTION READ ONLY, so the
// session setting changed nothing (go-sql-driver's TestRejectReadOnly
// dropped a table in a read-only session).
func readOnlySessions(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if n.IsReadOnly() || ctx.Session == nil {
		return n, transform.SameTree, nil
	}
	v, err := ctx.GetSessionVariable(ctx, "transaction_read_only")
	if err != nil || !sessionFlag(v) {
		return n, transform.SameTree, nil
	}
	switch n.(type) {
	case *plan.Set, *plan.StartTransaction, *plan.Commit, *plan.Rollback, *plan.CreateSavepoint,
		*plan.RollbackSavepoint, *plan.ReleaseSavepoint:
		return n, transform.SameTree, nil
	}
	return nil, transform.SameTree, sql.ErrReadOnlyTransaction.New()
}

func sessionFlag(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int8:
		return x != 0
	case int64:
		return x != 0
	case int:
		return x != 0
	case string:
		return x == "1" || x == "ON" || x == "on"
	}
	return false
}
