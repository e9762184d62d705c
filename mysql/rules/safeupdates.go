package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
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
// table). A table whose access go-mysql-server left whole still counts as
// keyed when a filter right above it compares the first column of one of
// its indexes with a value (=, <, <=, >, >=, IN, IS NULL): its costing
// scans tables it believes tiny (an old ANALYZE) where MySQL's range
// optimizer uses the key.
func safeUpdates(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	switch n.(type) {
	case *plan.Update, *plan.DeleteFrom:
	default:
		return n, transform.SameTree, nil
	}
	if v, err := ctx.GetSessionVariable(ctx, "sql_safe_updates"); err != nil || isZero(v) {
		return n, transform.SameTree, nil
	}
	if readsWhole(ctx, n, nil) {
		return nil, transform.SameTree, mysql.NewSQLError(1175, "HY000",
			"You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column")
	}
	return n, transform.SameTree, nil
}

// readsWhole reports whether n reads some table whole with no LIMIT above
// the read; filter is the condition of the Filter right above n, if any.
func readsWhole(ctx *sql.Context, n sql.Node, filter sql.Expression) bool {
	switch x := n.(type) {
	case *plan.Limit, *plan.TopN, *plan.IndexedTableAccess:
		return false
	case *plan.ResolvedTable:
		return filter == nil || !keyCompared(ctx, x, filter)
	case *plan.Filter:
		return readsWhole(ctx, x.Child, x.Expression)
	case *plan.TableAlias:
		return readsWhole(ctx, x.Child, filter)
	}
	for _, c := range n.Children() {
		if readsWhole(ctx, c, nil) {
			return true
		}
	}
	return false
}

// keyCompared reports whether filter compares the first column of one of
// t's indexes with something that does not read t (readsWhole).
func keyCompared(ctx *sql.Context, t *plan.ResolvedTable, filter sql.Expression) bool {
	ia, ok := t.UnderlyingTable().(sql.IndexAddressable)
	if !ok {
		return false
	}
	ixs, err := ia.GetIndexes(ctx)
	if err != nil {
		return false
	}
	first := map[string]bool{}
	for _, ix := range ixs {
		if exprs := ix.Expressions(); len(exprs) > 0 {
			e := exprs[0]
			first[strings.ToLower(e[strings.LastIndexByte(e, '.')+1:])] = true
		}
	}
	name := strings.ToLower(t.Name())
	keyed := func(e sql.Expression) bool {
		gf, ok := e.(*expression.GetField)
		return ok && first[strings.ToLower(gf.Name())] && strings.EqualFold(gf.Table(), name)
	}
	readsT := func(e sql.Expression) bool {
		return transform.InspectExpr(e, func(e sql.Expression) bool {
			gf, ok := e.(*expression.GetField)
			return ok && strings.EqualFold(gf.Table(), name)
		})
	}
	found := false
	sql.Inspect(filter, func(e sql.Expression) bool {
		switch x := e.(type) {
		case *expression.Or:
			return false // a key under OR does not narrow the read
		case *expression.InTuple:
			found = found || keyed(x.Left())
		case *expression.HashInTuple:
			found = found || keyed(x.Left())
		case expression.Comparer:
			l, r := x.Left(), x.Right()
			found = found || keyed(l) && !readsT(r) || keyed(r) && !readsT(l)
		case *plan.InSubquery:
			found = found || keyed(x.Left())
		case *expression.IsNull:
			found = found || keyed(x.Child)
		}
		return !found
	})
	return found
}
