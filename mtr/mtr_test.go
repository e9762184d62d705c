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

// TestWithHead: ranges forced over a page's head (NewHead) rebuild the
// head exactly on top of any old content, zero bytes included, and keep
// the rest of the diff in order without overlap.
func TestWithHead(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 200; i++ {
		zero := make([]byte, page.Size) // the frame NewHead hands out
		after := append([]byte(nil), zero...)
		for e := rng.Intn(6); e > 0; e-- {
			off := page.RedoStart + rng.Intn(200)
			after[off] = byte(rng.Intn(3)) // zero bytes among them
		}
		head := page.RedoStart + 1 + rng.Intn(100)
		ranges := withHead(Diff(zero, after), head)
		old := make([]byte, page.Size) // what the volume holds: anything
		rng.Read(old)
		got := append([]byte(nil), old...)
		last := 0
		for _, r := range ranges {
			if r.Off < last {
				t.Fatalf("case %d: ranges overlap or are out of order: %v", i, ranges)
			}
			last = r.Off + r.Len
			copy(got[r.Off:last], after[r.Off:last])
		}
		if !bytes.Equal(got[page.RedoStart:head], after[page.RedoStart:head]) {
			t.Fatalf("case %d: head [%d,%d) not rebuilt", i, page.RedoStart, head)
		}
		for j := head; j < page.Size; j++ {
			if after[j] != 0 && got[j] != after[j] {
				t.Fatalf("case %d: byte %d lost", i, j)
			}
		}
	}
}
