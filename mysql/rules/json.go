package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression/function/json"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// jsonMembers gives JSON_VALUE its SQL NULL for a JSON null (nullValue),
// and JSON_EXTRACT MySQL's path language (pathExtract, jsonpath.go):
// go-mysql-server's path library applied a member step to each element of
// an array (JSON_EXTRACT('[1,2]', '$.a') was []), among others (RULE-16).
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
			return newPathExtract(x), transform.NewTree, nil // jsonpath.go
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
