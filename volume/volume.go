// Package volume owns all block I/O of Strata. Every byte the engine reads or
// writes, on the data volumes, the log volume or the buffer pool extension,
// goes through the Volume interface, so tests can stack wrappers on it: an
// emulated cloud disk (IOPS, bandwidth, latency, 256 KiB accounting, burst
// credits), a crashable in-memory volume that keeps only synced data, and a
// fault-injecting volume.
//
// Invariants and conventions:
//   - Offsets and lengths passed to ReadAt/WriteAt are multiples of BlockSize
//     (4 KiB) and buffers are BlockSize-aligned in memory (use AlignedBuffer),
//     because the file volume uses O_DIRECT.
//   - A write is durable only after a later Sync returns nil. A crash may
//     lose any unsynced write, and may tear a write that was in flight into
//     old and new sectors, except within an aligned AtomicWriteUnit.
//   - Reading beyond the end of a volume returns zeros (volumes are sparse and
//     grow on write); a volume never returns bytes that were not written.
//   - One process at a time: a file volume holds an exclusive flock on its
//     file while open (ErrInUse for a second opener, in this process or
//     another), so two servers never write one redo log or data volume.
//     The kernel drops the lock when the process dies, so a crash leaves
//     no stale lock behind.
package volume

import (
	"errors"
	"unsafe"
)

// ErrInUse is returned by OpenFile for a file another open volume holds.
var ErrInUse = errors.New("volume: in use by another process")

// BlockSize is the alignment unit of all volume I/O.
const BlockSize = 4096

// ErrClosed is returned by operations on a closed volume.
var ErrClosed = errors.New("volume: closed")

// Volume is a durable (or emulated) block store.
type Volume interface {
	// ReadAt reads len(p) bytes at off. Bytes never written read as zero.
	ReadAt(p []byte, off int64) error
	// WriteAt writes p at off. Not durable until Sync returns.
	WriteAt(p []byte, off int64) error
	// Sync makes every write that completed before the call durable.
	Sync() error
	// Size is the current size in bytes (high-water mark of writes or the
	// device size).
	Size() int64
	// AtomicWriteUnit is the largest aligned write (bytes) that the volume
	// guarantees never to tear on a crash; BlockSize-or-less means "no
	// guarantee beyond a sector".
	AtomicWriteUnit() int
	// Name identifies the volume in metrics and logs.
	Name() string
	Close() error
}

// AlignedBuffer returns a zeroed byte slice of n bytes whose first byte is
// BlockSize-aligned, as O_DIRECT requires.
func AlignedBuffer(n int) []byte {
	buf := make([]byte, n+BlockSize)
	off := 0
	if rem := int(uintptr(unsafe.Pointer(&buf[0])) % BlockSize); rem != 0 {
		off = BlockSize - rem
	}
	return buf[off : off+n : off+n]
}

// IsAligned reports whether p starts at a BlockSize boundary.
func IsAligned(p []byte) bool {
	return len(p) == 0 || uintptr(unsafe.Pointer(&p[0]))%BlockSize == 0
}

// CheckIO validates the alignment contract shared by all volumes.
func CheckIO(p []byte, off int64) error {
	if off < 0 || off%BlockSize != 0 || len(p)%BlockSize != 0 {
		return errors.New("volume: offset and length must be multiples of 4 KiB")
	}
	return nil
}
