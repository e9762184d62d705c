package rules

import (
	"strata/mysql/decimals"

	"context"
	"math/big"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// RULE-79 DECIMAL values are compared without go-mysql-server's per-value
// rescale. Its column DECIMAL(p,s) type (every table column's, and
// CAST's) rescales each value it converts or compares whose exponent is
// not s (it tests the exponent, -s, against the scale, s: true for every
// value of a scale above 0) by printing it with StringFixed and parsing
// the text back: two of those per comparison put `WHERE total > 5` at 25x
// MariaDB's time and `ORDER BY total DESC LIMIT 10` at 26x. So:
//
//	(a) a comparison (=, <, <=, >, >=) or BETWEEN of a DECIMAL expression
//	with integer or DECIMAL literals compares the expression's value,
//	rescaled as its type would (Round to s, only when its exponent is not
//	-s), with the literals exactly, as MySQL does (go-mysql-server also
//	rounded the literal to the column's scale: `total > 10.005` was
//	`total > 10.01`);
//	(b) a sort key (a sort, a top-N) and the values MIN and MAX keep of a
//	column DECIMAL type compare two DECIMAL values that way, Cmp after
//	the same rescale; any other value goes to the type as before.
//
// The comparison prints as before (EXPLAIN), a join's condition is left
// alone (a merge join reads its comparison's operands), and NULL is NULL.
func decimalValues(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ex, ok := n.(sql.Expressioner)
		if !ok {
			return n, transform.SameTree, nil
		}
		if _, ok := n.(*plan.JoinNode); ok {
			return n, transform.SameTree, nil
		}
		exprs := ex.Expressions()
		var out []sql.Expression
		for i, e := range exprs {
			ne, same, err := transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
				if ne := fastDecimalExpr(e); ne != nil {
					return ne, transform.NewTree, nil
				}
				if ne := fastStringCompare(e); ne != nil { // RULE-81, in the same walk
					return ne, transform.NewTree, nil
				}
				if ne := fastScalarCompare(e); ne != nil { // RULE-90, in the same walk
					return ne, transform.NewTree, nil
				}
				return e, transform.SameTree, nil
			})
			if err != nil {
				return nil, transform.SameTree, err
			}
			if isSortNode(n) && same == transform.SameTree {
				if k := decimalSortKeyOf(e); k != nil {
					ne, same = k, transform.NewTree
				}
			}
			if same == transform.NewTree {
				if out == nil {
					out = append([]sql.Expression{}, exprs...)
				}
				out[i] = ne
			}
		}
		if out == nil {
			return n, transform.SameTree, nil
		}
		nn, err := ex.WithExpressions(out...)
		if err != nil {
			return n, transform.SameTree, nil
		}
		return nn, transform.NewTree, nil
	})
}

func isSortNode(n sql.Node) bool {
	switch n.(type) {
	case *plan.Sort, *plan.TopN:
		return true
	}
	return false
}

// fastDecimalExpr returns e's RULE-79 form, or nil.
func fastDecimalExpr(e sql.Expression) sql.Expression {
	switch x := e.(type) {
	case *aggregation.Max:
		if x.Window() == nil {
			if kt := decimalKeyTypeOf(x.Child.Type()); kt != nil {
				return &decimalMax{Max: x, typ: kt}
			}
		}
	case *aggregation.Min:
		if x.Window() == nil {
			if kt := decimalKeyTypeOf(x.Child.Type()); kt != nil {
				return &decimalMin{Min: x, typ: kt}
			}
		}
	case *expression.Between:
		k, ok := decimalKeyOf(x.Val.Type())
		if !ok {
			return nil
		}
		lo, ok1 := exactLiteral(x.Lower)
		hi, ok2 := exactLiteral(x.Upper)
		if ok1 && ok2 {
			return &decimalBetween{Between: x, key: k, lo: k.align(lo), hi: k.align(hi)}
		}
	default:
		op, ok := comparisonOp(e)
		if !ok || op == "<=>" {
			return nil
		}
		l, r, _ := comparedOperands(e)
		flip := false
		lit, ok := exactLiteral(r)
		if !ok {
			if lit, ok = exactLiteral(l); !ok {
				return decimalOperands(e, op, l, r)
			}
			l, flip = r, true
		}
		k, ok := decimalKeyOf(l.Type())
		if !ok {
			return nil
		}
		c := &decimalCompare{Expression: e, op: op, val: l, flip: flip, key: k, lit: k.align(lit)}
		c.litM, c.litE, c.litOK = digits(c.lit)
		return c
	}
	return nil
}

// decimalOperands returns the RULE-79 form of a comparison of two
// DECIMAL expressions (a column and a scalar subquery, two columns of a
// table), or nil: each value is taken as its own type holds it and the
// two compared exactly, as MySQL does (go-mysql-server rescaled both to
// the left operand's scale, printing and parsing each, for every row:
// `total > (SELECT AVG(total) FROM orders)` was 15x MariaDB's time).
func decimalOperands(e sql.Expression, op string, l, r sql.Expression) sql.Expression {
	kl, ok1 := decimalKeyOf(l.Type())
	kr, ok2 := decimalKeyOf(r.Type())
	if !ok1 || !ok2 {
		return nil
	}
	return &decimalPair{Expression: e, op: op, l: l, r: r, kl: kl, kr: kr}
}

// decimalPair is a RULE-79 comparison of two DECIMAL expressions; it
// prints as the comparison it replaces.
type decimalPair struct {
	sql.Expression // the comparison
	op             string
	l, r           sql.Expression
	kl, kr         decimalKey
}

func (c *decimalPair) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	lv, err := c.l.Eval(ctx, row)
	if err != nil || lv == nil {
		return nil, err
	}
	rv, err := c.r.Eval(ctx, row)
	if err != nil || rv == nil {
		return nil, err
	}
	ld, ok1 := lv.(decimal.Decimal)
	rd, ok2 := rv.(decimal.Decimal)
	if !ok1 || !ok2 {
		return c.Expression.Eval(ctx, row)
	}
	ld, rd = c.kl.norm(ld), c.kr.norm(rd)
	// Digits that fit int64 at the smaller exponent compare without
	// decimal's big.Int rescale (Cmp: 18% of a column against AVG()).
	if lm, le, ok := decimals.Digits(ld); ok {
		if rm, re, ok := decimals.Digits(rd); ok {
			if r, ok := cmpDigits(lm, le, rm, re); ok {
				return answer(c.op, r), nil
			}
		}
	}
	return answer(c.op, ld.Cmp(rd)), nil
}

func (c *decimalPair) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(c.Expression.WithChildren(children...))
}

// refast is a rebuilt expression in its RULE-79, RULE-81 or RULE-90 form when it
// still has one (the WithChildren of those forms: other rules rebuild
// the expressions under them).
func refast(ne sql.Expression, err error) (sql.Expression, error) {
	if err != nil {
		return nil, err
	}
	if f := fastDecimalExpr(ne); f != nil {
		return f, nil
	}
	if f := fastStringCompare(ne); f != nil {
		return f, nil
	}
	if f := fastScalarCompare(ne); f != nil {
		return f, nil
	}
	return ne, nil
}

// decimalKey is how a DECIMAL type rescales the values it compares.
type decimalKey struct {
	scale  int32
	column bool // a column type: values rescaled to scale
}

// decimalKeyOf reports t's rescale when t is go-mysql-server's DECIMAL.
func decimalKeyOf(t sql.Type) (decimalKey, bool) {
	dt, ok := t.(types.DecimalType_)
	if !ok {
		return decimalKey{}, false
	}
	s := int32(dt.Scale())
	// A column type rescales a value of more digits than its scale
	// (read from the type's behaviour: the flag is not exported).
	probe, err := dt.ConvertToNullDecimal(decimal.New(1, -(s + 1)))
	return decimalKey{scale: s, column: err == nil && probe.Valid && probe.Decimal.Exponent() == -s}, true
}

// columnDecimal is decimalOf for the column types only (the others
// compare without a rescale already).
func columnDecimal(t sql.Type) (decimalKey, bool) {
	k, ok := decimalKeyOf(t)
	return k, ok && k.column
}

// norm is d as the type compares it: DecimalType_.ConvertToNullDecimal's
// StringFixed and parse are Round (same value, same exponent).
func (k decimalKey) norm(d decimal.Decimal) decimal.Decimal {
	if k.column && d.Exponent() != -k.scale {
		return d.Round(k.scale)
	}
	return d
}

// align gives an exact literal the exponent of the type's values when
// that loses nothing (then Cmp compares the digits alone).
func (k decimalKey) align(d decimal.Decimal) decimal.Decimal {
	if d.Exponent() > -k.scale {
		return d.Round(k.scale)
	}
	return d
}

// exactLiteral is e's value when e is a non-NULL integer or DECIMAL
// literal.
func exactLiteral(e sql.Expression) (decimal.Decimal, bool) {
	l, ok := e.(*expression.Literal)
	if !ok {
		return decimal.Decimal{}, false
	}
	switch v := l.Value().(type) {
	case decimal.Decimal:
		return v, true
	case uint64:
		return decimal.NewFromBigInt(new(big.Int).SetUint64(v), 0), true
	case int:
		return decimal.NewFromInt(int64(v)), true
	case float32, float64, nil:
		return decimal.Decimal{}, false
	}
	if m, exp, ok := digits(l.Value()); ok && exp == 0 { // the integers (RULE-76's digits)
		return decimal.New(m, 0), true
	}
	return decimal.Decimal{}, false
}

// decimalCompare is a RULE-79 comparison of a DECIMAL expression with
// an exact literal; it prints as the comparison it replaces.
type decimalCompare struct {
	sql.Expression // the comparison
	op             string
	val            sql.Expression
	flip           bool // the literal is the left operand
	key            decimalKey
	lit            decimal.Decimal
	litM           int64 // lit as litM x 10^litE, when litOK
	litE           int32
	litOK          bool
}

func (c *decimalCompare) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if fa, ok := c.val.(*fastArith); ok && c.litOK {
		// RULE-76's int64 digits, compared without making a DECIMAL
		m, e, null, ok, err := fa.exactDigits(ctx, row)
		if err != nil || null {
			return nil, err
		}
		if ok && (!c.key.column || e == -c.key.scale) {
			if r, ok := cmpDigits(m, e, c.litM, c.litE); ok {
				return c.answer(r), nil
			}
		}
	}
	v, err := c.val.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	d, ok := v.(decimal.Decimal)
	if !ok {
		return c.Expression.Eval(ctx, row)
	}
	return c.answer(c.key.norm(d).Cmp(c.lit)), nil
}

// answer is the comparison's result for r, the value's order against the
// literal.
func (c *decimalCompare) answer(r int) bool {
	if c.flip {
		r = -r
	}
	return answer(c.op, r)
}

// answer is op's result for r, the left operand's order against the right.
func answer(op string, r int) bool {
	switch op {
	case "=":
		return r == 0
	case "<":
		return r < 0
	case "<=":
		return r <= 0
	case ">":
		return r > 0
	default: // ">="
		return r >= 0
	}
}

// cmpDigits orders m x 10^e against lm x 10^le, if both fit in int64 at
// the smaller exponent.
func cmpDigits(m int64, e int32, lm int64, le int32) (int, bool) {
	for ; e > le; e-- {
		var ok bool
		if m, ok = mul64(m, 10); !ok {
			return 0, false
		}
	}
	for ; le > e; le-- {
		var ok bool
		if lm, ok = mul64(lm, 10); !ok {
			return 0, false
		}
	}
	switch {
	case m < lm:
		return -1, true
	case m > lm:
		return 1, true
	}
	return 0, true
}

func (c *decimalCompare) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(c.Expression.WithChildren(children...))
}

// decimalBetween is a RULE-79 BETWEEN of a DECIMAL expression and exact
// literals.
type decimalBetween struct {
	*expression.Between
	key    decimalKey
	lo, hi decimal.Decimal
}

func (b *decimalBetween) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := b.Val.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	d, ok := v.(decimal.Decimal)
	if !ok {
		return b.Between.Eval(ctx, row)
	}
	d = b.key.norm(d)
	return d.Cmp(b.lo) >= 0 && d.Cmp(b.hi) <= 0, nil
}

func (b *decimalBetween) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(b.Between.WithChildren(children...))
}

// decimalKeyType is a column DECIMAL type whose Compare rescales only the
// values that need it (RULE-79 b).
type decimalKeyType struct {
	sql.DecimalType
	key decimalKey
}

func (t decimalKeyType) Compare(ctx context.Context, a, b any) (int, error) {
	if ad, ok := a.(decimal.Decimal); ok {
		if bd, ok := b.(decimal.Decimal); ok {
			return t.key.norm(ad).Cmp(t.key.norm(bd)), nil
		}
	}
	return t.DecimalType.Compare(ctx, a, b)
}

func (t decimalKeyType) Equals(other sql.Type) bool {
	if o, ok := other.(decimalKeyType); ok {
		other = o.DecimalType
	}
	return t.DecimalType.Equals(other)
}

// decimalSortKey is a sort key (or MIN/MAX's value) compared by
// decimalKeyType; it evaluates and prints as its expression.
type decimalSortKey struct {
	sql.Expression
	typ sql.Type // a decimalKeyType, boxed once (Type is called per comparison)
}

func (k *decimalSortKey) Type() sql.Type             { return k.typ }
func (k *decimalSortKey) Children() []sql.Expression { return []sql.Expression{k.Expression} }
func (k *decimalSortKey) String() string             { return k.Expression.String() }
func (k *decimalSortKey) DebugString() string        { return sql.DebugString(k.Expression) }

func (k *decimalSortKey) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(k, len(children), 1)
	}
	return &decimalSortKey{Expression: children[0], typ: k.typ}, nil
}

// decimalSortKeyOf wraps a sort field's column of a column DECIMAL type.
func decimalSortKeyOf(e sql.Expression) sql.Expression {
	if _, done := e.(*decimalSortKey); done {
		return nil
	}
	if kt := decimalKeyTypeOf(e.Type()); kt != nil {
		return &decimalSortKey{Expression: e, typ: kt}
	}
	return nil
}

// decimalKeyTypeOf is t as a decimalKeyType, boxed once, when t is a
// column DECIMAL type; else nil.
func decimalKeyTypeOf(t sql.Type) sql.Type {
	dt, ok := t.(sql.DecimalType)
	if !ok {
		return nil
	}
	k, ok := columnDecimal(t)
	if !ok {
		return nil
	}
	return decimalKeyType{DecimalType: dt, key: k}
}

// decimalMax and decimalMin keep their value by decimalKeyType, made once
// when the rule applies (a buffer is made per group).
type decimalMax struct {
	*aggregation.Max
	typ sql.Type
}

type decimalMin struct {
	*aggregation.Min
	typ sql.Type
}

func (m *decimalMax) NewBuffer() (sql.AggregationBuffer, error) {
	child, err := transform.Clone(m.Child)
	if err != nil {
		return nil, err
	}
	return aggregation.NewMaxBuffer(&decimalSortKey{Expression: child, typ: m.typ}), nil
}

func (m *decimalMin) NewBuffer() (sql.AggregationBuffer, error) {
	child, err := transform.Clone(m.Child)
	if err != nil {
		return nil, err
	}
	return aggregation.NewMinBuffer(&decimalSortKey{Expression: child, typ: m.typ}), nil
}

func (m *decimalMax) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(m.Max.WithChildren(children...))
}

func (m *decimalMin) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(m.Min.WithChildren(children...))
}

func (m *decimalMax) WithId(id sql.ColumnId) sql.IdExpression {
	ne := m.Max.WithId(id)
	if f, ok := fastDecimalExpr(ne.(sql.Expression)).(sql.IdExpression); ok {
		return f
	}
	return ne
}

func (m *decimalMin) WithId(id sql.ColumnId) sql.IdExpression {
	ne := m.Min.WithId(id)
	if f, ok := fastDecimalExpr(ne.(sql.Expression)).(sql.IdExpression); ok {
		return f
	}
	return ne
}

// decimalGridLiterals is RULE-79's part run before go-mysql-server builds
// index ranges: a column DECIMAL(p,s) compared with (or BETWEEN) exact
// literals of more than s decimals takes literals on its grid of
// multiples of 10^-s, which the comparison means the same with (the
// column's values are on the grid, and its type puts a value there
// before comparing): `c > 10.005` is `c > 10.00`, `c >= 10.005` is
// `c >= 10.01`, and `c = 10.005` is an empty range. go-mysql-server
// rounded the literal to the grid when building the range (10.005 to
// 10.01: `c > 10.005` lost 10.01, `c = 10.005` found it).
func decimalGridLiterals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if ne := gridLiterals(e); ne != nil {
			return ne, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// gridLiterals returns e with its literals on the column's grid, or nil
// when e is not such a comparison or its literals are on the grid.
func gridLiterals(e sql.Expression) sql.Expression {
	if b, ok := e.(*expression.Between); ok {
		k, ok := gridColumn(b.Val)
		if !ok {
			return nil
		}
		lo, ok1 := exactLiteral(b.Lower)
		hi, ok2 := exactLiteral(b.Upper)
		if !ok1 || !ok2 || (onGrid(lo, k) && onGrid(hi, k)) {
			return nil
		}
		return expression.NewBetween(b.Val, gridLiteral(lo.RoundCeil(k.scale), b.Val), gridLiteral(hi.RoundFloor(k.scale), b.Val))
	}
	op, col, lit, ok := literalOperand(e, exactLiteral)
	if !ok || op == "<=>" {
		return nil
	}
	k, ok := gridColumn(col)
	if !ok || onGrid(lit, k) {
		return nil
	}
	fl, ce := gridLiteral(lit.RoundFloor(k.scale), col), gridLiteral(lit.RoundCeil(k.scale), col)
	switch op {
	case ">":
		return expression.NewGreaterThan(col, fl)
	case ">=":
		return expression.NewGreaterThanOrEqual(col, ce)
	case "<":
		return expression.NewLessThan(col, ce)
	case "<=":
		return expression.NewLessThanOrEqual(col, fl)
	default: // "=": no value of the column; NULL stays NULL
		return expression.NewAnd(expression.NewGreaterThanOrEqual(col, ce), expression.NewLessThanOrEqual(col, fl))
	}
}

// gridColumn reports a column of a column DECIMAL type.
func gridColumn(e sql.Expression) (decimalKey, bool) {
	if _, ok := e.(*expression.GetField); !ok {
		return decimalKey{}, false
	}
	return columnDecimal(e.Type())
}

func onGrid(d decimal.Decimal, k decimalKey) bool {
	return d.Exponent() >= -k.scale || d.Equal(d.Round(k.scale))
}

// gridLiteral is d as a DECIMAL literal of its own digits.
func gridLiteral(d decimal.Decimal, col sql.Expression) sql.Expression {
	dt := col.Type().(sql.DecimalType)
	digits := int(dt.Precision())
	if n := len(d.Coefficient().String()); n > digits {
		digits = n
	}
	return expression.NewLiteral(d, types.MustCreateDecimalType(uint8(min(digits, types.DecimalTypeMaxPrecision)), dt.Scale()))
}
