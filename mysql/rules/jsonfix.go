package rules

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/json"
	"github.com/dolthub/vitess/go/mysql"
)

// More of RULE-16 (JSON functions as MySQL answers them), each where
// go-mysql-server panicked:
//   - JSON_EXTRACT(doc, p1, p2, ...) is the array of the values the paths
//     find, NULL when none finds one (a path finding nothing was a nil the
//     array builder dereferenced): now jsonpath.go's;
//   - JSON_UNQUOTE decodes \uXXXX escapes with UTF-16 surrogate pairs
//     ('"\ud83d\ude0a"' is one emoji); a broken escape leaves the text as
//     it was with Warning 4035, as MariaDB (the decoder sliced out of
//     range);
//   - JSON_OBJECT with a NULL key is error 3158, as MySQL documents (a
//     string assertion panicked).

// jsonUnquote is JSON_UNQUOTE with JSON's string escapes.
type jsonUnquote struct{ *json.JSONUnquote }

func (j *jsonUnquote) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(j.JSONUnquote, children, func(ju *json.JSONUnquote) sql.Expression { return &jsonUnquote{ju} })
}

func (j *jsonUnquote) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := j.Child.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	s, ok := textOf(v)
	if !ok {
		return j.JSONUnquote.Eval(ctx, row) // a JSON document: already decoded
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s, nil
	}
	out, ok := unescapeJSONString(s[1 : len(s)-1])
	if !ok {
		ctx.Warn(4035, "Broken JSON string in argument 1 to function 'json_unquote' at position %d", len(s)-1)
		return s, nil
	}
	return out, nil
}

// unescapeJSONString decodes the inside of a JSON string literal; false:
// a broken escape.
func unescapeJSONString(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch s[i+1] {
		case '"', '\\', '/':
			b.WriteByte(s[i+1])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 { // a low surrogate first
					return "", false
				}
				lo, ok := hex4(s, i+2)
				if i+1 >= len(s) || s[i] != '\\' || s[i+1] != 'u' || !ok || lo < 0xDC00 || lo > 0xDFFF {
					return "", false
				}
				r = utf16.DecodeRune(r, lo)
				i += 6
			}
			b.WriteRune(r)
			continue
		default:
			b.WriteByte(s[i+1]) // MySQL keeps the character of an unknown escape
		}
		i += 2
	}
	out := b.String()
	if !utf8.ValidString(out) {
		return "", false
	}
	return out, true
}

func hex4(s string, at int) (rune, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | (c - '0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | (c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | (c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// nullKeyObject is JSON_OBJECT refusing a NULL member name.
type nullKeyObject struct{ json.JSONObject }

func (o nullKeyObject) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	e, err := o.JSONObject.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if jo, ok := e.(json.JSONObject); ok {
		return nullKeyObject{jo}, nil
	}
	return e, nil
}

func (o nullKeyObject) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	args := o.Children()
	for i := 0; i < len(args); i += 2 {
		k, err := args[i].Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		if k == nil {
			return nil, mysql.NewSQLError(3158, "22032", "JSON documents may not contain NULL member names.")
		}
	}
	return o.JSONObject.Eval(ctx, row)
}
