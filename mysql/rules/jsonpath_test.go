package rules

import (
	"encoding/json"
	"testing"

	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-16: MySQL's JSON path language (jsonpath.go), evaluated on decoded
// documents; the compat corpus compares the same paths with MariaDB.
func TestJSONPaths(t *testing.T) {
	for _, c := range []struct {
		doc, path string
		want      string // the matches as a JSON array
		wild      bool
	}{
		{`{"a":{"b":[10,20]}}`, `$.a.b[1]`, `[20]`, false},
		{`[1,2]`, `$.a`, `null`, false},
		{`{"foo":"bar"}`, `$[*]`, `null`, true},
		{`{"foo":"bar"}`, `$[0]`, `[{"foo":"bar"}]`, false},
		{`true`, `$[1]`, `null`, false},
		{`[1,[2,3]]`, `$[last]`, `[[2,3]]`, false},
		{`[1,[2,3]]`, `$[last - 1]`, `[1]`, false},
		{`[0,1,2,3,4]`, `$[1 to 3]`, `[1,2,3]`, true},
		{`[0,1,2,3,4]`, `$[last-2 to last]`, `[2,3,4]`, true},
		{`[0,1]`, `$[1 to 9]`, `[1]`, true},
		{`{"bb":1,"a":2,"c":3}`, `$.*`, `[2,3,1]`, true},
		{`{"a":{"b":1},"c":[{"b":2}],"b":0}`, `$**.b`, `[0,1,2]`, true},
		{`{"a b":1}`, ` $ ."a b" `, `[1]`, false},
		{`[[1,2],[3,4]]`, `$[*][0]`, `[1,3]`, true},
		{`{"a":null}`, `$.a`, `[null]`, false},
	} {
		var doc any
		if err := json.Unmarshal([]byte(c.doc), &doc); err != nil {
			t.Fatal(err)
		}
		legs, wild, err := parseJSONPath(c.path)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		got := evalJSONPath(jsonTypes(doc), legs)
		out, _ := json.Marshal(got)
		if len(got) == 0 {
			out = []byte("null")
		}
		if string(out) != c.want || wild != c.wild {
			t.Errorf("%s on %s = %s (wild %v), want %s (wild %v)", c.path, c.doc, out, wild, c.want, c.wild)
		}
	}
	for _, bad := range []string{`a`, `$.`, `$[x]`, `$**`, `$[1 to]`, `$."a`, `$.1a`} {
		if _, _, err := parseJSONPath(bad); err == nil {
			t.Errorf("%q parsed; want error 3143", bad)
		}
	}
}

// jsonTypes is a decoded document with go-mysql-server's object and
// array types.
func jsonTypes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := types.JsonObject{}
		for k, e := range x {
			o[k] = jsonTypes(e)
		}
		return o
	case []any:
		a := make(types.JsonArray, len(x))
		for i, e := range x {
			a[i] = jsonTypes(e)
		}
		return a
	}
	return v
}
