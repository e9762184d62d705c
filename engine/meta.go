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
//
// A free page has type page.TypeFree and the next free page at offset 32.
// The meta page is an ordinary logged page: allocation is redone like any
// other change.
const (
	metaMagic   = 0x5354524d // "STRM"
	metaVersion = 1
	offMagic    = 32
	offVersion  = 36
	offHigh     = 40
	offFree     = 48
	offNextKS   = 56
	offDirRoot  = 64
	offFreeNext = 32
)

func metaHigh(m []byte) page.ID    { return page.ID(binary.LittleEndian.Uint64(m[offHigh:])) }
func metaFree(m []byte) page.ID    { return page.ID(binary.LittleEndian.Uint64(m[offFree:])) }
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

// allocator implements btree.Allocator on the meta page's high-water mark
// and free list.
type allocator struct{}

func (allocator) Alloc(t *mtr.Mtr) (page.ID, []byte, error) {
	m, err := t.Write(pagestore.MetaPage)
	if err != nil {
		return 0, nil, err
	}
	if head := metaFree(m); head != page.InvalidID {
		pg, err := t.Write(head)
		if err != nil {
			return 0, nil, err
		}
		if page.TypeOf(pg) != page.TypeFree {
			return 0, nil, fmt.Errorf("engine: free list head %d has page type %d: %w", head, page.TypeOf(pg), &page.CorruptError{ID: head, Reason: "not a free page"})
		}
		binary.LittleEndian.PutUint64(m[offFree:], binary.LittleEndian.Uint64(pg[offFreeNext:]))
		clear(pg[page.RedoStart:])
		page.SetID(pg, head)
		return head, pg, nil
	}
	id := metaHigh(m)
	binary.LittleEndian.PutUint64(m[offHigh:], uint64(id+1))
	pg, err := t.New(id)
	if err != nil {
		return 0, nil, err
	}
	page.SetID(pg, id)
	return id, pg, nil
}

func (allocator) Free(t *mtr.Mtr, id page.ID) error {
	if id < pagestore.FirstDataPage {
		panic(fmt.Sprintf("engine: free of reserved page %d", id))
	}
	m, err := t.Write(pagestore.MetaPage)
	if err != nil {
		return err
	}
	// A free page's body does not matter (Alloc clears it on reuse): the
	// page is not read from the volume when not in the pool (it is then
	// zeros), and only its header changes, so a drop of a large keyspace
	// neither reads its leaves back nor logs their bytes.
	pg, err := t.NewHead(id, offFreeNext+8) // the header and the link are logged whole
	if err != nil {
		return err
	}
	page.SetID(pg, id)
	page.SetType(pg, page.TypeFree)
	binary.LittleEndian.PutUint64(pg[offFreeNext:], uint64(metaFree(m)))
	binary.LittleEndian.PutUint64(m[offFree:], uint64(id))
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
