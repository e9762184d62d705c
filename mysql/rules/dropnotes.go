package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// dropTableNotes is RULE-65: DROP TABLE IF EXISTS names each table it did
// not find as db.table in its Note 1051 ("Unknown table 'test.t2'"), one
// note per table as MySQL 8.0 does (MariaDB joins them into one);
// go-mysql-server's planner gave the bare name.
func dropTableNotes(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	dt, ok := n.(*plan.DropTable)
	if !ok || !dt.IfExists() || ctx.Session == nil || ctx.Session.WarningCount() == 0 {
		return n, transform.SameTree, nil
	}
	newestFirst := ctx.Session.Warnings()
	var unknown []string
	for _, w := range newestFirst {
		if w.Code == mysql.ERBadTable && strings.HasPrefix(w.Message, "Unknown table '") && !strings.Contains(w.Message, ".") {
			unknown = append(unknown, strings.TrimSuffix(strings.TrimPrefix(w.Message, "Unknown table '"), "'"))
		}
	}
	if len(unknown) == 0 {
		return n, transform.SameTree, nil
	}
	qualifier := map[string]string{}
	if stmt, err := sqlparser.Parse(ctx.Query()); err == nil {
		if ddl, ok := stmt.(*sqlparser.DDL); ok {
			for _, t := range ddl.FromTables {
				if q := t.DbQualifier.String(); q != "" {
					qualifier[strings.ToLower(t.Name.String())] = q
				}
			}
		}
	}
	names := make([]string, len(unknown))
	for i, name := range unknown {
		db, ok := qualifier[strings.ToLower(name)]
		if !ok {
			db = ctx.GetCurrentDatabase()
		}
		names[len(unknown)-1-i] = db + "." + name // statement order
	}
	ctx.Session.ClearWarnings()
	for i := len(newestFirst) - 1; i >= 0; i-- {
		if w := newestFirst[i]; w.Code != mysql.ERBadTable || strings.Contains(w.Message, ".") {
			ctx.Session.Warn(w)
		}
	}
	for _, name := range names {
		ctx.Session.Warn(&sql.Warning{Level: "Note", Code: mysql.ERBadTable, Message: "Unknown table '" + name + "'"})
	}
	return n, transform.SameTree, nil
}
