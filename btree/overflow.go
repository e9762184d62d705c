package btree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"

	"strata/bufpool"
	"strata/mtr"
	"strata/page"
)

// Values too large for a cell live in a chain of overflow pages; the leaf
// cell carries the ovfFlag and a 20-byte reference: chain id u64, total
// length u32, first page u64.
//
// Overflow page layout, after the common header (type page.TypeOverflow,
// keyspace stamped): 32 chain id u64, 40 next page u64 (0 = last),
// 48 bytes used u16, data from 56.
//
// BT-5 A reader copies the reference under the leaf latch and then reads
// the chain without it; every chain page must carry the reference's chain
// id (a random 64-bit nonce) and keyspace, else the value was replaced or
// deleted meanwhile and the read restarts from the leaf.
const (
	ovfChain   = 32
	ovfNext    = 40
	ovfUsed    = 48
	ovfData    = 56
	ovfCap     = page.Size - ovfData
	ovfRefSize = 20
	// MaxValue is the largest value accepted (the transaction must also fit
	// the buffer pool and log limits): a row holding one value as large as
	// the server's default max_allowed_packet (16 MiB), plus room for the
	// rest of the row.
	MaxValue = 16<<20 + 64<<10
)

var errChainMoved = errors.New("btree: overflow chain changed under the reader")

// needsOverflow reports whether key/val cannot be stored inline.
func needsOverflow(key, val []byte) bool { return cellSize(key, val) > MaxCell }

func writeChain(t *mtr.Mtr, a Allocator, keyspace uint32, val []byte) ([]byte, error) {
	chain := rand.Uint64() | 1
	var first page.ID
	var prev []byte
	for off := 0; off < len(val); off += ovfCap {
		id, pg, err := a.Alloc(t)
		if err != nil {
			return nil, err
		}
		clear(pg[page.RedoStart:])
		page.SetID(pg, id)
		page.SetType(pg, page.TypeOverflow)
		page.SetKeyspace(pg, keyspace)
		binary.LittleEndian.PutUint64(pg[ovfChain:], chain)
		n := copy(pg[ovfData:], val[off:])
		binary.LittleEndian.PutUint16(pg[ovfUsed:], uint16(n))
		if prev == nil {
			first = id
		} else {
			binary.LittleEndian.PutUint64(prev[ovfNext:], uint64(id))
		}
		prev = pg
	}
	ref := binary.LittleEndian.AppendUint64(nil, chain)
	ref = binary.LittleEndian.AppendUint32(ref, uint32(len(val)))
	return binary.LittleEndian.AppendUint64(ref, uint64(first)), nil
}

func parseRef(ref []byte) (chain uint64, length int, first page.ID) {
	return binary.LittleEndian.Uint64(ref), int(binary.LittleEndian.Uint32(ref[8:])), page.ID(binary.LittleEndian.Uint64(ref[12:]))
}

func freeChain(t *mtr.Mtr, a Allocator, ref []byte) error {
	_, _, id := parseRef(ref)
	for id != page.InvalidID {
		pg, err := t.Read(id)
		if err != nil {
			return err
		}
		next := page.ID(binary.LittleEndian.Uint64(pg[ovfNext:]))
		if err := a.Free(t, id); err != nil {
			return err
		}
		id = next
	}
	return nil
}

// readChain reads a value through the pool (BT-5); errChainMoved means the
// reference is stale and the caller must re-read the leaf.
func readChain(pool *bufpool.Pool, keyspace uint32, ref []byte, dst []byte) ([]byte, error) {
	chain, length, id := parseRef(ref)
	for id != page.InvalidID {
		f, err := pool.Fix(id)
		if err != nil {
			return nil, err
		}
		f.Latch.RLock()
		pg := f.Data()
		ok := page.TypeOf(pg) == page.TypeOverflow && page.KeyspaceOf(pg) == keyspace &&
			binary.LittleEndian.Uint64(pg[ovfChain:]) == chain
		if ok {
			dst = append(dst, pg[ovfData:ovfData+int(binary.LittleEndian.Uint16(pg[ovfUsed:]))]...)
			id = page.ID(binary.LittleEndian.Uint64(pg[ovfNext:]))
		}
		f.Latch.RUnlock()
		pool.Unfix(f)
		if !ok {
			return nil, errChainMoved
		}
	}
	if len(dst) < length {
		return nil, errChainMoved
	}
	return dst, nil
}

// checkChain verifies a chain for Check.
func checkChain(pool *bufpool.Pool, keyspace uint32, ref []byte) error {
	_, length, _ := parseRef(ref)
	v, err := readChain(pool, keyspace, ref, nil)
	if err != nil {
		return fmt.Errorf("overflow chain: %w", err)
	}
	if len(v) != length {
		return fmt.Errorf("overflow chain holds %d bytes, reference says %d", len(v), length)
	}
	return nil
}
