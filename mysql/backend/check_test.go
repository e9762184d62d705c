package backend

import (
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// CHK-1: CHECK TABLE finds an index that lost an entry (what the ODKU bug
// of issue 19 left behind) and one with an entry too many; a consistent
// table passes. CHK-2: equal contents give equal checksums.
func TestCheckFindsIndexDamage(t *testing.T) {
	b, ctx, exec := testBackend(t)
	run := func(q string) {
		t.Helper()
		if err := exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	run("CREATE DATABASE d")
	ctx.SetCurrentDatabase("d")
	run("CREATE TABLE t (id INT PRIMARY KEY, email VARCHAR(20), n INT, UNIQUE KEY ue (email), KEY kn (n))")
	run("CREATE TABLE t2 (id INT PRIMARY KEY, email VARCHAR(20), n INT, UNIQUE KEY ue (email), KEY kn (n))")
	run("INSERT INTO t VALUES (1, 'a@x', 5), (2, 'b@x', 6), (3, NULL, 7)")
	run("INSERT INTO t2 VALUES (3, NULL, 7), (2, 'b@x', 6), (1, 'a@x', 5)")
	d, _ := b.Database(ctx, "d")
	tbl, _, _ := d.GetTableInsensitive(ctx, "t")
	tb := tbl.(*Table)
	if p, err := tb.Check(ctx); err != nil || len(p) != 0 {
		t.Fatalf("consistent table: %v %v", p, err)
	}
	tbl2, _, _ := d.GetTableInsensitive(ctx, "t2")
	s1, err1 := tb.Checksum(ctx)
	s2, err2 := tbl2.(*Table).Checksum(ctx)
	if err1 != nil || err2 != nil || s1 != s2 || s1 == 0 {
		t.Fatalf("checksums of equal contents: %d %d (%v %v)", s1, s2, err1, err2)
	}

	// Damage: drop row 2's entry from kn, add a stray entry to ue.
	tt := tb.t
	var kn, ue *index
	for _, ix := range tt.indexes {
		switch ix.def.Name {
		case "kn":
			kn = ix
		case "ue":
			ue = ix
		}
	}
	row := sql.Row{int32(2), "b@x", int32(6)}
	pk, _ := tt.primaryKey(ctx, row)
	entry, _ := kn.entryKey(ctx, row, pk)
	stray, _ := ue.entryKey(ctx, sql.Row{int32(9), "z@x", int32(1)}, append([]byte{}, pk...))
	tx := b.db.Begin()
	if err := tx.Delete(kn.ks, entry); err != nil {
		t.Fatal(err)
	}
	if err := tx.Put(ue.ks, stray, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	p, err := tb.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p, "; ")
	for _, want := range []string{"Index 'kn' has no entry for row 2", "Index 'kn' has 2 entries for 3 rows", "Index 'ue' has 4 entries for 3 rows"} {
		if !strings.Contains(got, want) {
			t.Errorf("CHECK TABLE after damage: %q lacks %q", got, want)
		}
	}
}
