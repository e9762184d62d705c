package mtr

import (
	"bytes"
	"encoding/binary"
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
			out = append(out, Range{Off: lo, Len: hi - lo})
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

// TestMovesReconstruct (MTR-5): a page changed as B+tree inserts and
// deletes change a leaf (a slot array opened or closed at random places,
// a cell written, header fields) and by random edits, diffed with moves,
// encoded and applied to the old page, gives the new page; the shifts are
// logged as moves (the record is smaller than the literal one).
func TestMovesReconstruct(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var withMoves, literal int
	for i := 0; i < 3000; i++ {
		before := make([]byte, page.Size)
		rng.Read(before)
		after := append([]byte(nil), before...)
		slots := 64 + rng.Intn(1500) // a slot array at [64, 64+slots)
		for e := 1 + rng.Intn(4); e > 0; e-- {
			at := 64 + rng.Intn(slots)
			w := 2 * (1 + rng.Intn(4)) // bytes opened or closed: 2-byte slots
			if rng.Intn(8) == 0 {
				w = 1 + 2*rng.Intn(4) // an odd shift: literal bytes, still reconstructed
			}
			end := 64 + slots
			if rng.Intn(2) == 0 && end+w <= page.Size {
				copy(after[at+w:end+w], after[at:end]) // open (insert)
				rng.Read(after[at : at+w])
				slots += w
			} else if at+w <= end {
				copy(after[at:end-w], after[at+w:end]) // close (delete)
				slots -= w
			}
		}
		for e := rng.Intn(4); e > 0; e-- { // a cell, header fields
			off := page.RedoStart + rng.Intn(page.Size-page.RedoStart-200)
			rng.Read(after[off : off+1+rng.Intn(200)])
		}
		ranges := DiffMoves(before, after)
		rec := appendRanges(nil, after, ranges)
		count := binary.LittleEndian.Uint16(rec)
		got := append([]byte(nil), before...)
		rest, err := applyRanges(got, rec[2:], count, true)
		if err != nil || len(rest) != 0 {
			t.Fatalf("case %d: apply: %v, %d bytes left", i, err, len(rest))
		}
		if !bytes.Equal(got[page.RedoStart:], after[page.RedoStart:]) {
			t.Fatalf("case %d: the record does not reconstruct the page (ranges %v)", i, ranges)
		}
		skipped := append([]byte(nil), before...) // parsed without applying: untouched, all consumed
		if rest, err := applyRanges(skipped, rec[2:], count, false); err != nil || len(rest) != 0 || !bytes.Equal(skipped, before) {
			t.Fatalf("case %d: skipping the record: %v, %d bytes left", i, err, len(rest))
		}
		withMoves += len(rec)
		literal += len(appendRanges(nil, after, Diff(before, after)))
	}
	if withMoves*2 > literal {
		t.Fatalf("records with moves take %d bytes, literal ones %d: the shifts were not moved", withMoves, literal)
	}
	t.Logf("records: %d bytes with moves, %d literal", withMoves, literal)
}

// BenchmarkDiffMovesAppend: a leaf that gains a 1 KiB cell of fresh bytes
// (a binary log entry) and a 2-byte slot: the cell is literal, so every
// probe for a move in it fails (MTR-5's cost on append-only leaves).
func BenchmarkDiffMovesAppend(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	before := make([]byte, page.Size)
	rng.Read(before)
	after := append([]byte(nil), before...)
	rng.Read(after[8000 : 8000+1100])
	after[300], after[301] = 7, 9
	b.SetBytes(page.Size)
	for i := 0; i < b.N; i++ {
		DiffMoves(before, after)
	}
}
