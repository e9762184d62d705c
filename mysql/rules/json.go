package rules

import (
	"fmt"
	"regexp"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function/json"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// memberPath is a path whose last step is an object member: $...(.name).
var memberPath = regexp.MustCompile(`^(\$[^*]*?)\.([A-Za-z_][A-Za-z0-9_]*|"[^"]*")$`)

// jsonMembers also gives JSON_VALUE its SQL NULL for a JSON null
// (nullValue). It makes JSON_EXTRACT(doc, '$...name') NULL where the member's
// parent is not an object or has no such member (RULE-16):
// go-mysql-server's path library applies a member step to each element of
// an array, and returned [] for JSON_EXTRACT('[1,2]', '$.a').
func jsonMembers(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *json.JsonValue:
			return &nullValue{JsonValue: x}, transform.NewTree, nil
		case *json.JSONUnquote:
			return &jsonUnquote{x}, transform.NewTree, nil // jsonfix.go
		case json.JSONObject:
			return nullKeyObject{x}, transform.NewTree, nil
		case *json.JSONExtract:
			if len(x.Paths) > 1 {
				return &multiExtract{x}, transform.NewTree, nil
			}
			return &memberExtract{JSONExtract: x}, transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// nullValue is JSON_VALUE as MySQL and MariaDB answer it (RULE-16): SQL
// NULL where the path finds a JSON null, an array or an object (not a
// scalar: NULL ON ERROR), and a string's own text; go-mysql-server
// returned the JSON text ('null', '"abc"', '[1]').
type nullValue struct{ *json.JsonValue }

func (n *nullValue) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(n.JsonValue, children, func(jv *json.JsonValue) sql.Expression { return &nullValue{JsonValue: jv} })
}

func (n *nullValue) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	doc, err := n.JSON.Eval(ctx, row)
	if err != nil || doc == nil {
		return n.JsonValue.Eval(ctx, row)
	}
	path, err := n.Path.Eval(ctx, row)
	p, ok := path.(string)
	if err != nil || !ok {
		return n.JsonValue.Eval(ctx, row)
	}
	if _, ok := doc.(sql.JSONWrapper); !ok {
		if doc, _, err = types.JSON.Convert(ctx, doc); err != nil {
			return n.JsonValue.Eval(ctx, row)
		}
	}
	if w, ok := doc.(sql.JSONWrapper); ok {
		if res, err := types.LookupJSONValue(w, p); err == nil && res != nil {
			if d, ok := res.(types.JSONDocument); ok {
				switch v := d.Val.(type) {
				case nil, []any, map[string]any: // JSON null; not a scalar (NULL ON ERROR)
					return nil, nil
				case string: // the string itself, not its JSON text
					if n.Typ == nil {
						return v, nil
					}
					out, _, err := n.Typ.Convert(ctx, v)
					return out, err
				}
			}
		}
	}
	return n.JsonValue.Eval(ctx, row)
}

type memberExtract struct{ *json.JSONExtract }

func (m *memberExtract) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return rewrapped(m.JSONExtract, children, func(je *json.JSONExtract) sql.Expression { return &memberExtract{JSONExtract: je} })
}

func (m *memberExtract) DebugString() string {
	return fmt.Sprintf("memberExtract(%s)", sql.DebugString(m.JSONExtract))
}

// elementPath is a path whose last step is an array element: $...[n].
var elementPath = regexp.MustCompile(`^(\$.*?)\s*\[\s*([0-9]+)\s*\]$`)

func (m *memberExtract) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	if w, ok, err := m.elementOfScalar(ctx, row); ok || err != nil {
		return w, err
	}
	v, err := m.JSONExtract.Eval(ctx, row)
	if err != nil || v == nil {
		return v, err
	}
	p, err := m.Paths[0].Eval(ctx, row)
	if err != nil || p == nil {
		return v, err
	}
	ps, _, err := types.LongText.Convert(ctx, p)
	if err != nil {
		return v, nil
	}
	match := memberPath.FindStringSubmatch(ps.(string))
	if match == nil {
		return v, nil
	}
	doc, err := m.JSON.Eval(ctx, row)
	if err != nil || doc == nil {
		return v, nil
	}
	jd, _, err := types.JSON.Convert(ctx, doc)
	if err != nil {
		return v, nil
	}
	parent, err := types.LookupJSONValue(jd.(sql.JSONWrapper), match[1])
	if err != nil || parent == nil {
		return v, nil
	}
	pv, err := parent.ToInterface()
	if err != nil {
		return v, nil
	}
	obj, ok := pv.(types.JsonObject)
	if !ok {
		return nil, nil // a member of a non-object: no value
	}
	key := match[2]
	if len(key) >= 2 && key[0] == '"' {
		key = key[1 : len(key)-1]
	}
	if _, ok := obj[key]; !ok {
		return nil, nil
	}
	return v, nil
}

// elementOfScalar answers $...[n] where the value the step applies to is
// not an array, as MySQL reads it (RULE-16): [0] is the value itself, as if
// wrapped in an array of one, any other n nothing.
// JSON_EXTRACT('true', '$[0]') is true; go-mysql-server's path library
// found nothing, failed ('object is not Slice') on {"a": 5} and '$.a[0]',
// and panicked on a JSON null. ok is false where the path library answers.
func (m *memberExtract) elementOfScalar(ctx *sql.Context, row sql.Row) (v any, ok bool, err error) {
	p, err := m.Paths[0].Eval(ctx, row)
	if err != nil || p == nil {
		return nil, false, err
	}
	ps, _, err := types.LongText.Convert(ctx, p)
	if err != nil {
		return nil, false, nil
	}
	match := elementPath.FindStringSubmatch(ps.(string))
	if match == nil {
		return nil, false, nil
	}
	doc, err := m.JSON.Eval(ctx, row)
	if err != nil || doc == nil {
		return nil, false, nil
	}
	jd, _, err := types.JSON.Convert(ctx, doc)
	if err != nil {
		return nil, false, nil
	}
	parent, err := types.LookupJSONValue(jd.(sql.JSONWrapper), match[1])
	if err != nil || parent == nil {
		return nil, false, nil
	}
	pv, err := parent.ToInterface()
	if err != nil {
		return nil, false, nil
	}
	switch pv.(type) {
	case types.JsonArray:
		return nil, false, nil
	}
	if match[2] != "0" {
		return nil, true, nil
	}
	return parent, true, nil
}
