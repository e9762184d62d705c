package fastpath

import (
	"unicode/utf8"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// RowEncoder makes the wire values of stored rows' columns at ords, typed
// by sch, as each type's SQL method makes them (FP-3). A utf8mb4 string
// column sent in utf8mb4 (the results character set utf8mb4, unset, or
// binary: the column's own) is its bytes once they are valid UTF-8, which
// is all StringType.SQL does for it (FP-15); the encoder reads the
// session's results character set once per statement instead of once per
// value, and sends the string's own bytes.
type RowEncoder struct {
	sch    sql.Schema
	ords   []int
	direct []bool // column i's strings are sent as stored
}

func NewRowEncoder(ctx *sql.Context, sch sql.Schema, ords []int) RowEncoder {
	e := RowEncoder{sch: sch, ords: ords, direct: make([]bool, len(ords))}
	switch ctx.GetCharacterSetResults() {
	case sql.CharacterSet_Unspecified, sql.CharacterSet_binary, sql.CharacterSet_utf8mb4:
	default:
		return e
	}
	for i := range ords {
		st, ok := sch[i].Type.(types.StringType)
		if ok && !types.IsBinaryType(st) && st.Type() != sqltypes.Binary && st.CharacterSet() == sql.CharacterSet_utf8mb4 {
			e.direct[i] = true
		}
	}
	return e
}

// Row is the wire values of row. A direct string's value shares the
// string's bytes (strings are never written; nor are a result's values).
func (e *RowEncoder) Row(ctx *sql.Context, row sql.Row) ([]sqltypes.Value, error) {
	vals := make([]sqltypes.Value, len(e.ords))
	for i, o := range e.ords {
		if row[o] == nil {
			vals[i] = sqltypes.NULL
			continue
		}
		if s, ok := row[o].(string); ok && e.direct[i] && utf8.ValidString(s) {
			vals[i] = sqltypes.MakeTrusted(e.sch[i].Type.Type(), unsafe.Slice(unsafe.StringData(s), len(s)))
			continue
		}
		v, err := e.sch[i].Type.SQL(ctx, nil, row[o])
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
