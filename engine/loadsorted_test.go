package engine

import (
	"fmt"
	"testing"
)

// TestLoadSorted: entries put straight into a new keyspace's tree are all
// there after a reopen (durable on return) and pass the integrity check;
// keys out of order are refused.
func TestLoadSorted(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Dir: dir, BufferPoolBytes: 4 << 20, LogCapacity: 16 << 20, DisableDirectIO: true}
	db, err := Open(opts)
	must(t, err)
	ks, err := db.CreateKeyspace("ix")
	must(t, err)
	const n = 50000
	must(t, db.LoadSorted(ks, func(yield func(k, v []byte) bool) error {
		for i := 0; i < n; i++ {
			if !yield([]byte(fmt.Sprintf("key%08d", i)), nil) {
				break
			}
		}
		return nil
	}))
	bad, err := db.CreateKeyspace("bad")
	must(t, err)
	if err := db.LoadSorted(bad, func(yield func(k, v []byte) bool) error {
		yield([]byte("b"), nil)
		yield([]byte("a"), nil)
		return nil
	}); err == nil {
		t.Fatal("keys out of order loaded")
	}
	must(t, db.Close())
	db, err = Open(opts)
	must(t, err)
	defer db.Close()
	ks, err = db.Keyspace("ix")
	must(t, err)
	tx := db.Begin()
	it := tx.Scan(ks, nil, nil, false)
	i := 0
	for it.Next() {
		if want := fmt.Sprintf("key%08d", i); string(it.Key()) != want {
			t.Fatalf("entry %d: %q, want %q", i, it.Key(), want)
		}
		i++
	}
	it.Close()
	tx.Rollback()
	if i != n {
		t.Fatalf("%d entries after reopen, want %d", i, n)
	}
	if _, err := db.CheckIntegrity(); err != nil {
		t.Fatal(err)
	}
}
