package wal

import (
	"bytes"
	"testing"

	"strata/page"
	"strata/volume"
)

// FuzzReplayDamagedLog: a log whose bytes were overwritten anywhere (a
// bad sector, a bug) replays without panicking, returns only records that
// were written, in order, and stops at the first it cannot trust (WAL-4).
func FuzzReplayDamagedLog(f *testing.F) {
	f.Add(uint32(4096), []byte{0xff, 0xff, 0xff, 0xff})
	f.Add(uint32(4100), []byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint32(8192+17), []byte("garbage"))
	f.Fuzz(func(t *testing.T, off uint32, junk []byte) {
		mem := volume.NewMem("log", volume.MemOptions{})
		l, err := Open(mem, Options{Capacity: 64 << 10})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Replay(func(page.LSN, byte, []byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
		var written [][]byte
		for i := 0; i < 12; i++ {
			p := payload(i + 3)
			_, end, err := l.Append(TypeRedo, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.WaitDurable(end); err != nil {
				t.Fatal(err)
			}
			written = append(written, p)
		}
		l.Close()
		// Overwrite junk at off, inside the volume, in whole blocks.
		size := int64(64<<10) + 2*volume.BlockSize
		start := int64(off) % size
		blk := start / volume.BlockSize * volume.BlockSize
		buf := volume.AlignedBuffer(volume.BlockSize)
		if err := mem.ReadAt(buf, blk); err != nil {
			t.Fatal(err)
		}
		copy(buf[start-blk:], junk)
		if err := mem.WriteAt(buf, blk); err != nil {
			t.Fatal(err)
		}
		mem.Sync()
		l2, err := Open(mem, Options{})
		if err != nil {
			return // a damaged header is refused, not trusted
		}
		defer l2.Close()
		var got [][]byte
		l2.Replay(func(_ page.LSN, typ byte, p []byte) error {
			got = append(got, append([]byte(nil), p...))
			return nil
		})
		if len(got) > len(written) {
			t.Fatalf("replayed %d records, %d were written", len(got), len(written))
		}
		for i := range got {
			if !bytes.Equal(got[i], written[i]) {
				t.Fatalf("record %d replayed as %d bytes that were not written", i, len(got[i]))
			}
		}
	})
}
