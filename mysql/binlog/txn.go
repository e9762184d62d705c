package binlog

import (
	"encoding/binary"
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
// savepoint taken before it.
type change struct {
	sp     int
	table  *Table
	kind   byte
	nulls  [2]mysql.Bitmap // before, after
	images [2][]byte
}

// Txn is the row changes of one open transaction, in the order they were
// made (BL-2). A session keeps one while the binary log is on.
type Txn struct {
	changes []change
	bytes   int
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

func (x *Txn) add(sp int, t *Table, kind byte, before, after sql.Row) error {
	c := change{sp: sp, table: t, kind: kind}
	var err error
	if before != nil {
		c.nulls[0] = mysql.NewServerBitmap(len(t.Columns))
		if c.images[0], err = t.Image(nil, before, &c.nulls[0]); err != nil {
			return err
		}
	}
	if after != nil {
		c.nulls[1] = mysql.NewServerBitmap(len(t.Columns))
		if c.images[1], err = t.Image(nil, after, &c.nulls[1]); err != nil {
			return err
		}
	}
	x.bytes += len(c.images[0]) + len(c.images[1]) + 2*len(t.Columns)/8 + 8
	if x.max > 0 && x.bytes > x.max {
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
	for j := i; j < len(x.changes); j++ {
		x.changes[j] = change{}
	}
	x.changes = x.changes[:i]
	if i == 0 {
		x.bytes = 0
	}
}

// Reset forgets every change (commit or rollback).
func (x *Txn) Reset() { x.RollbackTo(-1 << 62) }

// Empty reports that no row change is captured: a commit writes nothing.
func (x *Txn) Empty() bool { return len(x.changes) == 0 }

// events builds the transaction's events as they go in the log, except the
// GTID number, the XID and the positions, which the commit fills in
// (BL-1): GTID, Query BEGIN, the Table_maps, the rows events (consecutive
// changes of one table and kind share an event up to maxRowsEvent bytes;
// the last one ends the statement), XID.
func (l *Log) events(x *Txn, now time.Time) []byte {
	m := mysql.BinlogEventMetadata{ServerID: l.opts.ServerID, Timestamp: uint32(now.Unix())}
	b := l.gtidEvent(nil, m)
	b = l.appendEvent(b, mysql.NewQueryEvent(l.format, m, mysql.Query{SQL: "BEGIN"}))
	seen := map[*Table]bool{}
	for _, c := range x.changes {
		if !seen[c.table] {
			seen[c.table] = true
			b = l.appendEvent(b, mysql.NewTableMapEvent(l.format, m, c.table.ID, c.table.tableMap()))
		}
	}
	for i := 0; i < len(x.changes); {
		first := x.changes[i]
		n := len(first.table.Columns)
		rows := mysql.Rows{}
		all := mysql.NewServerBitmap(n)
		for k := 0; k < n; k++ {
			all.Set(k, true)
		}
		if first.kind != typeWriteRows {
			rows.IdentifyColumns = all
		}
		if first.kind != typeDeleteRows {
			rows.DataColumns = all
		}
		size := 0
		j := i
		for ; j < len(x.changes) && x.changes[j].table == first.table && x.changes[j].kind == first.kind; j++ {
			if j > i && size >= maxRowsEvent {
				break
			}
			c := x.changes[j]
			r := mysql.Row{}
			if first.kind != typeWriteRows {
				r.NullIdentifyColumns, r.Identify = c.nulls[0], c.images[0]
			}
			if first.kind != typeDeleteRows {
				r.NullColumns, r.Data = c.nulls[1], c.images[1]
			}
			size += len(c.images[0]) + len(c.images[1])
			rows.Rows = append(rows.Rows, r)
		}
		if j == len(x.changes) {
			rows.Flags = rowsStmtEndFlag
		}
		var ev mysql.BinlogEvent
		switch first.kind {
		case typeWriteRows:
			ev = mysql.NewWriteRowsEvent(l.format, m, first.table.ID, rows)
		case typeUpdateRows:
			ev = mysql.NewUpdateRowsEvent(l.format, m, first.table.ID, rows)
		default:
			ev = mysql.NewDeleteRowsEvent(l.format, m, first.table.ID, rows)
		}
		b = l.appendEvent(b, ev)
		i = j
	}
	return l.appendEvent(b, mysql.NewXIDEvent(l.format, m))
}

// statementEvents is a transaction of one statement logged as its text
// (DDL, BL-6): GTID, Query.
func (l *Log) statementEvents(db, text string, now time.Time) []byte {
	m := mysql.BinlogEventMetadata{ServerID: l.opts.ServerID, Timestamp: uint32(now.Unix())}
	b := l.gtidEvent(nil, m)
	return l.appendEvent(b, mysql.NewQueryEvent(l.format, m, mysql.Query{Database: db, SQL: text}))
}

// gtidEvent appends a GTID event with number 0 (filled at commit).
func (l *Log) gtidEvent(b []byte, m mysql.BinlogEventMetadata) []byte {
	return l.appendEvent(b, mysql.NewMySQLGTIDEvent(l.format, m, mysql.Mysql56GTID{Server: l.sid, Sequence: 0}, true))
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
