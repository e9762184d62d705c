package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
)

// DefaultCollation is MySQL 8's default collation: what collation_server,
// collation_database and collation_connection start as (RULE-6).
var DefaultCollation = sql.Collation_utf8mb4_0900_ai_ci

// serverCollation gives CREATE DATABASE without COLLATE or CHARACTER SET
// the session's collation_server, as MySQL does (RULE-6); go-mysql-server
// uses its compiled-in utf8mb4_0900_bin.
func serverCollation(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	cdb, ok := n.(*plan.CreateDB)
	if !ok || cdb.Collation != sql.Collation_Unspecified {
		return n, transform.SameTree, nil
	}
	coll := DefaultCollation
	if v, err := ctx.GetSessionVariable(ctx, "collation_server"); err == nil {
		if s, ok := v.(string); ok {
			if c, err := sql.ParseCollation("", s, false); err == nil {
				coll = c
			}
		}
	}
	nc := *cdb
	nc.Collation = coll
	return &nc, transform.NewTree, nil
}
