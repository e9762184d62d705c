package rules

import (
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/shopspring/decimal"
)

// decimalRanges implements RULE-34: a number going into a DECIMAL(M,D)
// column (INSERT, UPDATE) or through CAST(x AS DECIMAL(M,D)) is rounded
// to D digits, half away from zero, with Note 1265 for an INSERT or
// UPDATE that drops digits, and a value beyond ±(10^(M-D) - 10^-D) is
// that bound with Warning 1264 ("Out of range value for column 'c' at row
// n"), or error 1264 in strict mode without IGNORE, as in MySQL.
// go-mysql-server stored 0 for an out-of-range INSERT IGNORE, failed a
// non-strict INSERT or UPDATE, and gave CAST(1000 AS DECIMAL(5,2)) = 0.
func decimalRanges(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	st := strict(ctx)
	noZeroDate := sql.LoadSqlMode(ctx).ModeEnabled("NO_ZERO_DATE")
	wrapFor := func(ignore bool) func(e sql.Expression, col *sql.Column) (sql.Expression, bool) {
		rows := map[string]*rowCounter{} // one per column, shared by its VALUES tuples
		return func(e sql.Expression, col *sql.Column) (sql.Expression, bool) {
			if _, isDefault := e.(*sql.ColumnDefaultValue); isDefault {
				return e, false // a default or generated value: evaluated in go-mysql-server's second pass, over the whole row
			}
			if rows[col.Name] == nil {
				rows[col.Name] = &rowCounter{}
			}
			if types.IsEnum(col.Type) || types.IsSet(col.Type) { // RULE-55
				if _, done := e.(*fittedMember); done || !st || ignore {
					return e, false
				}
				return &fittedMember{over: over{e}, col: col.Name, typ: col.Type, rows: rows[col.Name]}, true
			}
			if types.IsTimespan(col.Type) || types.IsDateType(col.Type) || types.IsDatetimeType(col.Type) { // RULE-54
				if _, done := e.(*fittedTemporal); done {
					return e, false
				}
				if _, done := e.(*clockOfDatetime); done {
					return e, false
				}
				wrapped := false
				if types.IsTimespan(col.Type) { // RULE-59
					e, wrapped = &clockOfDatetime{over: over{e}, column: true, col: col.Name, rows: &rowCounter{}}, true
				}
				if !st || ignore {
					return e, wrapped
				}
				return &fittedTemporal{over: over{e}, col: col.Name, time: types.IsTimespan(col.Type), zero: noZeroDate,
					fail: true, rows: rows[col.Name], isDate: types.IsDateType(col.Type)}, true
			}
			if min, max, integer := integerRange(col.Type); integer && !col.AutoIncrement { // the id generation reads the source as it is
				if _, done := e.(*fittedInteger); done {
					return e, false
				}
				return &fittedInteger{over: over{e}, col: col.Name, unsigned: min.Sign() == 0, min: min, max: max, fail: st && !ignore, rows: rows[col.Name]}, true // RULE-46
			}
			if types.IsFloat(col.Type) { // RULE-57
				if _, done := e.(*fittedUnsigned); done || !UnsignedColumn(ctx, col.DatabaseSource, col.Source, col.Name) {
					return e, false
				}
				return &fittedUnsigned{over: over{e}, col: col.Name, fail: st && !ignore, rows: rows[col.Name]}, true
			}
			dt, ok := col.Type.(sql.DecimalType)
			if !ok {
				return e, false
			}
			if _, done := e.(*fittedDecimal); done {
				return e, false
			}
			return &fittedDecimal{over: over{e}, prec: int32(dt.Precision()), scale: int32(dt.Scale()),
				col: col.Name, fail: st && !ignore, notes: true, rows: rows[col.Name],
				unsigned: UnsignedColumn(ctx, col.DatabaseSource, col.Source, col.Name)}, true // RULE-57
		}
	}
	n, same, err := transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.InsertInto:
			return insertSources(n, wrapFor(n.Ignore))
		case *plan.UpdateSource:
			return updateSources(n, wrapFor(n.Ignore))
		}
		return n, transform.SameTree, nil
	})
	if err != nil {
		return nil, same, err
	}
	n, same2, err := transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		c, ok := e.(*expression.Convert)
		if !ok {
			return e, transform.SameTree, nil
		}
		if types.IsTimespan(c.Type()) { // RULE-59: CAST(x AS TIME)
			if _, done := c.Child.(*clockOfDatetime); done {
				return e, transform.SameTree, nil
			}
			nc, err := c.WithChildren(&clockOfDatetime{over: over{c.Child}, whole: true})
			if err != nil {
				return nil, transform.SameTree, err
			}
			return nc, transform.NewTree, nil
		}
		dt, ok := c.Type().(sql.DecimalType)
		if !ok || dt.Scale() == 0 { // DECIMAL(M,0): RULE-29's roundedDecimal
			return e, transform.SameTree, nil
		}
		return &fittedDecimal{over: over{c.Child}, prec: int32(dt.Precision()), scale: int32(dt.Scale()),
			col: c.String(), cast: c, rows: &rowCounter{}}, transform.NewTree, nil
	})
	if err != nil {
		return nil, same, err
	}
	return n, same && same2, nil
}

// fittedDecimal is a value fitted to DECIMAL(prec, scale) (RULE-34).
type fittedDecimal struct {
	over
	prec, scale int32
	col         string
	fail        bool                // strict mode, no IGNORE: out of range is error 1264
	notes       bool                // Note 1265 when digits are dropped (INSERT, UPDATE)
	rows        *rowCounter         // the row number warnings name
	cast        *expression.Convert // CAST(... AS DECIMAL(M,D)): its type and text
	unsigned    bool                // the column is DECIMAL UNSIGNED: the range starts at 0 (RULE-57)
}

// rowCounter numbers the rows a statement's expression is evaluated for,
// from 1, anew for each execution of the statement (ctx.Pid), so that
// warnings say "at row n" as MySQL's do.
type rowCounter struct {
	pid uint64
	n   int
}

func (r *rowCounter) next(ctx *sql.Context) int {
	if r.pid != ctx.Pid() {
		r.pid, r.n = ctx.Pid(), 0
	}
	r.n++
	return r.n
}

func (f *fittedDecimal) Type() sql.Type {
	if f.cast != nil {
		return f.cast.Type()
	}
	return f.child.Type()
}

func (f *fittedDecimal) String() string {
	if f.cast != nil {
		return f.cast.String()
	}
	return f.child.String()
}

func (f *fittedDecimal) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(children), 1)
	}
	nf := *f
	nf.child = children[0]
	if f.cast != nil {
		c, err := f.cast.WithChildren(children...)
		if err != nil {
			return nil, err
		}
		nf.cast = c.(*expression.Convert)
	}
	return &nf, nil
}

func (f *fittedDecimal) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n := f.rows.next(ctx)
	v, err := f.child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	d, ok := decimalOf(v)
	if !ok {
		if f.cast != nil {
			return f.cast.Eval(ctx, row)
		}
		return v, nil // left to go-mysql-server's conversion
	}
	r := d.Round(f.scale)
	max := decimal.New(1, f.prec-f.scale).Sub(decimal.New(1, -f.scale))
	min := max.Neg()
	if f.unsigned {
		min = decimal.Zero
	}
	if r.GreaterThan(max) || r.LessThan(min) {
		if f.fail {
			return nil, mysql.NewSQLError(1264, "22003", "Out of range value for column '%s' at row %d", f.col, n)
		}
		ctx.Warn(1264, "Out of range value for column '%s' at row %d", f.col, n)
		if r.Sign() < 0 {
			return min, nil
		}
		return max, nil
	}
	if f.notes && !r.Equal(d) {
		ctx.Session.Warn(&sql.Warning{Level: "Note", Code: 1265, Message: "Data truncated for column '" + f.col + "' at row " + strconv.Itoa(n)})
	}
	return r, nil
}

// decimalOf reads a number, or a string holding only a number, as a
// DECIMAL.
func decimalOf(v any) (decimal.Decimal, bool) {
	switch x := v.(type) {
	case decimal.Decimal:
		return x, true
	case decimal.NullDecimal:
		return x.Decimal, x.Valid
	case int8:
		return decimal.NewFromInt(int64(x)), true
	case int16:
		return decimal.NewFromInt(int64(x)), true
	case int32:
		return decimal.NewFromInt(int64(x)), true
	case int64:
		return decimal.NewFromInt(x), true
	case int:
		return decimal.NewFromInt(int64(x)), true
	case uint8, uint16, uint32, uint64, uint:
		u, err := decimal.NewFromString(strconv.FormatUint(toUint64(x), 10))
		return u, err == nil
	case float32:
		return decimalOfFloat(float64(x))
	case float64:
		return decimalOfFloat(x)
	case string:
		d, err := decimal.NewFromString(strings.TrimSpace(x))
		return d, err == nil
	case []byte:
		d, err := decimal.NewFromString(strings.TrimSpace(string(x)))
		return d, err == nil
	}
	return decimal.Decimal{}, false
}

func decimalOfFloat(f float64) (decimal.Decimal, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return decimal.Decimal{}, false
	}
	return decimal.NewFromFloat(f), true
}

func toUint64(v any) uint64 {
	switch x := v.(type) {
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case uint:
		return uint64(x)
	}
	return v.(uint64)
}
