// Package binlog is Strata's MySQL binary log (primary side): row-based
// events of every committed transaction, kept in the engine, served to
// replicas and change-data-capture clients over the replication protocol.
//
// Rules (cited as BL-n):
//
//	BL-1 A transaction's events are written by the engine commit that
//	     commits the transaction (engine EN-11): one entry of keyspace
//	     "binlog" keyed (file number, position) holds them with their final
//	     next-positions, GTID number, XID and CRC32 checksums. Positions and
//	     GTID numbers are assigned under the engine's apply latch, so the
//	     log's order is the commit order and the redo order, and a crash
//	     keeps a transaction and its events or neither.
//	BL-2 Row images are full (binlog_row_image=FULL, every column before
//	     and after). A session's row changes are captured as its editors
//	     make them (general and fast path alike), each tagged with the
//	     engine savepoint taken before it: a statement's or a savepoint's
//	     rollback drops the changes after its savepoint, a rollback all of
//	     them, and a transaction left without changes writes nothing.
//	BL-3 Files are virtual: basename.NNNNNN is the run of entries of one
//	     file number, tiling it from position 0. Each file starts with an
//	     entry holding the magic, a Format_description (binlog version 4,
//	     CRC32) and a Previous_gtids; a file ends with a Rotate to the next
//	     when a transaction would take it past max_binlog_size, and at every
//	     start of the server (a new file, as MySQL begins one).
//	BL-4 Streamers send only events whose commit is durable (the
//	     watermark a commit advances once its redo is flushed: durability
//	     is a prefix of the log, so the largest end reported is safe). They
//	     wait on the commits' broadcast, not by polling, and send heartbeats
//	     when idle for the replica's period.
//	BL-5 Privileges: a dump (COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID) needs
//	     REPLICATION SLAVE; SHOW BINARY LOGS / SHOW MASTER STATUS need
//	     REPLICATION CLIENT (or SUPER). Checked by the server (mysql/server).
//	BL-6 DDL is logged as its text (a Query event with the session's
//	     database), put by the commit that makes its change visible to
//	     other sessions (PrepareStatement; mysql/backend CAT-7: a CREATE
//	     TABLE's last, other DDL's first catalog commit), so no transaction
//	     using it can come before it in the log and a crash keeps both or
//	     neither. A statement that changes no catalog entry (DROP ... IF
//	     EXISTS of nothing) is logged as it succeeds, in a commit of its
//	     own (Statement). DDL a stored procedure or an EXECUTE runs is
//	     logged the same way (mysql/rules RULE-78).
//	BL-7 A transaction's row images are bounded by max_binlog_cache_size
//	     (default an eighth of the redo log: the events go in one commit
//	     record, which may take at most a quarter, WAL-3): the change that
//	     would pass it fails with 1197.
//	BL-9 A snapshot's position: the log's end after each recent commit is
//	     kept by the commit's version timestamp, so a transaction reading
//	     at a snapshot knows the file and position its data corresponds to
//	     (a replica seeded from it starts there).
//	BL-10 A transaction's events are cut into entries of at most 1 MiB
//	     between events (an event larger than that is an entry alone), all
//	     put by the same commit: the B+tree holds them as ordinary values,
//	     and a reader still finds whole events in each entry.
//	BL-8 Column encodings are MySQL's row format for every type the server
//	     stores (rows.go); JSON goes as a LONGTEXT of its text (what a
//	     MariaDB replica's JSON column is; MySQL's binary JSON is not
//	     written).
package binlog

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"strata/engine"
)

// Options configure the log.
type Options struct {
	Basename    string // file names: Basename.000001, ...
	ServerID    uint32
	MaxFileSize int64  // max_binlog_size: a file is rotated past it
	MaxTxnBytes int64  // max_binlog_cache_size (BL-7)
	Version     string // the server version the Format_description names
}

const keyspaceName = "binlog"

// metaUUID keys the server's uuid. It sorts before every entry (file
// numbers start at 1), so the entries, appended in key order, are always
// the tree's last keys and a full leaf splits by moving on (btree BT-6)
// rather than in halves: the uuid's first key, after the entries, made
// every leaf split in half, leaving leaves half full and logging ~2 KB of
// redo per commit for the split pages. oldMetaUUID is that key, moved at
// open.
var (
	metaUUID    = []byte("\x00\x00\x00\x00server_uuid")
	oldMetaUUID = []byte("\xff\xffserver_uuid")
)

// Log is the binary log of one engine.
type Log struct {
	db     *engine.DB
	ks     *engine.Keyspace
	opts   Options
	format mysql.BinlogFormat
	sid    mysql.SID
	uuid   string

	mu      sync.Mutex
	file    uint32 // the current file
	pos     uint64 // its end
	nextGNO int64
	durable [2]uint64 // BL-4: file, position
	wake    chan struct{}
	closed  chan struct{}
	first   uint32 // the oldest file not purged
	// BL-9: the log's end after each recent commit, by version timestamp
	// (a ring, oldest overwritten), for the position of a snapshot.
	ends    []commitEnd
	endNext int
}

// commitEnd is the log's end once the commit of timestamp ts applied.
type commitEnd struct {
	ts   uint64
	file uint32
	end  uint64
}

const commitEnds = 1 << 16

// entryBytes bounds an entry of the log keyspace (BL-10).
const entryBytes = 1 << 20

// Bytes is the size of the events the sequencer adds to its commit's
// redo record (engine EN-11's log space estimate).
func (s *sequencer) Bytes() int { return len(s.events) + 512 }

// Open opens (or creates) the binary log of db and starts a new file
// (BL-3).
func Open(db *engine.DB, opts Options) (*Log, error) {
	if opts.Basename == "" {
		opts.Basename = "binlog"
	}
	if opts.MaxFileSize <= 0 || opts.MaxFileSize > 1<<30 {
		opts.MaxFileSize = 1 << 30
	}
	if opts.MaxTxnBytes <= 0 {
		opts.MaxTxnBytes = db.LogCapacity() / 8 // what one commit record can carry (BL-7)
	}
	ks, err := db.Keyspace(keyspaceName)
	if errors.Is(err, engine.ErrNoKeyspace) {
		ks, err = db.CreateKeyspace(keyspaceName)
	}
	if err != nil {
		return nil, err
	}
	f := mysql.NewMySQL56BinlogFormat()
	f.ServerVersion = opts.Version + "-log"
	l := &Log{db: db, ks: ks, opts: opts, format: f, wake: make(chan struct{}), closed: make(chan struct{}), nextGNO: 1}
	if err := l.loadUUID(); err != nil {
		return nil, err
	}
	if err := l.recover(); err != nil {
		return nil, err
	}
	if err := l.rotate(); err != nil {
		return nil, err
	}
	return l, nil
}

// Inspect reads where db's binary log ends (file, position, executed
// GTIDs) without starting a new file: a backup's position after it is
// prepared (engine EN-12). ok is false when db has no log.
func Inspect(db *engine.DB, basename string) (file string, pos uint64, gtids string, ok bool, err error) {
	ks, err := db.Keyspace(keyspaceName)
	if errors.Is(err, engine.ErrNoKeyspace) {
		return "", 0, "", false, nil
	}
	if err != nil {
		return "", 0, "", false, err
	}
	if basename == "" {
		basename = "binlog"
	}
	l := &Log{db: db, ks: ks, opts: Options{Basename: basename}, nextGNO: 1}
	if err := l.loadUUID(); err != nil {
		return "", 0, "", false, err
	}
	if err := l.recover(); err != nil {
		return "", 0, "", false, err
	}
	file, pos, gtids = l.Status()
	return file, pos, gtids, l.file > 0, nil
}

// Close wakes and ends the streamers.
func (l *Log) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
}

// ServerID is the server id the events carry.
func (l *Log) ServerID() uint32 { return l.opts.ServerID }

// Closed is closed by Close.
func (l *Log) Closed() <-chan struct{} { return l.closed }

// ServerUUID is the server's uuid (the GTIDs' source id), kept in the
// log's keyspace from the first start.
func (l *Log) ServerUUID() string { return l.uuid }

func (l *Log) loadUUID() error {
	tx := l.db.Begin()
	v, ok, err := tx.Get(l.ks, metaUUID)
	var old bool
	if err == nil && !ok {
		v, old, err = tx.Get(l.ks, oldMetaUUID)
	}
	tx.Rollback()
	if err != nil {
		return err
	}
	if old { // a log written before the key moved
		tx := l.db.Begin()
		if err := tx.Put(l.ks, metaUUID, v); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Delete(l.ks, oldMetaUUID); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.CommitDurable(); err != nil {
			return err
		}
	} else if !ok {
		v = make([]byte, 16)
		if _, err := rand.Read(v); err != nil {
			return err
		}
		v[6] = v[6]&0x0f | 0x40 // version 4
		v[8] = v[8]&0x3f | 0x80
		tx := l.db.Begin()
		if err := tx.Put(l.ks, metaUUID, v); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.CommitDurable(); err != nil {
			return err
		}
	}
	copy(l.sid[:], v)
	l.uuid = l.sid.String()
	return nil
}

func key(file uint32, pos uint64) []byte {
	k := make([]byte, 12)
	binary.BigEndian.PutUint32(k, file)
	binary.BigEndian.PutUint64(k[4:], pos)
	return k
}

func splitKey(k []byte) (uint32, uint64) {
	return binary.BigEndian.Uint32(k), binary.BigEndian.Uint64(k[4:])
}

// recover finds the end of the log and the next GTID number.
func (l *Log) recover() error {
	tx := l.db.Begin()
	defer tx.Rollback()
	it := tx.Scan(l.ks, key(1, 0), key(0xff000000, 0), true)
	defer it.Close()
	found := false
	for it.Next() {
		f, p := splitKey(it.Key())
		if !found {
			l.file, l.pos, found = f, p+uint64(len(it.Value())), true
		}
		if gno, ok := gnoOf(it.Value()); ok {
			l.nextGNO = gno + 1
			break
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	it2 := tx.Scan(l.ks, key(1, 0), key(0xff000000, 0), false)
	defer it2.Close()
	if it2.Next() {
		l.first, _ = splitKey(it2.Key())
	}
	return it2.Err()
}

// gnoOf is the GTID number of an entry that begins with a GTID event.
func gnoOf(v []byte) (int64, bool) {
	if len(v) < headerLen+25 || v[4] != typeGTID {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(v[headerLen+17:])), true
}

// FileName is the name of file number n.
func (l *Log) FileName(n uint32) string { return fmt.Sprintf("%s.%06d", l.opts.Basename, n) }

// fileNumber parses a name FileName made.
func (l *Log) fileNumber(name string) (uint32, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || name[:i] != l.opts.Basename {
		return 0, false
	}
	n, err := strconv.ParseUint(name[i+1:], 10, 32)
	return uint32(n), err == nil && n > 0
}

// seal writes an event's CRC32.
func seal(ev []byte) {
	n := len(ev)
	binary.LittleEndian.PutUint32(ev[n-checksumLen:], crc32.ChecksumIEEE(ev[:n-checksumLen]))
}

// header is the first entry of file n: the magic, Format_description,
// Previous_gtids (BL-3).
func (l *Log) header(nextGNO int64, now time.Time, atStartup bool) []byte {
	b := []byte{0xfe, 'b', 'i', 'n'}
	m := mysql.BinlogEventMetadata{ServerID: l.opts.ServerID, Timestamp: uint32(now.Unix())}
	b = l.appendEvent(b, mysql.NewFormatDescriptionEvent(l.format, m))
	if !atStartup {
		// "created" is set only in the first file after a start (a
		// replica then drops the temporary tables of the old server).
		binary.LittleEndian.PutUint32(b[4+headerLen+52:], 0)
	}
	var set mysql.Mysql56GTIDSet
	if nextGNO > 1 {
		s, err := mysql.ParseMysql56GTIDSet(fmt.Sprintf("%s:1-%d", l.uuid, nextGNO-1))
		if err == nil {
			set = s.(mysql.Mysql56GTIDSet)
		}
	}
	if set == nil {
		set = mysql.Mysql56GTIDSet{}
	}
	b = l.appendEvent(b, mysql.NewPreviousGtidsEvent(l.format, m, set))
	place(b[4:], 4, 0)
	return b
}

// sequencer places one transaction's events (or a rotation) at the end of
// the log under the apply latch (BL-1, engine EN-11).
type sequencer struct {
	l      *Log
	events []byte // nil: a rotation only
	rotate bool
	// assigned by Entries, kept by End(true)
	file    uint32
	end     uint64
	nextGNO int64
}

func (s *sequencer) Entries() ([]engine.Entry, error) {
	l := s.l
	l.mu.Lock()
	file, pos, gno := l.file, l.pos, l.nextGNO
	l.mu.Unlock()
	var out []engine.Entry
	now := time.Now()
	if file == 0 || s.rotate || (s.events != nil && int64(pos)+int64(len(s.events)) > l.opts.MaxFileSize && pos > 200) {
		if file > 0 {
			m := mysql.BinlogEventMetadata{ServerID: l.opts.ServerID}
			rot := mysql.NewRotateEvent(l.format, m, 4, l.FileName(file+1)).Bytes()
			rot = append([]byte(nil), rot...)
			// A Rotate written in the file has its time (a fake one, sent
			// at a dump's start, has 0: readers tell them apart so).
			binary.LittleEndian.PutUint32(rot, uint32(now.Unix()))
			place(rot, pos, 0)
			out = append(out, engine.Entry{Keyspace: l.ks, Key: key(file, pos), Value: rot})
		}
		file++
		h := l.header(gno, now, file == 0 || s.rotate)
		out = append(out, engine.Entry{Keyspace: l.ks, Key: key(file, 0), Value: h})
		pos = uint64(len(h))
	}
	if s.events != nil {
		ev := s.events // placed again whole if a retry calls Entries again
		place(ev, pos, gno)
		// BL-10: entries of at most entryBytes, cut between events (a
		// single larger event is an entry of its own).
		for len(ev) > 0 {
			n := 0
			for n < len(ev) {
				size := int(binary.LittleEndian.Uint32(ev[n+9:]))
				if n > 0 && n+size > entryBytes {
					break
				}
				n += size
			}
			out = append(out, engine.Entry{Keyspace: l.ks, Key: key(file, pos), Value: ev[:n]})
			pos += uint64(n)
			ev = ev[n:]
		}
		gno++
	}
	s.file, s.end, s.nextGNO = file, pos, gno
	return out, nil
}

func (s *sequencer) End(committed bool, ts uint64) {
	if !committed {
		return
	}
	l := s.l
	l.mu.Lock()
	l.file, l.pos, l.nextGNO = s.file, s.end, s.nextGNO
	if l.first == 0 {
		l.first = s.file
	}
	if ts > 0 {
		if l.ends == nil {
			l.ends = make([]commitEnd, 0, commitEnds)
		}
		e := commitEnd{ts: ts, file: s.file, end: s.end}
		if len(l.ends) < commitEnds {
			l.ends = append(l.ends, e)
		} else {
			l.ends[l.endNext] = e
			l.endNext = (l.endNext + 1) % commitEnds
		}
	}
	l.mu.Unlock()
}

// PositionAt is the file and position a snapshot at version timestamp ts
// has seen the log to (BL-9: the end after the last commit at or before
// ts; SHOW STATUS LIKE 'binlog_snapshot_%', what mariadb-dump
// --single-transaction --master-data writes). ok is false for a snapshot
// older than the commits remembered.
func (l *Log) PositionAt(ts uint64) (string, uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.ends)
	// oldest first: ends[endNext:], then ends[:endNext]
	at := func(i int) commitEnd { return l.ends[(l.endNext+i)%n] }
	if n == 0 || at(0).ts > ts {
		return "", 0, false
	}
	lo, hi := 0, n-1 // the last index with ts at or before the snapshot's
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if at(mid).ts <= ts {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	e := at(lo)
	return l.FileName(e.file), e.end, true
}

// markDurable advances the watermark (BL-4) and wakes the streamers.
func (l *Log) markDurable(file uint32, end uint64) {
	l.mu.Lock()
	if file > uint32(l.durable[0]) || (file == uint32(l.durable[0]) && end > l.durable[1]) {
		l.durable = [2]uint64{uint64(file), end}
		close(l.wake)
		l.wake = make(chan struct{})
	}
	l.mu.Unlock()
}

// watermark is the durable end and the channel closed when it moves.
func (l *Log) watermark() (uint32, uint64, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return uint32(l.durable[0]), l.durable[1], l.wake
}

// Pending is a transaction's events on their way into a commit.
type Pending struct{ s *sequencer }

// Prepare attaches x's events to tx's commit (BL-1); nil when x holds no
// change. After tx commits, call Committed.
func (l *Log) Prepare(tx *engine.Tx, x *Txn) *Pending {
	if x == nil || x.Empty() {
		return nil
	}
	s := &sequencer{l: l, events: l.events(x, time.Now())}
	tx.SetSequencer(s)
	return &Pending{s: s}
}

// Committed reports that the commit carrying p is durable (BL-4).
func (l *Log) Committed(p *Pending) {
	if p != nil && p.s.file > 0 {
		l.markDurable(p.s.file, p.s.end)
	}
}

// PrepareStatement attaches a statement logged as its text (DDL, BL-6)
// to tx's commit: the commit that makes the statement's change visible.
// After tx commits, call Committed.
func (l *Log) PrepareStatement(tx *engine.Tx, db, text string) *Pending {
	s := &sequencer{l: l, events: l.statementEvents(db, text, time.Now())}
	tx.SetSequencer(s)
	return &Pending{s: s}
}

// Statement logs a statement as its text in its own commit (BL-6: one
// that changed nothing the catalog keeps).
func (l *Log) Statement(db, text string) error {
	s := &sequencer{l: l, events: l.statementEvents(db, text, time.Now())}
	return l.commitAlone(s)
}

// rotate closes the current file and begins the next (BL-3).
func (l *Log) rotate() error { return l.commitAlone(&sequencer{l: l, rotate: true}) }

func (l *Log) commitAlone(s *sequencer) error {
	tx := l.db.Begin()
	tx.SetSequencer(s)
	if err := tx.CommitDurable(); err != nil {
		return err
	}
	l.markDurable(s.file, s.end)
	return nil
}

// Status is the current file and position (SHOW MASTER STATUS) and the
// executed GTID set.
func (l *Log) Status() (string, uint64, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	gtids := ""
	if l.nextGNO > 1 {
		gtids = fmt.Sprintf("%s:1-%d", l.uuid, l.nextGNO-1)
	}
	return l.FileName(l.file), l.pos, gtids
}

// FileInfo is a file of the log and its size.
type FileInfo struct {
	Name string
	Size uint64
}

// Files lists the files not purged (SHOW BINARY LOGS).
func (l *Log) Files() ([]FileInfo, error) {
	tx := l.db.Begin()
	defer tx.Rollback()
	var out []FileInfo
	l.mu.Lock()
	first, last, end := l.first, l.file, l.pos
	l.mu.Unlock()
	for f := first; f > 0 && f <= last; f++ {
		if f == last {
			out = append(out, FileInfo{Name: l.FileName(f), Size: end})
			continue
		}
		it := tx.Scan(l.ks, key(f, 0), key(f+1, 0), true)
		if it.Next() {
			_, p := splitKey(it.Key())
			out = append(out, FileInfo{Name: l.FileName(f), Size: p + uint64(len(it.Value()))})
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PurgeTo deletes the files before name (PURGE BINARY LOGS TO); the
// current file is never purged.
func (l *Log) PurgeTo(name string) error {
	n, ok := l.fileNumber(name)
	l.mu.Lock()
	first, cur := l.first, l.file
	l.mu.Unlock()
	if !ok || n < first || n > cur {
		return mysql.NewSQLError(1373, "HY000", "Target log not found in binlog index")
	}
	return l.purgeBefore(n)
}

// PurgeBefore deletes the files whose last write is older than t (PURGE
// BINARY LOGS BEFORE, binlog_expire_logs_seconds).
func (l *Log) PurgeBefore(t time.Time) error {
	l.mu.Lock()
	first, cur := l.first, l.file
	l.mu.Unlock()
	n := first
	tx := l.db.Begin()
	for ; n < cur; n++ {
		// the next file's header is written when this one ends
		v, ok, err := tx.Get(l.ks, key(n+1, 0))
		if err != nil {
			tx.Rollback()
			return err
		}
		if !ok || len(v) < 8 || int64(binary.LittleEndian.Uint32(v[4:])) >= t.Unix() {
			break
		}
	}
	tx.Rollback()
	return l.purgeBefore(n)
}

func (l *Log) purgeBefore(n uint32) error {
	l.mu.Lock()
	first := l.first
	l.mu.Unlock()
	for f := first; f < n; f++ {
		for {
			tx := l.db.Begin()
			it := tx.Scan(l.ks, key(f, 0), key(f+1, 0), false)
			count := 0
			var err error
			for count < 1000 && it.Next() {
				if err = tx.Delete(l.ks, append([]byte(nil), it.Key()...)); err != nil {
					break
				}
				count++
			}
			if err == nil {
				err = it.Err()
			}
			it.Close()
			if err != nil {
				tx.Rollback()
				return err
			}
			if err := tx.Commit(); err != nil {
				return err
			}
			if count < 1000 {
				break
			}
		}
		l.mu.Lock()
		l.first = f + 1
		l.mu.Unlock()
	}
	return nil
}
