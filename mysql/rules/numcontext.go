package rules

import (
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-29 in numeric contexts: a string operand of + - * / DIV MOD, of
// unary minus, of the numeric functions and of SUM/AVG is read as a DOUBLE,
// its longest numeric prefix with Warning 1292 "Truncated incorrect DOUBLE
// value" when something follows it, as MySQL reads it. go-mysql-server
// made -'3y' 0, ABS('2z') NULL and SUM('7q') 0, and wrote its warning as
// "double value".

// asDouble is a string-valued expression read as a DOUBLE.
type asDouble struct{ over }

func (a *asDouble) Type() sql.Type { return types.Float64 }
func (a *asDouble) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(a, len(children), 1)
	}
	return &asDouble{over{children[0]}}, nil
}
func (a *asDouble) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := a.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	s, ok := textOf(v)
	if !ok {
		f, _, err := types.Float64.Convert(ctx, v)
		return f, err
	}
	p, cut := numericPrefix(s, prefixReal)
	if cut {
		ctx.Warn(1292, "Truncated incorrect DOUBLE value: '%s'", Printable(s))
	}
	f, err := strconv.ParseFloat(p, 64)
	if err != nil { // out of range: ParseFloat gives ±Inf, MySQL the largest DOUBLE
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, nil
		}
		return 0.0, nil
	}
	return f, nil
}

// textOf is v's text when v is a string value (string or []byte).
func textOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}

// numericFunctions are the functions whose arguments MySQL reads as
// numbers.
var numericFunctions = map[string]bool{
	"abs": true, "round": true, "truncate": true, "floor": true, "ceil": true, "ceiling": true,
	"sqrt": true, "pow": true, "power": true, "exp": true, "ln": true, "log": true, "log2": true,
	"log10": true, "sin": true, "cos": true, "tan": true, "asin": true, "acos": true, "atan": true,
	"atan2": true, "cot": true, "sign": true, "radians": true, "degrees": true, "mod": true,
}

// numericContext wraps the string operands of e, when e reads its operands
// as numbers (RULE-29); ok is false when e is not such an expression.
func numericContext(e sql.Expression) (sql.Expression, bool, error) {
	switch x := e.(type) {
	case *expression.Arithmetic:
		if x.Op != "+" && x.Op != "-" && x.Op != "*" {
			return nil, false, nil
		}
		for _, c := range x.Children() {
			if _, ok := c.(*expression.Interval); ok { // date arithmetic
				return nil, false, nil
			}
		}
	case *expression.Div, *expression.IntDiv, *expression.Mod, *expression.UnaryMinus,
		*aggregation.Sum, *aggregation.Avg:
	case sql.FunctionExpression:
		if !numericFunctions[strings.ToLower(x.FunctionName())] {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	children := e.Children()
	var out []sql.Expression
	for i, c := range children {
		if isStringExpr(c) {
			if out == nil {
				out = append([]sql.Expression{}, children...)
			}
			out[i] = &asDouble{over{c}}
		}
	}
	if out == nil {
		return nil, false, nil
	}
	ne, err := e.WithChildren(out...)
	return ne, err == nil, err
}
