package binlog

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"strata/engine"
	"strata/page"
	"strata/volume"
)

func memOptions(data, logv volume.Volume) engine.Options {
	return engine.Options{DataVolume: data, LogVolume: logv, BufferPoolBytes: 200 * page.Size,
		LogCapacity: 2 << 20, TornWriteProtection: "doublewrite", LockWaitTimeout: 2 * time.Second}
}

// event is one event read back from the log's entries.
type event struct {
	file uint32
	pos  uint64
	raw  []byte
}

// readAll walks every entry in key order and checks the framing (BL-1,
// BL-3): each file starts with the magic and a Format_description, each
// event's checksum holds and its next position is where the next event
// starts, entries tile their file, and a file other than the last ends
// with a Rotate naming the next.
func readAll(t *testing.T, l *Log) []event {
	t.Helper()
	tx := l.db.Begin()
	defer tx.Rollback()
	it := tx.Scan(l.ks, key(1, 0), key(0xff000000, 0), false)
	defer it.Close()
	var out []event
	var file uint32
	var next uint64
	for it.Next() {
		f, p := splitKey(it.Key())
		v := append([]byte(nil), it.Value()...)
		if f != file {
			if file != 0 {
				last := out[len(out)-1].raw
				if last[4] != typeRotate || string(last[headerLen+8:len(last)-checksumLen]) != l.FileName(f) {
					t.Fatalf("file %d does not end with a Rotate to %s", file, l.FileName(f))
				}
			}
			if p != 0 || string(v[:4]) != "\xfebin" || v[4+4] != typeFormat {
				t.Fatalf("file %d starts at %d without the magic and a Format_description", f, p)
			}
			file, next = f, 4
			v = v[4:]
			p = 4
		}
		if p != next {
			t.Fatalf("entry %d:%d, want it at %d", f, p, next)
		}
		for off := 0; off < len(v); {
			size := int(binary.LittleEndian.Uint32(v[off+9:]))
			ev := v[off : off+size]
			if crc32.ChecksumIEEE(ev[:size-4]) != binary.LittleEndian.Uint32(ev[size-4:]) {
				t.Fatalf("event at %d:%d: bad checksum", f, p+uint64(off))
			}
			if end := binary.LittleEndian.Uint32(ev[13:]); uint64(end) != p+uint64(off+size) {
				t.Fatalf("event at %d:%d: next position %d, want %d", f, p+uint64(off), end, p+uint64(off+size))
			}
			out = append(out, event{file: f, pos: p + uint64(off), raw: ev})
			off += size
		}
		next = p + uint64(len(v))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCommitsAndCrashes: concurrent transactions, each inserting a key in
// a data keyspace and capturing its row for the log, some rolled back
// whole or to a savepoint, under power cuts with torn writes. After every
// recovery (BL-1): the keys in the data keyspace are exactly the keys in
// the log's row events, every acknowledged key is in both, GTID numbers
// run 1..n in log order, the framing holds across files (rotated by size
// and at each open), and the log goes on where it stopped.
func TestCommitsAndCrashes(t *testing.T) {
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	data := volume.NewMem("data", volume.MemOptions{})
	logv := volume.NewMem("log", volume.MemOptions{})
	sch := sql.Schema{{Name: "k", Type: types.Int64}, {Name: "v", Type: types.Text, Nullable: true}}
	tb, err := NewTable(5, "d", "t", sch)
	if err != nil {
		t.Fatal(err)
	}
	acked := map[int64]bool{}
	var mu sync.Mutex
	var nextKey atomic.Int64
	for cycle := 0; cycle < 8; cycle++ {
		db, err := engine.Open(memOptions(data, logv))
		if err != nil {
			t.Fatalf("cycle %d: %v", cycle, err)
		}
		l, err := Open(db, Options{ServerID: 1, MaxFileSize: 16 << 10, Version: "8.0.33-test"})
		if err != nil {
			t.Fatal(err)
		}
		ks, err := db.Keyspace("rows")
		if errors.Is(err, engine.ErrNoKeyspace) {
			ks, err = db.CreateKeyspace("rows")
		}
		if err != nil {
			t.Fatal(err)
		}
		verify(t, l, db, ks, acked)
		var stop atomic.Bool
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(seed int64) {
				defer wg.Done()
				r := rand.New(rand.NewSource(seed))
				for !stop.Load() {
					tx := db.Begin()
					x := l.NewTxn()
					var keys []int64
					for i := 0; i < 1+r.Intn(3); i++ {
						k := nextKey.Add(1)
						sp := tx.Savepoint()
						if tx.Put(ks, binary.BigEndian.AppendUint64(nil, uint64(k)), nil) != nil {
							tx.Rollback()
							return
						}
						if err := x.Insert(sp, tb, sql.Row{k, "value"}); err != nil {
							t.Error(err)
							tx.Rollback()
							return
						}
						if r.Intn(4) == 0 { // a statement rolled back
							tx.RollbackTo(sp)
							x.RollbackTo(sp)
							continue
						}
						keys = append(keys, k)
					}
					if r.Intn(5) == 0 {
						tx.Rollback()
						continue
					}
					p := l.Prepare(tx, x)
					if tx.Commit() != nil {
						return // the volumes died under us
					}
					l.Committed(p)
					mu.Lock()
					for _, k := range keys {
						acked[k] = true
					}
					mu.Unlock()
				}
			}(rng.Int63())
		}
		time.Sleep(time.Duration(20+rng.Intn(60)) * time.Millisecond)
		tear := rng.Intn(2) == 0
		data = data.Crash(rng, tear)
		logv = logv.Crash(rng, tear)
		stop.Store(true)
		l.Close()
		db.Abandon()
		wg.Wait()
	}
	db, err := engine.Open(memOptions(data, logv))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(db, Options{ServerID: 1, MaxFileSize: 16 << 10, Version: "8.0.33-test"})
	if err != nil {
		t.Fatal(err)
	}
	ks, _ := db.Keyspace("rows")
	n := verify(t, l, db, ks, acked)
	t.Logf("%d acknowledged keys, %d transactions in the log", len(acked), n)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// verify checks TestCommitsAndCrashes's invariants and returns the number
// of transactions in the log.
func verify(t *testing.T, l *Log, db *engine.DB, ks *engine.Keyspace, acked map[int64]bool) int {
	t.Helper()
	inData := map[int64]bool{}
	tx := db.Begin()
	it := tx.Scan(ks, nil, nil, false)
	for it.Next() {
		inData[int64(binary.BigEndian.Uint64(it.Key()))] = true
	}
	it.Close()
	tx.Rollback()
	f := l.format
	inLog := map[int64]bool{}
	var tm *mysql.TableMap
	gno := int64(0)
	for _, e := range readAll(t, l) {
		ev, _, err := mysql.NewMysql56BinlogEvent(e.raw).StripChecksum(f)
		if err != nil {
			t.Fatal(err)
		}
		switch e.raw[4] {
		case typeGTID:
			g, _ := gnoOf(e.raw)
			if g != gno+1 {
				t.Fatalf("GTID %d after %d at %d:%d", g, gno, e.file, e.pos)
			}
			gno = g
		case typeTableMap:
			var err error
			if tm, err = ev.TableMap(f); err != nil {
				t.Fatal(err)
			}
		case typeWriteRows:
			rows, err := ev.Rows(f, tm)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows.Rows {
				k := int64(binary.LittleEndian.Uint64(r.Data))
				if inLog[k] {
					t.Fatalf("key %d logged twice", k)
				}
				inLog[k] = true
			}
		}
	}
	for k := range inData {
		if !inLog[k] {
			t.Fatalf("key %d committed without its event", k)
		}
	}
	for k := range inLog {
		if !inData[k] {
			t.Fatalf("key %d logged but not committed", k)
		}
	}
	for k := range acked {
		if !inData[k] {
			t.Fatalf("acknowledged key %d lost", k)
		}
	}
	if _, _, gtids := l.Status(); gno > 0 && gtids != l.ServerUUID()+":1-"+itoa(gno) {
		t.Fatalf("status GTIDs %q after %d transactions", gtids, gno)
	}
	return int(gno)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestLargeTransaction (BL-7, BL-10): a transaction of 3 MiB of row images
// commits as several entries cut between events, read back whole with
// every row; one past max_binlog_cache_size (an eighth of the 32 MiB log)
// fails with 1197 and leaves the capture usable.
func TestLargeTransaction(t *testing.T) {
	data := volume.NewMem("data", volume.MemOptions{})
	logv := volume.NewMem("log", volume.MemOptions{})
	opts := memOptions(data, logv)
	opts.LogCapacity = 32 << 20
	opts.BufferPoolBytes = 2000 * page.Size
	db, err := engine.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := Open(db, Options{ServerID: 1, Version: "8.0.33-test"})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewTable(5, "d", "t", sql.Schema{{Name: "k", Type: types.Int64}, {Name: "v", Type: types.Text}})
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 300)
	tx := db.Begin()
	x := l.NewTxn()
	for k := int64(0); k < 10000; k++ {
		if err := x.Insert(tx.Savepoint(), tb, sql.Row{k, pad}); err != nil {
			t.Fatal(err)
		}
	}
	p := l.Prepare(tx, x)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	l.Committed(p)
	x.Reset()
	entries := 0
	rows := 0
	var tm *mysql.TableMap
	for _, e := range readAll(t, l) {
		ev, _, err := mysql.NewMysql56BinlogEvent(e.raw).StripChecksum(l.format)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.IsTableMap():
			tm, _ = ev.TableMap(l.format)
		case ev.IsWriteRows():
			r, err := ev.Rows(l.format, tm)
			if err != nil {
				t.Fatal(err)
			}
			rows += len(r.Rows)
		}
	}
	tx2 := db.Begin()
	it := tx2.Scan(l.ks, key(1, 0), key(0xff000000, 0), false)
	for it.Next() {
		entries++
	}
	it.Close()
	tx2.Rollback()
	if rows != 10000 || entries < 4 {
		t.Fatalf("%d rows in %d entries, want 10000 rows in at least 4", rows, entries)
	}
	var err1197 error
	for k := int64(0); k < 20000 && err1197 == nil; k++ {
		err1197 = x.Insert(int(k), tb, sql.Row{k, pad})
	}
	var se *mysql.SQLError
	if !errors.As(err1197, &se) || se.Num != 1197 {
		t.Fatalf("past max_binlog_cache_size: %v, want 1197", err1197)
	}
	x.Reset()
	if err := x.Insert(0, tb, sql.Row{int64(1), "after"}); err != nil {
		t.Fatalf("the capture after 1197: %v", err)
	}
	t.Logf("%d rows in %d entries", rows, entries)
}

// TestAppendsFillLeaves: the log's entries are its keyspace's last keys
// (the uuid sorts first), so a full leaf splits by moving on (btree BT-6):
// the redo a commit adds for its events stays near their size. With the
// uuid's old key, last in the keyspace, every leaf split in halves and a
// commit of ~1 KB of events logged ~3 KB more redo. A log whose uuid is
// under the old key keeps its uuid, moved, at open.
func TestAppendsFillLeaves(t *testing.T) {
	data := volume.NewMem("data", volume.MemOptions{})
	logv := volume.NewMem("log", volume.MemOptions{})
	o := memOptions(data, logv)
	o.LogCapacity, o.BufferPoolBytes = 64<<20, 64<<20
	db, err := engine.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := Open(db, Options{ServerID: 1, MaxFileSize: 1 << 30, Version: "8.0.33-test"})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := db.CreateKeyspace("rows")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewTable(5, "d", "t", sql.Schema{{Name: "k", Type: types.Int64}, {Name: "v", Type: types.Text}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	run := func(logged bool, base int) (redo float64) {
		before := db.Stats().Log.AppendBytes
		for i := 0; i < n; i++ {
			tx := db.Begin()
			x := l.NewTxn()
			if err := tx.Put(ks, binary.BigEndian.AppendUint64(nil, uint64(base+i)), []byte("v")); err != nil {
				t.Fatal(err)
			}
			if err := x.Insert(tx.Savepoint(), tb, sql.Row{int64(i), strings.Repeat("x", 900)}); err != nil {
				t.Fatal(err)
			}
			var p *Pending
			if logged {
				p = l.Prepare(tx, x)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			l.Committed(p)
		}
		return float64(db.Stats().Log.AppendBytes-before) / n
	}
	plain := run(false, 0)
	_, pos0, _ := l.Status()
	logged := run(true, n)
	_, pos1, _ := l.Status()
	events := float64(pos1-pos0) / n
	t.Logf("redo per commit %.0f bytes without events, %.0f with %.0f bytes of events", plain, logged, events)
	if extra := logged - plain; extra > 1.5*events {
		t.Errorf("the events add %.0f bytes of redo per commit, %.1fx their size: the log's leaves split in halves", extra, extra/events)
	}

	// The uuid under its old key: moved at the next open, the same uuid.
	uuid := l.ServerUUID()
	tx := db.Begin()
	v, _, _ := tx.Get(l.ks, metaUUID)
	v = append([]byte(nil), v...)
	if err := tx.Delete(l.ks, metaUUID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Put(l.ks, oldMetaUUID, v); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l, err = Open(db, Options{ServerID: 1, MaxFileSize: 1 << 30, Version: "8.0.33-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tx = db.Begin()
	defer tx.Rollback()
	_, atOld, _ := tx.Get(l.ks, oldMetaUUID)
	if l.ServerUUID() != uuid || atOld {
		t.Fatalf("uuid %s after the move (was %s), still under the old key: %v", l.ServerUUID(), uuid, atOld)
	}
	readAll(t, l)
}
