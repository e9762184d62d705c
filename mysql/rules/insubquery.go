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

// inSubqueries implements RULE-45: x IN (subquery) is evaluated with SQL's
// three-valued logic, as MySQL documents it: TRUE when a row of the
// subquery equals x, else NULL when x is NULL or some row's comparison is
// NULL (a NULL on either side of an element that no other element
// decides), else FALSE; FALSE for no rows. go-mysql-server's evaluation
// looks the value up in a hash of the rows: `1 IN (SELECT NULL)` was 0
// (and NOT IN 1), and a row value matched a row with NULLs as if NULL
// equalled NULL: (NULL, 100) IN (SELECT NULL, 100) was 1. The hash still
// answers the common case (a match, x without NULLs); the rows are
// compared one by one only when it finds no match or x has a NULL.
// Row-valued IN subqueries in a WHERE also stay expressions (keepNotIn),
// since the semi-join go-mysql-server made of them matched NULLs too.
func inSubqueries(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		in, ok := e.(*plan.InSubquery)
		if !ok {
			return e, transform.SameTree, nil
		}
		if _, ok := in.RightChild.(*plan.Subquery); !ok {
			return e, transform.SameTree, nil
		}
		return &inSubquery{in}, transform.NewTree, nil
	})
}

// inSubquery is x IN (subquery) with RULE-45's NULL semantics.
type inSubquery struct{ *plan.InSubquery }

var _ sql.Expression = (*inSubquery)(nil)

func (s *inSubquery) String() string { return s.InSubquery.String() }
func (s *inSubquery) DebugString() string {
	return fmt.Sprintf("in3vl(%s)", s.InSubquery.DebugString())
}
func (s *inSubquery) IsNullable() bool { return true }

func (s *inSubquery) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(s.InSubquery, children, func(in *plan.InSubquery) sql.Expression { return &inSubquery{in} })
}

func (s *inSubquery) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	left, err := s.LeftChild.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	leftNull := hasNullElement(left)
	if !leftNull {
		// go-mysql-server's hash lookup: its TRUE is exact when x has no
		// NULL (the found row compared equal element by element).
		res, err := s.InSubquery.Eval(ctx, row)
		if err != nil || res == true {
			return res, err
		}
	}
	sq := s.RightChild.(*plan.Subquery)
	values, err := sq.EvalMultiple(ctx, row)
	if err != nil {
		return nil, err
	}
	if len(values) == 0 {
		return false, nil
	}
	if left == nil {
		return nil, nil
	}
	leftElems, rightTypes := elements(left, s.LeftChild), subqueryTypes(sq)
	coll, collated := collatedString(ctx, s.LeftChild)
	unknown := false
	for _, v := range values {
		if ls, ok := left.(string); ok && collated {
			// go-mysql-server's hash lookup compared bytes: 'a' was not
			// IN ('A') under a case-insensitive collation, nor 'a ' IN
			// ('a') under PAD SPACE.
			if vs, ok := v.(string); ok {
				if stringsEqual(ctx, coll, ls, vs) {
					return true, nil
				}
				continue
			}
		}
		if !leftNull && !hasNullElement(v) {
			continue // the hash lookup decided the rows without NULLs
		}
		r, err := rowEquals(ctx, leftElems, s.LeftChild, elementsOf(v, len(leftElems)), rightTypes)
		if err != nil {
			return nil, err
		}
		switch r {
		case true:
			return true, nil
		case nil:
			unknown = true
		}
	}
	if unknown {
		return nil, nil
	}
	return false, nil
}

// hasNullElement reports whether v is NULL or a row holding a NULL.
func hasNullElement(v any) bool {
	if v == nil {
		return true
	}
	if t, ok := v.([]any); ok {
		for _, e := range t {
			if e == nil {
				return true
			}
		}
	}
	return false
}

func elements(v any, e sql.Expression) []any {
	if t, ok := e.(expression.Tuple); ok {
		return elementsOf(v, len(t))
	}
	return []any{v}
}

func elementsOf(v any, n int) []any {
	if t, ok := v.([]any); ok && n > 1 {
		return t
	}
	return []any{v}
}

func subqueryTypes(sq *plan.Subquery) []sql.Type {
	sch := sq.Query.Schema()
	ts := make([]sql.Type, len(sch))
	for i, c := range sch {
		ts[i] = c.Type
	}
	return ts
}

// rowEquals is (l1, l2, ...) = (r1, r2, ...) in SQL's logic: FALSE when
// an element pair is unequal, else NULL when a pair has a NULL, else TRUE.
// Each pair compares as go-mysql-server's = does.
func rowEquals(ctx *sql.Context, l []any, le sql.Expression, r []any, rt []sql.Type) (any, error) {
	if len(l) != len(r) || len(r) != len(rt) {
		return nil, sql.ErrInvalidOperandColumns.New(len(l), len(r))
	}
	lt := []sql.Type{le.Type()}
	if t, ok := le.(expression.Tuple); ok {
		lt = lt[:0]
		for _, c := range t {
			lt = append(lt, c.Type())
		}
	}
	unknown := false
	for i := range l {
		if l[i] == nil || r[i] == nil {
			unknown = true
			continue
		}
		eq, err := expression.NewEquals(expression.NewLiteral(l[i], lt[i]), expression.NewLiteral(r[i], rt[i])).Eval(ctx, nil)
		if err != nil {
			return nil, err
		}
		switch eq {
		case nil:
			unknown = true
		case false, int8(0), 0:
			return false, nil
		}
	}
	if unknown {
		return nil, nil
	}
	return true, nil
}

// collatedString reports whether e is a string whose equality is not
// byte equality (a collation that folds case or accents, or pads), and
// gives the collation.
func collatedString(ctx *sql.Context, e sql.Expression) (sql.CollationID, bool) {
	if !types.IsTextOnly(e.Type()) {
		return 0, false
	}
	coll, _ := sql.GetCoercibility(ctx, e)
	if coll == sql.Collation_binary {
		return coll, false
	}
	_, byColl := comparesByCollation(e.Type())
	return coll, byColl || coll.PadAttribute() == "PAD SPACE"
}

// stringsEqual is SQL's = of two strings under coll.
func stringsEqual(ctx *sql.Context, coll sql.CollationID, a, b string) bool {
	if coll.PadAttribute() == "PAD SPACE" {
		return padCompare(coll, a, b) == 0
	}
	c, err := types.CreateLongText(coll).Compare(ctx, a, b)
	return err == nil && c == 0
}
