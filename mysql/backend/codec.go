package backend

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"
)

// Key and row encodings (CODEC-n):
//
// CODEC-1 Key encoding is memcomparable: for values a, b of one column type,
// bytes.Compare(enc(a), enc(b)) has the sign of go-mysql-server's
// type.Compare(a, b) (for strings: under the column's collation). A column's
// encoding is self-delimiting, so a tuple encodes as the concatenation of
// its columns and a prefix of columns is a byte prefix of the key.
//
// CODEC-2 Every key column starts with a marker: 0x00 for NULL (NULLs sort
// first, as in MySQL), 0x01 for a value.
//
// CODEC-3 Strings under a _bin (or binary) collation encode their bytes with
// 0x00 escaped as 0x00 0xFF and end with 0x00 0x01; other collations encode
// one 0x01 + 4-byte collation weight per rune and end with 0x00 (equal
// weights: equal keys, so unique indexes follow the collation).
//
// CODEC-7 CHAR(n) values are stored without trailing spaces, and read so,
// as MySQL returns them (PAD_CHAR_TO_FULL_LENGTH aside), in tables created
// since KeyFormat 1 (older tables' keys may hold the spaces).
//
// CODEC-8 Under a PAD SPACE collation (utf8mb4_general_ci, utf8mb4_bin,
// ...) a string's key leaves out its trailing spaces, so 'a' and 'a ' are
// one key, as MySQL and MariaDB compare them (a UNIQUE index takes one of
// them). Tables created before this rule (KeyFormat 0) keep their keys.
//
// CODEC-9 (IX-1) A key part with a prefix length n encodes the value cut to
// its first n characters (a string under a collation) or n bytes (a binary
// string), so the key of a value is a prefix-key of every value sharing
// its first n characters, and CODEC-1 holds between cut values (a weight
// per rune: cutting runes cuts the weight sequence).
//
// CODEC-10 A table without a primary key stores each row under an 8-byte
// row id that grows in insertion order, so a scan returns the rows in the
// order they were inserted, as InnoDB's DB_ROW_ID does; an UPDATE keeps the
// row's id. Because go-mysql-server hands UPDATE and DELETE the row's
// values, not its position, a row-reference keyspace ("t<id>.r") holds
// hash(row value) + row id for each row, written in the same engine
// transaction as the row, and finds the stored row from its values. At
// open, ids continue above both the largest stored id and the clock in
// nanoseconds (ids stay unique if the clock goes back). Tables created
// before KeyFormat 2 keep hash(row) + sequence keys, in hash order.
//
// CODEC-11 A GEOMETRY value (any spatial type) is stored as MySQL's
// internal form, the 4-byte SRID then the WKB, length-prefixed as bytes;
// it reads back through the column's type. It is never a key part.
//
// CODEC-12 From KeyFormat 3 a string under a non-binary collation writes
// each rune's weight in an order-preserving variable length (appendWeight):
// 1 byte for weights below 126 (ASCII under general_ci and latin1), 2
// below 16,510 (most of the BMP under the 0900 and unicode collations), 3
// or 5 above, then 0x00; CODEC-3's 5 bytes per rune made a CHAR(120)
// index five times the size of its text. Older tables keep CODEC-3.
//
// CODEC-13 A scan's DECIMAL and string values take their memory from
// blocks (arena.go).
//
// CODEC-14 compareStrings orders two strings of a column exactly as their
// keys (CODEC-3, CODEC-8, CODEC-12) compare, weight by weight up to the
// first difference, without building either key: an ORDER BY on a string
// column sorts with it (two rows of sysbench's CHAR(120) differ within a
// few characters, a key costs all 120). weightPrefix packs a string's
// first four weights into a number whose order is the strings' wherever
// two numbers differ (equal numbers leave the order to compareStrings).
//
// CODEC-4 A row value is a column count, a null bitmap, then each non-null
// column in the column's value encoding; rows written before a column was
// added decode with NULL for it.

type kind uint8

const (
	kInt kind = iota
	kUint
	kFloat32
	kFloat64
	kDecimal
	kString // string under a collation
	kBytes  // binary string
	kTime   // DATE, DATETIME, TIMESTAMP
	kTimespan
	kYear
	kEnum
	kSet
	kBit
	kJSON
	kGeometry // GEOMETRY, POINT, ...: MySQL's internal form (SRID + WKB), CODEC-11
)

// keyFormatPadSpace is the table format (tableDef.KeyFormat) from which
// CODEC-5, CODEC-7 and CODEC-8 hold; tables created before keep their
// stored values and keys as they were.
const keyFormatPadSpace = 1

// keyFormatRowOrder is the table format from which CODEC-10 holds.
const keyFormatRowOrder = 2

// keyFormatDenseWeights is the table format from which CODEC-12 holds.
const keyFormatDenseWeights = 3

// newTableKeyFormat is the format of tables created now (a variable so
// that tests can make tables of an older format).
var newTableKeyFormat = keyFormatDenseWeights

// colCodec encodes one column's values.
type colCodec struct {
	kind    kind
	typ     sql.Type
	qt      query.Type // the exact MySQL type (decides the Go type decoded)
	coll    sql.CollationID
	binColl bool                  // strings compare as bytes
	utc     bool                  // TIMESTAMP: stored in UTC (CODEC-5)
	char    bool                  // CHAR(n): trailing spaces are not kept (CODEC-7)
	padKey  bool                  // PAD SPACE collation: keys ignore trailing spaces (CODEC-8)
	weight  func(rune) int32      // collation weights of a non-binary string (CODEC-6)
	dense   bool                  // weights in CODEC-12's variable length (KeyFormat 3 on)
	strMax  int                   // a string of at most this many bytes converts to itself (FPB-4)
	ascii   *[utf8.RuneSelf]int32 // weights of the ASCII runes (CODEC-6)
}

func newColCodec(typ sql.Type) (colCodec, error) {
	c := colCodec{typ: typ, qt: typ.Type()}
	switch c.qt {
	case sqltypes.Int8, sqltypes.Int16, sqltypes.Int24, sqltypes.Int32, sqltypes.Int64:
		c.kind = kInt
	case sqltypes.Uint8, sqltypes.Uint16, sqltypes.Uint24, sqltypes.Uint32, sqltypes.Uint64:
		c.kind = kUint
	case sqltypes.Float32:
		c.kind = kFloat32
	case sqltypes.Float64:
		c.kind = kFloat64
	case sqltypes.Decimal:
		c.kind = kDecimal
	case sqltypes.Char, sqltypes.VarChar, sqltypes.Text:
		c.kind = kString
		st := typ.(sql.StringType)
		c.coll = st.Collation()
		if c.qt == sqltypes.Text { // go-mysql-server's length checks: bytes for TEXT, characters else
			c.strMax = int(min(st.MaxByteLength(), math.MaxInt32))
		} else {
			c.strMax = int(st.MaxCharacterLength())
		}
		name := c.coll.Name()
		c.binColl = c.coll == sql.Collation_binary || (strings.HasSuffix(name, "_bin") &&
			(strings.HasPrefix(name, "utf8") || strings.HasPrefix(name, "ascii")))
		if !c.binColl {
			c.weight = collationWeight(c.coll)
			c.ascii = asciiWeights(c.coll)
		}
	case sqltypes.Binary, sqltypes.VarBinary, sqltypes.Blob:
		c.kind = kBytes
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		c.kind = kTime
	case sqltypes.Time:
		c.kind = kTimespan
	case sqltypes.Year:
		c.kind = kYear
	case sqltypes.Enum:
		c.kind = kEnum
	case sqltypes.Set:
		c.kind = kSet
	case sqltypes.Bit:
		c.kind = kBit
	case sqltypes.TypeJSON:
		c.kind = kJSON
	case sqltypes.Geometry:
		c.kind = kGeometry
	default:
		return c, fmt.Errorf("column type %s is not supported by the strata engine", typ.String())
	}
	return c, nil
}

// keyable reports whether the column can be part of an index key, and the
// most bytes one value can take in a key (0 = unbounded).
func (c *colCodec) keyable() (ok bool, maxLen int) {
	switch c.kind {
	case kJSON, kGeometry:
		return false, 0
	case kString, kBytes:
		st := c.typ.(sql.StringType)
		chars := int(st.MaxCharacterLength())
		if c.kind == kBytes || c.binColl {
			return true, 1 + int(st.MaxByteLength()) + 2
		}
		return true, 1 + chars*5 + 1
	case kDecimal:
		return true, 1 + 1 + 4 + 66 + 1
	default:
		return true, 1 + 8
	}
}

// unwrap resolves lazily loaded wrappers go-mysql-server may hand us.
func unwrap(ctx context.Context, v any) (any, error) {
	if w, ok := v.(sql.AnyWrapper); ok {
		return w.UnwrapAny(ctx)
	}
	return v, nil
}

// canonical converts v to the column's canonical Go value, the shape the
// encoders take: int64, uint64, float64, decimal.Decimal, string, []byte,
// time.Time, types.Timespan, or a JSON text.
func (c *colCodec) canonical(ctx context.Context, v any) (any, error) {
	v, err := unwrap(ctx, v)
	if err != nil {
		return nil, err
	}
	switch c.kind {
	case kInt, kYear:
		switch x := v.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case int16:
			return int64(x), nil
		case int8:
			return int64(x), nil
		case int:
			return int64(x), nil
		}
	case kUint, kEnum, kSet, kBit:
		switch x := v.(type) {
		case uint64:
			return x, nil
		case uint32:
			return uint64(x), nil
		case uint16:
			return uint64(x), nil
		case uint8:
			return uint64(x), nil
		case uint:
			return uint64(x), nil
		}
	case kFloat32:
		if x, ok := v.(float32); ok {
			return float64(x), nil
		}
	case kFloat64:
		if x, ok := v.(float64); ok {
			return x, nil
		}
	case kDecimal:
		if x, ok := v.(decimal.Decimal); ok {
			return x, nil
		}
	case kString:
		switch x := v.(type) {
		case string:
			if c.char {
				return strings.TrimRight(x, " "), nil
			}
			return x, nil
		case []byte:
			if c.char {
				return strings.TrimRight(string(x), " "), nil
			}
			return string(x), nil
		}
	case kBytes:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case kGeometry:
		if g, ok := v.(types.GeometryValue); ok {
			return g.Serialize(), nil
		}
	case kTime:
		if x, ok := v.(time.Time); ok {
			if c.utc {
				return toUTC(x, sessionZone(ctx)), nil
			}
			return x, nil
		}
	case kTimespan:
		if x, ok := v.(types.Timespan); ok {
			return x, nil
		}
	case kJSON:
		if w, ok := v.(sql.JSONWrapper); ok {
			iface, err := w.ToInterface()
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(iface)
			return string(b), err
		}
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	// Not the column's own Go type (a range bound of another type, say):
	// convert it, then retry once.
	cv, _, err := c.typ.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	if cv == nil {
		return nil, fmt.Errorf("cannot encode NULL as %s", c.typ)
	}
	if fmt.Sprintf("%T", cv) == fmt.Sprintf("%T", v) {
		return nil, fmt.Errorf("cannot encode %T as %s", v, c.typ)
	}
	return c.canonical(ctx, cv)
}

// ---- key encoding ----

const (
	keyNull  = 0x00
	keyValue = 0x01
)

func appendUint64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }

func appendInt64Key(b []byte, v int64) []byte { return appendUint64(b, uint64(v)^(1<<63)) }

func appendFloatKey(b []byte, f float64) []byte {
	if f == 0 {
		f = 0 // -0 == 0
	}
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	return appendUint64(b, u)
}

func appendEscapedBytes(b, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, 0xFF)
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, 0x00, 0x01)
}

func appendEscapedString(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, 0xFF)
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, 0x00, 0x01)
}

func appendDecimalKey(b []byte, d decimal.Decimal) []byte {
	sign := d.Sign()
	if sign == 0 {
		return append(b, 0x02)
	}
	// d = 0.digits * 10^exp with digits free of leading and trailing zeros.
	abs := d.Abs()
	coef := abs.Coefficient().String()
	exp := int32(len(coef)) + abs.Exponent()
	digits := strings.TrimRight(coef, "0")
	start := len(b)
	if sign > 0 {
		b = append(b, 0x03)
	} else {
		b = append(b, 0x01)
	}
	body := len(b)
	b = binary.BigEndian.AppendUint32(b, uint32(exp)^(1<<31))
	b = append(b, digits...)
	b = append(b, 0x00)
	if sign < 0 {
		for i := body; i < len(b); i++ {
			b[i] = ^b[i]
		}
	}
	_ = start
	return b
}

// appendKey appends the key encoding of v (CODEC-1..3).
// appendKeyPrefix appends the key of v cut to n characters or bytes
// (CODEC-9); n == 0 is appendKey.
func (c *colCodec) appendKeyPrefix(ctx context.Context, b []byte, v any, n int) ([]byte, error) {
	if n == 0 || v == nil {
		return c.appendKey(ctx, b, v)
	}
	cv, err := c.canonical(ctx, v)
	if err != nil {
		return nil, err
	}
	switch c.kind {
	case kBytes:
		if bs := cv.([]byte); len(bs) > n {
			cv = bs[:n]
		}
	case kString:
		s := cv.(string)
		for i := range s {
			if n == 0 {
				s = s[:i]
				break
			}
			n--
		}
		cv = s
	default:
		return nil, fmt.Errorf("strata: prefix key part on a %s column", c.typ)
	}
	return c.appendKey(ctx, b, cv)
}

func (c *colCodec) appendKey(ctx context.Context, b []byte, v any) ([]byte, error) {
	if v == nil {
		return append(b, keyNull), nil
	}
	cv, err := c.canonical(ctx, v)
	if err != nil {
		return nil, err
	}
	b = append(b, keyValue)
	switch c.kind {
	case kInt, kYear:
		return appendInt64Key(b, cv.(int64)), nil
	case kUint, kEnum, kSet, kBit:
		return appendUint64(b, cv.(uint64)), nil
	case kFloat32, kFloat64:
		return appendFloatKey(b, cv.(float64)), nil
	case kDecimal:
		return appendDecimalKey(b, cv.(decimal.Decimal)), nil
	case kBytes:
		return appendEscapedBytes(b, cv.([]byte)), nil
	case kString:
		return c.appendStringKey(b, cv.(string))
	case kTime:
		return appendInt64Key(b, cv.(time.Time).UnixMicro()), nil
	case kTimespan:
		return appendInt64Key(b, int64(cv.(types.Timespan))), nil
	}
	return nil, fmt.Errorf("%s cannot be part of an index", c.typ)
}

// appendStringKey appends a string value's key after its keyValue byte
// (CODEC-3, CODEC-6, CODEC-8, CODEC-12); it does not keep s.
func (c *colCodec) appendStringKey(b []byte, s string) ([]byte, error) {
	if c.padKey {
		s = strings.TrimRight(s, " ")
	}
	if c.binColl {
		return appendEscapedString(b, s), nil
	}
	ascii := c.ascii
	if c.dense {
		b = slices.Grow(b, len(s)+1)
	} else {
		b = slices.Grow(b, 5*len(s)+1)
	}
	for len(s) > 0 {
		var w int32
		var ok bool
		if ch := s[0]; ch < utf8.RuneSelf { // from the table, without decoding
			w = ascii[ch]
			s = s[1:]
		} else if w, s, ok = c.decodeWeight(s); !ok {
			return nil, fmt.Errorf("malformed string in key")
		}
		switch {
		case !c.dense: // CODEC-3
			b = append(b, 0x01)
			b = binary.BigEndian.AppendUint32(b, uint32(w)^(1<<31))
		case uint32(w) < weight2Base: // CODEC-12's 1- and 2-byte forms, inline (a call per rune doubled the time)
			b = append(b, byte(0x02+w))
		case uint32(w) < weight3Base:
			u := uint32(w) - weight2Base
			b = append(b, 0x80|byte(u>>8), byte(u))
		default:
			b = appendWeight(b, w)
		}
	}
	return append(b, 0x00), nil
}

// decodeWeight is the collation weight of the rune beyond ASCII that s
// starts with, and the rest of s; ok is false for a malformed rune. The
// ASCII test stays at each caller (an inlined table read; a call per rune
// made keys 1.5x slower to build).
func (c *colCodec) decodeWeight(s string) (w int32, rest string, ok bool) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n <= 1 {
		return 0, s, false
	}
	return c.weight(r), s[n:], true
}

// compareStrings orders a and b as bytes.Compare orders their keys
// (CODEC-14); ok is false for a malformed string, whose key is an error.
// Both key forms order weights as signed integers and end with a byte
// below every weight's first, so a string orders before its extensions.
func (c *colCodec) compareStrings(a, b string) (cmp int, ok bool) {
	if c.char || c.padKey { // canonical (CODEC-7), appendStringKey (CODEC-8)
		a, b = strings.TrimRight(a, " "), strings.TrimRight(b, " ")
	}
	if c.binColl {
		return strings.Compare(a, b), true // CODEC-3's escaping keeps byte order
	}
	ascii := c.ascii
	for len(a) > 0 && len(b) > 0 {
		var wa, wb int32
		if ch := a[0]; ch < utf8.RuneSelf {
			wa, a = ascii[ch], a[1:]
		} else if wa, a, ok = c.decodeWeight(a); !ok {
			return 0, false
		}
		if ch := b[0]; ch < utf8.RuneSelf {
			wb, b = ascii[ch], b[1:]
		} else if wb, b, ok = c.decodeWeight(b); !ok {
			return 0, false
		}
		if wa != wb {
			if wa < wb {
				return -1, true
			}
			return 1, true
		}
	}
	// The longer string's key goes on where the other's ends (0x00), but
	// only a well-formed rest has a key at all.
	switch {
	case len(a) > 0:
		return 1, utf8.ValidString(a)
	case len(b) > 0:
		return -1, utf8.ValidString(b)
	}
	return 0, true
}

// weightPrefix is s's first four weights (CODEC-14), 16 bits each, most
// significant first: weight w as w+1, 0 where s has ended, a weight above
// 0xFFFD as 0xFFFF with nothing after it. Where two prefixes differ, they
// order as the strings: at the first differing slot both strings had the
// same weights before it, and the slot orders a weight below a larger one
// (saturated or not) and the end below any weight. ok is false under a
// binary collation, for a negative weight or a malformed string.
func (c *colCodec) weightPrefix(s string) (p uint64, ok bool) {
	if c.char || c.padKey {
		s = strings.TrimRight(s, " ")
	}
	if c.binColl {
		return 0, false
	}
	for slot := 3; slot >= 0; slot-- {
		if len(s) == 0 {
			return p, true
		}
		var w int32
		if ch := s[0]; ch < utf8.RuneSelf {
			w, s = c.ascii[ch], s[1:]
		} else if w, s, ok = c.decodeWeight(s); !ok {
			return 0, false
		}
		switch {
		case w < 0:
			return 0, false
		case w >= 0xFFFE:
			return p | 0xFFFF<<(16*slot), true
		}
		p |= uint64(w+1) << (16 * slot)
	}
	return p, true
}

// Lead bytes and bases of CODEC-12's weight classes, in increasing order.
const (
	weightNeg   = 0x01 // + 4 bytes: a negative weight (no collation has one)
	weight1Base = 0    // 0x02..0x7F: weight 0..125
	weight2Base = 126  // 0x80..0xBF + 1 byte: 14 bits above this base
	weight3Base = weight2Base + 1<<14
	weight5Base = weight3Base + 1<<21 // 0xE0 + 4 bytes
)

// appendWeight appends w in CODEC-12's form: the lead byte orders the
// classes, each class is big-endian, so byte order is weight order.
func appendWeight(b []byte, w int32) []byte {
	switch {
	case w < 0:
		u := uint32(w) ^ (1 << 31)
		return append(b, weightNeg, byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
	case w < weight2Base:
		return append(b, byte(0x02+w))
	case w < weight3Base:
		u := uint32(w - weight2Base)
		return append(b, 0x80|byte(u>>8), byte(u))
	case w < weight5Base:
		u := uint32(w - weight3Base)
		return append(b, 0xC0|byte(u>>16), byte(u>>8), byte(u))
	}
	u := uint32(w - weight5Base)
	return append(b, 0xE0, byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
}

// weightLen is the length of the CODEC-12 weight whose lead byte is lead
// (1 for the terminator 0x00).
func weightLen(lead byte) int {
	switch {
	case lead == weightNeg, lead >= 0xE0:
		return 5
	case lead >= 0xC0:
		return 3
	case lead >= 0x80:
		return 2
	}
	return 1
}

// skipKey returns the length of the encoded column at the start of b.
func (c *colCodec) skipKey(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errCorruptKey
	}
	if b[0] == keyNull {
		return 1, nil
	}
	switch c.kind {
	case kDecimal:
		if len(b) < 2 {
			return 0, errCorruptKey
		}
		if b[1] == 0x02 {
			return 2, nil
		}
		term := byte(0x00)
		if b[1] == 0x01 {
			term = 0xFF
		}
		i := bytes.IndexByte(b[6:], term)
		if i < 0 {
			return 0, errCorruptKey
		}
		return 6 + i + 1, nil
	case kBytes:
		return skipEscaped(b)
	case kString:
		if c.binColl {
			return skipEscaped(b)
		}
		for i := 1; i < len(b); {
			if b[i] == 0x00 {
				return i + 1, nil
			}
			if c.dense {
				i += weightLen(b[i]) // CODEC-12
			} else {
				i += 5 // CODEC-3: 0x01 and a 4-byte weight
			}
		}
		return 0, errCorruptKey
	default:
		if len(b) < 9 {
			return 0, errCorruptKey
		}
		return 9, nil
	}
}

func skipEscaped(b []byte) (int, error) {
	for i := 1; i+1 < len(b); i++ {
		if b[i] == 0x00 {
			if b[i+1] == 0x01 {
				return i + 2, nil
			}
			i++ // escaped 0x00 0xFF
		}
	}
	return 0, errCorruptKey
}

var errCorruptKey = fmt.Errorf("strata: corrupt index key")

// decodeIntKey decodes a non-null integer key column (for AUTO_INCREMENT
// recovery).
func (c *colCodec) decodeIntKey(b []byte) (uint64, bool) {
	if len(b) < 9 || b[0] != keyValue {
		return 0, false
	}
	u := binary.BigEndian.Uint64(b[1:9])
	if c.kind == kInt {
		v := int64(u ^ (1 << 63))
		if v < 0 {
			return 0, false
		}
		return uint64(v), true
	}
	return u, c.kind == kUint
}

// parseStoredDecimal reads a DECIMAL as appendRow stores it ("-123.45"):
// up to 18 digits without decimal.NewFromString's general parser (17% of
// a scan summing a DECIMAL column), into the same value and exponent.
func parseStoredDecimal(raw []byte) (decimal.Decimal, error) {
	return parseStoredDecimalIn(nil, raw)
}

// parseStoredDecimalIn is parseStoredDecimal with the value's memory from
// a (CODEC-13).
func parseStoredDecimalIn(a *valueArena, raw []byte) (decimal.Decimal, error) {
	m, frac, ok := decimalDigits(raw)
	if !ok {
		return decimal.NewFromString(string(raw))
	}
	return a.decimal(m, -frac), nil
}

// intValue is the Go value of an integer column from its key encoding's
// 8 bytes (appendInt64Key, appendUint64), typed as decodeColumns types it.
func (c *colCodec) intValue(u uint64) any {
	if c.kind == kInt {
		return c.typedInt(int64(u ^ (1 << 63)))
	}
	return c.typedUint(u)
}

// typedInt is a signed integer column's value as its Go type.
func (c *colCodec) typedInt(x int64) any { return (*valueArena)(nil).typedInt(c, x) }

// typedUint is an unsigned integer (ENUM, SET, BIT) column's value as its
// Go type.
func (c *colCodec) typedUint(x uint64) any { return (*valueArena)(nil).typedUint(c, x) }

// prefixEnd returns the smallest key above every key starting with p, or
// nil if there is none.
func prefixEnd(p []byte) []byte { return prefixEndIn([]byte{}, p) }

// prefixEndIn is prefixEnd built in buf's storage (from buf[:0]) while
// it fits.
func prefixEndIn(buf, p []byte) []byte {
	e := append(buf[:0], p...)
	for i := len(e) - 1; i >= 0; i-- {
		if e[i] != 0xFF {
			e[i]++
			return e[:i+1]
		}
	}
	return nil
}

// ---- row encoding (CODEC-4) ----

func appendRow(ctx context.Context, b []byte, cols []colCodec, row sql.Row) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(cols)))
	nb := len(b)
	for i := 0; i < (len(cols)+7)/8; i++ {
		b = append(b, 0)
	}
	for i := range cols {
		c := &cols[i]
		v := row[i]
		if v == nil {
			b[nb+i/8] |= 1 << (i % 8)
			continue
		}
		cv, err := c.canonical(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", i+1, err)
		}
		switch c.kind {
		case kInt, kYear:
			b = binary.AppendVarint(b, cv.(int64))
		case kUint, kEnum, kSet, kBit:
			b = binary.AppendUvarint(b, cv.(uint64))
		case kFloat32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(cv.(float64))))
		case kFloat64:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(cv.(float64)))
		case kDecimal:
			// With the column's scale, so values read back keep it (7.00).
			s := cv.(decimal.Decimal).StringFixed(int32(c.typ.(sql.DecimalType).Scale()))
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		case kString, kJSON:
			s := cv.(string)
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		case kBytes, kGeometry:
			s := cv.([]byte)
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		case kTime:
			b = binary.AppendVarint(b, cv.(time.Time).UnixMicro())
		case kTimespan:
			b = binary.AppendVarint(b, int64(cv.(types.Timespan)))
		}
	}
	return b, nil
}

var errCorruptRow = fmt.Errorf("strata: corrupt row")

// decodeRow decodes a row written by appendRow into dst (len(cols) long).
func decodeRow(ctx context.Context, b []byte, cols []colCodec, dst sql.Row) error {
	return decodeColumns(ctx, b, cols, dst, nil, nil)
}

// decodeColumns decodes the columns i with need[i] (every column when need
// is nil) and sets the others to nil: they are skipped, not decoded.
// DECIMAL and string values take their memory from a when it is not nil
// (CODEC-13).
func decodeColumns(ctx context.Context, b []byte, cols []colCodec, dst sql.Row, need []bool, a *valueArena) error {
	var cur rowCursor
	if !cur.start(b) {
		return errCorruptRow
	}
	nulls, b, stored := cur.nulls, cur.b, cur.stored
	for i := range cols {
		c := &cols[i]
		if i >= stored || nulls[i/8]&(1<<(i%8)) != 0 {
			dst[i] = nil
			continue
		}
		if need != nil && !need[i] {
			n, err := c.skipValue(b)
			if err != nil {
				return err
			}
			b = b[n:]
			dst[i] = nil
			continue
		}
		var v any
		switch c.kind {
		case kInt, kYear:
			x, k := binary.Varint(b)
			if k <= 0 {
				return errCorruptRow
			}
			b = b[k:]
			v = a.typedInt(c, x)
		case kUint, kEnum, kSet, kBit:
			x, k := binary.Uvarint(b)
			if k <= 0 {
				return errCorruptRow
			}
			b = b[k:]
			v = a.typedUint(c, x)
		case kFloat32:
			if len(b) < 4 {
				return errCorruptRow
			}
			v = math.Float32frombits(binary.LittleEndian.Uint32(b))
			b = b[4:]
		case kFloat64:
			if len(b) < 8 {
				return errCorruptRow
			}
			v = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		case kDecimal, kString, kBytes, kJSON, kGeometry:
			l, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < l {
				return errCorruptRow
			}
			raw := b[k : k+int(l)]
			b = b[k+int(l):]
			switch c.kind {
			case kDecimal:
				d, err := parseStoredDecimalIn(a, raw)
				if err != nil {
					return errCorruptRow
				}
				v = a.boxDecimal(d)
			case kString:
				if c.char {
					raw = bytes.TrimRight(raw, " ")
				}
				v = a.boxString(a.string(raw))
			case kBytes:
				v = append([]byte{}, raw...)
			case kJSON:
				doc, _, err := types.JSON.Convert(ctx, raw)
				if err != nil {
					return err
				}
				v = doc
			case kGeometry:
				g, _, err := c.typ.Convert(ctx, append([]byte{}, raw...))
				if err != nil {
					return err
				}
				v = g
			}
		case kTime, kTimespan:
			x, k := binary.Varint(b)
			if k <= 0 {
				return errCorruptRow
			}
			b = b[k:]
			if c.kind == kTime {
				tm := time.UnixMicro(x).UTC()
				if c.utc {
					tm = fromUTC(tm, sessionZone(ctx))
				}
				v = a.boxTime(tm)
			} else {
				v = types.Timespan(x)
			}
		}
		dst[i] = v
	}
	return nil
}

// skipValue returns the length of the column's encoded (non-null) value at
// the start of b (CODEC-4).
func (c *colCodec) skipValue(b []byte) (int, error) {
	switch c.kind {
	case kInt, kYear, kTime, kTimespan, kUint, kEnum, kSet, kBit:
		// A varint ends at its first byte below 0x80; a tenth byte above 1
		// overflows 64 bits (binary.Uvarint's limits, without decoding).
		for i := 0; i < len(b) && i < binary.MaxVarintLen64; i++ {
			if b[i] < 0x80 {
				if i == binary.MaxVarintLen64-1 && b[i] > 1 {
					break
				}
				return i + 1, nil
			}
		}
	case kFloat32:
		if len(b) >= 4 {
			return 4, nil
		}
	case kFloat64:
		if len(b) >= 8 {
			return 8, nil
		}
	case kDecimal, kString, kBytes, kJSON, kGeometry:
		if l, k := binary.Uvarint(b); k > 0 && uint64(len(b)-k) >= l {
			return k + int(l), nil
		}
	}
	return 0, errCorruptRow
}
