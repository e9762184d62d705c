package fastpath

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// normalize turns a text statement into the text of the same statement
// prepared (FP-5): every integer and plain single-quoted string literal
// becomes '?' and is returned as the parameter a client would bind for it
// (an integer as BIGINT, or BIGINT UNSIGNED above its range; a string as
// VARCHAR). The normalized text is appended to buf. ok is false when the
// statement holds anything FP-5 leaves to go-mysql-server; the scan stops
// there.
//
// It is a scanner, not a parser: it only has to know where literals,
// identifiers, comments and statements begin and end, and it gives up on
// every construct where that takes more than one character of context
// (MySQL's lexer rules for these are in sql/sql_lex.cc; the parser
// go-mysql-server uses follows them).
func normalize(q string, buf []byte) (norm []byte, params []*querypb.BindVariable, ok bool) {
	// prev is the kind of the last token written: what a '-' before a
	// number means depends on it.
	const (
		prevNone       = iota
		prevOperand    // identifier, literal, ')'
		prevOperator   // punctuation that an operand follows, BETWEEN, AND
		prevString     // a string literal (adjacent strings concatenate)
		prevIntroducer // a word beginning with '_': a charset introducer?
	)
	prev := prevNone
	norm = buf
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			norm = append(norm, ch)
			i++
			continue
		case ch >= 0x80:
			return nil, nil, false
		case ch == '`':
			j := strings.IndexByte(q[i+1:], '`')
			if j < 0 {
				return nil, nil, false
			}
			j += i + 2
			if j < len(q) && (q[j] == '`' || q[j] == '\'') { // a doubled backquote in the name
				return nil, nil, false
			}
			norm = append(norm, q[i:j]...)
			i, prev = j, prevOperand
			continue
		case ch == '\'':
			if prev == prevString || prev == prevIntroducer {
				// 'a' 'b' is one literal, 'ab'; _latin1 'a' has a charset.
				return nil, nil, false
			}
			j := strings.IndexByte(q[i+1:], '\'')
			if j < 0 {
				return nil, nil, false
			}
			j += i + 1
			s := q[i+1 : j]
			if strings.IndexByte(s, '\\') >= 0 || j+1 < len(q) && q[j+1] == '\'' {
				return nil, nil, false // escapes: their meaning depends on sql_mode
			}
			if !isASCII(s) {
				return nil, nil, false // its charset is the connection's
			}
			norm = append(norm, '?')
			params = append(params, &querypb.BindVariable{Type: sqltypes.VarChar, Value: textBytes(s)})
			i, prev = j+1, prevString
			continue
		case ch >= '0' && ch <= '9':
			j := wordEnd(q, i)
			p, ok := (*querypb.BindVariable)(nil), false
			if j < len(q) && q[j] == '.' {
				j, p, ok = decimalParam(q, i, j, false)
			} else {
				p, ok = integerParam(q[i:j], false)
			}
			if !ok {
				return nil, nil, false // 1e5, 0x1F, 0b101, or a name beginning with digits
			}
			norm = append(norm, '?')
			params = append(params, p)
			i, prev = j, prevOperand
			continue
		case isWordStart(ch):
			j := wordEnd(q, i)
			if j < len(q) && (q[j] == '\'' || q[j] == '"') {
				return nil, nil, false // X'..', B'..', N'..', _charset'..'
			}
			w := q[i:j]
			norm = append(norm, w...)
			i = j
			if strings.EqualFold(w, "between") || strings.EqualFold(w, "and") {
				prev = prevOperator
			} else if w[0] == '_' {
				prev = prevIntroducer
			} else {
				prev = prevOperand
			}
			continue
		case ch == '-':
			if i+1 < len(q) && q[i+1] == '-' {
				return nil, nil, false // a comment, or two minus signs
			}
			if prev == prevOperator {
				// A minus sign an operand cannot precede is part of the
				// number it is written before, if one follows.
				k := i + 1
				for k < len(q) && (q[k] == ' ' || q[k] == '\t' || q[k] == '\n' || q[k] == '\r') {
					k++
				}
				if k < len(q) && q[k] >= '0' && q[k] <= '9' {
					j := wordEnd(q, k)
					p, ok := (*querypb.BindVariable)(nil), false
					if j < len(q) && q[j] == '.' {
						j, p, ok = decimalParam(q, k, j, true)
					} else {
						p, ok = integerParam(q[k:j], true)
					}
					if !ok {
						return nil, nil, false
					}
					norm = append(norm, '?')
					params = append(params, p)
					i, prev = j, prevOperand
					continue
				}
			}
			norm = append(norm, ch)
			i++
			prev = prevOperator
			continue
		case strings.IndexByte("=<>!(),+*/%&|^~.;:", ch) < 0:
			return nil, nil, false // quotes, comments, '?', variables, control bytes, ...
		case ch == '/':
			if i+1 < len(q) && (q[i+1] == '*' || q[i+1] == '/') {
				return nil, nil, false // a comment, or an executable one (// is one to the wire library)
			}
		case ch == ':':
			if i+1 < len(q) && q[i+1] != '=' {
				return nil, nil, false // :name is a placeholder to the wire library's parser
			}
		case ch == '.':
			if i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9' {
				return nil, nil, false // .5
			}
		case ch == ';':
			if strings.TrimLeft(q[i+1:], " \t\r\n") != "" {
				return nil, nil, false // more than one statement
			}
		}
		norm = append(norm, ch)
		i++
		if ch == ')' {
			prev = prevOperand
		} else {
			prev = prevOperator
		}
	}
	return norm, params, true
}

func isWordStart(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '_'
}

// wordEnd is the end of the identifier or number that starts at i.
func wordEnd(q string, i int) int {
	for i < len(q) {
		ch := q[i]
		if !(isWordStart(ch) || ch >= '0' && ch <= '9') {
			break
		}
		i++
	}
	return i
}

// integerParam is the parameter for the digits of an integer literal
// (negated when neg); false if digits is not all digits or its value is
// out of BIGINT's and BIGINT UNSIGNED's ranges (MySQL reads it as a
// DECIMAL).
func integerParam(digits string, neg bool) (*querypb.BindVariable, bool) {
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, false
		}
	}
	text := digits
	if neg {
		text = "-" + digits
	}
	if _, err := strconv.ParseInt(text, 10, 64); err == nil {
		return &querypb.BindVariable{Type: sqltypes.Int64, Value: textBytes(text)}, true
	}
	if neg {
		return nil, false
	}
	if _, err := strconv.ParseUint(text, 10, 64); err == nil {
		return &querypb.BindVariable{Type: sqltypes.Uint64, Value: textBytes(text)}, true
	}
	return nil, false
}

// textBytes is s as the bytes of a parameter's value, without a copy: a
// text statement's parameters are read only (bindParam reads them back as
// strings, FP-5), and the statement's text is an immutable string.
func textBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// decimalParam is the parameter for the decimal literal whose integer
// digits are q[i:dot] (negated when neg), and the literal's end: digits,
// a point, digits (FP-9); false for anything else (1.5e3, 1., 1.5.6, a
// name) or more than 65 digits.
func decimalParam(q string, i, dot int, neg bool) (int, *querypb.BindVariable, bool) {
	for k := i; k < dot; k++ {
		if q[k] < '0' || q[k] > '9' {
			return 0, nil, false
		}
	}
	j := dot + 1
	for j < len(q) && q[j] >= '0' && q[j] <= '9' {
		j++
	}
	if j == dot+1 || j < len(q) && (isWordStart(q[j]) || q[j] == '.') || j-i-1 > 65 {
		return 0, nil, false
	}
	text := q[i:j]
	if neg {
		text = "-" + text
	}
	return j, &querypb.BindVariable{Type: sqltypes.Decimal, Value: textBytes(text)}, true
}
