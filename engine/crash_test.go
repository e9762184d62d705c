package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"strata/page"
	"strata/volume"
)

// The bank workload: accounts hold balances; every transaction moves money
// between a few accounts (the total never changes), keeps a secondary index
// (balance, id) -> "" in step with the accounts, stamps every account it
// writes with a stamp taken after all its row locks, and inserts a receipt
// under that stamp. After any crash:
//   - the total is unchanged (no partial transaction),
//   - the index holds exactly the accounts' (balance, id) pairs,
//   - every acknowledged receipt exists (no lost commit),
//   - each account's stamp is at least the newest acknowledged stamp that
//     wrote it, and names an existing receipt.
const (
	bankAccounts = 64
	bankInitial  = 1000
)

type bank struct {
	db                   *DB
	acct, byBal, receipt *Keyspace
}

func acctKey(id int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(id)) }

func acctVal(bal int64, stamp uint64) []byte {
	v := binary.BigEndian.AppendUint64(nil, uint64(bal))
	return binary.BigEndian.AppendUint64(v, stamp)
}

func parseAcct(v []byte) (int64, uint64) {
	return int64(binary.BigEndian.Uint64(v)), binary.BigEndian.Uint64(v[8:])
}

func balKey(bal int64, id int) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(bal)^(1<<63))
	return append(k, acctKey(id)...)
}

func openBank(t testing.TB, db *DB, create bool) *bank {
	t.Helper()
	b := &bank{db: db}
	get := func(name string) *Keyspace {
		ks, err := db.Keyspace(name)
		if errors.Is(err, ErrNoKeyspace) && create {
			ks, err = db.CreateKeyspace(name)
		}
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	b.acct, b.byBal, b.receipt = get("acct"), get("acct_by_bal"), get("receipt")
	if create {
		tx := db.Begin()
		for i := 0; i < bankAccounts; i++ {
			must(t, tx.Insert(b.acct, acctKey(i), acctVal(bankInitial, 0)))
			must(t, tx.Insert(b.byBal, balKey(bankInitial, i), nil))
		}
		must(t, tx.Commit())
	}
	return b
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type ledger struct {
	mu    sync.Mutex
	acked map[uint64][]int // stamp -> accounts written
	stamp atomic.Uint64
}

// transfer runs one transaction; it returns the stamp if acknowledged.
func (b *bank) transfer(rng *rand.Rand, lg *ledger) (uint64, []int, error) {
	tx := b.db.Begin()
	defer tx.Rollback()
	n := 2 + rng.Intn(3)
	ids := rng.Perm(bankAccounts)[:n]
	bals := make([]int64, n)
	for i, id := range ids {
		v, ok, err := tx.GetForUpdate(b.acct, acctKey(id))
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			return 0, nil, fmt.Errorf("account %d missing", id)
		}
		bals[i], _ = parseAcct(v)
	}
	stamp := lg.stamp.Add(1)
	var moved int64
	for i := 1; i < n; i++ {
		amt := int64(rng.Intn(50))
		bals[i] -= amt
		moved += amt
	}
	newBals := append([]int64{bals[0] + moved}, bals[1:]...)
	for i, id := range ids {
		old, _, err := tx.Get(b.acct, acctKey(id))
		if err != nil {
			return 0, nil, err
		}
		ob, _ := parseAcct(old)
		if err := tx.Delete(b.byBal, balKey(ob, id)); err != nil {
			return 0, nil, err
		}
		if err := tx.Put(b.byBal, balKey(newBals[i], id), nil); err != nil {
			return 0, nil, err
		}
		if err := tx.Put(b.acct, acctKey(id), acctVal(newBals[i], stamp)); err != nil {
			return 0, nil, err
		}
	}
	// A bulky receipt so that the log wraps and pages split.
	size := 64 + rng.Intn(400)
	if rng.Intn(20) == 0 {
		size = 4000 + rng.Intn(11000) // an overflow chain
	}
	if err := tx.Insert(b.receipt, binary.BigEndian.AppendUint64(nil, stamp), make([]byte, size)); err != nil {
		return 0, nil, err
	}
	if err := tx.Commit(); err != nil {
		return 0, nil, err
	}
	return stamp, ids, nil
}

// verify checks the invariants listed above.
func (b *bank) verify(t testing.TB, acked map[uint64][]int) {
	t.Helper()
	if _, err := b.db.CheckIntegrity(); err != nil {
		t.Fatal(err)
	}
	tx := b.db.Begin()
	defer tx.Rollback()
	var total int64
	stamps := map[int]uint64{}
	want := map[string]bool{}
	it := tx.Scan(b.acct, nil, nil, false)
	for it.Next() {
		id := int(binary.BigEndian.Uint32(it.Key()))
		bal, stamp := parseAcct(it.Value())
		total += bal
		stamps[id] = stamp
		want[string(balKey(bal, id))] = true
	}
	must(t, it.Err())
	if len(stamps) != bankAccounts {
		t.Fatalf("%d accounts, want %d", len(stamps), bankAccounts)
	}
	if total != bankAccounts*bankInitial {
		t.Fatalf("total %d, want %d: a transaction was partially applied", total, bankAccounts*bankInitial)
	}
	it = tx.Scan(b.byBal, nil, nil, true)
	n := 0
	for it.Next() {
		if !want[string(it.Key())] {
			t.Fatalf("index entry %x has no matching account", it.Key())
		}
		n++
	}
	must(t, it.Err())
	if n != len(want) {
		t.Fatalf("index has %d entries, accounts %d", n, len(want))
	}
	newest := map[int]uint64{}
	for stamp, ids := range acked {
		if _, ok, err := tx.Get(b.receipt, binary.BigEndian.AppendUint64(nil, stamp)); err != nil || !ok {
			t.Fatalf("acknowledged commit %d lost (err %v)", stamp, err)
		}
		for _, id := range ids {
			newest[id] = max(newest[id], stamp)
		}
	}
	for id, s := range stamps {
		if s < newest[id] {
			t.Fatalf("account %d carries stamp %d, older than acknowledged %d", id, s, newest[id])
		}
		if s != 0 {
			if _, ok, _ := tx.Get(b.receipt, binary.BigEndian.AppendUint64(nil, s)); !ok {
				t.Fatalf("account %d carries stamp %d without a receipt", id, s)
			}
		}
	}
}

func crashCycles(t *testing.T) int {
	if s := os.Getenv("STRATA_CRASH_CYCLES"); s != "" {
		n, _ := strconv.Atoi(s)
		return n
	}
	if testing.Short() {
		return 30
	}
	return 200
}

func crashOptions(data, logv volume.Volume, mode string) Options {
	return Options{DataVolume: data, LogVolume: logv, BufferPoolBytes: 80 * page.Size,
		LogCapacity: 512 << 10, TornWriteProtection: mode, LockWaitTimeout: 2 * time.Second}
}

// TestCrashRecovery cuts power at random points of a concurrent workload,
// hundreds of times, tearing in-flight writes, and checks the bank
// invariants after every recovery.
func TestCrashRecovery(t *testing.T) {
	for _, mode := range []string{"doublewrite", "atomic"} {
		t.Run(mode, func(t *testing.T) {
			seed := time.Now().UnixNano()
			if s := os.Getenv("STRATA_CRASH_SEED"); s != "" {
				seed, _ = strconv.ParseInt(s, 10, 64)
			}
			t.Logf("seed %d (rerun: STRATA_CRASH_SEED=%d)", seed, seed)
			runCrashCycles(t, mode, seed, crashCycles(t))
		})
	}
}

func runCrashCycles(t *testing.T, mode string, seed int64, cycles int) {
	rng := rand.New(rand.NewSource(seed))
	unit := 0
	if mode == "atomic" {
		unit = page.Size
	}
	data := volume.NewMem("data", volume.MemOptions{AtomicWriteUnit: unit})
	logv := volume.NewMem("log", volume.MemOptions{})
	db, err := Open(crashOptions(data, logv, mode))
	must(t, err)
	b := openBank(t, db, true)
	lg := &ledger{acked: map[uint64][]int{}}
	b.verify(t, lg.acked)
	var totalAcked int
	for c := 0; c < cycles; c++ {
		var wg sync.WaitGroup
		var stop atomic.Bool
		for w := 0; w < 4; w++ {
			wg.Add(1)
			wrng := rand.New(rand.NewSource(rng.Int63()))
			go func() {
				defer wg.Done()
				for !stop.Load() {
					stamp, ids, err := b.transfer(wrng, lg)
					if err != nil {
						if errors.Is(err, ErrDeadlock) || errors.Is(err, ErrLockWaitTimeout) {
							continue
						}
						return // the volumes died under us
					}
					lg.mu.Lock()
					lg.acked[stamp] = ids
					lg.mu.Unlock()
				}
			}()
		}
		// A snapshot reader runs beside the writers (EN-8): every snapshot
		// sums to the bank's total, and commits record versions while it
		// is open, up to the power cut.
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				tx := db.Begin()
				tx.SetSnapshot()
				var total int64
				it := tx.Scan(b.acct, nil, nil, false)
				n := 0
				for it.Next() {
					bal, _ := parseAcct(it.Value())
					total += bal
					n++
				}
				err := it.Err()
				it.Close()
				tx.Rollback()
				if err != nil {
					return // the volumes died under us
				}
				if n == bankAccounts && total != bankAccounts*bankInitial {
					t.Errorf("a snapshot summed to %d, want %d", total, bankAccounts*bankInitial)
					return
				}
			}
		}()
		time.Sleep(time.Duration(rng.Intn(30)) * time.Millisecond)
		// Power cut: the data volume first, then the log (a later cut of
		// the log only adds records), then snapshot what was acknowledged.
		tear := rng.Intn(4) > 0
		data = data.Crash(rng, tear)
		logv = logv.Crash(rng, tear)
		stop.Store(true)
		db.Abandon()
		wg.Wait()
		lg.mu.Lock()
		acked := make(map[uint64][]int, len(lg.acked))
		for k, v := range lg.acked {
			acked[k] = v
		}
		lg.mu.Unlock()
		totalAcked = len(acked)

		db, err = Open(crashOptions(data, logv, mode))
		if err != nil {
			t.Fatalf("cycle %d: recovery failed: %v", c, err)
		}
		b = openBank(t, db, false)
		b.verify(t, acked)
		lg.acked = acked
	}
	must(t, db.Close())
	t.Logf("%d crash cycles, %d acknowledged transactions verified", cycles, totalAcked)
}
