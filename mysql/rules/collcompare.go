package rules

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-81 A comparison (=, <, <=, >, >=) of a character column with a
// string literal of the column's own type (RULE-73 types it so) compares
// as go-mysql-server's string type does, rune weight by rune weight under
// the column's collation and then by length, with the weights of ASCII
// runes read from a table made once per collation from the collation's
// own weight function (a map lookup per rune in go-mysql-server: 9% of a
// scan filtered by `status = 'returned'`). Only for character sets that
// read a byte below 0x80 as that rune (utf8mb4, utf8mb3, latin1, ascii).
func fastStringCompare(e sql.Expression) sql.Expression {
	op, ok := comparisonOp(e)
	if !ok || op == "<=>" {
		return nil
	}
	l, r, _ := comparedOperands(e)
	flip := false
	lit, ok := r.(*expression.Literal)
	if !ok {
		if lit, ok = l.(*expression.Literal); !ok {
			return nil
		}
		l, flip = r, true
	}
	if _, ok := l.(*expression.GetField); !ok {
		return nil
	}
	st, ok := l.Type().(sql.StringType)
	if !ok || !types.IsTextOnly(st) || !types.TypesEqual(st, lit.Type()) {
		return nil
	}
	s, ok := lit.Value().(string)
	if !ok {
		return nil
	}
	w := weightsFor(st.Collation())
	if w == nil {
		return nil
	}
	return &stringCompare{Expression: e, op: op, col: l, lit: s, flip: flip, w: w}
}

// runeWeights is a collation's rune weights with the ASCII ones in a table.
type runeWeights struct {
	ascii  [utf8.RuneSelf]int32
	enc    encodings.Encoder
	sorter sql.CollationSorter
}

var collationWeights sync.Map // sql.CollationID -> *runeWeights, or nil when not taken

func weightsFor(c sql.CollationID) *runeWeights {
	if w, ok := collationWeights.Load(c); ok {
		return w.(*runeWeights)
	}
	var w *runeWeights
	switch c.CharacterSet() {
	case sql.CharacterSet_utf8mb4, sql.CharacterSet_utf8mb3, sql.CharacterSet_latin1, sql.CharacterSet_ascii:
		if sorter := c.Sorter(); sorter != nil {
			w = &runeWeights{enc: c.CharacterSet().Encoder(), sorter: sorter}
			for r := range w.ascii {
				w.ascii[r] = sorter(rune(r))
			}
		}
	}
	collationWeights.Store(c, w)
	return w
}

// compare is go-mysql-server's StringType.Compare of two strings.
func (w *runeWeights) compare(as, bs string) (int, error) {
	for len(as) > 0 && len(bs) > 0 {
		var aw, bw int32
		if a, b := as[0], bs[0]; a < utf8.RuneSelf && b < utf8.RuneSelf {
			aw, bw = w.ascii[a], w.ascii[b]
			as, bs = as[1:], bs[1:]
		} else {
			ar, aRead := w.enc.NextRune(as)
			br, bRead := w.enc.NextRune(bs)
			if aRead == 0 || bRead == 0 || aRead == utf8.RuneError || bRead == utf8.RuneError {
				return 0, fmt.Errorf("malformed string encountered while comparing")
			}
			aw, bw = w.sorter(ar), w.sorter(br)
			as, bs = as[aRead:], bs[bRead:]
		}
		if aw < bw {
			return -1, nil
		} else if aw > bw {
			return 1, nil
		}
	}
	switch {
	case len(as) < len(bs):
		return -1, nil
	case len(as) > len(bs):
		return 1, nil
	}
	return 0, nil
}

// stringCompare is a RULE-81 comparison; it prints as the one it replaces.
type stringCompare struct {
	sql.Expression // the comparison
	op             string
	col            sql.Expression
	lit            string
	flip           bool
	w              *runeWeights
}

func (c *stringCompare) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := c.col.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	s, ok := v.(string)
	if !ok {
		return c.Expression.Eval(ctx, row)
	}
	r, err := c.w.compare(s, c.lit)
	if err != nil {
		return nil, err
	}
	if c.flip {
		r = -r
	}
	switch c.op {
	case "=":
		return r == 0, nil
	case "<":
		return r < 0, nil
	case "<=":
		return r <= 0, nil
	case ">":
		return r > 0, nil
	default: // ">="
		return r >= 0, nil
	}
}

func (c *stringCompare) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	return refast(c.Expression.WithChildren(children...))
}

// appendWeightString appends to b what coll's WriteWeightString writes
// for s (go-mysql-server's grouping and hashing key: each rune's weight,
// four bytes little-endian; a binary string's bytes), reading ASCII
// runes' weights from the table (RULE-81) instead of calling the
// collation's sorter and an io.Writer per rune (RULE-80's keys).
func appendWeightString(b []byte, coll sql.CollationID, s string) ([]byte, error) {
	if coll == sql.Collation_binary {
		return append(b, s...), nil
	}
	w := weightsFor(coll)
	if w == nil {
		bw := byteWriter{b: b}
		err := coll.WriteWeightString(&bw, s)
		return bw.b, err
	}
	for len(s) > 0 {
		var wt int32
		if c := s[0]; c < utf8.RuneSelf {
			wt = w.ascii[c]
			s = s[1:]
		} else {
			// As go-mysql-server decodes: an invalid byte is RuneError's
			// weight, one byte long.
			r, n := utf8.DecodeRuneInString(s)
			wt = w.sorter(r)
			s = s[n:]
		}
		b = append(b, byte(wt), byte(wt>>8), byte(wt>>16), byte(wt>>24))
	}
	return b, nil
}
