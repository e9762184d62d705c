package rules

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-23: `x op ALL (subquery)` and `x op ANY|SOME (subquery)`.
// go-mysql-server's parser has no quantified comparisons; the server
// rewrites the text (mysql/server rewriteQuery) to `x op
// strata_all((subquery))` / `strata_any(...)` / `strata_some(...)`, which parses as a
// comparison whose right side is a marker function over a subquery. This
// rule replaces each such comparison by a quantified one, evaluated with
// SQL's three-valued logic:
//
//	ALL: TRUE over no rows; FALSE if any comparison is FALSE; else NULL
//	     if any is NULL; else TRUE.
//	ANY: FALSE over no rows; TRUE if any comparison is TRUE; else NULL
//	     if any is NULL; else FALSE.
//
// Each comparison is go-mysql-server's own operator over the two values,
// so type conversions are those of `x op y`. A marker left anywhere else
// (not the right side of a comparison) is 1235.

// QuantifierAll and QuantifierAny are the marker functions' names.
const (
	QuantifierAll  = "strata_all"
	QuantifierAny  = "strata_any"
	QuantifierSome = "strata_some" // ANY's other name
)

// quantifierMarker is the function the rewritten text calls. ne says the
// operator was <> or !=, which go-mysql-server parses as NOT (a = b): the
// NOT above the comparison belongs to it (a user's own NOT (a = ALL (...))
// has no ne).
type quantifierMarker struct {
	all bool
	ne  bool
	sq  sql.Expression
}

var _ sql.FunctionExpression = (*quantifierMarker)(nil)

func quantifierFunctions() []sql.Function {
	mk := func(name string, all, ne bool) sql.Function {
		return sql.Function1{Name: name, Fn: func(e sql.Expression) sql.Expression {
			return &quantifierMarker{all: all, ne: ne, sq: e}
		}}
	}
	return []sql.Function{mk(QuantifierAll, true, false), mk(QuantifierAny, false, false), mk(QuantifierSome, false, false),
		mk(QuantifierAll+"_ne", true, true), mk(QuantifierAny+"_ne", false, true), mk(QuantifierSome+"_ne", false, true)}
}

func (m *quantifierMarker) FunctionName() string {
	name := QuantifierAny
	if m.all {
		name = QuantifierAll
	}
	if m.ne {
		name += "_ne"
	}
	return name
}
func (m *quantifierMarker) Description() string        { return "quantified comparison (internal)" }
func (m *quantifierMarker) Resolved() bool             { return m.sq.Resolved() }
func (m *quantifierMarker) String() string             { return fmt.Sprintf("%s(%s)", m.word(), m.sq) }
func (m *quantifierMarker) Type() sql.Type             { return m.sq.Type() }
func (m *quantifierMarker) IsNullable() bool           { return true }
func (m *quantifierMarker) Children() []sql.Expression { return []sql.Expression{m.sq} }
func (m *quantifierMarker) word() string {
	if m.all {
		return "ALL"
	}
	return "ANY"
}
func (m *quantifierMarker) Eval(*sql.Context, sql.Row) (any, error) {
	return nil, errQuantifier
}
func (m *quantifierMarker) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(m, len(children), 1)
	}
	return &quantifierMarker{all: m.all, ne: m.ne, sq: children[0]}, nil
}

// errQuantifier: the marker outside a comparison, or over something that is
// not a subquery. The server maps it to 1235.
var errQuantifier = fmt.Errorf("this form of ALL/ANY/SOME is not supported")

// quantifiedComparisons is RULE-23's analyzer rule.
func quantifiedComparisons(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, quantify)
}

// quantify runs bottom-up: a comparison over a marker becomes a
// quantified comparison, and the NOT of a <> or != is folded into it.
func quantify(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	if not, ok := e.(*expression.Not); ok {
		if q, ok := not.Child.(*quantified); ok && q.pendingNot {
			nq := *q
			nq.pendingNot, nq.negate = false, true
			return &nq, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	}
	bin, ok := e.(expression.Comparer)
	if !ok {
		return e, transform.SameTree, nil
	}
	m, ok := bin.Right().(*quantifierMarker)
	if !ok {
		return e, transform.SameTree, nil
	}
	sq, ok := m.sq.(*plan.Subquery)
	if !ok {
		return nil, transform.SameTree, errQuantifier
	}
	if _, eq := bin.(*expression.Equals); m.ne && !eq {
		return nil, transform.SameTree, errQuantifier
	}
	return &quantified{cmp: bin, left: bin.Left(), sq: sq, all: m.all, pendingNot: m.ne}, transform.NewTree, nil
}

// quantified is `left op ALL|ANY (sq)`; cmp is the comparison `left op
// marker` it replaces, rebuilt over two literals per subquery row.
type quantified struct {
	cmp    sql.Expression
	left   sql.Expression
	sq     *plan.Subquery
	all    bool
	negate bool // the comparison was NOT (a = b), i.e. <> or !=
	// pendingNot: <> or != whose NOT (above) is not folded in yet.
	pendingNot bool
}

var _ sql.Expression = (*quantified)(nil)

func (q *quantified) Resolved() bool             { return q.left.Resolved() && q.sq.Resolved() }
func (q *quantified) Type() sql.Type             { return types.Boolean }
func (q *quantified) IsNullable() bool           { return true }
func (q *quantified) Children() []sql.Expression { return []sql.Expression{q.left, q.sq} }
func (q *quantified) String() string {
	word := "ANY"
	if q.all {
		word = "ALL"
	}
	op := fmt.Sprintf("%T", q.cmp)
	if c, ok := q.cmp.(interface{ Operator() string }); ok {
		op = c.Operator()
	}
	if q.negate {
		op = "<>"
	}
	return fmt.Sprintf("(%s %s %s %s)", q.left, op, word, q.sq)
}

func (q *quantified) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(q, len(children), 2)
	}
	sq, ok := children[1].(*plan.Subquery)
	if !ok {
		return nil, errQuantifier
	}
	nq := *q
	nq.left, nq.sq = children[0], sq
	return &nq, nil
}

func (q *quantified) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if n := len(q.sq.Query.Schema()); n != 1 {
		return nil, sql.ErrInvalidOperandColumns.New(1, n)
	}
	lv, err := q.left.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	vals, err := q.sq.EvalMultiple(ctx, row)
	if err != nil {
		return nil, err
	}
	left := expression.NewLiteral(lv, q.left.Type())
	rt := q.sq.Query.Schema()[0].Type
	sawNull := false
	for _, v := range vals {
		c, err := q.cmp.WithChildren(left, expression.NewLiteral(v, rt))
		if err != nil {
			return nil, err
		}
		r, err := c.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if r == nil {
			sawNull = true
			continue
		}
		t, err := sql.ConvertToBool(ctx, r)
		if err != nil {
			return nil, err
		}
		if q.negate {
			t = !t
		}
		if q.all && !t {
			return false, nil
		}
		if !q.all && t {
			return true, nil
		}
	}
	if sawNull {
		return nil, nil
	}
	return q.all, nil
}
