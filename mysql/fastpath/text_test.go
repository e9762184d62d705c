package fastpath

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

func describeParams(norm []byte, params []*querypb.BindVariable) string {
	var b strings.Builder
	b.Write(norm)
	for _, p := range params {
		fmt.Fprintf(&b, " | %s %s", p.Type, p.Value)
	}
	return b.String()
}

// TestNormalize (FP-5): literals become parameters of the type a client
// binds; everything FP-5 leaves to go-mysql-server is refused.
func TestNormalize(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT c FROM sbtest1 WHERE id=5005":                    "SELECT c FROM sbtest1 WHERE id=? | INT64 5005",
		"SELECT c FROM t WHERE id BETWEEN -5 AND - 3":            "SELECT c FROM t WHERE id BETWEEN ? AND ? | INT64 -5 | INT64 -3",
		"UPDATE t SET k=k+1 WHERE id=42;":                        "UPDATE t SET k=k+? WHERE id=?; | INT64 1 | INT64 42",
		"UPDATE t SET k = k - -2 WHERE id = 1":                   "UPDATE t SET k = k - ? WHERE id = ? | INT64 -2 | INT64 1",
		"UPDATE t SET k = k -2 WHERE id = 1":                     "UPDATE t SET k = k -? WHERE id = ? | INT64 2 | INT64 1",
		"INSERT INTO t (id, c) VALUES (7, 'a?b''')":              "",
		"INSERT INTO t (id, c) VALUES (7, 'a?b')":                "INSERT INTO t (id, c) VALUES (?, ?) | INT64 7 | VARCHAR a?b",
		"INSERT INTO t (id, c) VALUES (18446744073709551615,'')": "INSERT INTO t (id, c) VALUES (?,?) | UINT64 18446744073709551615 | VARCHAR ",
		"SELECT `a'b` FROM `t` WHERE `id` = '5'":                 "SELECT `a'b` FROM `t` WHERE `id` = ? | VARCHAR 5",
		"SELECT t1.c FROM t1 WHERE id = 007":                     "SELECT t1.c FROM t1 WHERE id = ? | INT64 007",
		"SELECT c FROM t WHERE id = -9223372036854775808":        "SELECT c FROM t WHERE id = ? | INT64 -9223372036854775808",
		"BEGIN": "BEGIN",
		"SELECT c FROM t WHERE id = 18446744073709551616": "",
		"SELECT c FROM t WHERE id = -9223372036854775809": "",
		"SELECT c FROM t WHERE id = 1.5":                  "SELECT c FROM t WHERE id = ? | DECIMAL 1.5",
		"UPDATE t SET d = -0.25 WHERE id = 2":             "UPDATE t SET d = ? WHERE id = ? | DECIMAL -0.25 | INT64 2",
		"SELECT c FROM t WHERE id = 1.":                   "",
		"SELECT c FROM t WHERE id = 1.5e3":                "",
		"SELECT c FROM t WHERE id = 1.5.6":                "",
		"SELECT c FROM t WHERE id = .5":                   "",
		"SELECT c FROM t WHERE id = 1e5":                  "",
		"SELECT c FROM t WHERE id = 0x1F":                 "",
		"SELECT c FROM t WHERE id = X'1F'":                "",
		"SELECT c FROM t WHERE id = b'101'":               "",
		"SELECT c FROM t WHERE id = 0b101":                "",
		"SELECT c FROM t WHERE s = N'x'":                  "",
		"SELECT c FROM t WHERE s = _latin1'x'":            "",
		"SELECT c FROM t WHERE s = _latin1 'x'":           "",
		"SELECT c FROM t WHERE s = 'a' 'b'":               "",
		"SELECT c FROM t WHERE s = 'a\\'b'":               "",
		"SELECT c FROM t WHERE s = \"x\"":                 "",
		"SELECT c FROM t WHERE s = 'é'":                   "",
		"SELECT c FROM t WHERE id = 1 -- x":               "",
		"SELECT c FROM t WHERE id = 1 # x":                "",
		"SELECT c FROM t WHERE id = 1 /* x */":            "",
		"/*!40101 SELECT c FROM t WHERE id = 1 */":        "",
		"SELECT c FROM t WHERE id = ?":                    "",
		"SELECT c FROM t WHERE id = @x":                   "",
		"SELECT c FROM t WHERE id = 1; SELECT 2":          "",
		"SELECT c FROM t WHERE id = 'unterminated":        "",
		"SELECT c FROM 1t WHERE id = 1":                   "",
	} {
		norm, params, ok := normalize(q, nil)
		got := ""
		if ok {
			got = describeParams(norm, params)
		}
		if got != want {
			t.Errorf("%q:\n got  %q\n want %q", q, got, want)
		}
	}
}

// FuzzNormalize (FP-5): wherever normalize accepts a statement, the
// wire library's tokenizer reads the normalized text as the original's
// tokens with each literal (a string, an integer, or a minus sign and an
// integer) replaced by one placeholder, and the parameters are those
// literals in order: no literal is taken from inside a quoted name, a
// string or a comment, and nothing else is taken for a literal.
func FuzzNormalize(f *testing.F) {
	for _, q := range []string{
		"SELECT c FROM sbtest1 WHERE id=5005",
		"SELECT DISTINCT c FROM t WHERE id BETWEEN 1 AND 99 ORDER BY c",
		"UPDATE t SET k=k+1, c='x-1' WHERE id=-3",
		"INSERT INTO t (id, k, c, pad) VALUES (1, 2, '3', '4')",
		"SELECT `x``y` FROM t WHERE a = 'b''c' -- 5",
		"SELECT 1 /* 2 */ + 0x3 - b'1' * 1.5e3",
		"INSERT INTO t VALUES (1, -2.50, '2024-01-02'), (2, 3.25, '2024-01-03')",
		"select a from t where b = _utf8mb4'c' and d=n'e'",
		"DELETE FROM t WHERE id = - 12;  ",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		norm, params, ok := normalize(q, nil)
		if !ok {
			return
		}
		orig := sqlparser.NewStringTokenizer(q)
		got := sqlparser.NewStringTokenizer(string(norm))
		next := 0
		for {
			gt, gv := got.Scan()
			ot, ov := orig.Scan()
			if gt == sqlparser.VALUE_ARG {
				if next >= len(params) {
					t.Fatalf("%q: more placeholders than parameters in %q", q, norm)
				}
				p := params[next]
				next++
				var lit string
				switch ot {
				case sqlparser.STRING:
					lit = string(ov)
					if p.Type != sqltypes.VarChar {
						t.Fatalf("%q: string %q bound as %s", q, ov, p.Type)
					}
				case sqlparser.INTEGRAL:
					lit = string(ov)
				case sqlparser.FLOAT:
					lit = string(ov)
					if p.Type != sqltypes.Decimal {
						t.Fatalf("%q: decimal %q bound as %s", q, ov, p.Type)
					}
				case '-':
					ot, ov = orig.Scan()
					if ot != sqlparser.INTEGRAL && ot != sqlparser.FLOAT {
						t.Fatalf("%q: minus sign before %d %q taken as a literal", q, ot, ov)
					}
					lit = "-" + string(ov)
				default:
					t.Fatalf("%q: token %d %q taken as a literal", q, ot, ov)
				}
				if lit != string(p.Value) {
					t.Fatalf("%q: literal %q bound as %q", q, lit, p.Value)
				}
				continue
			}
			if gt != ot || string(gv) != string(ov) {
				t.Fatalf("%q: normalized %q reads %d %q where the original reads %d %q", q, norm, gt, gv, ot, ov)
			}
			if gt == 0 || gt == sqlparser.LEX_ERROR {
				break
			}
		}
		if next != len(params) {
			t.Fatalf("%q: %d parameters, %d placeholders", q, len(params), next)
		}
	})
}
