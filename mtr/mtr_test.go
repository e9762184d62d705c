package mtr

import (
	"bytes"
	"math/rand"
	"testing"

	"strata/page"
)

// TestDiffReconstructs: applying Diff's ranges to the before-image yields
// the after-image (outside the crc/LSN bytes), for random edits.
func TestDiffReconstructs(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 500; i++ {
		before := make([]byte, page.Size)
		rng.Read(before)
		after := append([]byte(nil), before...)
		for e := rng.Intn(20); e > 0; e-- {
			off := rng.Intn(page.Size)
			n := min(rng.Intn(300), page.Size-off)
			rng.Read(after[off : off+n])
		}
		got := append([]byte(nil), before...)
		for _, r := range Diff(before, after) {
			if r.Off < page.RedoStart {
				t.Fatalf("range at %d covers the crc/LSN bytes", r.Off)
			}
			copy(got[r.Off:r.Off+r.Len], after[r.Off:r.Off+r.Len])
		}
		if !bytes.Equal(got[page.RedoStart:], after[page.RedoStart:]) {
			t.Fatalf("case %d: diff does not reconstruct the page", i)
		}
	}
	if len(Diff(make([]byte, page.Size), make([]byte, page.Size))) != 0 {
		t.Fatal("identical pages produce ranges")
	}
}
