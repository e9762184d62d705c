package engine

import (
	"bytes"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"strata/page"
	"strata/volume"
)

// fuzzImage is a closed database on memory volumes, built once per
// process: keyspace "t" with fuzzRows rows over several B+tree levels.
var fuzzImage struct {
	once       sync.Once
	data, logv *volume.Mem
	err        error
}

const fuzzRows = 3000

func fuzzKey(i int) []byte   { return []byte(fmt.Sprintf("k%06d", i)) }
func fuzzValue(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 40+i%50) }

func buildFuzzImage() {
	data := volume.NewMem("data", volume.MemOptions{})
	logv := volume.NewMem("log", volume.MemOptions{})
	db, err := Open(crashOptions(data, logv, "doublewrite"))
	if err != nil {
		fuzzImage.err = err
		return
	}
	ks, err := db.CreateKeyspace("t")
	if err != nil {
		fuzzImage.err = err
		return
	}
	for i := 0; i < fuzzRows; i += 100 {
		tx := db.Begin()
		for j := i; j < i+100; j++ {
			if err := tx.Put(ks, fuzzKey(j), fuzzValue(j)); err != nil {
				fuzzImage.err = err
				return
			}
		}
		if err := tx.Commit(); err != nil {
			fuzzImage.err = err
			return
		}
	}
	if err := db.Close(); err != nil {
		fuzzImage.err = err
		return
	}
	// A clean copy of each volume (Crash without tearing: everything was
	// synced by the close).
	fuzzImage.data = data.Crash(rand.New(rand.NewSource(1)), false)
	fuzzImage.logv = logv.Crash(rand.New(rand.NewSource(1)), false)
}

// FuzzDamagedPage overwrites part of one page of a closed database's data
// volume with arbitrary bytes and opens it: recovery and a full read
// either return every row as written or fail with an error, never panic
// and never return a wrong row. A page whose bytes changed fails its
// checksum (page.Verify) and is refused when read. With seal set the
// damaged page gets a valid checksum, so the B+tree code itself meets the
// garbage: then only "no panic" is asserted (the content is not known to
// be wrong).
func FuzzDamagedPage(f *testing.F) {
	f.Add(uint16(1), uint16(0), []byte{0xff}, false)
	f.Add(uint16(3), uint16(40), []byte("garbage in the middle of a page"), false)
	f.Add(uint16(7), uint16(16380), []byte{1, 2, 3, 4}, false)
	f.Add(uint16(2), uint16(30), bytes.Repeat([]byte{0}, 64), false)
	// The first pages of this image hold the volume's header and the
	// doublewrite area; the tree's pages follow (66 on).
	f.Add(uint16(66), uint16(100), []byte("damage"), false)
	f.Add(uint16(70), uint16(9000), []byte("damage"), false)
	f.Add(uint16(66), uint16(30), []byte{0xff, 0xff, 0xff, 0xff}, true)
	f.Add(uint16(75), uint16(64), bytes.Repeat([]byte{0x7f}, 200), true)
	f.Fuzz(func(t *testing.T, pageNo, off uint16, patch []byte, seal bool) {
		fuzzImage.once.Do(buildFuzzImage)
		if fuzzImage.err != nil {
			t.Fatal(fuzzImage.err)
		}
		data := fuzzImage.data.Crash(rand.New(rand.NewSource(1)), false)
		logv := fuzzImage.logv.Crash(rand.New(rand.NewSource(1)), false)
		pages := data.Size() / page.Size
		if pages == 0 || len(patch) == 0 {
			return
		}
		at := int64(pageNo) % pages * page.Size
		buf := make([]byte, page.Size)
		if err := data.ReadAt(buf, at); err != nil {
			t.Fatal(err)
		}
		before := append([]byte(nil), buf...)
		copy(buf[int(off)%page.Size:], patch)
		if seal && !page.IsZero(buf) {
			page.Seal(buf)
		}
		if bytes.Equal(before, buf) {
			return
		}
		if err := data.WriteAt(buf, at); err != nil {
			t.Fatal(err)
		}
		if err := data.Sync(); err != nil {
			t.Fatal(err)
		}
		db, err := Open(crashOptions(data, logv, "doublewrite"))
		if err != nil {
			return // refused at open: fine
		}
		defer db.Close()
		ks, err := db.Keyspace("t")
		if err != nil {
			return
		}
		tx := db.Begin()
		defer tx.Rollback()
		it := tx.Scan(ks, nil, nil, false)
		n := 0
		for it.Next() {
			if !seal && (n >= fuzzRows || !bytes.Equal(it.Key(), fuzzKey(n)) || !bytes.Equal(it.Value(), fuzzValue(n))) {
				it.Close()
				t.Fatalf("row %d read as %q = %x from a damaged page that passed as sound", n, it.Key(), it.Value())
			}
			n++
		}
		err = it.Err()
		it.Close()
		if !seal && err == nil && n != fuzzRows {
			t.Fatalf("a damaged page lost rows silently: %d of %d", n, fuzzRows)
		}
	})
}
