package engine

import (
	"fmt"
	"math/rand"
	"testing"

	"strata/page"
	"strata/volume"
)

// mtr MTR-5 through recovery: commits of small random inserts and
// deletes (slot arrays opened and closed in many leaves, logged as moves)
// are replayed after a crash that keeps no page write: every committed
// key is there with its value, no deleted one is, and the trees check.
func TestRecoveryReplaysMoves(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	data, logv := volume.NewMem("data", volume.MemOptions{}), volume.NewMem("log", volume.MemOptions{})
	opts := func(d, l volume.Volume) Options {
		return Options{DataVolume: d, LogVolume: l, BufferPoolBytes: 1024 * page.Size, LogCapacity: 16 << 20}
	}
	db, err := Open(opts(data, logv))
	if err != nil {
		t.Fatal(err)
	}
	ks, err := db.CreateKeyspace("m")
	if err != nil {
		t.Fatal(err)
	}
	model := map[string]string{}
	for i := 0; i < 600; i++ {
		tx := db.Begin()
		for j := 0; j < 8; j++ {
			k := fmt.Sprintf("k%05d", rng.Intn(20000))
			if _, ok := model[k]; ok && rng.Intn(3) == 0 {
				if err := tx.Delete(ks, []byte(k)); err != nil {
					t.Fatal(err)
				}
				delete(model, k)
				continue
			}
			v := fmt.Sprintf("v%d", rng.Intn(1000))
			if err := tx.Put(ks, []byte(k), []byte(v)); err != nil {
				t.Fatal(err)
			}
			model[k] = v
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	// Power cut: the data volume keeps what was synced (the pages were
	// never flushed: a pool of 1024 frames holds them), the log its records.
	db2, err := Open(opts(data.Crash(rng, true), logv.Crash(rng, false)))
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	ks2, err := db2.Keyspace("m")
	if err != nil {
		t.Fatal(err)
	}
	tx := db2.Begin()
	defer tx.Rollback()
	n := 0
	it := tx.Scan(ks2, nil, nil, false)
	for it.Next() {
		n++
		if want, ok := model[string(it.Key())]; !ok || want != string(it.Value()) {
			t.Fatalf("after recovery %s = %q, committed %q (present %v)", it.Key(), it.Value(), want, ok)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	it.Close()
	if n != len(model) {
		t.Fatalf("after recovery %d keys, committed %d", n, len(model))
	}
	if _, err := db2.CheckIntegrity(); err != nil {
		t.Fatal(err)
	}
}
