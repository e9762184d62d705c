package backend

import (
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
