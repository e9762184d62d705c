package volume

import (
	"errors"
	"math/rand"
	"sync"
	"sync/atomic"
	"time"
)

// ErrInjected is the error a Faulty volume injects.
var ErrInjected = errors.New("volume: injected fault")

// OpKind selects operations for fault rules.
type OpKind int

const (
	OpRead OpKind = 1 << iota
	OpWrite
	OpSync
	OpAll = OpRead | OpWrite | OpSync
)

// Faulty wraps a volume and injects errors, latency, torn and lost writes
// (after pebble's errorfs). Every ReadAt/WriteAt/Sync gets an operation
// index from 0, so tests can sweep a fault over every index.
type Faulty struct {
	inner Volume
	ops   atomic.Int64

	mu       sync.Mutex
	errAt    map[int64]OpKind
	failFrom int64
	failKind OpKind
	latency  time.Duration
	tearN    int
	loseN    int
	rng      *rand.Rand
}

// NewFaulty wraps inner with no faults armed.
func NewFaulty(inner Volume) *Faulty {
	return &Faulty{inner: inner, errAt: map[int64]OpKind{}, failFrom: -1}
}

// InjectErrorAt fails operation opIndex if it is of one of the kinds.
func (f *Faulty) InjectErrorAt(opIndex int64, kinds OpKind) {
	f.mu.Lock()
	f.errAt[opIndex] = kinds
	f.mu.Unlock()
}

// FailFrom fails every operation of the kinds from opIndex on.
func (f *Faulty) FailFrom(opIndex int64, kinds OpKind) {
	f.mu.Lock()
	f.failFrom, f.failKind = opIndex, kinds
	f.mu.Unlock()
}

// SetLatency delays every operation.
func (f *Faulty) SetLatency(d time.Duration) { f.mu.Lock(); f.latency = d; f.mu.Unlock() }

// TearNextWrites makes the next n writes write only a random prefix of
// their sectors and report success.
func (f *Faulty) TearNextWrites(n int, rng *rand.Rand) {
	f.mu.Lock()
	f.tearN, f.rng = n, rng
	f.mu.Unlock()
}

// LoseNextWrites makes the next n writes report success and write nothing.
func (f *Faulty) LoseNextWrites(n int) { f.mu.Lock(); f.loseN = n; f.mu.Unlock() }

// Ops is the number of operations so far.
func (f *Faulty) Ops() int64 { return f.ops.Load() }

// Reset disarms every rule.
func (f *Faulty) Reset() {
	f.mu.Lock()
	f.errAt, f.failFrom, f.latency, f.tearN, f.loseN = map[int64]OpKind{}, -1, 0, 0, 0
	f.mu.Unlock()
}

func (f *Faulty) check(kind OpKind) error {
	idx := f.ops.Add(1) - 1
	f.mu.Lock()
	lat := f.latency
	k, hit := f.errAt[idx]
	fail := (hit && k&kind != 0) || (f.failFrom >= 0 && idx >= f.failFrom && f.failKind&kind != 0)
	f.mu.Unlock()
	if lat > 0 {
		time.Sleep(lat)
	}
	if fail {
		return ErrInjected
	}
	return nil
}

func (f *Faulty) ReadAt(p []byte, off int64) error {
	if err := f.check(OpRead); err != nil {
		return err
	}
	return f.inner.ReadAt(p, off)
}

func (f *Faulty) WriteAt(p []byte, off int64) error {
	if err := f.check(OpWrite); err != nil {
		return err
	}
	f.mu.Lock()
	lose, tear := f.loseN > 0, f.tearN > 0
	var keep int
	if lose {
		f.loseN--
	} else if tear {
		f.tearN--
		keep = f.rng.Intn(len(p)/512+1) * 512
	}
	f.mu.Unlock()
	switch {
	case lose:
		return nil
	case tear:
		if keep/BlockSize == 0 {
			return nil
		}
		return f.inner.WriteAt(p[:keep/BlockSize*BlockSize], off)
	}
	return f.inner.WriteAt(p, off)
}

func (f *Faulty) Sync() error {
	if err := f.check(OpSync); err != nil {
		return err
	}
	return f.inner.Sync()
}

func (f *Faulty) Size() int64          { return f.inner.Size() }
func (f *Faulty) AtomicWriteUnit() int { return f.inner.AtomicWriteUnit() }
func (f *Faulty) Name() string         { return f.inner.Name() }
func (f *Faulty) Close() error         { return f.inner.Close() }
