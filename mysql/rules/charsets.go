package rules

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/vitess/go/mysql"
)

// unsupportedCharsets refuses, before they run, the statements that would
// make go-mysql-server use a character set it knows by name but cannot
// encode (RULE-20): CONVERT(x USING cs) and SET NAMES / SET
// character_set_client|connection|results = cs answer 1115 (SET
// collation_connection|database|server of such a character set 1273), rather than
// panicking or dropping the connection when a result is encoded. A client
// character set MySQL cannot parse statements in (ucs2, utf16, utf16le,
// utf32) is 1231, as in MySQL.
func unsupportedCharsets(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	var err error
	transform.InspectExpressions(n, func(e sql.Expression) bool {
		switch e := e.(type) {
		case *expression.ConvertUsing:
			if e.TargetCharSet.Encoder() == nil {
				err = unknownCharset(e.TargetCharSet.Name())
			}
		case *expression.SetField:
			err = checkCharsetVariable(ctx, e)
		}
		return err == nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	return n, transform.SameTree, nil
}

func unknownCharset(name string) error {
	return mysql.NewSQLError(mysql.ERUnknownCharacterSet, "42000", "Unknown character set: '%s'", name)
}

func checkCharsetVariable(ctx *sql.Context, sf *expression.SetField) error {
	sv, ok := sf.Left().(*expression.SystemVar)
	if !ok {
		return nil
	}
	name := strings.ToLower(sv.Name)
	switch name {
	case "character_set_client", "character_set_connection", "character_set_results",
		"collation_connection", "collation_database", "collation_server":
	default:
		return nil
	}
	lit, ok := sf.Right().(*expression.Literal)
	if !ok {
		return nil
	}
	v, ok := lit.Value().(string)
	if !ok || v == "" {
		return nil
	}
	if strings.HasPrefix(name, "collation_") {
		id, err := sql.ParseCollation("", v, false)
		if err == nil && id.CharacterSet().Encoder() == nil {
			return mysql.NewSQLError(mysql.ERUnknownCollation, "HY000", "Unknown collation: '%s'", v)
		}
		return nil // go-mysql-server answers 1273 itself for names it does not know
	}
	cs, err := sql.ParseCharacterSet(v)
	if err != nil {
		return nil // go-mysql-server answers 1115 itself
	}
	if cs.Encoder() == nil {
		return unknownCharset(v)
	}
	if name == "character_set_client" {
		switch cs {
		case sql.CharacterSet_ucs2, sql.CharacterSet_utf16, sql.CharacterSet_utf16le, sql.CharacterSet_utf32:
			return mysql.NewSQLError(mysql.ERWrongValueForVar, "42000", "Variable '%s' can't be set to the value of '%s'", name, v)
		}
	}
	return nil
}
