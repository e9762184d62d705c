// Package page defines Strata's on-disk page: 16 KiB, a fixed header with
// checksum, LSN, page id and type, and the identifiers used across the engine.
//
// Header layout (little endian):
//
//	0      4          12         20    21     22           26          32
//	+------+----------+----------+-----+------+------------+-----------+
//	| crc  | page LSN | page id  |type |level | keyspace id| type-owned|
//	+------+----------+----------+-----+------+------------+-----------+
//
// Invariants:
//   - crc is CRC32C over bytes [4, Size) and is only maintained on the copy
//     that is written to a volume (Seal); in memory it is stale.
//   - Every page read from a volume is verified with Verify: an all-zero page
//     (never written) is valid and empty; anything else must carry the
//     expected page id and a matching checksum, or it is corrupt. The
//     package owning a page type's layout registers a validator of its
//     structure (RegisterValidator), and a page it refuses is corrupt too:
//     a checksum only proves that the bytes are the ones written.
//   - Bytes [0, RedoStart) (crc and LSN) are not covered by redo diffs; the
//     LSN is stamped explicitly when a change is logged.
package page

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Size is the page size in bytes.
const Size = 16384

// HeaderSize is the size of the common header.
const HeaderSize = 32

// RedoStart is the first byte covered by redo diffs.
const RedoStart = 12

// ID identifies a page on the (logical, possibly striped) data volume.
type ID uint64

// LSN is a log sequence number: a byte position in the redo log stream.
type LSN uint64

// InvalidID marks "no page".
const InvalidID ID = 0

// Type tags the content of a page.
type Type uint8

const (
	TypeZero     Type = 0 // never written
	TypeMeta     Type = 1
	TypeFree     Type = 2
	TypeBTree    Type = 3
	TypeOverflow Type = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CorruptError reports a page that failed verification.
type CorruptError struct {
	ID     ID
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("page %d corrupt: %s", e.ID, e.Reason)
}

func LSNOf(p []byte) LSN             { return LSN(binary.LittleEndian.Uint64(p[4:12])) }
func SetLSN(p []byte, l LSN)         { binary.LittleEndian.PutUint64(p[4:12], uint64(l)) }
func IDOf(p []byte) ID               { return ID(binary.LittleEndian.Uint64(p[12:20])) }
func SetID(p []byte, id ID)          { binary.LittleEndian.PutUint64(p[12:20], uint64(id)) }
func TypeOf(p []byte) Type           { return Type(p[20]) }
func SetType(p []byte, t Type)       { p[20] = byte(t) }
func LevelOf(p []byte) uint8         { return p[21] }
func SetLevel(p []byte, l uint8)     { p[21] = l }
func KeyspaceOf(p []byte) uint32     { return binary.LittleEndian.Uint32(p[22:26]) }
func SetKeyspace(p []byte, k uint32) { binary.LittleEndian.PutUint32(p[22:26], k) }

// Checksum computes the CRC32C of the page body.
func Checksum(p []byte) uint32 { return crc32.Checksum(p[4:Size], castagnoli) }

// Seal stamps the checksum into a page copy about to be written.
func Seal(p []byte) {
	if len(p) != Size {
		panic("page: Seal of a buffer that is not one page")
	}
	binary.LittleEndian.PutUint32(p[0:4], Checksum(p))
}

// IsZero reports whether the page was never written.
func IsZero(p []byte) bool {
	for i := 0; i < len(p); i += 8 {
		if binary.LittleEndian.Uint64(p[i:]) != 0 {
			return false
		}
	}
	return true
}

// Verify checks a page read from a volume at position id: its checksum,
// its id, and the structure its type's validator checks.
func Verify(p []byte, id ID) error {
	if IsZero(p) {
		return nil
	}
	if got := binary.LittleEndian.Uint32(p[0:4]); got != Checksum(p) {
		return &CorruptError{ID: id, Reason: "checksum mismatch"}
	}
	if got := IDOf(p); got != id {
		return &CorruptError{ID: id, Reason: fmt.Sprintf("holds page id %d", got)}
	}
	if v := validators[TypeOf(p)]; v != nil {
		if err := v(p); err != nil {
			return &CorruptError{ID: id, Reason: err.Error()}
		}
	}
	return nil
}

// validators check the structure of a page of a type, registered
// by the package that owns the type's layout.
var validators [256]func(p []byte) error

// RegisterValidator makes Verify check pages of type t with v: a page
// whose checksum is right but whose content would lead its reader out of
// bounds (bytes written by a bug, or by something other than strata) is
// refused as corrupt rather than read. It must be called from init.
func RegisterValidator(t Type, v func(p []byte) error) { validators[t] = v }
