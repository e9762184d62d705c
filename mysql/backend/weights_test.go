package backend

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// CODEC-6: the table-backed weights are the collation's own.
func TestCollationWeightTable(t *testing.T) {
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_general_ci,
		sql.Collation_utf8mb4_unicode_ci, sql.Collation_latin1_swedish_ci} {
		w, sorter := collationWeight(coll), coll.Sorter()
		for _, r := range []rune{0, 'a', 'A', 'z', ' ', 'é', 'ß', '✓', 0xFFFF, 0x10000, 0x1F600, 0x10FFFF} {
			if w(r) != sorter(r) {
				t.Errorf("%s: weight(%U) = %d, sorter %d", coll.Name(), r, w(r), sorter(r))
			}
		}
		for r := rune(0); r < 0x3000; r += 7 {
			if w(r) != sorter(r) {
				t.Fatalf("%s: weight(%U) = %d, sorter %d", coll.Name(), r, w(r), sorter(r))
			}
		}
	}
}

// CODEC-6: a string key is keyValue, then 0x01 and the rune's weight (sign bit flipped)
// per rune, then 0x00; the ASCII shortcut writes the same bytes.
func TestStringKeyBytes(t *testing.T) {
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_general_ci, sql.Collation_latin1_swedish_ci} {
		c := colCodec{kind: kString, coll: coll, weight: collationWeight(coll), ascii: asciiWeights(coll)}
		for _, s := range []string{"", "a", "Straße", "abc XYZ 019 ~!", "mixed é✓😀 text", "\x7f\x00\x01"} {
			got, err := c.appendKey(context.Background(), []byte{0xAA}, s)
			if err != nil {
				t.Fatal(err)
			}
			want := []byte{0xAA, keyValue}
			for _, r := range s {
				w := uint32(coll.Sorter()(r)) ^ (1 << 31)
				want = append(want, 0x01, byte(w>>24), byte(w>>16), byte(w>>8), byte(w))
			}
			want = append(want, 0x00)
			if string(got) != string(want) {
				t.Errorf("%s %q:\n got %x\nwant %x", coll.Name(), s, got, want)
			}
		}
	}
}
