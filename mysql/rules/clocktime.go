package rules

import (
	"fmt"
	"regexp"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// clockOfDatetime implements RULE-59: a string holding a date and a time, read
// as a TIME (CAST(x AS TIME), a value for a TIME column), is its time of
// day, as in MySQL: CAST('2020-01-01 03:25:45' AS TIME) is 03:25:45.
// go-mysql-server's TIME conversion took only time strings: the CAST was
// NULL and the INSERT failed with 1292 (go-sql-driver's TestDateTime
// binds a time.Time, sent as a DATETIME, to a TIME). A value for a TIME
// column, and CAST(x AS TIME), is also rounded to whole seconds:
// go-mysql-server kept the fraction, so `t = '13:25:45'` missed a row
// written '13:25:45.5' and CAST('00:00:00.6' AS TIME) printed it.
type clockOfDatetime struct {
	over
	column bool        // the value goes into a TIME column: whole seconds
	whole  bool        // CAST(x AS TIME): whole seconds too
	col    string      // its name (for Note 1265)
	rows   *rowCounter // the row number notes name
}

var datetimeString = regexp.MustCompile(`^\s*\d{1,4}-\d{1,2}-\d{1,2}[ T]+(\d{1,2}:\d{1,2}(?::\d{1,2}(?:\.\d*)?)?)\s*$`)

func (t *clockOfDatetime) Type() sql.Type { return t.child.Type() }

func (t *clockOfDatetime) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(t, len(children), 1)
	}
	nt := *t
	nt.child = children[0]
	return &nt, nil
}

func (t *clockOfDatetime) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	n := 0
	if t.rows != nil {
		n = t.rows.next(ctx)
	}
	v, err := t.child.Eval(ctx, row)
	if err != nil {
		return nil, err
	}
	if str := stringOf(v); str != "" {
		clock := ""
		if m := datetimeString.FindStringSubmatch(str); m != nil {
			clock = m[1]
		} else if zeroDateRE.MatchString(str) {
			clock = "00:00:00" // the zero date ('0000-00-00', a zero time.Time's text) is midnight
		}
		if clock != "" {
			v = clock
			if t.column { // the date is dropped, as MySQL notes
				ctx.Session.Warn(&sql.Warning{Level: "Note", Code: 1265, Message: fmt.Sprintf("Data truncated for column '%s' at row %d", t.col, n)})
			}
		}
	}
	if !(t.column || t.whole) || v == nil || timeOutOfRange(v) { // RULE-54's
		return v, nil
	}
	// A TIME column holds whole seconds (TIME(n) is refused): the
	// fraction rounds, half away from zero, as MySQL rounds DATETIME and
	// TIME (MariaDB truncates).
	cv, inRange, err := types.Time.Convert(ctx, v)
	if err != nil || inRange != sql.InRange {
		return v, nil // go-mysql-server's (or RULE-54's) error follows
	}
	ts, ok := cv.(types.Timespan)
	if !ok {
		return v, nil
	}
	us := int64(ts)
	switch r := us % 1e6; {
	case r >= 5e5:
		us += 1e6 - r
	case r <= -5e5:
		us -= 1e6 + r
	default:
		us -= r
	}
	return types.Timespan(us), nil
}

// stringOf is v's text when v is a string ("" otherwise).
func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}
