package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"strata/mvcc"
	"strata/page"
	"strata/volume"
)

// Tests of EN-9: a transaction's changes spill to its staging keyspace and
// it commits by rolling forward.

func stagedOptions(data, logv volume.Volume) Options {
	return Options{DataVolume: data, LogVolume: logv, BufferPoolBytes: 96 * page.Size,
		LogCapacity: 1 << 20, SpillBytes: 6 << 10}
}

func TestStageKeyOrder(t *testing.T) {
	keys := [][]byte{{}, {0}, {0, 0}, {0, 1}, {1}, {1, 0}, {1, 0, 0xFF}, {1, 0xFF}, {0xFF, 0}}
	var enc [][]byte
	for i, k := range keys {
		for _, pos := range []int64{1, 7, 1 << 40} {
			e := stageKey(3, k, pos, i%2 == 0)
			ks, key, p, del, err := parseStageKey(e)
			if err != nil || ks != 3 || !bytes.Equal(key, k) || p != pos || del != (i%2 == 0) {
				t.Fatalf("round trip of %x@%d: %d %x %d %v %v", k, pos, ks, key, p, del, err)
			}
			enc = append(enc, e)
		}
	}
	// Sorted staging keys: (key ascending, position descending).
	sort.Slice(enc, func(i, j int) bool { return bytes.Compare(enc[i], enc[j]) < 0 })
	for i := 1; i < len(enc); i++ {
		_, k0, p0, _, _ := parseStageKey(enc[i-1])
		_, k1, p1, _, _ := parseStageKey(enc[i])
		if c := bytes.Compare(k0, k1); c > 0 || (c == 0 && p0 <= p1) {
			t.Fatalf("staging order broken at %x@%d, %x@%d", k0, p0, k1, p1)
		}
	}
	// A range bound of a key sorts before every staging key of it and of
	// larger keys, after those of smaller keys.
	for _, b := range keys {
		lo := stagePrefix(3, b, false)
		for _, e := range enc {
			_, k, _, _, _ := parseStageKey(e)
			if (bytes.Compare(k, b) >= 0) != (bytes.Compare(e, lo) >= 0) {
				t.Fatalf("bound %x misplaces %x", b, k)
			}
		}
	}
}

// model is what one transaction should see: a committed base and its own
// changes.
type stageModel map[string]string

func (m stageModel) clone() stageModel {
	c := make(stageModel, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (m stageModel) scan(lo, hi string, reverse bool) []string {
	var keys []string
	for k := range m {
		if k >= lo && (hi == "" || k < hi) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, k+"="+m[k])
	}
	if reverse {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

func txScan(t *testing.T, tx *Tx, ks *Keyspace, lo, hi string, reverse bool) []string {
	t.Helper()
	var l, h []byte
	if lo != "" {
		l = []byte(lo)
	}
	if hi != "" {
		h = []byte(hi)
	}
	it := tx.Scan(ks, l, h, reverse)
	defer it.Close()
	var out []string
	for it.Next() {
		out = append(out, string(it.Key())+"="+string(it.Value()))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func modelKey(rng *rand.Rand) string {
	// Keys with NUL bytes and prefixes of each other exercise the escape.
	return fmt.Sprintf("k%03d", rng.Intn(400)) + strings.Repeat("\x00", rng.Intn(2))
}

// TestStagedTransactionModel runs random transactions that spill many
// times, with statement savepoints rolled back across spills, scans and
// reads checked against a model, then commit or roll back.
func TestStagedTransactionModel(t *testing.T) {
	data, logv := volume.NewMem("d", volume.MemOptions{}), volume.NewMem("l", volume.MemOptions{})
	db, err := Open(stagedOptions(data, logv))
	must(t, err)
	defer db.Close()
	ks, err := db.CreateKeyspace("t")
	must(t, err)
	names := db.Keyspaces()
	committed := stageModel{}
	rng := rand.New(rand.NewSource(7))
	// Background spills take a while, so that reads, scans and rollbacks
	// meet a write set still being spilled.
	testSpillWrite = func() { time.Sleep(3 * time.Millisecond) }
	defer func() { testSpillWrite = nil }()
	pendingReads := 0
	for round := 0; round < 6; round++ {
		tx := db.Begin()
		m := committed.clone()
		type sp struct {
			pos int
			m   stageModel
		}
		var sps []sp
		for op := 0; op < 4000; op++ {
			switch r := rng.Intn(100); {
			case r < 55:
				k := modelKey(rng)
				v := fmt.Sprintf("v%d-%d-%s", round, op, strings.Repeat("x", rng.Intn(40)))
				must(t, tx.Put(ks, []byte(k), []byte(v)))
				m[k] = v
			case r < 70:
				k := modelKey(rng)
				must(t, tx.Delete(ks, []byte(k)))
				delete(m, k)
			case r < 80:
				k := modelKey(rng)
				if tx.spilling != nil {
					pendingReads++
				}
				v, ok, err := tx.Get(ks, []byte(k))
				must(t, err)
				if want, wok := m[k]; ok != wok || string(v) != want {
					t.Fatalf("round %d op %d: get %q = %q %v, want %q %v", round, op, k, v, ok, want, wok)
				}
			case r < 85:
				sps = append(sps, sp{tx.Savepoint(), m.clone()})
			case r < 86 && len(sps) > 0:
				i := len(sps) - 1 - rng.Intn(min(len(sps), 3))
				tx.RollbackTo(sps[i].pos)
				m = sps[i].m.clone()
				sps = sps[:i+1]
			case r < 95:
				lo, hi := modelKey(rng), ""
				if rng.Intn(2) == 0 {
					hi = modelKey(rng)
				}
				rev := rng.Intn(2) == 0
				got, want := txScan(t, tx, ks, lo, hi, rev), m.scan(lo, hi, rev)
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Fatalf("round %d op %d: scan [%q,%q) rev=%v:\n got %d %v\nwant %d %v", round, op, lo, hi, rev, len(got), got, len(want), want)
				}
			}
		}
		if tx.stage == nil {
			t.Fatalf("round %d: the transaction never spilled (%d bytes, %d keys, spill at %d)", round, tx.ws.Bytes(), tx.ws.Len(), db.opts.SpillBytes)
		}
		if round%3 == 2 {
			tx.Rollback()
		} else {
			must(t, tx.Commit())
			committed = m
		}
		check := db.Begin()
		if got, want := txScan(t, check, ks, "", "", false), committed.scan("", "", false); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("round %d: after commit %d rows, want %d", round, len(got), len(want))
		}
		check.Rollback()
		if got := db.Keyspaces(); strings.Join(got, ",") != strings.Join(names, ",") {
			t.Fatalf("keyspaces %q, want %q", got, names)
		}
	}
	if pendingReads == 0 {
		t.Fatal("no read met a background spill")
	}
	if db.stagedCommits.Load() != 4 || db.spills.Load() < 20 {
		t.Fatalf("staged commits %d, spills %d", db.stagedCommits.Load(), db.spills.Load())
	}
	// Nothing of the staging keyspaces is left in the directory once the
	// background frees are done.
	db.dropping.Wait()
	it := db.dir.Scan(db.pool, nil, nil, false)
	for it.Next() {
		if it.Key()[0] == 0 {
			t.Errorf("directory entry %q left behind", it.Key())
		}
	}
	it.Close()
}

// TestStagedScanSeesItsStart: a scan open while the same transaction
// rewrites the range, spilling, sees the range as it was when it began
// (an UPDATE that moves rows ahead of its own cursor must not meet them).
func TestStagedScanSeesItsStart(t *testing.T) {
	db, err := Open(stagedOptions(volume.NewMem("d", volume.MemOptions{}), volume.NewMem("l", volume.MemOptions{})))
	must(t, err)
	defer db.Close()
	ks, err := db.CreateKeyspace("t")
	must(t, err)
	key := func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }
	tx := db.Begin()
	for i := 0; i < 500; i++ {
		must(t, tx.Put(ks, key(i), bytes.Repeat([]byte{1}, 50)))
	}
	must(t, tx.Commit())
	tx = db.Begin()
	it := tx.Scan(ks, nil, nil, false)
	n := 0
	for it.Next() {
		i := int(binary.BigEndian.Uint32(it.Key()))
		// Move every row ahead of the cursor, as UPDATE t SET id = id + 1000.
		must(t, tx.Delete(ks, key(i)))
		must(t, tx.Put(ks, key(i+1000), bytes.Repeat([]byte{2}, 50)))
		n++
	}
	must(t, it.Err())
	it.Close()
	if n != 500 || tx.stage == nil {
		t.Fatalf("scan saw %d rows (staged %v), want 500", n, tx.stage != nil)
	}
	must(t, tx.Commit())
	tx = db.Begin()
	defer tx.Rollback()
	got := txScan(t, tx, ks, "", "", false)
	if len(got) != 500 || !strings.HasPrefix(got[0], string(key(1000))) {
		t.Fatalf("after commit: %d rows", len(got))
	}
}

// TestStagedCommitCrash cuts the power at random moments while a
// transaction far larger than the pool and a quarter of the log stages
// and commits: after recovery it is there whole if acknowledged, and
// otherwise whole or not at all; other transactions' commits survive.
func TestStagedCommitCrash(t *testing.T) {
	const rows = 3000
	rng := rand.New(rand.NewSource(11))
	data, logv := volume.NewMem("d", volume.MemOptions{}), volume.NewMem("l", volume.MemOptions{})
	db, err := Open(stagedOptions(data, logv))
	must(t, err)
	ks, err := db.CreateKeyspace("big")
	must(t, err)
	small, err := db.CreateKeyspace("small")
	must(t, err)
	val := func(gen int) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(gen)), bytes.Repeat([]byte{'v'}, 150)...)
	}
	key := func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }
	acked := 0 // the newest generation acknowledged
	smallAcked := 0
	cycles := 12
	if testing.Short() {
		cycles = 4
	}
	var results []string
	for c := 1; c <= cycles; c++ {
		gen := c
		done := make(chan error, 1)
		go func() {
			tx := db.Begin()
			for i := 0; i < rows; i++ {
				if err := tx.Put(ks, key(i), val(gen)); err != nil {
					tx.Rollback()
					done <- err
					return
				}
			}
			done <- tx.Commit()
		}()
		smallDone := make(chan int, 1)
		go func() { // small commits beside it
			n := smallAcked
			for i := smallAcked + 1; ; i++ {
				tx := db.Begin()
				if tx.Put(small, key(i), val(i)) != nil || tx.Commit() != nil {
					break
				}
				n = i
			}
			smallDone <- n
		}()
		time.Sleep(time.Duration(rng.Intn(120)) * time.Millisecond)
		data, logv = data.Crash(rng, false), logv.Crash(rng, false)
		err := <-done
		db.Abandon()
		smallAcked = max(smallAcked, <-smallDone)
		if err == nil {
			acked = gen
		}
		db, err = Open(stagedOptions(data, logv))
		if err != nil {
			t.Fatalf("cycle %d: recovery: %v", c, err)
		}
		if ks, err = db.Keyspace("big"); err != nil {
			t.Fatal(err)
		}
		if small, err = db.Keyspace("small"); err != nil {
			t.Fatal(err)
		}
		tx := db.Begin()
		gens := map[int]int{}
		it := tx.Scan(ks, nil, nil, false)
		for it.Next() {
			gens[int(binary.BigEndian.Uint32(it.Value()))]++
		}
		must(t, it.Err())
		it.Close()
		for i := 1; i <= smallAcked; i++ {
			if _, ok, err := tx.Get(small, key(i)); err != nil || !ok {
				t.Fatalf("cycle %d: acknowledged small commit %d lost (%v)", c, i, err)
			}
		}
		tx.Rollback()
		if len(gens) > 1 || (acked > 0 && len(gens) == 0) {
			t.Fatalf("cycle %d: generations %v after recovery (acknowledged %d): a partial transaction", c, gens, acked)
		}
		for g, n := range gens {
			if n != rows || g < acked {
				t.Fatalf("cycle %d: %d rows of generation %d, acknowledged %d", c, n, g, acked)
			}
			acked = g
		}
		results = append(results, fmt.Sprintf("%d/%v", acked, gens))
		if names := db.Keyspaces(); len(names) != 2 {
			t.Fatalf("cycle %d: keyspaces %q", c, names)
		}
	}
	must(t, db.Close())
	t.Logf("cycles: %v", results)
}

// TestStagedRunsFreedAfterClose: a staged commit frees its runs in the
// background (EN-9); a Close that stops it leaves pending drops that the
// next Open finishes, so no page is lost or freed twice.
func TestStagedRunsFreedAfterClose(t *testing.T) {
	opts := Options{Dir: t.TempDir(), BufferPoolBytes: 96 * page.Size, LogCapacity: 1 << 20, SpillBytes: 6 << 10}
	db, err := Open(opts)
	must(t, err)
	ks, err := db.CreateKeyspace("t")
	must(t, err)
	release := make(chan struct{})
	testDropRun = func() { <-release } // hold the frees until Close has begun
	defer func() { testDropRun = nil }()
	tx := db.Begin()
	for i := 0; i < 2000; i++ {
		must(t, tx.Put(ks, binary.BigEndian.AppendUint32(nil, uint32(i)), bytes.Repeat([]byte{'v'}, 100)))
	}
	must(t, tx.Commit())
	if db.stagedCommits.Load() != 1 || db.spills.Load() < 2 {
		t.Fatalf("staged commits %d, spills %d", db.stagedCommits.Load(), db.spills.Load())
	}
	pending := func(db *DB) int {
		n := 0
		it := db.dir.Scan(db.pool, nil, nil, false)
		for it.Next() {
			if bytes.HasPrefix(it.Key(), []byte("\x00drop\x00")) {
				n++
			}
		}
		must(t, it.Err())
		it.Close()
		return n
	}
	if n := pending(db); n < 2 {
		t.Fatalf("%d pending drops while the frees are held", n)
	}
	go func() { time.Sleep(20 * time.Millisecond); close(release) }()
	must(t, db.Close()) // stops the frees after at most the run in hand
	testDropRun = nil
	db, err = Open(opts)
	must(t, err)
	defer db.Close()
	if n := pending(db); n != 0 {
		t.Fatalf("%d pending drops after reopening", n)
	}
	if _, err := db.CheckIntegrity(); err != nil {
		t.Fatal(err)
	}
	ks, err = db.Keyspace("t")
	must(t, err)
	check := db.Begin()
	defer check.Rollback()
	if got := txScan(t, check, ks, "", "", false); len(got) != 2000 {
		t.Fatalf("%d rows after reopening", len(got))
	}
}

// TestStagedApplyCrash cuts the power after the commit record is durable,
// in the middle of the roll-forward: recovery finishes the transaction.
func TestStagedApplyCrash(t *testing.T) {
	for _, cutAfter := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(cutAfter), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(cutAfter)))
			data, logv := volume.NewMem("d", volume.MemOptions{}), volume.NewMem("l", volume.MemOptions{})
			db, err := Open(stagedOptions(data, logv))
			must(t, err)
			ks, err := db.CreateKeyspace("big")
			must(t, err)
			key := func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }
			tx := db.Begin()
			for i := 0; i < 3000; i++ {
				must(t, tx.Put(ks, key(i), bytes.Repeat([]byte{'a'}, 150)))
			}
			batches := 0
			testApplyBatch = func(db *DB, end page.LSN) {
				if batches++; batches == cutAfter {
					must(t, db.log.WaitDurable(end))
					data, logv = data.Crash(rng, true), logv.Crash(rng, true)
				}
			}
			defer func() { testApplyBatch = nil }()
			if err := tx.Commit(); err == nil {
				t.Fatal("the commit survived the power cut")
			}
			testApplyBatch = nil
			db.Abandon()
			db, err = Open(stagedOptions(data, logv))
			must(t, err)
			defer db.Close()
			ks, err = db.Keyspace("big")
			must(t, err)
			check := db.Begin()
			defer check.Rollback()
			if got := txScan(t, check, ks, "", "", false); len(got) != 3000 {
				t.Fatalf("%d rows after recovery, want 3000", len(got))
			}
		})
	}
}

// TestStagedCommitSnapshots: a snapshot older than a staged commit cannot
// read the keyspaces it changed (1412, mvcc MV-6) but reads the others; a
// snapshot taken after it sees all of it.
func TestStagedCommitSnapshots(t *testing.T) {
	db, err := Open(stagedOptions(volume.NewMem("d", volume.MemOptions{}), volume.NewMem("l", volume.MemOptions{})))
	must(t, err)
	defer db.Close()
	big, err := db.CreateKeyspace("big")
	must(t, err)
	other, err := db.CreateKeyspace("other")
	must(t, err)
	key := func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }
	w := db.Begin()
	must(t, w.Put(other, key(1), []byte("x")))
	must(t, w.Put(big, key(1), []byte("old")))
	must(t, w.Commit())
	old := db.Begin()
	old.SetSnapshot()
	if _, _, err := old.Get(big, key(1)); err != nil { // opens the snapshot
		t.Fatal(err)
	}
	tx := db.Begin()
	for i := 0; i < 2000; i++ {
		must(t, tx.Put(big, key(i), bytes.Repeat([]byte{'n'}, 100)))
	}
	must(t, tx.Commit())
	if _, _, err := old.Get(big, key(1)); !errors.Is(err, mvcc.ErrSnapshotTooOld) {
		t.Fatalf("old snapshot read the changed keyspace: %v", err)
	}
	if v, ok, err := old.Get(other, key(1)); err != nil || !ok || string(v) != "x" {
		t.Fatalf("old snapshot of an unchanged keyspace: %q %v %v", v, ok, err)
	}
	old.Rollback()
	fresh := db.Begin()
	fresh.SetSnapshot()
	defer fresh.Rollback()
	if got := txScan(t, fresh, big, "", "", false); len(got) != 2000 {
		t.Fatalf("new snapshot sees %d rows", len(got))
	}
}

// TestLockEscalation (EN-10): past LockEscalation row locks in a keyspace a
// transaction locks it whole, unless another transaction holds a row lock
// there; then others wait at the keyspace, other keyspaces are free.
func TestLockEscalation(t *testing.T) {
	opts := stagedOptions(volume.NewMem("d", volume.MemOptions{}), volume.NewMem("l", volume.MemOptions{}))
	opts.LockEscalation = 100
	db, err := Open(opts)
	must(t, err)
	defer db.Close()
	a, err := db.CreateKeyspace("a")
	must(t, err)
	b, err := db.CreateKeyspace("b")
	must(t, err)
	key := func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i)) }

	// Another transaction's row lock in a blocks the escalation there.
	other := db.Begin()
	must(t, other.Put(a, key(1_000_000), []byte("o")))
	big := db.Begin()
	for i := 0; i < 150; i++ {
		must(t, big.Put(a, key(i), []byte("x")))
	}
	if big.escalated[a.id] || len(big.held) < 150 {
		t.Fatalf("escalated beside another transaction's row lock (held %d)", len(big.held))
	}
	must(t, other.Commit())
	for i := 150; i < 300; i++ { // the next doubling (256) escalates
		must(t, big.Put(a, key(i), []byte("x")))
	}
	if !big.escalated[a.id] || len(big.held) > 2 {
		t.Fatalf("not escalated: %d locks held", len(big.held))
	}
	for i := 300; i < 2000; i++ {
		must(t, big.Put(a, key(i), []byte("x")))
	}
	if len(big.held) > 2 {
		t.Fatalf("%d locks held after escalation", len(big.held))
	}
	// Others wait at the keyspace, even for rows big never touched...
	o := db.Begin()
	if _, _, err := o.TryGetLocked(a, key(5_000_000), false); !errors.Is(err, ErrLockNotAvailable) {
		t.Fatalf("row of an escalated keyspace: %v", err)
	}
	o.SetLockWaitTimeout(50 * time.Millisecond)
	if err := o.Put(a, key(7), []byte("y")); !errors.Is(err, ErrLockWaitTimeout) {
		t.Fatalf("write into an escalated keyspace: %v", err)
	}
	// ...but not in another keyspace.
	must(t, o.Put(b, key(7), []byte("y")))
	must(t, o.Commit())
	must(t, big.Commit())
	after := db.Begin()
	must(t, after.Put(a, key(7), []byte("z")))
	must(t, after.Commit())
	// Shared locks (a SERIALIZABLE or LOCK IN SHARE MODE read) never
	// escalate: the table would be locked exclusively.
	reader := db.Begin()
	for i := 0; i < 300; i++ {
		if _, _, err := reader.GetForShare(a, key(i)); err != nil {
			t.Fatal(err)
		}
	}
	if reader.escalated[a.id] {
		t.Fatal("shared row locks escalated")
	}
	reader.Rollback()
	if db.escalations.Load() != 1 {
		t.Fatalf("escalations %d", db.escalations.Load())
	}
}

// TestLockEscalationLongKeys (EN-10): with long keys the row locks' memory
// nears MaxTxnMemory before their count reaches LockEscalation; the
// transaction escalates on memory instead of failing with 1206.
func TestLockEscalationLongKeys(t *testing.T) {
	opts := stagedOptions(volume.NewMem("d", volume.MemOptions{}), volume.NewMem("l", volume.MemOptions{}))
	opts.MaxTxnMemory = 1 << 20 // 1,700 locks of 450-byte keys would pass it; LockEscalation stays 16,384
	db, err := Open(opts)
	must(t, err)
	defer db.Close()
	ks, err := db.CreateKeyspace("long")
	must(t, err)
	tx := db.Begin()
	for i := 0; i < 5000; i++ {
		k := append(bytes.Repeat([]byte{'k'}, 450), binary.BigEndian.AppendUint32(nil, uint32(i))...)
		if err := tx.Put(ks, k, []byte("v")); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	if !tx.escalated[ks.id] {
		t.Fatalf("not escalated: %d locks held", len(tx.held))
	}
	must(t, tx.Commit())
}

// TestRunBloom: a run's filter never misses a key it holds (a read would
// skip a staged change) and rejects most others.
func TestRunBloom(t *testing.T) {
	b := newBloom(10000)
	for i := 0; i < 10000; i++ {
		b.add(uint32(i%3), []byte(fmt.Sprintf("key%d", i)))
	}
	for i := 0; i < 10000; i++ {
		if !b.has(uint32(i%3), []byte(fmt.Sprintf("key%d", i))) {
			t.Fatalf("key%d missing", i)
		}
	}
	fp := 0
	for i := 0; i < 10000; i++ {
		if b.has(uint32(i%3), []byte(fmt.Sprintf("other%d", i))) || b.has(uint32(i%3+1), []byte(fmt.Sprintf("key%d", i))) {
			fp++
		}
	}
	if fp > 600 { // two probes each at ~1%
		t.Fatalf("%d false positives of 20000", fp)
	}
}
