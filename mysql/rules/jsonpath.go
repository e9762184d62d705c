package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/json"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// RULE-16's JSON_EXTRACT: MySQL's path language evaluated by strata
// (pathExtract), not go-mysql-server's path library, which failed on
// wildcards over the wrong kind of value ('$[*]' of an object: "object is
// not Slice"), knew neither `last` nor ranges ('$[last]': "strconv.Atoi:
// parsing "last""), and put a wildcard's matches inside one more array
// when JSON_EXTRACT had several paths.
//
// A path is $ followed by legs: .name, ."quoted name", .*, [n], [last],
// [last-n], [m to n], [*], and ** (every value below, with the next leg).
// A leg that does not fit the value finds nothing, except that [0] and
// [last] (and a range holding 0) of a value that is not an array are the
// value itself, as MySQL reads it. JSON_EXTRACT with one path without
// wildcards or ranges answers the value found (SQL NULL for none); with
// several paths or a wildcard, the array of every value found, in
// document order, paths in the order given (NULL for none). An object's
// members come in MySQL's key order (shorter keys first, then bytewise).

// pathExtract is JSON_EXTRACT(doc, path, ...).
type pathExtract struct {
	*json.JSONExtract
	parsed [][]pathLeg // the paths, when all are valid literals (parsed once)
	wild   bool
}

func newPathExtract(je *json.JSONExtract) *pathExtract {
	p := &pathExtract{JSONExtract: je, wild: len(je.Paths) > 1}
	parsed := make([][]pathLeg, len(je.Paths))
	for i, pe := range je.Paths {
		lit, ok := pe.(*expression.Literal)
		if !ok {
			return p
		}
		s, ok := lit.Value().(string)
		if !ok {
			return p
		}
		legs, w, err := parseJSONPath(s)
		if err != nil {
			return p // Eval reports it
		}
		parsed[i], p.wild = legs, p.wild || w
	}
	p.parsed = parsed
	return p
}

func (p *pathExtract) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(p.JSONExtract, children, func(je *json.JSONExtract) sql.Expression { return newPathExtract(je) })
}

func (p *pathExtract) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	doc, err := p.JSON.Eval(ctx, row)
	if err != nil || doc == nil {
		return nil, err
	}
	paths, wild, err := p.paths(ctx, row)
	if err != nil || paths == nil {
		return nil, err
	}
	jd, _, err := types.JSON.Convert(ctx, doc)
	if err != nil {
		return nil, err
	}
	w, ok := jd.(sql.JSONWrapper)
	if !ok {
		return nil, nil
	}
	v, err := w.ToInterface()
	if err != nil {
		return nil, err
	}
	var found types.JsonArray
	for _, legs := range paths {
		found = append(found, evalJSONPath(v, legs)...)
	}
	switch {
	case len(found) == 0:
		return nil, nil
	case !wild:
		return types.JSONDocument{Val: found[0]}, nil
	}
	return types.JSONDocument{Val: found}, nil
}

// paths are the statement's paths, parsed (nil when one is NULL).
func (p *pathExtract) paths(ctx *sql.Context, row sql.Row) ([][]pathLeg, bool, error) {
	if p.parsed != nil {
		return p.parsed, p.wild, nil
	}
	paths, wild := make([][]pathLeg, len(p.Paths)), len(p.Paths) > 1
	for i, pe := range p.Paths {
		pv, err := pe.Eval(ctx, row)
		if err != nil || pv == nil {
			return nil, false, err
		}
		ps, _, err := types.LongText.Convert(ctx, pv)
		if err != nil {
			return nil, false, err
		}
		legs, w, err := parseJSONPath(ps.(string))
		if err != nil {
			return nil, false, err
		}
		paths[i], wild = legs, wild || w
	}
	return paths, wild, nil
}

type legKind int

const (
	legMember   legKind = iota // .name
	legMembers                 // .*
	legElements                // [*]
	legRange                   // [n], [last-n], [m to n]
	legDescend                 // **
)

type pathLeg struct {
	kind     legKind
	name     string
	from, to arrayIndex // legRange: [from] or [from to to]
}

// arrayIndex is n, or last - n.
type arrayIndex struct {
	last bool
	n    int
}

func (a arrayIndex) resolve(length int) int {
	if a.last {
		return length - 1 - a.n
	}
	return a.n
}

// parseJSONPath reads a MySQL JSON path; wild reports a wildcard, a
// range or ** (the answer is then an array).
func parseJSONPath(s string) (legs []pathLeg, wild bool, err error) {
	bad := func(i int) error {
		return mysql.NewSQLError(3143, "42000", "Invalid JSON path expression. The error is around character position %d.", i)
	}
	i := 0
	skip := func() {
		for i < len(s) && unicode.IsSpace(rune(s[i])) {
			i++
		}
	}
	skip()
	if i >= len(s) || s[i] != '$' {
		return nil, false, bad(i)
	}
	i++
	for {
		skip()
		if i >= len(s) {
			break
		}
		switch {
		case strings.HasPrefix(s[i:], "**"):
			legs = append(legs, pathLeg{kind: legDescend})
			wild = true
			i += 2
		case s[i] == '.':
			i++
			skip()
			switch {
			case i < len(s) && s[i] == '*':
				legs = append(legs, pathLeg{kind: legMembers})
				wild = true
				i++
			case i < len(s) && s[i] == '"':
				j := i + 1
				var b strings.Builder
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' && j+1 < len(s) {
						j++
					}
					b.WriteByte(s[j])
					j++
				}
				if j >= len(s) {
					return nil, false, bad(i)
				}
				legs = append(legs, pathLeg{kind: legMember, name: b.String()})
				i = j + 1
			default:
				j := i
				for j < len(s) {
					r := rune(s[j])
					if !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) || r >= 0x80) {
						break
					}
					j++
				}
				if j == i || (s[i] >= '0' && s[i] <= '9') {
					return nil, false, bad(i)
				}
				legs = append(legs, pathLeg{kind: legMember, name: s[i:j]})
				i = j
			}
		case s[i] == '[':
			i++
			skip()
			if i < len(s) && s[i] == '*' {
				i++
				skip()
				if i >= len(s) || s[i] != ']' {
					return nil, false, bad(i)
				}
				i++
				legs = append(legs, pathLeg{kind: legElements})
				wild = true
				continue
			}
			from, n, ok := parseArrayIndex(s[i:])
			if !ok {
				return nil, false, bad(i)
			}
			i += n
			skip()
			leg := pathLeg{kind: legRange, from: from, to: from}
			if strings.HasPrefix(strings.ToLower(s[i:]), "to") {
				i += 2
				skip()
				to, n, ok := parseArrayIndex(s[i:])
				if !ok {
					return nil, false, bad(i)
				}
				i += n
				skip()
				leg.to = to
				wild = true
			}
			if i >= len(s) || s[i] != ']' {
				return nil, false, bad(i)
			}
			i++
			legs = append(legs, leg)
		default:
			return nil, false, bad(i)
		}
	}
	if len(legs) > 0 && legs[len(legs)-1].kind == legDescend {
		return nil, false, bad(len(s))
	}
	return legs, wild, nil
}

// parseArrayIndex reads n, last or last - n at the start of s.
func parseArrayIndex(s string) (arrayIndex, int, bool) {
	i := 0
	var a arrayIndex
	if strings.HasPrefix(strings.ToLower(s), "last") {
		a.last = true
		i = 4
		j := i
		for j < len(s) && unicode.IsSpace(rune(s[j])) {
			j++
		}
		if j >= len(s) || s[j] != '-' {
			return a, i, true
		}
		i = j + 1
		for i < len(s) && unicode.IsSpace(rune(s[i])) {
			i++
		}
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return a, 0, false
	}
	n, err := strconv.Atoi(s[i:j])
	if err != nil {
		return a, 0, false
	}
	a.n = n
	return a, j, true
}

// evalJSONPath is every value legs find from v, in document order.
func evalJSONPath(v any, legs []pathLeg) []any {
	if len(legs) == 0 {
		return []any{v}
	}
	leg, rest := legs[0], legs[1:]
	var out []any
	switch leg.kind {
	case legMember:
		if obj, ok := v.(types.JsonObject); ok {
			if m, ok := obj[leg.name]; ok {
				out = evalJSONPath(m, rest)
			}
		}
	case legMembers:
		if obj, ok := v.(types.JsonObject); ok {
			for _, k := range mysqlKeyOrder(obj) {
				out = append(out, evalJSONPath(obj[k], rest)...)
			}
		}
	case legElements:
		if arr, ok := v.(types.JsonArray); ok {
			for _, e := range arr {
				out = append(out, evalJSONPath(e, rest)...)
			}
		}
	case legRange:
		arr, isArray := v.(types.JsonArray)
		if !isArray {
			arr = types.JsonArray{v} // a value that is not an array is its own [0]
		}
		from, to := leg.from.resolve(len(arr)), leg.to.resolve(len(arr))
		if from < 0 {
			from = 0
		}
		if to >= len(arr) {
			to = len(arr) - 1
		}
		for i := from; i <= to; i++ {
			out = append(out, evalJSONPath(arr[i], rest)...)
		}
	case legDescend:
		var walk func(x any)
		walk = func(x any) {
			out = append(out, evalJSONPath(x, rest)...)
			switch c := x.(type) {
			case types.JsonObject:
				for _, k := range mysqlKeyOrder(c) {
					walk(c[k])
				}
			case types.JsonArray:
				for _, e := range c {
					walk(e)
				}
			}
		}
		walk(v)
	default:
		panic(fmt.Sprintf("json path leg %d", leg.kind))
	}
	return out
}

// mysqlKeyOrder is obj's keys in MySQL's order: shorter first, then
// bytewise.
func mysqlKeyOrder(obj types.JsonObject) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return keys
}
