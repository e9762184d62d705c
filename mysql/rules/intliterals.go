package rules

import (
	"math"
	"math/big"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"
)

// RULE-91 An integer column compared with a number outside its type's
// range (=, <, <=, >, >=, <=>, BETWEEN, IN), before index ranges are
// built: go-mysql-server converts the literal to the column's type to
// build the range, wrapping or clamping it (`u > -1` on an indexed INT
// UNSIGNED read the range (4294967295, inf): no rows; `u IN (-1, 7)` found
// 4294967295), while the same comparison evaluated per row was right. The
// comparison is rewritten to one with a literal inside the range that is
// TRUE, FALSE and NULL for exactly the same rows:
//
//	below the type's minimum: col > x, col >= x  ->  col >= min
//	                          col < x, col <= x, col = x  ->  col < min
//	above its maximum:        col < x, col <= x  ->  col <= max
//	                          col > x, col >= x, col = x  ->  col > max
//	col <=> x (never equal, never NULL)  ->  FALSE
//	BETWEEN: an end beyond the range becomes the range's end, or the
//	whole test the FALSE-or-NULL comparison above
//	IN: values that can never equal a column value are dropped (a list
//	left empty: col < min)
//
// The number is an integer, DECIMAL or floating-point literal, or a
// string literal that reads entirely as a number (MySQL compares a string
// with an integer column as a number). Anything else is left as it was.
func intRangeLiterals(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if ne := dateNumberLiterals(e); ne != nil {
			return ne, transform.NewTree, nil
		}
		if ne := decimalNotEqual(e); ne != nil {
			return ne, transform.NewTree, nil
		}
		if ne := inRangeLiterals(e); ne != nil {
			return ne, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// intRange is an integer or DECIMAL column type's range.
type intRange struct {
	col      sql.Expression
	typ      sql.Type
	min, max decimal.Decimal
}

// intRangeOf returns the range of e's type when e is an integer or
// DECIMAL column.
func intRangeOf(e sql.Expression) (intRange, bool) {
	if _, ok := e.(*expression.GetField); !ok {
		return intRange{}, false
	}
	t := e.Type()
	if dt, ok := t.(sql.DecimalType); ok {
		p, sc := int32(dt.Precision()), int32(dt.Scale())
		max := decimal.New(1, p-sc).Sub(decimal.New(1, -sc))
		min := max.Neg()
		if types.IsUnsigned(t) {
			min = decimal.Zero
		}
		return intRange{col: e, typ: t, min: min, max: max}, true
	}
	var lo int64
	var hi uint64
	switch t.Type() {
	case sqltypes.Int8:
		lo, hi = math.MinInt8, math.MaxInt8
	case sqltypes.Uint8:
		hi = math.MaxUint8
	case sqltypes.Int16:
		lo, hi = math.MinInt16, math.MaxInt16
	case sqltypes.Uint16:
		hi = math.MaxUint16
	case sqltypes.Int24:
		lo, hi = -1<<23, 1<<23-1
	case sqltypes.Uint24:
		hi = 1<<24 - 1
	case sqltypes.Int32:
		lo, hi = math.MinInt32, math.MaxInt32
	case sqltypes.Uint32:
		hi = math.MaxUint32
	case sqltypes.Int64:
		lo, hi = math.MinInt64, math.MaxInt64
	case sqltypes.Uint64:
		hi = math.MaxUint64
	default:
		return intRange{}, false
	}
	return intRange{col: e, typ: t, min: decimal.NewFromInt(lo), max: decimal.NewFromBigInt(new(big.Int).SetUint64(hi), 0)}, true
}

// literal is v, a value of the range's type, as a literal of that type.
func (r intRange) literal(v decimal.Decimal) sql.Expression {
	if _, ok := r.typ.(sql.DecimalType); ok {
		return gridLiteral(v, r.col)
	}
	var x any
	switch r.typ.Type() {
	case sqltypes.Int8:
		x = int8(v.IntPart())
	case sqltypes.Uint8:
		x = uint8(v.IntPart())
	case sqltypes.Int16:
		x = int16(v.IntPart())
	case sqltypes.Uint16:
		x = uint16(v.IntPart())
	case sqltypes.Int24, sqltypes.Int32:
		x = int32(v.IntPart())
	case sqltypes.Uint24, sqltypes.Uint32:
		x = uint32(v.IntPart())
	case sqltypes.Int64:
		x = v.IntPart()
	default:
		x = v.BigInt().Uint64()
	}
	return expression.NewLiteral(x, r.typ)
}

// numberLiteral is e's exact value when e is a non-NULL numeric literal
// or a string literal that reads entirely as a number.
func numberLiteral(e sql.Expression) (decimal.Decimal, bool) {
	l, ok := e.(*expression.Literal)
	if !ok {
		return decimal.Decimal{}, false
	}
	switch v := l.Value().(type) {
	case string:
		if s := strings.TrimSpace(v); s == "" || strings.ContainsAny(s, "eE") {
			return decimal.Decimal{}, false
		}
	case []byte, decimal.NullDecimal:
		return decimal.Decimal{}, false
	}
	return decimalOf(l.Value())
}

// side places x against the range: -1 below it, 1 above, 0 inside.
func (r intRange) side(x decimal.Decimal) int {
	if x.Cmp(r.min) < 0 {
		return -1
	}
	if x.Cmp(r.max) > 0 {
		return 1
	}
	return 0
}

// never is a comparison of col that is FALSE for every value and NULL
// for NULL: col < min.
func (r intRange) never(col sql.Expression) sql.Expression {
	return expression.NewLessThan(col, r.literal(r.min))
}

// inRangeLiterals returns e rewritten by RULE-91, or nil.
func inRangeLiterals(e sql.Expression) sql.Expression {
	if u := unrangedComparison(e); u != nil {
		return u
	}
	switch x := e.(type) {
	case *expression.Between:
		r, ok := intRangeOf(x.Val)
		if !ok {
			return nil
		}
		lo, ok1 := numberLiteral(x.Lower)
		hi, ok2 := numberLiteral(x.Upper)
		if !ok1 || !ok2 {
			return nil
		}
		ls, hs := r.side(lo), r.side(hi)
		switch {
		case ls == 0 && hs == 0:
			return nil
		case ls > 0 || hs < 0:
			return r.never(x.Val)
		}
		lower, upper := x.Lower, x.Upper
		if ls < 0 {
			lower = r.literal(r.min)
		}
		if hs > 0 {
			upper = r.literal(r.max)
		}
		return expression.NewBetween(x.Val, lower, upper)
	case *expression.InTuple:
		r, ok := intRangeOf(x.Left())
		if !ok {
			return nil
		}
		tuple, ok := x.Right().(expression.Tuple)
		if !ok {
			return nil
		}
		var keep []sql.Expression
		for _, v := range tuple {
			if d, ok := numberLiteral(v); ok && r.side(d) != 0 {
				continue
			}
			keep = append(keep, v)
		}
		switch {
		case len(keep) == len(tuple):
			return nil
		case len(keep) == 0:
			return r.never(x.Left())
		}
		return expression.NewInTuple(x.Left(), expression.NewTuple(keep...))
	}
	op, col, lit, ok := literalOperand(e, numberLiteral)
	if !ok {
		return nil
	}
	r, ok := intRangeOf(col)
	if !ok {
		return nil
	}
	side := r.side(lit)
	if side == 0 {
		return nil
	}
	if op == "<=>" {
		return expression.NewLiteral(false, types.Boolean)
	}
	if side < 0 {
		if op == ">" || op == ">=" {
			return expression.NewGreaterThanOrEqual(col, r.literal(r.min))
		}
		return r.never(col)
	}
	if op == "<" || op == "<=" {
		return expression.NewLessThanOrEqual(col, r.literal(r.max))
	}
	return expression.NewGreaterThan(col, r.literal(r.max))
}

// unrangedComparison is RULE-91's second part: a comparison (BETWEEN,
// IN) of a column with a literal that MySQL compares as numbers where
// go-mysql-server's index range would convert the literal to the
// column's type: a string column with a number (`s > 4294967296` is a
// comparison of doubles, 'a' reads as 0; the range compared strings and
// missed rows), a numeric column with a string that does not read as a
// number (`u > 'A'`: the range failed with 1366). The column is wrapped
// so that no range is built from it (a string column's IN list of
// numbers becomes the OR of its = comparisons, as MySQL defines it:
// `s IN (10)` holds for '010'); the comparison is then evaluated
// for each row, as before, and as MySQL (which uses no index for them)
// does. Returns nil when e is no such comparison.
func unrangedComparison(e sql.Expression) sql.Expression {
	var col sql.Expression
	var lits []sql.Expression
	switch x := e.(type) {
	case *expression.Between:
		col, lits = x.Val, []sql.Expression{x.Lower, x.Upper}
	case *expression.InTuple:
		tuple, ok := x.Right().(expression.Tuple)
		if !ok {
			return nil
		}
		col, lits = x.Left(), tuple
	default:
		l, r, ok := comparedOperands(e)
		if !ok {
			return nil
		}
		if _, ok := l.(*expression.GetField); ok {
			col, lits = l, []sql.Expression{r}
		} else {
			col, lits = r, []sql.Expression{l}
		}
	}
	if _, ok := col.(*expression.GetField); !ok {
		return nil
	}
	numeric := types.IsNumber(col.Type())
	text := types.IsTextOnly(col.Type())
	if !numeric && !text {
		return nil
	}
	mismatch := false
	for _, l := range lits {
		lit, ok := l.(*expression.Literal)
		if !ok || lit.Value() == nil {
			continue
		}
		_, isString := lit.Value().(string)
		if numeric && isString {
			if _, ok := numberLiteral(lit); !ok {
				mismatch = true
			}
		}
		if text && !isString && types.IsNumber(lit.Type()) {
			mismatch = true
		}
	}
	if !mismatch {
		return nil
	}
	u := &unranged{col}
	switch x := e.(type) {
	case *expression.Between:
		return expression.NewBetween(u, x.Lower, x.Upper)
	case *expression.InTuple:
		if text {
			// go-mysql-server's IN converts the numbers to the column's
			// string type; MySQL compares each pair as =, here as
			// numbers: an OR of the comparisons (NULLs alike).
			var or sql.Expression
			for _, v := range lits {
				var eq sql.Expression = expression.NewEquals(u, v)
				if or == nil {
					or = eq
				} else {
					or = expression.NewOr(or, eq)
				}
			}
			return or
		}
		return expression.NewInTuple(u, x.Right())
	}
	l, r, _ := comparedOperands(e)
	if l == col {
		l = u
	} else {
		r = u
	}
	ne, err := e.WithChildren(l, r)
	if err != nil {
		return nil
	}
	return ne
}

// unranged is a column no index range is built from (RULE-91); it reads
// and prints as the column.
type unranged struct{ sql.Expression }

func (u *unranged) Children() []sql.Expression { return []sql.Expression{u.Expression} }

func (u *unranged) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(u, len(children), 1)
	}
	return &unranged{children[0]}, nil
}

// CollationCoercibility is the column's.
func (u *unranged) CollationCoercibility(ctx *sql.Context) (sql.CollationID, byte) {
	return sql.GetCoercibility(ctx, u.Expression)
}

// dateNumberLiterals is RULE-91's third part: a DATE or DATETIME column
// compared with (BETWEEN, IN) integer literals that read as dates
// (RULE-31: YYYYMMDD, YYYYMMDDhhmmss and their two-digit-year forms) takes
// them as date strings, which RULE-89 then types as the column: the index
// range builder failed with 1292 on `d = 20250101`. Returns nil when e has
// no such literal.
func dateNumberLiterals(e sql.Expression) sql.Expression {
	var col sql.Expression
	switch x := e.(type) {
	case *expression.Between:
		col = x.Val
	case *expression.InTuple:
		col = x.Left()
	default:
		l, r, ok := comparedOperands(e)
		if !ok {
			return nil
		}
		col = l
		if _, ok := l.(*expression.GetField); !ok {
			col = r
		}
	}
	if _, ok := col.(*expression.GetField); !ok {
		return nil
	}
	switch col.Type().Type() {
	case sqltypes.Date, sqltypes.Datetime:
	default:
		return nil
	}
	asDate := func(l sql.Expression) (sql.Expression, bool) {
		lit, ok := l.(*expression.Literal)
		if !ok || !types.IsInteger(lit.Type()) {
			return l, false
		}
		s, ok := temporalDigits(lit.Value())
		if !ok {
			return l, false
		}
		return expression.NewLiteral(s, types.LongText), true
	}
	switch x := e.(type) {
	case *expression.Between:
		lo, ok1 := asDate(x.Lower)
		hi, ok2 := asDate(x.Upper)
		if !ok1 && !ok2 {
			return nil
		}
		return expression.NewBetween(x.Val, lo, hi)
	case *expression.InTuple:
		tuple, ok := x.Right().(expression.Tuple)
		if !ok {
			return nil
		}
		out := make(expression.Tuple, len(tuple))
		changed := false
		for i, v := range tuple {
			var ok bool
			out[i], ok = asDate(v)
			changed = changed || ok
		}
		if !changed {
			return nil
		}
		return expression.NewInTuple(x.Left(), out)
	}
	l, r, _ := comparedOperands(e)
	var ok bool
	if l == col {
		r, ok = asDate(r)
	} else {
		l, ok = asDate(l)
	}
	if !ok {
		return nil
	}
	ne, err := e.WithChildren(l, r)
	if err != nil {
		return nil
	}
	return ne
}

// decimalNotEqual is RULE-91's fourth part: `col <> lit` of a DECIMAL
// column becomes `col < lit OR col > lit` (the same TRUE, FALSE and NULL)
// before index ranges: go-mysql-server's range for `de <> 1.50` on an
// indexed DECIMAL was (NULL, inf), 1.50 included, and it dropped the
// filter as answered by the range.
func decimalNotEqual(e sql.Expression) sql.Expression {
	not, ok := e.(*expression.Not)
	if !ok {
		return nil
	}
	eq, ok := not.Child.(*expression.Equals)
	if !ok {
		return nil
	}
	col, lit := eq.Left(), eq.Right()
	if _, ok := lit.(*expression.Literal); !ok {
		col, lit = lit, col
	}
	if _, ok := lit.(*expression.Literal); !ok {
		return nil
	}
	if _, ok := col.(*expression.GetField); !ok {
		return nil
	}
	if _, ok := col.Type().(sql.DecimalType); !ok {
		return nil
	}
	return expression.NewOr(expression.NewLessThan(col, lit), expression.NewGreaterThan(col, lit))
}
