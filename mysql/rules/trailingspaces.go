package rules

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// trailingSpaces implements RULE-38: a string longer than its CHAR,
// VARCHAR or TEXT column only by trailing spaces is cut to the column's
// length in any SQL mode, with Note 1265 ("Data truncated for column 'c'
// at row n") for VARCHAR and TEXT and silently for CHAR, as MySQL and
// MariaDB store it; go-mysql-server refused it with 1406. Binary strings
// are not cut (MySQL refuses them too).
func trailingSpaces(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	rows := map[string]*rowCounter{}
	wrap := func(e sql.Expression, col *sql.Column) (sql.Expression, bool) {
		st, ok := col.Type.(sql.StringType)
		if !ok || types.IsBinaryType(col.Type) || types.IsEnum(col.Type) || types.IsSet(col.Type) {
			return e, false
		}
		if _, done := e.(*cutSpaces); done {
			return e, false
		}
		if _, isDefault := e.(*sql.ColumnDefaultValue); isDefault {
			return e, false // a default or generated value: evaluated in go-mysql-server's second pass, over the whole row
		}
		if rows[col.Name] == nil {
			rows[col.Name] = &rowCounter{}
		}
		return &cutSpaces{over: over{e}, max: int(st.MaxCharacterLength()), col: col.Name,
			note: col.Type.Type() != sqltypes.Char, rows: rows[col.Name]}, true
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			return insertSources(n, wrap)
		case *plan.UpdateSource:
			return updateSources(n, wrap)
		}
		return n, transform.SameTree, nil
	})
}

// cutSpaces is a string value cut to max characters when what is cut is
// only spaces (RULE-38).
type cutSpaces struct {
	over
	max  int
	col  string
	note bool
	rows *rowCounter
}

func (c *cutSpaces) Type() sql.Type { return c.child.Type() }
func (c *cutSpaces) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), 1)
	}
	nc := *c
	nc.child = children[0]
	return &nc, nil
}

func (c *cutSpaces) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n := c.rows.next(ctx)
	v, err := c.child.Eval(ctx, row)
	s, ok := v.(string)
	if err != nil || !ok || len(s) <= c.max || c.max <= 0 {
		return v, err
	}
	cut, count := 0, 0
	for cut < len(s) && count < c.max {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
		count++
	}
	if cut == len(s) || strings.TrimRight(s[cut:], " ") != "" {
		return v, nil // fits, or more than spaces would be lost: the type's own error
	}
	if c.note {
		ctx.Session.Warn(&sql.Warning{Level: "Note", Code: 1265, Message: "Data truncated for column '" + c.col + "' at row " + strconv.Itoa(n)})
	}
	return s[:cut], nil
}
