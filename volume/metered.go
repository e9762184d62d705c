package volume

import (
	"sync/atomic"
	"time"
)

// MeteredStats are cumulative per-volume counters.
type MeteredStats struct {
	Name                             string
	Reads, Writes, Syncs             int64
	BytesRead, BytesWritten          int64
	ReadNanos, WriteNanos, SyncNanos int64
}

// Metered counts the I/O that passes through it.
type Metered struct {
	inner                                Volume
	reads, writes, syncs, rbytes, wbytes atomic.Int64
	rnanos, wnanos, snanos               atomic.Int64
	readsInFlight                        atomic.Int64
}

// NewMetered wraps inner.
func NewMetered(inner Volume) *Metered { return &Metered{inner: inner} }

// Inner is the wrapped volume.
func (m *Metered) Inner() Volume { return m.inner }

func (m *Metered) ReadAt(p []byte, off int64) error {
	t := time.Now()
	m.readsInFlight.Add(1)
	err := m.inner.ReadAt(p, off)
	m.readsInFlight.Add(-1)
	m.rnanos.Add(int64(time.Since(t)))
	m.reads.Add(1)
	m.rbytes.Add(int64(len(p)))
	return err
}

func (m *Metered) WriteAt(p []byte, off int64) error {
	t := time.Now()
	err := m.inner.WriteAt(p, off)
	m.wnanos.Add(int64(time.Since(t)))
	m.writes.Add(1)
	m.wbytes.Add(int64(len(p)))
	return err
}

// WriteAtomic forwards to the inner volume's RWF_ATOMIC write.
func (m *Metered) WriteAtomic(p []byte, off int64) error {
	aw, ok := m.inner.(AtomicWriter)
	if !ok {
		return errNoAtomic
	}
	t := time.Now()
	err := aw.WriteAtomic(p, off)
	m.wnanos.Add(int64(time.Since(t)))
	m.writes.Add(1)
	m.wbytes.Add(int64(len(p)))
	return err
}

func (m *Metered) Sync() error {
	t := time.Now()
	err := m.inner.Sync()
	m.snanos.Add(int64(time.Since(t)))
	m.syncs.Add(1)
	return err
}

func (m *Metered) Size() int64          { return m.inner.Size() }
func (m *Metered) AtomicWriteUnit() int { return m.inner.AtomicWriteUnit() }
func (m *Metered) Name() string         { return m.inner.Name() }
func (m *Metered) Close() error         { return m.inner.Close() }

// ReadsInFlight is the number of reads submitted and not yet returned.
func (m *Metered) ReadsInFlight() int64 { return m.readsInFlight.Load() }

// Stats returns the counters.
func (m *Metered) Stats() MeteredStats {
	return MeteredStats{Name: m.inner.Name(), Reads: m.reads.Load(), Writes: m.writes.Load(), Syncs: m.syncs.Load(),
		BytesRead: m.rbytes.Load(), BytesWritten: m.wbytes.Load(), ReadNanos: m.rnanos.Load(),
		WriteNanos: m.wnanos.Load(), SyncNanos: m.snanos.Load()}
}
