// Package txn owns what a transaction holds before commit: row locks (a
// lock manager with deadlock detection and a wait timeout) and the private
// write set of buffered changes with savepoints (its rules, WS-n, are in
// writeset.go).
//
// Rules (cited as TX-n):
//
//	TX-1 Every write takes an exclusive lock on its key before it is
//	     buffered; locks are held until the transaction's changes are
//	     applied to the tree (commit) or dropped (rollback).
//	TX-2 A request that would close a cycle in the waits-for graph fails
//	     at once with ErrDeadlock (the requester is the victim); a wait
//	     longer than the timeout fails with ErrLockWaitTimeout. Either way the
//	     transaction keeps its other locks: the caller decides to roll back.
//	TX-3 Waiters are granted in arrival order; a new request that is
//	     compatible with the holders still queues behind earlier waiters,
//	     unless its transaction already holds the key (no starvation).
//	TX-4 TryLock never waits: a request TX-3 would queue fails at once with
//	     ErrLockNotAvailable and leaves nothing behind (NOWAIT, SKIP LOCKED).
package txn

import (
	"errors"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

// ID identifies a transaction.
type ID uint64

// Mode is a lock mode.
type Mode uint8

const (
	Shared Mode = iota + 1
	Exclusive
)

var (
	// ErrDeadlock: the request would deadlock (MySQL error 1213).
	ErrDeadlock = errors.New("Deadlock found when trying to get lock; try restarting transaction")
	// ErrLockWaitTimeout: the wait exceeded the timeout (MySQL error 1205).
	ErrLockWaitTimeout = errors.New("Lock wait timeout exceeded; try restarting transaction")
	// ErrLockNotAvailable: TryLock could not grant at once (TX-4).
	ErrLockNotAvailable = errors.New("lock not available without waiting")
)

const lockShards = 64

type waiter struct {
	txn     ID
	mode    Mode
	granted chan struct{}
}

// lockEntry is one key's holders and waiters (under its shard's mutex).
// Nearly every key has one holder: the holders start in inline, and a
// released entry goes back to entryPool, so taking a lock allocates
// nothing in the common case.
type lockEntry struct {
	holders []holder
	inline  [1]holder
	queue   []*waiter
}

type holder struct {
	txn  ID
	mode Mode
}

var entryPool = sync.Pool{New: func() any { return new(lockEntry) }}

func newLockEntry() *lockEntry {
	e := entryPool.Get().(*lockEntry)
	e.holders = e.inline[:0]
	return e
}

// held returns txn's mode on the key, if it holds it.
func (e *lockEntry) held(txn ID) (Mode, bool) {
	for _, h := range e.holders {
		if h.txn == txn {
			return h.mode, true
		}
	}
	return 0, false
}

// hold records txn holding the key in mode.
func (e *lockEntry) hold(txn ID, mode Mode) {
	for i := range e.holders {
		if e.holders[i].txn == txn {
			e.holders[i].mode = mode
			return
		}
	}
	e.holders = append(e.holders, holder{txn, mode})
}

// release drops txn from the holders.
func (e *lockEntry) release(txn ID) {
	for i, h := range e.holders {
		if h.txn == txn {
			e.holders = append(e.holders[:i], e.holders[i+1:]...)
			return
		}
	}
}

type lockShard struct {
	mu    sync.Mutex
	locks map[string]*lockEntry
}

// LockManager grants row locks on string keys.
type LockManager struct {
	seed    maphash.Seed
	shards  [lockShards]lockShard
	timeout time.Duration

	graphMu  sync.Mutex
	waitsFor map[ID]map[ID]struct{}

	// Deadlocks, Timeouts and Waits count lock requests by outcome.
	Deadlocks, Timeouts, Waits atomic.Int64
}

// NewLockManager returns a lock manager with the given wait timeout.
func NewLockManager(timeout time.Duration) *LockManager {
	m := &LockManager{seed: maphash.MakeSeed(), timeout: timeout, waitsFor: map[ID]map[ID]struct{}{}}
	for i := range m.shards {
		m.shards[i].locks = map[string]*lockEntry{}
	}
	return m
}

// SetTimeout changes the lock wait timeout.
func (m *LockManager) SetTimeout(d time.Duration) {
	m.graphMu.Lock()
	m.timeout = d
	m.graphMu.Unlock()
}

func (m *LockManager) shard(key string) *lockShard {
	return &m.shards[maphash.String(m.seed, key)%lockShards]
}

func compatible(a, b Mode) bool { return a == Shared && b == Shared }

// grantable reports whether txn may take mode now, given the holders.
func (e *lockEntry) grantable(txn ID, mode Mode) bool {
	for _, h := range e.holders {
		if h.txn != txn && !compatible(h.mode, mode) {
			return false
		}
	}
	return true
}

// Lock acquires key in mode for txn. It reports whether the lock is newly
// held by txn (false if txn already held it in a covering mode).
func (m *LockManager) Lock(txn ID, key string, mode Mode) (bool, error) {
	return m.LockWait(txn, key, mode, 0)
}

// LockWait is Lock waiting at most wait (0: the manager's timeout).
func (m *LockManager) LockWait(txn ID, key string, mode Mode, wait time.Duration) (bool, error) {
	return m.LockWaitInterruptible(txn, key, mode, wait, nil)
}

// TryLock grants the lock only if it can be granted at once (TX-4);
// fresh is true when the transaction did not hold it before.
func (m *LockManager) TryLock(txn ID, key string, mode Mode) (fresh bool, err error) {
	s := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, fresh, granted := grantNow(s, key, txn, mode); granted {
		return fresh, nil
	}
	return false, ErrLockNotAvailable
}

// grantNow grants the lock if TX-3 allows it without waiting (s.mu held):
// granted, and fresh when txn did not hold the key before; e is the key's
// entry and already whether txn holds it in some mode.
func grantNow(s *lockShard, key string, txn ID, mode Mode) (e *lockEntry, already, fresh, granted bool) {
	e = s.locks[key]
	if e == nil {
		e = newLockEntry()
		s.locks[key] = e
	}
	held, already := e.held(txn)
	if already && held >= mode {
		return e, true, false, true
	}
	if e.grantable(txn, mode) && (already || len(e.queue) == 0) { // TX-3
		e.hold(txn, mode)
		return e, already, !already, true
	}
	return e, already, false, false
}

// ErrInterrupted is returned by a lock wait whose interrupt channel closed
// (the statement was killed).
var ErrInterrupted = errors.New("txn: lock wait interrupted")

// LockWaitInterruptible is LockWait that also gives up, with
// ErrInterrupted, when interrupt is closed (nil: never).
func (m *LockManager) LockWaitInterruptible(txn ID, key string, mode Mode, wait time.Duration, interrupt <-chan struct{}) (bool, error) {
	s := m.shard(key)
	s.mu.Lock()
	e, already, fresh, granted := grantNow(s, key, txn, mode)
	if granted {
		s.mu.Unlock()
		return fresh, nil
	}
	w := &waiter{txn: txn, mode: mode, granted: make(chan struct{})}
	if already {
		// An upgrade goes first: it only waits for the other holders.
		e.queue = append([]*waiter{w}, e.queue...)
	} else {
		e.queue = append(e.queue, w)
	}
	blockers := m.blockersLocked(e, w)
	s.mu.Unlock()
	m.Waits.Add(1)

	if m.addEdgesAndDetect(txn, blockers) {
		if m.cancel(s, key, w) {
			m.Deadlocks.Add(1)
			return false, ErrDeadlock
		}
		m.clearEdges(txn)
		return !already, nil
	}
	timeout := wait
	if timeout <= 0 {
		m.graphMu.Lock()
		timeout = m.timeout
		m.graphMu.Unlock()
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-w.granted:
		m.clearEdges(txn)
		return !already, nil
	case <-interrupt:
		if m.cancel(s, key, w) {
			m.clearEdges(txn)
			return false, ErrInterrupted
		}
		m.clearEdges(txn)
		return !already, nil
	case <-t.C:
		if m.cancel(s, key, w) {
			m.Timeouts.Add(1)
			m.clearEdges(txn)
			return false, ErrLockWaitTimeout
		}
		m.clearEdges(txn)
		return !already, nil
	}
}

// blockersLocked lists the transactions w waits for: incompatible holders
// and incompatible waiters ahead of it.
func (m *LockManager) blockersLocked(e *lockEntry, w *waiter) []ID {
	var out []ID
	for _, h := range e.holders {
		if h.txn != w.txn && !compatible(h.mode, w.mode) {
			out = append(out, h.txn)
		}
	}
	for _, q := range e.queue {
		if q == w {
			break
		}
		if q.txn != w.txn && !compatible(q.mode, w.mode) {
			out = append(out, q.txn)
		}
	}
	return out
}

// cancel removes w from the queue; false if it was granted meanwhile.
func (m *LockManager) cancel(s *lockShard, key string, w *waiter) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-w.granted:
		return false
	default:
	}
	e := s.locks[key]
	for i, q := range e.queue {
		if q == w {
			e.queue = append(e.queue[:i], e.queue[i+1:]...)
			break
		}
	}
	m.grantLocked(s, key, e)
	return true
}

func (m *LockManager) addEdgesAndDetect(txn ID, blockers []ID) bool {
	m.graphMu.Lock()
	defer m.graphMu.Unlock()
	set := map[ID]struct{}{}
	for _, b := range blockers {
		set[b] = struct{}{}
	}
	m.waitsFor[txn] = set
	// DFS from the blockers looking for txn (TX-2).
	seen := map[ID]bool{}
	stack := append([]ID(nil), blockers...)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == txn {
			delete(m.waitsFor, txn)
			return true
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		for next := range m.waitsFor[n] {
			stack = append(stack, next)
		}
	}
	return false
}

func (m *LockManager) clearEdges(txn ID) {
	m.graphMu.Lock()
	delete(m.waitsFor, txn)
	m.graphMu.Unlock()
}

// grantLocked wakes the waiters at the head of the queue that can run, and
// refreshes the waits-for edges of those still waiting.
func (m *LockManager) grantLocked(s *lockShard, key string, e *lockEntry) {
	for len(e.queue) > 0 {
		w := e.queue[0]
		if !e.grantable(w.txn, w.mode) {
			break
		}
		e.hold(w.txn, w.mode)
		e.queue = e.queue[1:]
		close(w.granted)
	}
	if len(e.queue) > 0 {
		m.graphMu.Lock()
		for _, w := range e.queue {
			set := map[ID]struct{}{}
			for _, b := range m.blockersLocked(e, w) {
				set[b] = struct{}{}
			}
			m.waitsFor[w.txn] = set
		}
		m.graphMu.Unlock()
	}
	if len(e.holders) == 0 && len(e.queue) == 0 {
		delete(s.locks, key)
		if cap(e.holders) == len(e.inline) { // a grown holder list is not kept
			e.queue = nil
			entryPool.Put(e)
		}
	}
}

// Unlock releases txn's lock on key.
func (m *LockManager) Unlock(txn ID, key string) {
	s := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.locks[key]
	if e == nil {
		return
	}
	e.release(txn)
	m.grantLocked(s, key, e)
}
