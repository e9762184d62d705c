package mtr

import (
	"bytes"
	"fmt"
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

// diffByWord is Diff without the block skip: the ranges Diff must return.
func diffByWord(before, after []byte) []Range {
	var out []Range
	for off := page.RedoStart; off < page.Size; off += diffWord {
		end := min(off+diffWord, page.Size)
		if bytes.Equal(before[off:end], after[off:end]) {
			continue
		}
		lo, hi := off, end
		for before[lo] == after[lo] {
			lo++
		}
		for before[hi-1] == after[hi-1] {
			hi--
		}
		if k := len(out); k > 0 && lo-(out[k-1].Off+out[k-1].Len) < diffGap {
			out[k-1].Len = hi - out[k-1].Off
		} else {
			out = append(out, Range{lo, hi - lo})
		}
	}
	return out
}

// TestDiffBlocksKeepRanges: skipping equal blocks yields exactly the ranges
// of a word-by-word walk (small edits anywhere, including block edges).
func TestDiffBlocksKeepRanges(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		before := make([]byte, page.Size)
		rng.Read(before)
		after := append([]byte(nil), before...)
		for e := rng.Intn(6); e > 0; e-- {
			off := page.RedoStart + rng.Intn(page.Size-page.RedoStart)
			if rng.Intn(2) == 0 { // at a block edge
				off = page.RedoStart + rng.Intn((page.Size-page.RedoStart)/diffBlock)*diffBlock + rng.Intn(3) - 1
			}
			n := min(1+rng.Intn(40), page.Size-off)
			for j := off; j < off+n; j++ {
				after[j]++
			}
		}
		if got, want := Diff(before, after), diffByWord(before, after); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("case %d: Diff %v, word by word %v", i, got, want)
		}
	}
}
