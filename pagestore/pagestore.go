// Package pagestore owns durable page I/O on the data volume: reading a page
// with verification, and writing batches of dirty pages with torn-write
// protection.
//
// Data volume layout (in pages): page 0 is the engine's meta page, pages
// [1, 1+DoublewritePages) are the doublewrite area (reserved in every mode so
// the mode can change between runs), data pages follow.
//
// Rules:
//
//	PS-1 Every page returned by Read passed page.Verify: right id, right
//	     checksum, or all zero (never written).
//	PS-2 Doublewrite mode: a batch is written to the doublewrite area and
//	     synced before any page of it is written in place; Recover repairs
//	     every in-place page that fails verification from its newest valid
//	     doublewrite copy, before redo runs.
//	PS-3 Atomic mode writes pages once, in place; it is only allowed on a
//	     volume whose AtomicWriteUnit covers a page (checked by the caller at
//	     open, see CheckAtomic).
//	PS-4 Doublewrite mode: WriteBatch returns only after the pages are
//	     durable (synced), since the next batch reuses the area. Atomic
//	     mode: WriteBatch returns once the writes completed, and they are
//	     durable after the next Sync, which the engine calls before it
//	     moves the redo start past them (EN-5). Until then a crash may keep
//	     any of those pages at an older whole version (never a torn one,
//	     PS-3), which redo from the checkpoint brings forward; a read meanwhile
//	     sees the written page. One sync per checkpoint instead of one per
//	     16-page batch: on a volume capped in IOPS a flush is one of them
//	     (the blkio throttle counts it), and on XFS it forces the journal.
//	PS-5 A failed Sync is sticky: the volume may have dropped any write
//	     since the last good sync, so every later WriteBatch and Sync
//	     fails and no checkpoint moves past a lost page.
package pagestore

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"strata/page"
	"strata/volume"
)

// Mode selects torn-write protection.
type Mode int

const (
	Doublewrite Mode = iota
	Atomic
)

func (m Mode) String() string {
	if m == Atomic {
		return "atomic"
	}
	return "doublewrite"
}

// ParseMode parses "doublewrite" or "atomic".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "doublewrite":
		return Doublewrite, nil
	case "atomic":
		return Atomic, nil
	}
	return 0, fmt.Errorf("torn-write protection must be doublewrite or atomic, not %q", s)
}

const (
	// MetaPage holds the engine's meta data.
	MetaPage page.ID = 0
	// DoublewritePages is the size of the doublewrite area.
	DoublewritePages = 64
	// FirstDataPage is the first page available to the allocator.
	FirstDataPage page.ID = 1 + DoublewritePages
	// maxParallelWrites bounds in-place writes in flight per batch.
	maxParallelWrites = 16
)

// Stats are cumulative counters.
type Stats struct {
	PageReads, PageWrites, DoublewriteWrites, Batches, Repaired, Corrupt int64
	// AtomicWrites counts in-place writes issued with RWF_ATOMIC.
	AtomicWrites int64
	// Syncs counts data-volume syncs issued by the store.
	Syncs int64
}

// Store reads and writes pages on one (logical) data volume.
type Store struct {
	vol      volume.Volume
	mode     Mode
	useRWF   bool
	batchMu  sync.Mutex // one batch at a time owns the doublewrite area
	dwBuf    []byte
	reads    atomic.Int64
	writes   atomic.Int64
	dwWrites atomic.Int64
	batches  atomic.Int64
	repaired atomic.Int64
	corrupt  atomic.Int64
	atomicW  atomic.Int64
	syncs    atomic.Int64
	// unsynced counts in-place writes not yet covered by a sync (PS-4).
	unsynced atomic.Int64
	syncMu   sync.Mutex // one data sync at a time
	syncErr  atomic.Pointer[error]
}

// CheckAtomic explains why vol cannot run in atomic mode, or returns nil.
func CheckAtomic(vol volume.Volume) error {
	if u := vol.AtomicWriteUnit(); u < page.Size {
		return fmt.Errorf("volume %s guarantees atomic writes of %d bytes, less than the %d-byte page: "+
			"use --torn-write-protection=doublewrite, put the data on a filesystem with atomic write support "+
			"(e.g. XFS on a device that reports STATX_WRITE_ATOMIC), or declare an emulated volume atomic with --volume-atomic",
			vol.Name(), u, page.Size)
	}
	return nil
}

// New returns a store on vol. In Atomic mode vol must pass CheckAtomic.
// useRWFAtomic makes in-place writes use RWF_ATOMIC (the volume must
// implement volume.AtomicWriter).
func New(vol volume.Volume, mode Mode, useRWFAtomic bool) (*Store, error) {
	if mode == Atomic {
		if err := CheckAtomic(vol); err != nil {
			return nil, err
		}
		if useRWFAtomic {
			if _, ok := vol.(volume.AtomicWriter); !ok {
				return nil, errors.New("pagestore: RWF_ATOMIC requested on a volume that cannot issue it")
			}
		}
	}
	return &Store{vol: vol, mode: mode, useRWF: useRWFAtomic && mode == Atomic,
		dwBuf: volume.AlignedBuffer(DoublewritePages * page.Size)}, nil
}

// Mode is the torn-write protection in force.
func (s *Store) Mode() Mode { return s.mode }

// Volume is the underlying data volume.
func (s *Store) Volume() volume.Volume { return s.vol }

// Stats returns cumulative counters.
func (s *Store) Stats() Stats {
	return Stats{PageReads: s.reads.Load(), PageWrites: s.writes.Load(), DoublewriteWrites: s.dwWrites.Load(),
		Batches: s.batches.Load(), Repaired: s.repaired.Load(), Corrupt: s.corrupt.Load(), AtomicWrites: s.atomicW.Load(),
		Syncs: s.syncs.Load()}
}

func offset(id page.ID) int64 { return int64(id) * page.Size }

// Read reads page id into buf (page.Size bytes, aligned) and verifies it (PS-1).
func (s *Store) Read(id page.ID, buf []byte) error {
	if err := s.vol.ReadAt(buf, offset(id)); err != nil {
		return fmt.Errorf("read page %d: %w", id, err)
	}
	s.reads.Add(1)
	if err := page.Verify(buf, id); err != nil {
		s.corrupt.Add(1)
		return err
	}
	return nil
}

// WriteBatch seals and writes the given page images (each page.Size
// bytes, aligned, carrying its own id), durably in doublewrite mode, until
// the next Sync in atomic mode. The images are modified (checksum). PS-2,
// PS-4.
func (s *Store) WriteBatch(images [][]byte) error {
	if e := s.syncErr.Load(); e != nil {
		return *e // PS-5
	}
	for _, img := range images {
		if len(img) != page.Size || !volume.IsAligned(img) {
			panic("pagestore: batch image is not one aligned page")
		}
		page.Seal(img)
	}
	s.batchMu.Lock()
	defer s.batchMu.Unlock()
	for len(images) > 0 {
		n := len(images)
		if n > DoublewritePages {
			n = DoublewritePages
		}
		if err := s.writeChunk(images[:n]); err != nil {
			return err
		}
		images = images[n:]
	}
	return nil
}

func (s *Store) writeChunk(images [][]byte) error {
	s.batches.Add(1)
	if s.mode == Doublewrite {
		area := s.dwBuf[:len(images)*page.Size]
		for i, img := range images {
			copy(area[i*page.Size:], img)
		}
		if err := s.vol.WriteAt(area, offset(1)); err != nil {
			return fmt.Errorf("doublewrite: %w", err)
		}
		s.unsynced.Add(1)
		if err := s.sync(); err != nil {
			return fmt.Errorf("doublewrite sync: %w", err)
		}
		s.dwWrites.Add(int64(len(images)))
	}
	errs := make(chan error, len(images))
	sem := make(chan struct{}, maxParallelWrites)
	for _, img := range images {
		sem <- struct{}{}
		go func(img []byte) {
			defer func() { <-sem }()
			errs <- s.writeInPlace(img)
		}(img)
	}
	var first error
	for range images {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	s.writes.Add(int64(len(images)))
	s.unsynced.Add(int64(len(images)))
	if s.mode == Atomic {
		return nil // PS-4: durable at the next Sync
	}
	return s.Sync()
}

// Sync makes every completed page write durable (PS-4); it issues no
// volume sync when nothing was written since the last one.
func (s *Store) Sync() error {
	if err := s.sync(); err != nil {
		return fmt.Errorf("data sync: %w", err)
	}
	return nil
}

func (s *Store) sync() error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if e := s.syncErr.Load(); e != nil {
		return *e // PS-5
	}
	n := s.unsynced.Load()
	if n == 0 {
		return nil
	}
	s.syncs.Add(1)
	if err := s.vol.Sync(); err != nil {
		err = fmt.Errorf("data volume sync failed, writes since the last sync may be lost: %w", err)
		s.syncErr.Store(&err)
		return err
	}
	s.unsynced.Add(-n) // writes completed before the sync began are durable
	return nil
}

func (s *Store) writeInPlace(img []byte) error {
	id := page.IDOf(img)
	if id < FirstDataPage && id != MetaPage {
		panic(fmt.Sprintf("pagestore: write of page %d inside the doublewrite area", id))
	}
	var err error
	if s.useRWF {
		err = s.vol.(volume.AtomicWriter).WriteAtomic(img, offset(id))
		s.atomicW.Add(1)
	} else {
		err = s.vol.WriteAt(img, offset(id))
	}
	if err != nil {
		return fmt.Errorf("write page %d: %w", id, err)
	}
	return nil
}

// Recover repairs torn in-place pages from the doublewrite area (PS-2). It
// runs once at open, before redo, in every mode (an area left by an
// earlier doublewrite run must still be honoured).
func (s *Store) Recover() ([]page.ID, error) {
	area := s.dwBuf
	if err := s.vol.ReadAt(area, offset(1)); err != nil {
		return nil, fmt.Errorf("read doublewrite area: %w", err)
	}
	best := map[page.ID][]byte{}
	for i := 0; i < DoublewritePages; i++ {
		img := area[i*page.Size : (i+1)*page.Size]
		if page.IsZero(img) {
			continue
		}
		id := page.IDOf(img)
		if page.Verify(img, id) != nil || (id < FirstDataPage && id != MetaPage) {
			continue // a torn doublewrite copy: its in-place page was never touched
		}
		if cur, ok := best[id]; !ok || page.LSNOf(img) > page.LSNOf(cur) {
			best[id] = img
		}
	}
	var repaired []page.ID
	buf := volume.AlignedBuffer(page.Size)
	for id, img := range best {
		if err := s.vol.ReadAt(buf, offset(id)); err != nil {
			return nil, fmt.Errorf("read page %d: %w", id, err)
		}
		if page.Verify(buf, id) == nil && !page.IsZero(buf) {
			continue
		}
		ab := volume.AlignedBuffer(page.Size)
		copy(ab, img)
		if err := s.vol.WriteAt(ab, offset(id)); err != nil {
			return nil, fmt.Errorf("repair page %d: %w", id, err)
		}
		repaired = append(repaired, id)
	}
	if len(repaired) > 0 {
		if err := s.vol.Sync(); err != nil {
			return nil, err
		}
		s.repaired.Add(int64(len(repaired)))
	}
	sort.Slice(repaired, func(i, j int) bool { return repaired[i] < repaired[j] })
	return repaired, nil
}
