package txn

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestDeadlockDetected(t *testing.T) {
	m := NewLockManager(5 * time.Second)
	if _, err := m.Lock(1, "a", Exclusive); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Lock(2, "b", Exclusive); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := m.Lock(1, "b", Exclusive); done <- err }()
	time.Sleep(50 * time.Millisecond) // let txn 1 queue on "b"
	start := time.Now()
	_, err := m.Lock(2, "a", Exclusive)
	if !errors.Is(err, ErrDeadlock) {
		t.Fatalf("closing a cycle: %v, want ErrDeadlock", err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("deadlock was found by timeout, not detection")
	}
	m.Unlock(2, "b") // the victim rolls back
	if err := <-done; err != nil {
		t.Fatalf("survivor: %v", err)
	}
	if m.Deadlocks.Load() != 1 {
		t.Fatalf("deadlock counter %d", m.Deadlocks.Load())
	}
}

func TestLockWaitTimeout(t *testing.T) {
	m := NewLockManager(100 * time.Millisecond)
	m.Lock(1, "a", Exclusive)
	if _, err := m.Lock(2, "a", Exclusive); !errors.Is(err, ErrLockWaitTimeout) {
		t.Fatalf("got %v, want ErrLockWaitTimeout", err)
	}
	// The timed-out waiter left the queue: a release grants the next one.
	m.Unlock(1, "a")
	if _, err := m.Lock(3, "a", Exclusive); err != nil {
		t.Fatal(err)
	}
}

func TestSharedAndUpgrade(t *testing.T) {
	m := NewLockManager(time.Second)
	for id := ID(1); id <= 3; id++ {
		if _, err := m.Lock(id, "k", Shared); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error, 1)
	go func() { _, err := m.Lock(1, "k", Exclusive); got <- err }()
	select {
	case err := <-got:
		t.Fatalf("upgrade granted while others share: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	m.Unlock(2, "k")
	m.Unlock(3, "k")
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if fresh, err := m.Lock(1, "k", Shared); err != nil || fresh {
		t.Fatalf("re-lock in covered mode: fresh=%v err=%v", fresh, err)
	}
}

// TestMutualExclusion: concurrent increments under an exclusive lock are
// never lost (run with -race).
func TestMutualExclusion(t *testing.T) {
	m := NewLockManager(10 * time.Second)
	counter := 0
	var wg sync.WaitGroup
	var next atomic.Uint64
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				id := ID(next.Add(1))
				if _, err := m.Lock(id, "ctr", Exclusive); err != nil {
					t.Error(err)
					return
				}
				counter++
				m.Unlock(id, "ctr")
			}
		}()
	}
	wg.Wait()
	if counter != 1600 {
		t.Fatalf("counter %d, want 1600", counter)
	}
}

// TestRandomDeadlocks: transactions lock random keys in random order; every
// one either finishes or is a deadlock victim, none hangs.
func TestRandomDeadlocks(t *testing.T) {
	m := NewLockManager(3 * time.Second)
	var wg sync.WaitGroup
	var victims, timeouts atomic.Int64
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				id := ID(g*1000 + i + 1)
				var held []string
				for j := 0; j < 3; j++ {
					k := fmt.Sprint((g*7 + i*3 + j*5) % 6)
					_, err := m.Lock(id, k, Exclusive)
					if errors.Is(err, ErrDeadlock) {
						victims.Add(1)
						break
					}
					if err != nil {
						timeouts.Add(1)
						break
					}
					held = append(held, k)
				}
				for _, k := range held {
					m.Unlock(id, k)
				}
			}
		}(g)
	}
	wg.Wait()
	if timeouts.Load() > 0 {
		t.Fatalf("%d lock waits timed out: a deadlock went undetected", timeouts.Load())
	}
	t.Logf("%d deadlock victims", victims.Load())
}

func TestWriteSetSavepointAndRange(t *testing.T) {
	w := NewWriteSet()
	w.Put(Write{Keyspace: 1, Key: []byte("a"), Value: []byte("1")})
	w.Put(Write{Keyspace: 1, Key: []byte("c"), Value: []byte("3")})
	w.Put(Write{Keyspace: 2, Key: []byte("a"), Value: []byte("x")})
	sp := w.Savepoint()
	w.Put(Write{Keyspace: 1, Key: []byte("a"), Value: []byte("changed")})
	w.Put(Write{Keyspace: 1, Key: []byte("b"), Delete: true})
	w.RollbackTo(sp)
	if v, ok := w.Get(1, []byte("a")); !ok || string(v.Value) != "1" {
		t.Fatalf("after rollback a=%q %v", v.Value, ok)
	}
	if _, ok := w.Get(1, []byte("b")); ok {
		t.Fatal("b survived rollback")
	}
	var fwd, rev []string
	w.Range(1, nil, nil, false, func(c Write) bool { fwd = append(fwd, string(c.Key)); return true })
	w.Range(1, []byte("a"), []byte("c"), true, func(c Write) bool { rev = append(rev, string(c.Key)); return true })
	if fmt.Sprint(fwd) != "[a c]" || fmt.Sprint(rev) != "[a]" {
		t.Fatalf("ranges: fwd %v rev %v", fwd, rev)
	}
}

// A statement rolled back to its savepoint no longer counts in the write
// set's size (EN-6 bounds it).
func TestWriteSetSizeFollowsRollback(t *testing.T) {
	w := NewWriteSet()
	w.Put(Write{Keyspace: 1, Key: []byte("a"), Value: []byte("xyz")})
	bytes, mem := w.Bytes(), w.Memory()
	if mem != 4+PutOverhead || bytes != 4+16 {
		t.Fatalf("one change: bytes %d memory %d", bytes, mem)
	}
	sp := w.Savepoint()
	for i := 0; i < 100; i++ {
		w.Put(Write{Keyspace: 1, Key: []byte{byte(i)}, Value: make([]byte, 100)})
	}
	if w.Memory() <= mem+100*100 {
		t.Fatalf("memory %d after 100 changes of 101 bytes", w.Memory())
	}
	w.RollbackTo(sp)
	if w.Bytes() != bytes || w.Memory() != mem {
		t.Fatalf("after rollback: bytes %d memory %d, want %d %d", w.Bytes(), w.Memory(), bytes, mem)
	}
}

// TX-4: TryLock grants what TX-3 would grant at once, fails otherwise, and
// leaves no waiter behind.
func TestTryLock(t *testing.T) {
	m := NewLockManager(time.Second)
	if fresh, err := m.TryLock(1, "k", Exclusive); err != nil || !fresh {
		t.Fatalf("free key: %v %v", fresh, err)
	}
	if fresh, err := m.TryLock(1, "k", Shared); err != nil || fresh {
		t.Fatalf("held key again: %v %v", fresh, err)
	}
	if _, err := m.TryLock(2, "k", Shared); !errors.Is(err, ErrLockNotAvailable) {
		t.Fatalf("shared under exclusive: %v", err)
	}
	m.Unlock(1, "k")
	if _, err := m.TryLock(2, "k", Shared); err != nil {
		t.Fatalf("after release: %v", err)
	}
	if _, err := m.TryLock(3, "k", Shared); err != nil {
		t.Fatalf("shared beside shared: %v", err)
	}
	if _, err := m.TryLock(4, "k", Exclusive); !errors.Is(err, ErrLockNotAvailable) {
		t.Fatalf("exclusive under shared: %v", err)
	}
	m.Unlock(2, "k")
	m.Unlock(3, "k")
	if fresh, err := m.LockWait(4, "k", Exclusive, 10*time.Millisecond); err != nil || !fresh {
		t.Fatalf("a failed TryLock left something behind: %v %v", fresh, err)
	}
}
