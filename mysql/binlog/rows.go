package binlog

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"
)

// Column is how one column is described in a Table_map event and encoded
// in row images (BL-8).
type Column struct {
	Type     byte   // MySQL binlog column type (mysql.TypeXxx)
	Meta     uint16 // its metadata, as vitess's metadataWrite takes it
	Nullable bool
	enc      func(b []byte, v any) ([]byte, error)
}

// Table is a table as the binary log describes it: its Table_map event's
// content, computed once per table definition.
type Table struct {
	ID       uint64
	Database string
	Name     string
	Columns  []Column

	mapBody    []byte  // the Table_map event's body (after the header)
	idBytes    [6]byte // ID, as rows events carry it
	allColumns []byte  // a bitmap of every column
}

// NewTable describes a table of schema sch (BL-8); id numbers it in the
// events (the catalog's table id).
func NewTable(id uint64, db, name string, sch sql.Schema) (*Table, error) {
	t := &Table{ID: id, Database: db, Name: name, Columns: make([]Column, len(sch))}
	for i, c := range sch {
		col, err := columnOf(c.Type)
		if err != nil {
			return nil, fmt.Errorf("binlog: column %s.%s.%s: %w", db, name, c.Name, err)
		}
		col.Nullable = c.Nullable
		t.Columns[i] = col
	}
	f := mysql.NewMySQL56BinlogFormat()
	f.ChecksumAlgorithm = mysql.BinlogChecksumAlgOff
	ev := mysql.NewTableMapEvent(f, mysql.BinlogEventMetadata{}, id, t.tableMap()).Bytes()
	t.mapBody = append([]byte(nil), ev[headerLen:]...)
	for i := range t.idBytes {
		t.idBytes[i] = byte(id >> (8 * i))
	}
	t.allColumns = make([]byte, (len(sch)+7)/8)
	for i := range sch {
		t.allColumns[i/8] |= 1 << (i % 8)
	}
	return t, nil
}

// tableMap is the vitess form of t's Table_map content.
func (t *Table) tableMap() *mysql.TableMap {
	tm := &mysql.TableMap{Flags: 1, Database: t.Database, Name: t.Name,
		Types: make([]byte, len(t.Columns)), Metadata: make([]uint16, len(t.Columns)),
		CanBeNull: mysql.NewServerBitmap(len(t.Columns))}
	for i, c := range t.Columns {
		tm.Types[i] = c.Type
		tm.Metadata[i] = c.Meta
		tm.CanBeNull.Set(i, c.Nullable)
	}
	return tm
}

// Image appends the row image of row to b as a rows event carries it
// (every column, BL-2): the NULL bitmap, then each non-NULL value.
func (t *Table) Image(b []byte, row sql.Row) ([]byte, error) {
	if len(row) != len(t.Columns) {
		return nil, fmt.Errorf("binlog: row of %d values for %d columns of %s.%s", len(row), len(t.Columns), t.Database, t.Name)
	}
	start := len(b)
	b = append(b, make([]byte, (len(t.Columns)+7)/8)...)
	var err error
	for i, v := range row {
		if v == nil {
			b[start+i/8] |= 1 << (i % 8)
			continue
		}
		if b, err = t.Columns[i].enc(b, v); err != nil {
			return nil, fmt.Errorf("binlog: %s.%s column %d: %w", t.Database, t.Name, i+1, err)
		}
	}
	return b, nil
}

// columnOf maps a go-mysql-server type to its binlog type, metadata and
// value encoding (BL-8).
func columnOf(typ sql.Type) (Column, error) {
	switch typ.Type() {
	case query.Type_INT8, query.Type_UINT8:
		return Column{Type: mysql.TypeTiny, enc: fixedInt(1)}, nil
	case query.Type_INT16, query.Type_UINT16:
		return Column{Type: mysql.TypeShort, enc: fixedInt(2)}, nil
	case query.Type_INT24, query.Type_UINT24:
		return Column{Type: mysql.TypeInt24, enc: fixedInt(3)}, nil
	case query.Type_INT32, query.Type_UINT32:
		return Column{Type: mysql.TypeLong, enc: fixedInt(4)}, nil
	case query.Type_INT64, query.Type_UINT64:
		return Column{Type: mysql.TypeLongLong, enc: fixedInt(8)}, nil
	case query.Type_FLOAT32:
		return Column{Type: mysql.TypeFloat, Meta: 4, enc: encFloat}, nil
	case query.Type_FLOAT64:
		return Column{Type: mysql.TypeDouble, Meta: 8, enc: encDouble}, nil
	case query.Type_DECIMAL:
		dt := typ.(sql.DecimalType)
		p, s := int(dt.Precision()), int(dt.Scale())
		return Column{Type: mysql.TypeNewDecimal, Meta: uint16(p)<<8 | uint16(s), enc: decimalEncoder(p, s)}, nil
	case query.Type_YEAR:
		return Column{Type: mysql.TypeYear, enc: encYear}, nil
	case query.Type_DATE:
		return Column{Type: mysql.TypeDate, enc: encDate}, nil
	case query.Type_DATETIME:
		fsp := precisionOf(typ)
		return Column{Type: mysql.TypeDateTime2, Meta: uint16(fsp), enc: datetimeEncoder(fsp)}, nil
	case query.Type_TIMESTAMP:
		fsp := precisionOf(typ)
		return Column{Type: mysql.TypeTimestamp2, Meta: uint16(fsp), enc: timestampEncoder(fsp)}, nil
	case query.Type_TIME:
		// TIME holds whole seconds here (TIME(n) is refused with 1235;
		// go-mysql-server's type says 6 digits whatever was declared).
		return Column{Type: mysql.TypeTime2, enc: timeEncoder(0)}, nil
	case query.Type_CHAR, query.Type_BINARY:
		n := typ.(sql.StringType).MaxByteLength()
		if n > 1023 {
			return Column{}, fmt.Errorf("CHAR of %d bytes", n)
		}
		// The real type with the length's bits 8 and 9 folded in (MySQL's
		// Field_string::save_field_metadata), then the low byte.
		b0 := uint16(mysql.TypeString) ^ uint16((n&0x300)>>4)
		return Column{Type: mysql.TypeString, Meta: b0<<8 | uint16(n&0xff), enc: varEncoder(lenBytes(n))}, nil
	case query.Type_VARCHAR, query.Type_VARBINARY:
		n := typ.(sql.StringType).MaxByteLength()
		return Column{Type: mysql.TypeVarchar, Meta: uint16(n), enc: varEncoder(lenBytes(n))}, nil
	case query.Type_TEXT, query.Type_BLOB:
		n := typ.(sql.StringType).MaxByteLength()
		pack := 4
		switch {
		case n <= 255:
			pack = 1
		case n <= 65535:
			pack = 2
		case n <= 1<<24-1:
			pack = 3
		}
		return Column{Type: mysql.TypeBlob, Meta: uint16(pack), enc: varEncoder(pack)}, nil
	case query.Type_JSON:
		// As a LONGTEXT of the document's text: what a MariaDB replica's
		// JSON column is (BL-8; MySQL's binary JSON is not written).
		return Column{Type: mysql.TypeBlob, Meta: 4, enc: encJSON}, nil
	case query.Type_ENUM:
		n := typ.(sql.EnumType).NumberOfElements()
		pack := 1
		if n > 255 {
			pack = 2
		}
		return Column{Type: mysql.TypeString, Meta: uint16(mysql.TypeEnum)<<8 | uint16(pack), enc: fixedInt(pack)}, nil
	case query.Type_SET:
		n := int(typ.(sql.SetType).NumberOfElements())
		pack := (n + 7) / 8
		if pack == 5 || pack == 6 || pack == 7 {
			pack = 8
		}
		return Column{Type: mysql.TypeString, Meta: uint16(mysql.TypeSet)<<8 | uint16(pack), enc: fixedInt(pack)}, nil
	case query.Type_BIT:
		bits := int(typ.(types.BitType).NumberOfBits())
		return Column{Type: mysql.TypeBit, Meta: uint16(bits/8)<<8 | uint16(bits%8), enc: bitEncoder((bits + 7) / 8)}, nil
	}
	return Column{}, fmt.Errorf("type %s has no binary log encoding", typ.String())
}

// precisionOf is a DATETIME or TIMESTAMP type's fractional-second digits.
func precisionOf(typ sql.Type) int {
	if dt, ok := typ.(sql.DatetimeType); ok {
		return dt.Precision()
	}
	return 0
}

func lenBytes(n int64) int {
	if n > 255 {
		return 2
	}
	return 1
}

func toUint64(v any) (uint64, error) {
	switch x := v.(type) {
	case int8:
		return uint64(x), nil
	case int16:
		return uint64(x), nil
	case int32:
		return uint64(x), nil
	case int64:
		return uint64(x), nil
	case int:
		return uint64(x), nil
	case uint8:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint32:
		return uint64(x), nil
	case uint64:
		return x, nil
	case uint:
		return uint64(x), nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("integer value of Go type %T", v)
}

// fixedInt writes n little-endian bytes (two's complement for signed
// values: the table map does not say the sign).
func fixedInt(n int) func([]byte, any) ([]byte, error) {
	return func(b []byte, v any) ([]byte, error) {
		u, err := toUint64(v)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			b = append(b, byte(u>>(8*i)))
		}
		return b, nil
	}
}

func encFloat(b []byte, v any) ([]byte, error) {
	var f float32
	switch x := v.(type) {
	case float32:
		f = x
	case float64:
		f = float32(x)
	default:
		return nil, fmt.Errorf("FLOAT value of Go type %T", v)
	}
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(f)), nil
}

func encDouble(b []byte, v any) ([]byte, error) {
	var f float64
	switch x := v.(type) {
	case float32:
		f = float64(x)
	case float64:
		f = x
	default:
		return nil, fmt.Errorf("DOUBLE value of Go type %T", v)
	}
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f)), nil
}

func bytesOf(v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return []byte(x), nil
	case []byte:
		return x, nil
	}
	return nil, fmt.Errorf("string value of Go type %T", v)
}

// varEncoder writes a length of pack bytes, little-endian, then the bytes.
func varEncoder(pack int) func([]byte, any) ([]byte, error) {
	return func(b []byte, v any) ([]byte, error) {
		s, err := bytesOf(v)
		if err != nil {
			return nil, err
		}
		n := uint64(len(s))
		if pack < 8 && n >= 1<<(8*pack) {
			return nil, fmt.Errorf("value of %d bytes for a length of %d bytes", n, pack)
		}
		for i := 0; i < pack; i++ {
			b = append(b, byte(n>>(8*i)))
		}
		return append(b, s...), nil
	}
}

func encJSON(b []byte, v any) ([]byte, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	case sql.JSONWrapper:
		var err error
		if s, err = types.JsonToMySqlString(x); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("JSON value of Go type %T", v)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...), nil
}

// bitEncoder writes n bytes, big-endian.
func bitEncoder(n int) func([]byte, any) ([]byte, error) {
	return func(b []byte, v any) ([]byte, error) {
		u, err := toUint64(v)
		if err != nil {
			return nil, err
		}
		for i := n - 1; i >= 0; i-- {
			b = append(b, byte(u>>(8*i)))
		}
		return b, nil
	}
}

func encYear(b []byte, v any) ([]byte, error) {
	u, err := toUint64(v)
	if err != nil {
		return nil, err
	}
	if u == 0 {
		return append(b, 0), nil
	}
	return append(b, byte(u-1900)), nil
}

func timeOf(v any) (time.Time, error) {
	if t, ok := v.(time.Time); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("temporal value of Go type %T", v)
}

func encDate(b []byte, v any) ([]byte, error) {
	t, err := timeOf(v)
	if err != nil {
		return nil, err
	}
	y, m, d := t.Date()
	u := uint32(d) | uint32(m)<<5 | uint32(y)<<9
	return append(b, byte(u), byte(u>>8), byte(u>>16)), nil
}

// appendFrac writes the fractional seconds of fsp digits: (fsp+1)/2
// bytes, big-endian (MySQL's my_datetime_packed_to_binary).
func appendFrac(b []byte, usec int64, fsp int) []byte {
	switch fsp {
	case 1, 2:
		return append(b, byte(usec/10000))
	case 3, 4:
		v := usec / 100
		return append(b, byte(v>>8), byte(v))
	case 5, 6:
		return append(b, byte(usec>>16), byte(usec>>8), byte(usec))
	}
	return b
}

func appendBE(b []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func datetimeEncoder(fsp int) func([]byte, any) ([]byte, error) {
	return func(b []byte, v any) ([]byte, error) {
		t, err := timeOf(v)
		if err != nil {
			return nil, err
		}
		y, mo, d := t.Date()
		h, mi, s := t.Clock()
		ym := uint64(y*13 + int(mo))
		packed := 1<<39 | ym<<22 | uint64(d)<<17 | uint64(h)<<12 | uint64(mi)<<6 | uint64(s)
		b = appendBE(b, packed, 5)
		return appendFrac(b, int64(t.Nanosecond()/1000), fsp), nil
	}
}

func timestampEncoder(fsp int) func([]byte, any) ([]byte, error) {
	return func(b []byte, v any) ([]byte, error) {
		t, err := timeOf(v)
		if err != nil {
			return nil, err
		}
		b = binary.BigEndian.AppendUint32(b, uint32(t.Unix()))
		return appendFrac(b, int64(t.Nanosecond()/1000), fsp), nil
	}
}

// timeEncoder writes TIME2 as MySQL's my_time_packed_to_binary does.
func timeEncoder(fsp int) func([]byte, any) ([]byte, error) {
	return func(b []byte, v any) ([]byte, error) {
		var us int64
		switch x := v.(type) {
		case types.Timespan:
			us = int64(x)
		case time.Duration:
			us = x.Microseconds()
		default:
			return nil, fmt.Errorf("TIME value of Go type %T", v)
		}
		neg := us < 0
		if neg {
			us = -us
		}
		secs, frac := us/1e6, us%1e6
		hms := (secs/3600)<<12 | (secs/60%60)<<6 | secs%60
		nr := hms<<24 + frac
		if neg {
			nr = -nr
		}
		const intOfs, fullOfs = 0x800000, 0x800000000000
		switch fsp {
		case 1, 2:
			b = appendBE(b, uint64(intOfs+nr>>24), 3)
			return append(b, byte(int8((nr%(1<<24))/10000))), nil
		case 3, 4:
			b = appendBE(b, uint64(intOfs+nr>>24), 3)
			return appendBE(b, uint64(int16((nr%(1<<24))/100)), 2), nil
		case 5, 6:
			return appendBE(b, uint64(nr+fullOfs), 6), nil
		}
		return appendBE(b, uint64(intOfs+nr>>24), 3), nil
	}
}

var dig2bytes = [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}

// decimalEncoder writes MySQL's binary DECIMAL(p, s) (decimal2bin):
// groups of nine digits in four bytes, big-endian, the leading partial
// groups in fewer bytes, the first bit flipped, every bit inverted for a
// negative number.
func decimalEncoder(p, s int) func([]byte, any) ([]byte, error) {
	intg := p - s
	return func(b []byte, v any) ([]byte, error) {
		var d decimal.Decimal
		switch x := v.(type) {
		case decimal.Decimal:
			d = x
		case decimal.NullDecimal:
			d = x.Decimal
		default:
			return nil, fmt.Errorf("DECIMAL value of Go type %T", v)
		}
		text := d.StringFixed(int32(s))
		neg := strings.HasPrefix(text, "-")
		text = strings.TrimPrefix(text, "-")
		ip, fp := text, ""
		if i := strings.IndexByte(text, '.'); i >= 0 {
			ip, fp = text[:i], text[i+1:]
		}
		ip = strings.TrimLeft(ip, "0")
		if len(ip) > intg {
			return nil, fmt.Errorf("%s does not fit DECIMAL(%d,%d)", d.String(), p, s)
		}
		ip = strings.Repeat("0", intg-len(ip)) + ip
		start := len(b)
		// integer part: the leading partial group, then whole groups
		lead := intg % 9
		b = appendDigits(b, ip[:lead], dig2bytes[lead])
		for i := lead; i < intg; i += 9 {
			b = appendDigits(b, ip[i:i+9], 4)
		}
		// fraction: whole groups, then the trailing partial group
		whole := s / 9 * 9
		for i := 0; i < whole; i += 9 {
			b = appendDigits(b, fp[i:i+9], 4)
		}
		b = appendDigits(b, fp[whole:], dig2bytes[s%9])
		if len(b) == start {
			return b, nil
		}
		if neg {
			for i := start; i < len(b); i++ {
				b[i] = ^b[i]
			}
		}
		b[start] ^= 0x80
		return b, nil
	}
}

func appendDigits(b []byte, digits string, n int) []byte {
	var v uint64
	for i := 0; i < len(digits); i++ {
		v = v*10 + uint64(digits[i]-'0')
	}
	return appendBE(b, v, n)
}
