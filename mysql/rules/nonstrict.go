package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-30 Outside strict mode (sql_mode without STRICT_TRANS_TABLES and
// STRICT_ALL_TABLES), a NULL going into a NOT NULL column of a multi-row
// INSERT, an INSERT ... SELECT or an UPDATE becomes the column type's
// implicit default (0, the empty string, the zero date) with Warning 1048, as MySQL
// documents ("Constraints on Invalid Data"); a single-row INSERT ...
// VALUES stays error 1048. AUTO_INCREMENT and TIMESTAMP columns are left
// alone (NULL means a generated value there). go-mysql-server failed the
// statement in every mode, which legacy applications running with
// sql_mode=” do not expect.
func nonStrictNulls(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	m := sql.LoadSqlMode(ctx)
	if m.ModeEnabled("STRICT_TRANS_TABLES") || m.ModeEnabled("STRICT_ALL_TABLES") {
		return n, transform.SameTree, nil
	}
	wrap := func(e sql.Expression, col *sql.Column) (sql.Expression, bool) {
		if col == nil || col.Nullable || col.AutoIncrement || types.IsTimestampType(col.Type) {
			return e, false
		}
		if _, done := e.(*nullToDefault); done {
			return e, false
		}
		return &nullToDefault{over: over{e}, col: col}, true
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			single := false
			transform.Inspect(n.Source, func(c sql.Node) bool {
				if v, ok := c.(*plan.Values); ok && len(v.ExpressionTuples) == 1 {
					single = true
				}
				return !single
			})
			if single || n.Ignore {
				return n, transform.SameTree, nil
			}
			return insertSources(n, wrap)
		case *plan.UpdateSource:
			return updateSources(n, wrap)
		}
		return n, transform.SameTree, nil
	})
}

// nullToDefault is a value for a NOT NULL column outside strict mode.
type nullToDefault struct {
	over
	col *sql.Column
}

func (z *nullToDefault) Type() sql.Type { return z.child.Type() }
func (z *nullToDefault) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(z, len(children), 1)
	}
	return &nullToDefault{over: over{children[0]}, col: z.col}, nil
}
func (z *nullToDefault) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := z.child.Eval(ctx, row)
	if err != nil || v != nil {
		return v, err
	}
	ctx.Warn(1048, "Column '%s' cannot be null", z.col.Name)
	return z.col.Type.Zero(), nil
}
