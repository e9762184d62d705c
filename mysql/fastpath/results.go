package fastpath

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Row is the wire values of row's columns at ords, typed by sch.
func Row(ctx *sql.Context, sch sql.Schema, ords []int, row sql.Row) ([]sqltypes.Value, error) {
	vals := make([]sqltypes.Value, len(ords))
	for i, o := range ords {
		if row[o] == nil {
			vals[i] = sqltypes.NULL
			continue
		}
		v, err := sch[i].Type.SQL(ctx, nil, row[o])
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// Fields is the column metadata go-mysql-server sends for a result
// schema (FP-3).
func Fields(ctx *sql.Context, sch sql.Schema) []*querypb.Field {
	resultsCharset := ctx.GetCharacterSetResults()
	out := make([]*querypb.Field, len(sch))
	for i, c := range sch {
		charset := uint32(sql.Collation_Default.CharacterSet())
		if ct, ok := c.Type.(sql.TypeWithCollation); ok {
			charset = uint32(ct.Collation().CharacterSet())
		}
		if types.IsBinaryType(c.Type) {
			charset = uint32(sql.Collation_binary)
		} else if resultsCharset != sql.CharacterSet_Unspecified {
			charset = uint32(resultsCharset)
		}
		var flags querypb.MySqlFlag
		if !c.Nullable {
			flags |= querypb.MySqlFlag_NOT_NULL_FLAG
		}
		if c.AutoIncrement {
			flags |= querypb.MySqlFlag_AUTO_INCREMENT_FLAG
		}
		if c.PrimaryKey {
			flags |= querypb.MySqlFlag_PRI_KEY_FLAG
		}
		if types.IsUnsigned(c.Type) || types.IsYear(c.Type) {
			flags |= querypb.MySqlFlag_UNSIGNED_FLAG
		}
		if types.IsYear(c.Type) {
			flags |= querypb.MySqlFlag_ZEROFILL_FLAG // as fixFields sends YEAR
		}
		f := &querypb.Field{Name: c.Name, OrgName: c.Name, Table: c.Source, OrgTable: c.Source,
			Database: c.DatabaseSource, Type: c.Type.Type(), Charset: charset,
			ColumnLength: c.Type.MaxTextResponseByteLength(ctx), Flags: uint32(flags)}
		if types.IsDecimal(c.Type) {
			f.Decimals = uint32(c.Type.(sql.DecimalType).Scale())
		} else if types.IsDatetimeType(c.Type) {
			f.Decimals = uint32(c.Type.(sql.DatetimeType).Precision())
		} else if types.IsFloat(c.Type) {
			f.Decimals = 31 // not fixed, as fixFields sends it
		}
		out[i] = f
	}
	return out
}
