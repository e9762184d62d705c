package rules

import (
	"context"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/sqltypes"
)

// RULE-77 A sort key of type DATE (in a sort or a top-N) compares two
// values that are both canonical date strings, YYYY-MM-DD of a real
// calendar day in years 1000-9999, as strings: their order is the dates'.
// go-mysql-server's DATE() returns such strings, and its DATE type parsed
// both with time.Parse for every comparison (12% of a report ordered by
// DATE(created)). Any other value (a time, another spelling, NULL) is
// compared by the DATE type as before. The sort prints as before.
func dateSortKeys(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		first := 0 // the sort fields' place among the node's expressions
		switch n.(type) {
		case *plan.Sort:
		case *plan.TopN:
			first = 1 // after the limit
		default:
			return n, transform.SameTree, nil
		}
		ex := n.(sql.Expressioner)
		exprs := append([]sql.Expression(nil), ex.Expressions()...)
		changed := false
		for i := first; i < len(exprs); i++ {
			if _, done := exprs[i].(*dateSortKey); done || exprs[i].Type().Type() != sqltypes.Date {
				continue
			}
			dt, ok := exprs[i].Type().(sql.DatetimeType)
			if !ok {
				continue
			}
			exprs[i] = &dateSortKey{Expression: exprs[i], typ: dateKeyType{dt}}
			changed = true
		}
		if !changed {
			return n, transform.SameTree, nil
		}
		nn, err := ex.WithExpressions(exprs...)
		if err != nil {
			return n, transform.SameTree, nil
		}
		return nn, transform.NewTree, nil
	})
}

// dateSortKey is a DATE sort key compared by dateKeyType (RULE-77).
type dateSortKey struct {
	sql.Expression
	typ sql.Type // a dateKeyType, boxed once (Type is called per comparison)
}

func (k *dateSortKey) Type() sql.Type             { return k.typ }
func (k *dateSortKey) Children() []sql.Expression { return []sql.Expression{k.Expression} }
func (k *dateSortKey) String() string             { return k.Expression.String() }
func (k *dateSortKey) DebugString() string        { return sql.DebugString(k.Expression) }

func (k *dateSortKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &dateSortKey{Expression: children[0], typ: k.typ}, nil
}

// dateKeyType is the DATE type with canonical date strings compared as
// strings (RULE-77).
type dateKeyType struct {
	sql.DatetimeType
}

func (t dateKeyType) Compare(ctx context.Context, a, b any) (int, error) {
	if as, ok := a.(string); ok && canonicalDate(as) {
		if bs, ok := b.(string); ok && canonicalDate(bs) {
			return strings.Compare(as, bs), nil
		}
	}
	return t.DatetimeType.Compare(ctx, a, b)
}

func (t dateKeyType) Equals(other sql.Type) bool {
	if o, ok := other.(dateKeyType); ok {
		other = o.DatetimeType
	}
	return t.DatetimeType.Equals(other)
}

// canonicalDate reports YYYY-MM-DD naming a real day of years 1000-9999.
func canonicalDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	num := func(p string) int {
		n := 0
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return -1
			}
			n = n*10 + int(p[i]-'0')
		}
		return n
	}
	y, m, d := num(s[:4]), num(s[5:7]), num(s[8:])
	if y < 1000 || m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
