package volume

import (
	"math/rand"
	"sync"
)

// MemOptions configure a Mem volume.
type MemOptions struct {
	// AtomicWriteUnit: aligned chunks of this size are never torn by Crash.
	AtomicWriteUnit int
	// SectorSize is the tearing granularity (default 512).
	SectorSize int
}

type pendingWrite struct {
	off  int64
	data []byte
}

// Mem is a crashable in-memory volume (after pebble's crashable MemFS). It
// keeps the current content and the durable content as of the last Sync;
// Crash builds the volume a power cut would leave behind.
//
// Durability: WriteAt is visible to ReadAt at once and durable only after
// Sync. Safe for concurrent use.
type Mem struct {
	name string
	opts MemOptions

	mu      sync.Mutex
	cur     map[int64][]byte // block index -> BlockSize bytes
	durable map[int64][]byte
	pending []pendingWrite // writes since the last Sync, in issue order
	size    int64
	closed  bool
}

// NewMem returns an empty Mem volume.
func NewMem(name string, opts MemOptions) *Mem {
	if opts.SectorSize <= 0 {
		opts.SectorSize = 512
	}
	return &Mem{name: name, opts: opts, cur: map[int64][]byte{}, durable: map[int64][]byte{}}
}

func (m *Mem) Name() string { return m.name }

func (m *Mem) AtomicWriteUnit() int { return m.opts.AtomicWriteUnit }

// SetAtomicWriteUnit changes the declared atomic unit.
func (m *Mem) SetAtomicWriteUnit(n int) { m.mu.Lock(); m.opts.AtomicWriteUnit = n; m.mu.Unlock() }

func (m *Mem) Size() int64 { m.mu.Lock(); defer m.mu.Unlock(); return m.size }

func (m *Mem) ReadAt(p []byte, off int64) error {
	if err := CheckIO(p, off); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for i := 0; i < len(p); i += BlockSize {
		if b, ok := m.cur[(off+int64(i))/BlockSize]; ok {
			copy(p[i:i+BlockSize], b)
		} else {
			clear(p[i : i+BlockSize])
		}
	}
	return nil
}

func (m *Mem) WriteAt(p []byte, off int64) error {
	if err := CheckIO(p, off); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	writeBlocks(m.cur, p, off)
	m.pending = append(m.pending, pendingWrite{off, append([]byte(nil), p...)})
	if end := off + int64(len(p)); end > m.size {
		m.size = end
	}
	return nil
}

func writeBlocks(dst map[int64][]byte, p []byte, off int64) {
	for i := 0; i < len(p); i += BlockSize {
		idx := (off + int64(i)) / BlockSize
		b, ok := dst[idx]
		if !ok {
			b = make([]byte, BlockSize)
			dst[idx] = b
		}
		copy(b, p[i:i+BlockSize])
	}
}

// writeSectors applies the sectors of p (relative offset) marked in keep.
func writeSectors(dst map[int64][]byte, p []byte, off int64, sector int, keep func(i int) bool) {
	for s := 0; s*sector < len(p); s++ {
		if !keep(s) {
			continue
		}
		pos := off + int64(s*sector)
		idx := pos / BlockSize
		b, ok := dst[idx]
		if !ok {
			b = make([]byte, BlockSize)
			dst[idx] = b
		}
		copy(b[pos%BlockSize:], p[s*sector:(s+1)*sector])
	}
}

func (m *Mem) Sync() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for _, w := range m.pending {
		writeBlocks(m.durable, w.data, w.off)
	}
	m.pending = m.pending[:0]
	return nil
}

func (m *Mem) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	return nil
}

// Crash simulates a power cut: it closes m (later I/O fails with ErrClosed)
// and returns a new volume holding the durable content plus, for each write
// since the last Sync, in order: nothing, all of it, or (tear) a random
// subset of its sectors, where each aligned AtomicWriteUnit chunk is kept
// whole or dropped whole.
func (m *Mem) Crash(rng *rand.Rand, tear bool) *Mem {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	n := NewMem(m.name, m.opts)
	for k, b := range m.durable {
		n.cur[k] = append([]byte(nil), b...)
	}
	sector := m.opts.SectorSize
	unit := m.opts.AtomicWriteUnit
	for _, w := range m.pending {
		switch choice := rng.Intn(3); {
		case choice == 0:
			// lost
		case choice == 1 || !tear:
			writeBlocks(n.cur, w.data, w.off)
		default:
			if unit >= sector && unit > 0 {
				// decide per atomic chunk (aligned on the volume)
				decided := map[int64]bool{}
				writeSectors(n.cur, w.data, w.off, sector, func(s int) bool {
					chunk := (w.off + int64(s*sector)) / int64(unit)
					keep, ok := decided[chunk]
					if !ok {
						keep = rng.Intn(2) == 0
						decided[chunk] = keep
					}
					return keep
				})
			} else {
				writeSectors(n.cur, w.data, w.off, sector, func(int) bool { return rng.Intn(2) == 0 })
			}
		}
	}
	for k := range n.cur {
		if end := (k + 1) * BlockSize; end > n.size {
			n.size = end
		}
	}
	// The survivor's content is all durable.
	for k, b := range n.cur {
		n.durable[k] = append([]byte(nil), b...)
	}
	return n
}
