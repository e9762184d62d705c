// Package seqengine is MariaDB's Sequence storage engine: read-only
// virtual tables of integers that exist in every database under names of
// the form seq_FROM_to_TO or seq_FROM_to_TO_step_STEP.
//
// Rules:
//
//	SEQ-1 A name of that form, in a database with no table of that name,
//	      is a table with one column, seq BIGINT UNSIGNED NOT NULL (its
//	      primary key), holding FROM, FROM+STEP, ... up to TO; descending
//	      from FROM down to TO when FROM > TO (MariaDB's semantics). STEP
//	      defaults to 1; STEP 0 or a number that does not fit in 64 bits
//	      is no table. Names are case-sensitive, as MariaDB's on Linux.
//	SEQ-2 The tables are not listed (SHOW TABLES, information_schema) and
//	      cannot be written: they hold no data, rows are computed as read.
//	SEQ-3 information_schema.ENGINES lists SEQUENCE as supported (mtr's
//	      include/have_sequence.inc checks it), by mysql/infoschema.
//
// Tested by TestSequenceTables (mysql/server) against rows MariaDB's
// engine gives for the same names.
package seqengine

import (
	"io"
	"regexp"
	"strconv"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

var nameRE = regexp.MustCompile(`^seq_(\d+)_to_(\d+)(?:_step_(\d+))?$`)

// Lookup returns the sequence table called name in database db (SEQ-1).
func Lookup(db, name string) (sql.Table, bool) {
	m := nameRE.FindStringSubmatch(name)
	if m == nil {
		return nil, false
	}
	from, err1 := strconv.ParseUint(m[1], 10, 64)
	to, err2 := strconv.ParseUint(m[2], 10, 64)
	step := uint64(1)
	var err3 error
	if m[3] != "" {
		step, err3 = strconv.ParseUint(m[3], 10, 64)
	}
	if err1 != nil || err2 != nil || err3 != nil || step == 0 {
		return nil, false
	}
	return &Table{db: db, name: name, from: from, to: to, step: step}, true
}

// Table is one sequence table.
type Table struct {
	db, name       string
	from, to, step uint64
}

var _ sql.Table = (*Table)(nil)

func (t *Table) Name() string                                       { return t.name }
func (t *Table) String() string                                     { return t.name }
func (t *Table) Collation() sql.CollationID                         { return sql.Collation_Default }
func (t *Table) Partitions(*sql.Context) (sql.PartitionIter, error) { return &partIter{}, nil }
func (t *Table) Schema() sql.Schema {
	return sql.Schema{{Name: "seq", Type: types.Uint64, Nullable: false, PrimaryKey: true, Source: t.name, DatabaseSource: t.db}}
}

// PartitionRows implements sql.Table.
func (t *Table) PartitionRows(*sql.Context, sql.Partition) (sql.RowIter, error) {
	return &rowIter{t: t, next: t.from}, nil
}

type partition struct{}

func (partition) Key() []byte { return []byte("seq") }

type partIter struct{ done bool }

func (p *partIter) Next(*sql.Context) (sql.Partition, error) {
	if p.done {
		return nil, io.EOF
	}
	p.done = true
	return partition{}, nil
}
func (p *partIter) Close(*sql.Context) error { return nil }

type rowIter struct {
	t    *Table
	next uint64
	done bool
}

func (it *rowIter) Next(*sql.Context) (sql.Row, error) {
	t := it.t
	if it.done {
		return nil, io.EOF
	}
	v := it.next
	if t.from <= t.to {
		if v > t.to {
			return nil, io.EOF
		}
		if t.to-v < t.step { // the next step would pass TO (or overflow)
			it.done = true
		} else {
			it.next = v + t.step
		}
	} else {
		if v < t.to {
			return nil, io.EOF
		}
		if v-t.to < t.step {
			it.done = true
		} else {
			it.next = v - t.step
		}
	}
	return sql.Row{v}, nil
}

func (it *rowIter) Close(*sql.Context) error { return nil }
