package engine

import (
	"errors"
	"math/rand"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"strata/page"
)

// TestBackupUnderLoad (EN-12): backups taken while transfers commit (a
// small pool, so pages are written and torn reads retried during the
// copy) open as consistent databases: the bank's invariants hold (no
// partial transaction, index and accounts in step, every stamp with its
// receipt) and every transaction acknowledged before the backup began is
// there. A backup into an existing directory is refused.
func TestBackupUnderLoad(t *testing.T) {
	dir := t.TempDir()
	opts := func(d string) Options {
		return Options{Dir: d, BufferPoolBytes: 64 * page.Size, LogCapacity: 8 << 20, DisableDirectIO: true,
			TornWriteProtection: "doublewrite", LockWaitTimeout: 2 * time.Second}
	}
	db, err := Open(opts(filepath.Join(dir, "live")))
	must(t, err)
	// A slow copy: the transfers, page writes and checkpoint attempts go on
	// while it runs.
	backupPause = func() { time.Sleep(20 * time.Millisecond) }
	defer func() { backupPause = nil }()
	defer db.Close()
	b := openBank(t, db, true)
	lg := &ledger{acked: map[uint64][]int{}}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		rng := rand.New(rand.NewSource(int64(w)))
		go func() {
			defer wg.Done()
			for !stop.Load() {
				stamp, ids, err := b.transfer(rng, lg)
				if err != nil {
					if errors.Is(err, ErrDeadlock) || errors.Is(err, ErrLockWaitTimeout) {
						continue
					}
					t.Errorf("transfer: %v", err)
					return
				}
				lg.mu.Lock()
				lg.acked[stamp] = ids
				lg.mu.Unlock()
			}
		}()
	}
	for round := 0; round < 3; round++ {
		time.Sleep(300 * time.Millisecond)
		lg.mu.Lock()
		before := make(map[uint64][]int, len(lg.acked))
		for k, v := range lg.acked {
			before[k] = v
		}
		lg.mu.Unlock()
		to := filepath.Join(dir, "backup", string(rune('a'+round)))
		info, err := db.Backup(to)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Backup(to); err == nil {
			t.Fatal("a backup into an existing directory was accepted")
		}
		cp, err := Open(opts(to))
		if err != nil {
			t.Fatalf("round %d: opening the backup: %v", round, err)
		}
		openBank(t, cp, false).verify(t, before)
		if st := cp.Stats(); st.RecoveredRecords == 0 {
			t.Errorf("round %d: nothing committed during the copy: the test shows nothing", round)
		}
		st := cp.Stats()
		must(t, cp.Close())
		t.Logf("round %d: %d pages, LSN %d..%d, %d torn reads retried, %d records replayed, %d acknowledged before it verified",
			round, info.Pages, info.Start, info.End, info.Retries, st.RecoveredRecords, len(before))
	}
	stop.Store(true)
	wg.Wait()
}
