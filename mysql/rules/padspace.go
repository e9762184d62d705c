package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"strings"
)

// RULE-26 Under a PAD SPACE collation (utf8mb4_general_ci,
// utf8mb4_unicode_ci, utf8mb4_bin, latin1_swedish_ci: every collation but
// the _0900_ ones and binary) two strings compare as if the shorter were
// padded with spaces: 'a' = 'a ' is true, 'a\t' < 'a'. go-mysql-server
// compares them rune by rune and the longer wins, so an index lookup
// (whose keys ignore trailing spaces, backend CODEC-8) and a scan answered
// the same WHERE differently. The rule gives each =, <=>, <, <=, >, >= of
// two character strings whose comparison collation pads a comparison
// that does. Other operands (numbers, dates, NULL) are compared as
// before, by go-mysql-server's operator.

var padComparisons = map[string]func(c int) bool{
	"=":   func(c int) bool { return c == 0 },
	"<=>": func(c int) bool { return c == 0 },
	"<":   func(c int) bool { return c < 0 },
	"<=":  func(c int) bool { return c <= 0 },
	">":   func(c int) bool { return c > 0 },
	">=":  func(c int) bool { return c >= 0 },
}

// comparedOperands are the two sides of e when e is a comparison
// (comparisonOp's operators).
func comparedOperands(e sql.Expression) (l, r sql.Expression, ok bool) {
	if _, ok := comparisonOp(e); !ok {
		return nil, nil, false
	}
	cmp := e.(expression.Comparer)
	return cmp.Left(), cmp.Right(), true
}

// literalOperand splits comparison e into its operator, its other operand
// and its literal as read reads it, the literal on either side (the
// operator mirrored when the literal is on the left).
func literalOperand[T any](e sql.Expression, read func(sql.Expression) (T, bool)) (op string, other sql.Expression, lit T, ok bool) {
	if op, ok = comparisonOp(e); !ok {
		return "", nil, lit, false
	}
	l, r, _ := comparedOperands(e)
	if lit, ok = read(r); ok {
		return op, l, lit, true
	}
	if lit, ok = read(l); ok {
		return mirrored(op), r, lit, true
	}
	return "", nil, lit, false
}

// mirrored is the comparison operator op with its operands swapped
// (a < b is b > a).
func mirrored(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op // =, <=>
}

func comparisonOp(e sql.Expression) (string, bool) {
	switch e.(type) {
	case *expression.Equals:
		return "=", true
	case *expression.NullSafeEquals:
		return "<=>", true
	case *expression.LessThan:
		return "<", true
	case *expression.LessThanOrEqual:
		return "<=", true
	case *expression.GreaterThan:
		return ">", true
	case *expression.GreaterThanOrEqual:
		return ">=", true
	}
	return "", false
}

// trimPaddedLiterals is RULE-26's first part, run before go-mysql-server
// builds index ranges from the predicates: a string literal compared with
// (or IN a list against) a column under a PAD SPACE collation loses its
// trailing spaces, which changes nothing the comparison means and lets
// the ranges agree with the keys ('a   ' <= s <= 'a' was an empty range).
func trimPaddedLiterals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch e := e.(type) {
		case *expression.InTuple:
			col, ok := paddedColumn(ctx, e.Left())
			if !ok {
				return e, transform.SameTree, nil
			}
			tup, ok := e.Right().(expression.Tuple)
			if !ok {
				return e, transform.SameTree, nil
			}
			var out []sql.Expression
			for i, x := range tup {
				if t, ok := trimmedLiteral(x, col); ok {
					if out == nil {
						out = append([]sql.Expression{}, tup...)
					}
					out[i] = t
				}
			}
			if out == nil {
				return e, transform.SameTree, nil
			}
			ne, err := e.WithChildren(e.Left(), expression.NewTuple(out...))
			return ne, transform.NewTree, err
		}
		l, r, ok := comparedOperands(e)
		if !ok {
			return e, transform.SameTree, nil
		}
		if col, ok := paddedColumn(ctx, l); ok {
			if t, ok := trimmedLiteral(r, col); ok {
				ne, err := e.WithChildren(l, t)
				return ne, transform.NewTree, err
			}
		}
		if col, ok := paddedColumn(ctx, r); ok {
			if t, ok := trimmedLiteral(l, col); ok {
				ne, err := e.WithChildren(t, r)
				return ne, transform.NewTree, err
			}
		}
		return e, transform.SameTree, nil
	})
}

// paddedColumn reports whether e is a column of a character string type
// whose collation pads, and gives that collation.
func paddedColumn(ctx *sql.Context, e sql.Expression) (sql.CollationID, bool) {
	gf, ok := e.(*expression.GetField)
	if !ok || !types.IsTextOnly(gf.Type()) {
		return 0, false
	}
	coll, _ := sql.GetCoercibility(ctx, gf)
	return coll, coll.PadAttribute() == "PAD SPACE" && coll != sql.Collation_binary
}

// trimmedLiteral is e without trailing spaces, if e is a string literal
// that has some.
func trimmedLiteral(e sql.Expression, _ sql.CollationID) (sql.Expression, bool) {
	lit, ok := e.(*expression.Literal)
	if !ok {
		return nil, false
	}
	s, ok := lit.Value().(string)
	if !ok || len(s) == 0 || s[len(s)-1] != ' ' {
		return nil, false
	}
	// A literal is coercible: the column's collation decides (an explicit
	// COLLATE makes it a Collate expression, not a Literal).
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return expression.NewLiteral(s, lit.Type()), true
}

// padSpaceComparisons is RULE-26's analyzer rule.
func padSpaceComparisons(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch in := e.(type) {
		case *expression.InTuple, *expression.HashInTuple:
			return stringIn(ctx, in)
		}
		op, ok := comparisonOp(e)
		if !ok {
			return e, transform.SameTree, nil
		}
		cmp := e.(expression.Comparer)
		if !types.IsTextOnly(cmp.Left().Type()) || !types.IsTextOnly(cmp.Right().Type()) {
			return e, transform.SameTree, nil
		}
		// The operands' collation (the comparison's own is its boolean
		// result's, binary).
		lc, lco := sql.GetCoercibility(ctx, cmp.Left())
		rc, rco := sql.GetCoercibility(ctx, cmp.Right())
		coll, _ := sql.ResolveCoercibility(lc, lco, rc, rco)
		if coll.PadAttribute() != "PAD SPACE" || coll == sql.Collation_binary {
			return e, transform.SameTree, nil
		}
		return &padCompared{cmp: cmp, op: op, coll: coll}, transform.NewTree, nil
	})
}

// stringIn is RULE-26 for `x IN (...)` of strings: the operand and the
// list's values compare under the operand's collation (go-mysql-server
// compared and hashed them under the collation of the operand's type:
// `CONCAT(a, ”) IN ('Z')` missed 'z' of a general_ci column), and under
// a PAD SPACE collation whose character set writes a space as one byte
// 0x20 without their trailing spaces (equal under PAD SPACE exactly when
// the trimmed strings are equal: `s IN ('a', 'b')` missed a stored 'a ').
func stringIn(ctx *sql.Context, in sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
	ch := in.Children()
	left, tuple := ch[0], ch[1]
	elems, ok := tuple.(expression.Tuple)
	st, isString := left.Type().(sql.StringType)
	if !ok || !isString || !types.IsTextOnly(st) {
		return in, transform.SameTree, nil
	}
	if _, done := left.(*inOperand); done {
		return in, transform.SameTree, nil
	}
	coll, _ := sql.GetCoercibility(ctx, left)
	pad := coll.PadAttribute() == "PAD SPACE" && coll != sql.Collation_binary
	switch coll.CharacterSet() {
	case sql.CharacterSet_utf8mb4, sql.CharacterSet_utf8mb3, sql.CharacterSet_latin1, sql.CharacterSet_ascii:
	default:
		pad = false
	}
	if !pad && st.Collation() == coll {
		return in, transform.SameTree, nil
	}
	typ := types.CreateLongText(coll)
	trimmed := make(expression.Tuple, len(elems))
	for i, el := range elems {
		_, literal := el.(*expression.Literal)
		if t, ok := trimmedLiteral(el, coll); ok && pad {
			trimmed[i] = t
		} else if literal || !pad || !types.IsTextOnly(el.Type()) {
			trimmed[i] = el
		} else {
			trimmed[i] = &inOperand{Expression: el, typ: el.Type(), trim: true}
		}
	}
	l := &inOperand{Expression: left, typ: typ, trim: pad}
	if _, hashed := in.(*expression.HashInTuple); hashed {
		ne, err := expression.NewHashInTuple(ctx, l, trimmed)
		if err != nil {
			return in, transform.SameTree, nil
		}
		return ne, transform.NewTree, nil
	}
	ne, err := in.WithChildren(l, trimmed)
	return ne, transform.NewTree, err
}

// inOperand is an operand of RULE-26's IN: its value (without trailing
// spaces when trim) typed with the collation it compares under; it
// prints as the expression.
type inOperand struct {
	sql.Expression
	typ  sql.Type
	trim bool
}

func (t *inOperand) Type() sql.Type { return t.typ }

func (t *inOperand) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := t.Expression.Eval(ctx, row)
	if s, ok := v.(string); ok && err == nil && t.trim {
		return strings.TrimRight(s, " "), nil
	}
	return v, err
}

func (t *inOperand) Children() []sql.Expression { return []sql.Expression{t.Expression} }

func (t *inOperand) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	return &inOperand{Expression: children[0], typ: t.typ, trim: t.trim}, nil
}

// CollationCoercibility is the expression's.
func (t *inOperand) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, t.Expression)
}

// padCompared is a comparison of two strings under a PAD SPACE collation.
type padCompared struct {
	cmp  expression.Comparer
	op   string
	coll sql.CollationID
}

var _ expression.Comparer = (*padCompared)(nil) // merge joins compare through it

func (p *padCompared) Left() sql.Expression  { return p.cmp.Left() }
func (p *padCompared) Right() sql.Expression { return p.cmp.Right() }

// Compare implements expression.Comparer.
func (p *padCompared) Compare(ctx *sql.Context, row sql.Row) (int, error) {
	c, ok, err := p.padded(ctx, row)
	if err != nil || ok {
		return c, err
	}
	return p.cmp.Compare(ctx, row)
}

// padded compares the operands padded when both are strings (ok);
// otherwise the caller falls back to go-mysql-server's operator.
func (p *padCompared) padded(ctx *sql.Context, row sql.Row) (c int, ok bool, err error) {
	l, err := p.cmp.Left().Eval(ctx, row)
	if err != nil {
		return 0, false, err
	}
	r, err := p.cmp.Right().Eval(ctx, row)
	if err != nil {
		return 0, false, err
	}
	ls, lok := l.(string)
	rs, rok := r.(string)
	if !lok || !rok {
		return 0, false, nil
	}
	return padCompare(p.coll, ls, rs), true, nil
}

func (p *padCompared) Resolved() bool             { return p.cmp.Resolved() }
func (p *padCompared) String() string             { return p.cmp.String() }
func (p *padCompared) Type() sql.Type             { return p.cmp.Type() }
func (p *padCompared) IsNullable() bool           { return p.cmp.IsNullable() }
func (p *padCompared) Children() []sql.Expression { return p.cmp.Children() }
func (p *padCompared) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	c, err := p.cmp.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	cmp, ok := c.(expression.Comparer)
	if !ok {
		return c, nil
	}
	return &padCompared{cmp: cmp, op: p.op, coll: p.coll}, nil
}

func (p *padCompared) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	c, ok, err := p.padded(ctx, row)
	if err != nil {
		return nil, err
	}
	if !ok {
		return p.cmp.Eval(ctx, row)
	}
	return padComparisons[p.op](c), nil
}

// padCompare compares a and b under coll, the shorter padded with spaces.
func padCompare(coll sql.CollationID, a, b string) int {
	enc := coll.CharacterSet().Encoder()
	weight := coll.Sorter()
	space := weight(' ')
	for len(a) > 0 || len(b) > 0 {
		aw, bw := space, space
		if len(a) > 0 {
			r, n := enc.NextRune(a)
			if n <= 0 {
				n = 1
			}
			aw, a = weight(r), a[n:]
		}
		if len(b) > 0 {
			r, n := enc.NextRune(b)
			if n <= 0 {
				n = 1
			}
			bw, b = weight(r), b[n:]
		}
		if aw != bw {
			if aw < bw {
				return -1
			}
			return 1
		}
	}
	return 0
}
