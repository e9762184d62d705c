package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// likeEscapes implements RULE-36: `col LIKE 'pattern'` keeps LIKE's
// meaning when the pattern escapes a wildcard (`'a\_b'`) or has none.
// go-mysql-server's filter simplification turns a pattern without
// unescaped wildcards into `col = 'pattern'` with the backslashes left in
// (LIKE 'a\_b' matched nothing), a pattern ending in % into a range whose
// bounds keep them, and `=` pads spaces under PAD SPACE collations where
// LIKE does not ('a ' LIKE 'a' is false). It leaves a LIKE with an ESCAPE
// clause alone, so this rule, before it, gives such patterns the default
// escape explicitly. Patterns with unescaped wildcards and no backslash
// keep the simplification (and an index range for 'prefix%').
func likeEscapes(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		l, ok := e.(*expression.Like)
		if !ok || l.Escape != nil {
			return e, transform.SameTree, nil
		}
		lit, ok := l.RightChild.(*expression.Literal)
		if !ok {
			return e, transform.SameTree, nil
		}
		s, ok := lit.Value().(string)
		if !ok || !strings.Contains(s, `\`) && strings.ContainsAny(s, "%_") {
			return e, transform.SameTree, nil
		}
		return expression.NewLike(l.LeftChild, l.RightChild, expression.NewLiteral(`\`, types.LongText)), transform.NewTree, nil
	})
}
