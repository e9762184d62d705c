package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// schemaFormatter writes column definitions for SHOW CREATE TABLE as MySQL
// does where go-mysql-server's formatter does not (RULE-11): ENUM and SET
// members and comments with their quotes doubled, and ENUM/SET defaults
// as the member (go-mysql-server printed the member's index, DEFAULT '2',
// which means another value, or none, when the dump is loaded), TIME as
// time, and the implicit DEFAULT NULL of a nullable column.
type schemaFormatter struct{ sql.SchemaFormatter }

func (f schemaFormatter) GenerateCreateTableColumnDefinition(col *sql.Column, colDefault, onUpdate string, tableCollation sql.CollationID) string {
	typ := col.Type.String()
	if tc, ok := col.Type.(sql.TypeWithCollation); ok {
		typ = tc.StringWithTableCollation(tableCollation)
	}
	typ = QuoteMembers(col.Type, typ)
	if col.Type.Type() == sqltypes.Time && typ == "time(6)" {
		// go-mysql-server has one TIME type (it keeps microseconds) and
		// prints it time(6); TIME is what was declared far more often,
		// and what MySQL shows for it.
		typ = "time"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %s %s", f.QuoteIdentifier(col.Name), typ)
	if !col.Nullable {
		b.WriteString(" NOT NULL")
	} else if col.Type.Type() == sqltypes.Timestamp {
		// A TIMESTAMP says it is nullable: under
		// explicit_defaults_for_timestamp=OFF (MySQL 5.7, older MariaDB)
		// a bare TIMESTAMP is NOT NULL DEFAULT CURRENT_TIMESTAMP.
		b.WriteString(" NULL")
	}
	if col.AutoIncrement {
		b.WriteString(" AUTO_INCREMENT")
	}
	if col.Generated != nil {
		fmt.Fprintf(&b, " GENERATED ALWAYS AS %s", col.Generated.String())
		if !col.Virtual {
			b.WriteString(" STORED")
		}
	}
	if col.Default != nil && col.Generated == nil {
		fmt.Fprintf(&b, " DEFAULT %s", memberDefault(col.Type, colDefault))
	} else if col.Nullable && col.Generated == nil && !col.AutoIncrement && !types.IsTextBlob(col.Type) {
		// A nullable column without a default defaults to NULL, and says
		// so, as MySQL and MariaDB print it (TEXT and BLOB, which take
		// no literal default, as MySQL: nothing).
		b.WriteString(" DEFAULT NULL")
	}
	if col.OnUpdate != nil {
		fmt.Fprintf(&b, " ON UPDATE %s", onUpdate)
	}
	if col.Comment != "" {
		fmt.Fprintf(&b, " COMMENT '%s'", quoteString(col.Comment))
	}
	return b.String()
}

func quoteString(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''")
}

// QuoteMembers rewrites the member list of an ENUM or SET type string with
// quotes doubled: go-mysql-server prints enum('a','b'c'), which does not
// parse again.
func QuoteMembers(t sql.Type, typStr string) string {
	vals, ok := members(t)
	if !ok {
		return typStr
	}
	open := strings.IndexByte(typStr, '(')
	plain := "('" + strings.Join(vals, "','") + "')"
	if open < 0 || !strings.HasPrefix(typStr[open:], plain) {
		return typStr
	}
	quoted := make([]string, len(vals))
	for i, v := range vals {
		quoted[i] = quoteString(v)
	}
	return typStr[:open] + "('" + strings.Join(quoted, "','") + "')" + typStr[open+len(plain):]
}

func members(t sql.Type) ([]string, bool) {
	switch et := t.(type) {
	case sql.EnumType:
		return et.Values(), true
	case sql.SetType:
		return et.Values(), true
	}
	return nil, false
}

// memberDefault turns an ENUM index or SET bit mask default ('2') into the
// member(s) it stands for.
func memberDefault(t sql.Type, def string) string {
	vals, ok := members(t)
	if !ok || len(def) < 3 || def[0] != '\'' || def[len(def)-1] != '\'' {
		return def
	}
	n, err := strconv.ParseUint(def[1:len(def)-1], 10, 64)
	if err != nil {
		return def
	}
	if _, isEnum := t.(sql.EnumType); isEnum {
		if n == 0 || n > uint64(len(vals)) {
			return def
		}
		return "'" + quoteString(vals[n-1]) + "'"
	}
	var picked []string
	for i, v := range vals {
		if n&(1<<uint(i)) != 0 {
			picked = append(picked, v)
		}
	}
	return "'" + quoteString(strings.Join(picked, ",")) + "'"
}
