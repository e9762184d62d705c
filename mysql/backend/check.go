package backend

import (
	"fmt"
	"hash/crc32"

	"github.com/dolthub/go-mysql-server/sql"

	"strata/engine"
)

// Table maintenance (CHK-n): CHECK TABLE and CHECKSUM TABLE.
//
// CHK-1 CHECK TABLE commits the session's transaction (as in MySQL), then
// holds the table's metadata lock exclusively (MDL-2) so no writer moves
// rows while it reads, and verifies what a row change must keep (ED-1):
// every row decodes, every index has exactly one entry per row, holding
// the key the row's values give, so an index lookup finds every row and
// nothing else; a keyless table's row references (CODEC-10) likewise.
// It reports the first problems it finds, never repairs.
// CHK-2 CHECKSUM TABLE is the sum (mod 2^32) of a CRC-32 of each row's
// stored value: equal contents in tables of one definition give equal
// checksums whatever their insert order or keys (the stored value holds
// every column). It reads committed rows, without locks, as MySQL's does.
// Its values are strata's own: MariaDB's and MySQL's differ from it and
// from each other.

// Check verifies t's rows against its indexes (CHK-1) and returns the
// problems found (none: the table is consistent).
func (tb *Table) Check(ctx *sql.Context) ([]string, error) {
	s, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.implicitCommit(); err != nil {
		return nil, err
	}
	t, err := tb.current()
	if err != nil {
		return nil, err
	}
	b := t.db.b
	tx := b.db.Begin()
	defer tx.Rollback()
	if t.temp == nil {
		if err := tx.Lock(b.cat, mdlKey(t.def.ID)); err != nil {
			return nil, mapEngineErr(err)
		}
		if t, err = tb.current(); err != nil { // DDL may have swapped it while we waited
			return nil, err
		}
	}
	const maxProblems = 10
	var problems []string
	report := func(format string, args ...any) bool {
		problems = append(problems, fmt.Sprintf(format, args...))
		return len(problems) < maxProblems
	}
	var rows int64
	row := make(sql.Row, len(t.cols))
	it := tx.Scan(t.primary, nil, nil, false)
	for it.Next() {
		rows++
		key := append([]byte{}, it.Key()...)
		if err := decodeRow(ctx, it.Value(), t.cols, row); err != nil {
			if !report("Row %d does not decode: %v", rows, err) {
				return problems, nil
			}
			continue
		}
		if !t.keyless() {
			if pk, err := t.primaryKey(ctx, row); err != nil || string(pk) != string(key) {
				if !report("Row %d is stored under a key its values do not give", rows) {
					return problems, nil
				}
			}
		} else if t.refs != nil {
			if _, found, err := tx.Get(t.refs, rowRef(it.Value(), key)); err != nil {
				return nil, mapEngineErr(err)
			} else if !found {
				if !report("Row %d has no row reference", rows) {
					return problems, nil
				}
			}
		}
		for _, ix := range t.indexes {
			entry, err := ix.entryKey(ctx, row, key)
			if err != nil {
				return nil, err
			}
			if _, found, err := tx.Get(ix.ks, entry); err != nil {
				return nil, mapEngineErr(err)
			} else if !found {
				if !report("Index '%s' has no entry for row %d", ix.def.Name, rows) {
					return problems, nil
				}
			}
		}
	}
	if err := it.Err(); err != nil {
		return nil, mapEngineErr(err)
	}
	// Each index, and the row references, hold one entry per row.
	type entries struct {
		name string
		ks   *engine.Keyspace
	}
	var counts []entries
	for _, ix := range t.indexes {
		counts = append(counts, entries{fmt.Sprintf("Index '%s'", ix.def.Name), ix.ks})
	}
	if t.refs != nil {
		counts = append(counts, entries{"The row references", t.refs})
	}
	for _, c := range counts {
		var n int64
		it := tx.Scan(c.ks, nil, nil, false)
		for it.Next() {
			n++
		}
		if err := it.Err(); err != nil {
			return nil, mapEngineErr(err)
		}
		if n != rows {
			if !report("%s has %d entries for %d rows", c.name, n, rows) {
				return problems, nil
			}
		}
	}
	return problems, nil
}

// Checksum is CHECKSUM TABLE's value (CHK-2).
func (tb *Table) Checksum(ctx *sql.Context) (uint32, error) {
	t, err := tb.current()
	if err != nil {
		return 0, err
	}
	tx := t.db.b.db.Begin()
	defer tx.Rollback()
	var sum uint32
	it := tx.Scan(t.primary, nil, nil, false)
	for it.Next() {
		sum += crc32.ChecksumIEEE(it.Value())
	}
	return sum, mapEngineErr(it.Err())
}
