package backend

import (
	"sync"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
)

// CODEC-6 Collation weights of the Basic Multilingual Plane are read from
// a table built once per collation (256 KiB): go-mysql-server's weight
// functions look each rune up in a Go map, which made string keys under
// utf8mb4_0900_ai_ci cost a third of a read-only workload's CPU. Runes
// above U+FFFF go to the collation's own function.

type weightTable struct {
	once sync.Once
	bmp  []int32
}

var weightTables sync.Map // sql.CollationID -> *weightTable

// weightsOf returns coll's table, built at its first use.
func weightsOf(coll sql.CollationID) *weightTable {
	v, _ := weightTables.LoadOrStore(coll, &weightTable{})
	wt := v.(*weightTable)
	wt.once.Do(func() {
		sorter := coll.Sorter()
		wt.bmp = make([]int32, 1<<16)
		for r := range wt.bmp {
			wt.bmp[r] = sorter(rune(r))
		}
	})
	return wt
}

// collationWeight returns coll's weight function, table-backed for the BMP.
func collationWeight(coll sql.CollationID) func(rune) int32 {
	sorter := coll.Sorter()
	bmp := weightsOf(coll).bmp
	return func(r rune) int32 {
		if r >= 0 && int(r) < len(bmp) {
			return bmp[r]
		}
		return sorter(r)
	}
}

// asciiWeights returns coll's weights of the ASCII runes (the start of its
// table), which appendKey reads without decoding a rune (CODEC-6).
func asciiWeights(coll sql.CollationID) *[utf8.RuneSelf]int32 {
	return (*[utf8.RuneSelf]int32)(weightsOf(coll).bmp[:utf8.RuneSelf])
}
