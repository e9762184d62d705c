package engine

import (
	"encoding/binary"
	"fmt"

	"strata/mtr"
	"strata/page"
	"strata/pagestore"
)

// Meta page layout (page 0), after the common header:
//
//	32 magic u32  36 version u32  40 high-water page u64  48 free-list head u64
//	56 next keyspace id u32       64 directory root page u64
//	72 free trunk page u64
//
// The meta page is an ordinary logged page: allocation is redone like any
// other change. Free pages are kept so (ALLOC-n):
//
//	ALLOC-1 A freed page's id goes into the current free trunk, a page of
//	        TypeFree listing up to trunkCap ids (32 next trunk u64, 40 count
//	        u32, 48 ids u64...); the freed page itself is neither read nor
//	        written (its stale content is never read: keyspace ids are not
//	        reused, so a stale pointer into it still fails BT-2's check once
//	        the page is reused). When the trunk is full or there is none, the
//	        freed page becomes the new trunk.
//	ALLOC-2 Alloc takes the last id of the current trunk, else the trunk
//	        page itself (its next trunk becoming current), else the head of
//	        the free chain older data volumes hold (a page of TypeFree whose
//	        next link is at offset 32: read to follow it), else the page at
//	        the high-water mark. Every allocated page is taken with mtr Init
//	        (MTR-4): never read, logged as zeros plus its new bytes.
const (
	metaMagic   = 0x5354524d // "STRM"
	metaVersion = 1
	offMagic    = 32
	offVersion  = 36
	offHigh     = 40
	offFree     = 48
	offNextKS   = 56
	offDirRoot  = 64
	offTrunk    = 72
	offFreeNext = 32

	offTrunkNext  = 32
	offTrunkCount = 40
	offTrunkIDs   = 48
	trunkCap      = (page.Size - offTrunkIDs) / 8
)

func metaHigh(m []byte) page.ID    { return page.ID(binary.LittleEndian.Uint64(m[offHigh:])) }
func metaFree(m []byte) page.ID    { return page.ID(binary.LittleEndian.Uint64(m[offFree:])) }
func metaTrunk(m []byte) page.ID   { return page.ID(binary.LittleEndian.Uint64(m[offTrunk:])) }
func metaDirRoot(m []byte) page.ID { return page.ID(binary.LittleEndian.Uint64(m[offDirRoot:])) }
func metaNextKS(m []byte) uint32   { return binary.LittleEndian.Uint32(m[offNextKS:]) }

func checkMeta(m []byte) error {
	if page.TypeOf(m) != page.TypeMeta || binary.LittleEndian.Uint32(m[offMagic:]) != metaMagic {
		return fmt.Errorf("engine: page 0 is not a Strata meta page")
	}
	if v := binary.LittleEndian.Uint32(m[offVersion:]); v != metaVersion {
		return fmt.Errorf("engine: data volume format version %d, this build reads %d", v, metaVersion)
	}
	return nil
}

// allocator implements btree.Allocator on the meta page's high-water mark,
// free trunks and free chain (ALLOC-1, ALLOC-2).
type allocator struct{}

func (allocator) Alloc(t *mtr.Mtr) (page.ID, []byte, error) {
	m, err := t.Write(pagestore.MetaPage)
	if err != nil {
		return 0, nil, err
	}
	var id page.ID
	switch trunk, head := metaTrunk(m), metaFree(m); {
	case trunk != page.InvalidID:
		tp, err := t.Write(trunk)
		if err != nil {
			return 0, nil, err
		}
		if err := checkTrunk(tp, trunk); err != nil {
			return 0, nil, err
		}
		if n := binary.LittleEndian.Uint32(tp[offTrunkCount:]); n > 0 {
			at := offTrunkIDs + 8*int(n-1)
			id = page.ID(binary.LittleEndian.Uint64(tp[at:]))
			binary.LittleEndian.PutUint32(tp[offTrunkCount:], n-1)
			clear(tp[at : at+8])
		} else { // the empty trunk itself
			id = trunk
			binary.LittleEndian.PutUint64(m[offTrunk:], binary.LittleEndian.Uint64(tp[offTrunkNext:]))
		}
	case head != page.InvalidID: // the free chain of older volumes
		pg, err := t.Read(head)
		if err != nil {
			return 0, nil, err
		}
		if page.TypeOf(pg) != page.TypeFree {
			return 0, nil, fmt.Errorf("engine: free list head %d has page type %d: %w", head, page.TypeOf(pg), &page.CorruptError{ID: head, Reason: "not a free page"})
		}
		binary.LittleEndian.PutUint64(m[offFree:], binary.LittleEndian.Uint64(pg[offFreeNext:]))
		id = head
	default:
		id = metaHigh(m)
		binary.LittleEndian.PutUint64(m[offHigh:], uint64(id+1))
	}
	if id < pagestore.FirstDataPage {
		return 0, nil, fmt.Errorf("engine: free page list holds page %d: %w", id, &page.CorruptError{ID: id, Reason: "reserved page listed free"})
	}
	pg, err := t.Init(id) // ALLOC-2, MTR-4
	if err != nil {
		return 0, nil, err
	}
	page.SetID(pg, id)
	return id, pg, nil
}

func checkTrunk(tp []byte, id page.ID) error {
	if page.TypeOf(tp) != page.TypeFree || binary.LittleEndian.Uint32(tp[offTrunkCount:]) > trunkCap {
		return fmt.Errorf("engine: free trunk %d is corrupt: %w", id, &page.CorruptError{ID: id, Reason: "not a free trunk"})
	}
	return nil
}

func (allocator) Free(t *mtr.Mtr, id page.ID) error {
	if id < pagestore.FirstDataPage {
		panic(fmt.Sprintf("engine: free of reserved page %d", id))
	}
	m, err := t.Write(pagestore.MetaPage)
	if err != nil {
		return err
	}
	if trunk := metaTrunk(m); trunk != page.InvalidID { // ALLOC-1
		tp, err := t.Write(trunk)
		if err != nil {
			return err
		}
		if err := checkTrunk(tp, trunk); err != nil {
			return err
		}
		if n := binary.LittleEndian.Uint32(tp[offTrunkCount:]); n < trunkCap {
			binary.LittleEndian.PutUint64(tp[offTrunkIDs+8*int(n):], uint64(id))
			binary.LittleEndian.PutUint32(tp[offTrunkCount:], n+1)
			return nil
		}
	}
	pg, err := t.Init(id) // the new trunk
	if err != nil {
		return err
	}
	page.SetID(pg, id)
	page.SetType(pg, page.TypeFree)
	binary.LittleEndian.PutUint64(pg[offTrunkNext:], uint64(metaTrunk(m)))
	binary.LittleEndian.PutUint64(m[offTrunk:], uint64(id))
	return nil
}

// initMeta formats page 0 of a new data volume.
func initMeta(m []byte) {
	page.SetID(m, pagestore.MetaPage)
	page.SetType(m, page.TypeMeta)
	binary.LittleEndian.PutUint32(m[offMagic:], metaMagic)
	binary.LittleEndian.PutUint32(m[offVersion:], metaVersion)
	binary.LittleEndian.PutUint64(m[offHigh:], uint64(pagestore.FirstDataPage))
	binary.LittleEndian.PutUint32(m[offNextKS:], firstUserKeyspace)
}
