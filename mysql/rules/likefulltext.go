package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// likeFullText is RULE-67: CREATE TABLE t LIKE s copies s's FULLTEXT
// indexes as FULLTEXT indexes. go-mysql-server's planner copied them as
// B-tree indexes over TEXT columns (1170: "used in key specification
// without a key length").
func likeFullText(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	ct, ok := n.(*plan.CreateTable)
	if !ok || len(ct.Indexes()) == 0 || !strings.Contains(strings.ToLower(ctx.Query()), "like") {
		return n, transform.SameTree, nil
	}
	stmt, err := ast.Parse(ctx.Query())
	if err != nil {
		return n, transform.SameTree, nil
	}
	ddl, ok := stmt.(*ast.DDL)
	if !ok || ddl.OptLike == nil {
		return n, transform.SameTree, nil
	}
	fullText := map[string]bool{}
	for _, lt := range ddl.OptLike.LikeTables {
		db := lt.DbQualifier.String()
		if db == "" {
			db = ctx.GetCurrentDatabase()
		}
		t, _, err := a.Catalog.Table(ctx, db, lt.Name.String())
		if err != nil {
			continue
		}
		if it, ok := t.(sql.IndexAddressableTable); ok {
			idxs, err := it.GetIndexes(ctx)
			if err != nil {
				continue
			}
			for _, ix := range idxs {
				if ix.IsFullText() {
					fullText[strings.ToLower(ix.ID())] = true
				}
			}
		}
	}
	for _, d := range ct.Indexes() {
		if fullText[strings.ToLower(d.Name)] {
			d.Constraint = sql.IndexConstraint_Fulltext
		}
	}
	return n, transform.SameTree, nil
}
