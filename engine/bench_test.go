package engine

import (
	"encoding/binary"
	"sync/atomic"
	"testing"

	"strata/volume"
)

// Benchmarks of the embedded API. Run:
//
//	go test ./engine -run XXX -bench . -benchtime 2s
//
// Data volumes are in memory (Mem) so that these measure engine CPU; the
// commit benchmark uses files in a temporary directory (real fdatasync).

const benchRows = 100_000

func benchDB(b *testing.B, poolBytes int64) (*DB, *Keyspace) {
	b.Helper()
	db, err := Open(Options{DataVolume: volume.NewMem("d", volume.MemOptions{}), LogVolume: volume.NewMem("l", volume.MemOptions{}),
		BufferPoolBytes: poolBytes, LogCapacity: 256 << 20, AsyncCommit: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ks, err := db.CreateKeyspace("t")
	if err != nil {
		b.Fatal(err)
	}
	val := make([]byte, 180) // about a sysbench row
	for i := 0; i < benchRows; i += 1000 {
		tx := db.Begin()
		for j := i; j < i+1000; j++ {
			if err := tx.Put(ks, benchKey(j), val); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Checkpoint(); err != nil {
		b.Fatal(err)
	}
	return db, ks
}

func benchKey(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

func benchGet(b *testing.B, poolBytes int64) {
	db, ks := benchDB(b, poolBytes)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		tx := db.Begin()
		i := 0
		for pb.Next() {
			i = (i + 7919) % benchRows
			if _, ok, err := tx.Get(ks, benchKey(i)); !ok || err != nil {
				b.Fatal("missing row", err)
			}
		}
	})
	st := db.Stats().Pool
	b.ReportMetric(float64(st.Hits)/float64(st.Hits+st.Misses), "pool-hit-ratio")
}

// BenchmarkPointGetHit: every page in the pool.
func BenchmarkPointGetHit(b *testing.B) { benchGet(b, 128<<20) }

// BenchmarkPointGetMiss: the pool holds about a tenth of the data, so most
// leaf reads go to the (in-memory) data volume.
func BenchmarkPointGetMiss(b *testing.B) { benchGet(b, 2<<20) }

// BenchmarkRangeScan100: 100-row forward scans (sysbench's range size).
func BenchmarkRangeScan100(b *testing.B) {
	db, ks := benchDB(b, 128<<20)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		tx := db.Begin()
		i := 0
		for pb.Next() {
			i = (i + 7919) % (benchRows - 100)
			it := tx.Scan(ks, benchKey(i), benchKey(i+100), false)
			n := 0
			for it.Next() {
				n++
			}
			it.Close()
			if n != 100 {
				b.Fatalf("scan returned %d rows", n)
			}
		}
	})
}

// BenchmarkCommitSync: 16 concurrent writers, each transaction updates one
// row; durable commit on files (group commit amortizes the fdatasync).
func BenchmarkCommitSync(b *testing.B) {
	db, err := Open(Options{Dir: b.TempDir(), BufferPoolBytes: 64 << 20, LogCapacity: 256 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ks, _ := db.CreateKeyspace("t")
	val := make([]byte, 180)
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			tx := db.Begin()
			if err := tx.Put(ks, benchKey(int(next.Add(1)%10000)), val); err != nil {
				b.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	st := db.Stats().Log
	b.ReportMetric(float64(st.Appends)/float64(max(st.Syncs, 1)), "commits/fsync")
}
