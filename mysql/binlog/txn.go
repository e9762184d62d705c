package binlog

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Event types and flags this package writes (MySQL's log_event.h).
const (
	typeQuery       = 2
	typeRotate      = 4
	typeFormat      = 15
	typeXID         = 16
	typeTableMap    = 19
	typeWriteRows   = 30
	typeUpdateRows  = 31
	typeDeleteRows  = 32
	typeGTID        = 33
	typePrevGTIDs   = 35
	headerLen       = 19
	checksumLen     = 4
	rowsStmtEndFlag = 1
	maxRowsEvent    = 8 << 10 // rows per event: MySQL's binlog-row-event-max-size
)

// change is one captured row change (BL-2), tagged with the engine
// savepoint taken before it. Its images live in the Txn's arena: from
// off, the before image then the after image, each a NULL bitmap followed
// by the column values (the row format of a rows event).
type change struct {
	sp     int
	table  *Table
	kind   byte
	off    int // start in the arena
	before int // length of the before image (0: none)
	after  int // length of the after image (0: none)
}

// Txn is the row changes of one open transaction, in the order they were
// made (BL-2). A session keeps one while the binary log is on.
type Txn struct {
	changes []change
	arena   []byte
	max     int
}

// NewTxn starts an empty capture bounded by max bytes of row images
// (max_binlog_cache_size, BL-7).
func (l *Log) NewTxn() *Txn { return &Txn{max: int(l.opts.MaxTxnBytes)} }

// ErrTooLarge is MySQL's 1197 for a transaction whose events pass the
// bound (BL-7).
func errTooLarge() error {
	return mysql.NewSQLError(1197, "HY000",
		"Multi-statement transaction required more than 'max_binlog_cache_size' bytes of storage; increase this mysqld variable and try again")
}

// appendImage appends row's image to x's arena and returns its length.
func (x *Txn) appendImage(t *Table, row sql.Row) (int, error) {
	start := len(x.arena)
	b, err := t.Image(x.arena, row)
	if err != nil {
		return 0, err
	}
	x.arena = b
	return len(b) - start, nil
}

func (x *Txn) add(sp int, t *Table, kind byte, before, after sql.Row) error {
	c := change{sp: sp, table: t, kind: kind, off: len(x.arena)}
	var err error
	if before != nil {
		if c.before, err = x.appendImage(t, before); err != nil {
			x.arena = x.arena[:c.off]
			return err
		}
	}
	if after != nil {
		if c.after, err = x.appendImage(t, after); err != nil {
			x.arena = x.arena[:c.off]
			return err
		}
	}
	if x.max > 0 && len(x.arena)+8*len(x.changes) > x.max {
		x.arena = x.arena[:c.off]
		return errTooLarge()
	}
	x.changes = append(x.changes, c)
	return nil
}

// Insert captures an inserted row; sp is the engine savepoint taken before
// the row was written.
func (x *Txn) Insert(sp int, t *Table, row sql.Row) error {
	return x.add(sp, t, typeWriteRows, nil, row)
}

// Update captures a changed row (full before and after images).
func (x *Txn) Update(sp int, t *Table, old, row sql.Row) error {
	return x.add(sp, t, typeUpdateRows, old, row)
}

// Delete captures a deleted row.
func (x *Txn) Delete(sp int, t *Table, row sql.Row) error {
	return x.add(sp, t, typeDeleteRows, row, nil)
}

// RollbackTo drops the changes made at or after engine savepoint sp (a
// statement's or a savepoint's rollback, BL-2).
func (x *Txn) RollbackTo(sp int) {
	i := len(x.changes)
	for i > 0 && x.changes[i-1].sp >= sp {
		i--
	}
	if i < len(x.changes) {
		x.arena = x.arena[:x.changes[i].off]
		clear(x.changes[i:])
		x.changes = x.changes[:i]
	}
}

// Reset forgets every change (commit or rollback), keeping a modest arena
// for the session's next transaction.
func (x *Txn) Reset() {
	clear(x.changes)
	x.changes = x.changes[:0]
	if cap(x.arena) > 1<<20 {
		x.arena = nil
	}
	x.arena = x.arena[:0]
}

// Empty reports that no row change is captured: a commit writes nothing.
func (x *Txn) Empty() bool { return len(x.changes) == 0 }

// startEvent appends an event header (the size, next position and
// checksum are filled by endEvent and place).
func (l *Log) startEvent(b []byte, typ byte, ts uint32) ([]byte, int) {
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, ts)
	b = append(b, typ)
	b = binary.LittleEndian.AppendUint32(b, l.opts.ServerID)
	return append(b, make([]byte, 10)...), start // size, next position, flags
}

// endEvent sets the event's size, its checksum's room included.
func endEvent(b []byte, start int) []byte {
	b = append(b, 0, 0, 0, 0) // CRC32, by place
	binary.LittleEndian.PutUint32(b[start+9:], uint32(len(b)-start))
	return b
}

// events builds the transaction's events as they go in the log, except the
// GTID number, the XID and the positions, which the commit fills in
// (BL-1): GTID, Query BEGIN, the Table_maps, the rows events (consecutive
// changes of one table and kind share an event up to maxRowsEvent bytes;
// the last one ends the statement), XID. Written into one buffer (MySQL's
// v4 format; TestColumnEncodings and the replica tests read them with
// independent decoders).
func (l *Log) events(x *Txn, now time.Time) []byte {
	ts := uint32(now.Unix())
	b := make([]byte, 0, 256+len(x.arena)+len(x.changes)*24)
	b = l.appendGTID(b, ts)
	b = l.appendQuery(b, ts, "", "BEGIN")
	var st int
	var maps [4]*Table
	seen := maps[:0]
	for _, c := range x.changes {
		if !slices.Contains(seen, c.table) {
			seen = append(seen, c.table)
			b, st = l.startEvent(b, typeTableMap, ts)
			b = append(b, c.table.mapBody...)
			b = endEvent(b, st)
		}
	}
	for i := 0; i < len(x.changes); {
		first := x.changes[i]
		t := first.table
		b, st = l.startEvent(b, first.kind, ts)
		b = append(b, t.idBytes[:]...)
		flagsAt := len(b)
		b = append(b, 0, 0, 2, 0) // flags (STMT_END below), extra data length 2 (none)
		b = appendLenEnc(b, uint64(len(t.Columns)))
		b = append(b, t.allColumns...)
		if first.kind == typeUpdateRows {
			b = append(b, t.allColumns...)
		}
		size := 0
		j := i
		for ; j < len(x.changes) && x.changes[j].table == t && x.changes[j].kind == first.kind; j++ {
			if j > i && size >= maxRowsEvent {
				break
			}
			c := x.changes[j]
			img := x.arena[c.off : c.off+c.before+c.after]
			b = append(b, img...)
			size += len(img)
		}
		if j == len(x.changes) {
			b[flagsAt] = rowsStmtEndFlag
		}
		b = endEvent(b, st)
		i = j
	}
	b, st = l.startEvent(b, typeXID, ts)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	return endEvent(b, st)
}

// appendLenEnc appends MySQL's length-encoded integer.
func appendLenEnc(b []byte, v uint64) []byte {
	switch {
	case v < 251:
		return append(b, byte(v))
	case v < 1<<16:
		return append(b, 0xfc, byte(v), byte(v>>8))
	case v < 1<<24:
		return append(b, 0xfd, byte(v), byte(v>>8), byte(v>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), v)
}

// statementEvents is a transaction of one statement logged as its text
// (DDL, BL-6): GTID, Query.
func (l *Log) statementEvents(db, text string, now time.Time) []byte {
	ts := uint32(now.Unix())
	return l.appendQuery(l.appendGTID(nil, ts), ts, db, text)
}

// appendQuery appends a Query event of text run in database db: thread
// id, execution time, the database name's length, error code, no status
// variables, then the name, a NUL and the text.
func (l *Log) appendQuery(b []byte, ts uint32, db, text string) []byte {
	b, st := l.startEvent(b, typeQuery, ts)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, byte(len(db)), 0, 0, 0, 0)
	b = append(append(append(b, db...), 0), text...)
	return endEvent(b, st)
}

// appendGTID appends a GTID event (flags, the server's uuid, number 0:
// filled at commit).
func (l *Log) appendGTID(b []byte, ts uint32) []byte {
	b, st := l.startEvent(b, typeGTID, ts)
	b = append(b, 0)
	b = append(b, l.sid[:]...)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	return endEvent(b, st)
}

func (l *Log) appendEvent(b []byte, ev mysql.BinlogEvent) []byte { return append(b, ev.Bytes()...) }

// place fills in a transaction's events for their place in the log
// (BL-1): each event's next position (base plus its end in b), the GTID
// number and the XID, and every checksum. It runs under the apply latch.
func place(b []byte, base uint64, gno int64) {
	for off := 0; off+headerLen <= len(b); {
		size := int(binary.LittleEndian.Uint32(b[off+9:]))
		ev := b[off : off+size]
		binary.LittleEndian.PutUint32(ev[13:], uint32(base+uint64(off+size)))
		switch ev[4] {
		case typeGTID:
			binary.LittleEndian.PutUint64(ev[headerLen+17:], uint64(gno))
		case typeXID:
			binary.LittleEndian.PutUint64(ev[headerLen:], uint64(gno))
		}
		seal(ev)
		off += size
	}
}
