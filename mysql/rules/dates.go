package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// dateStrings makes DATE values read as text 'YYYY-MM-DD' where
// go-mysql-server formats them as a DATETIME (RULE-4): CAST/CONVERT to a
// string type, CONCAT, CONCAT_WS, LIKE and the string functions.
func dateStrings(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		var wrap []int // children to wrap
		children := e.Children()
		switch e := e.(type) {
		case *expression.Convert:
			if types.IsText(e.Type()) {
				wrap = []int{0}
			}
		case *function.Concat, *function.ConcatWithSeparator:
			for i := range children {
				wrap = append(wrap, i)
			}
		case *expression.Like:
			wrap = []int{0, 1}
		case sql.FunctionExpression:
			if textFunctions[strings.ToLower(e.FunctionName())] {
				for i := range children {
					wrap = append(wrap, i)
				}
			}
		}
		changed := false
		var nc []sql.Expression
		for _, i := range wrap {
			if i >= len(children) || children[i].Type() != types.Date {
				continue
			}
			if _, done := children[i].(*dateText); done {
				continue
			}
			if nc == nil {
				nc = append([]sql.Expression{}, children...)
			}
			nc[i], changed = &dateText{over: over{children[i]}}, true
		}
		if !changed {
			return e, transform.SameTree, nil
		}
		ne, err := e.WithChildren(nc...)
		if err != nil {
			return nil, transform.SameTree, err
		}
		return ne, transform.NewTree, nil
	})
}

// textFunctions read their arguments as text.
var textFunctions = map[string]bool{
	"length": true, "octet_length": true, "char_length": true, "character_length": true,
	"substring": true, "substr": true, "mid": true, "left": true, "right": true,
	"upper": true, "ucase": true, "lower": true, "lcase": true, "lpad": true, "rpad": true,
	"replace": true, "reverse": true, "trim": true, "ltrim": true, "rtrim": true,
	"instr": true, "locate": true, "position": true, "md5": true, "sha1": true, "sha": true,
	"sha2": true, "hex": true, "to_base64": true, "quote": true, "insert": true,
	"repeat": true, "substring_index": true, "crc32": true, "strcmp": true,
}

// dateText is a DATE value as MySQL writes it in text.
type dateText struct{ over }

var _ sql.Expression = (*dateText)(nil)

func (d *dateText) DebugString() string { return fmt.Sprintf("dateText(%s)", sql.DebugString(d.child)) }
func (d *dateText) Type() sql.Type      { return types.LongText }

func (d *dateText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	return &dateText{over: over{children[0]}}, nil
}

func (d *dateText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.child.Eval(ctx, row)
	if t, ok := v.(time.Time); ok && err == nil {
		return t.Format("2006-01-02"), nil
	}
	return v, err
}
