package binlog

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// DumpOptions are what the replica asked for on its connection.
type DumpOptions struct {
	Heartbeat time.Duration // @master_heartbeat_period; 0: none
	// Checksums: the replica announced it knows of checksums (set
	// @master_binlog_checksum, to anything); without, the dump is refused as
	// MySQL does. The events go as stored, with CRC32.
	Checksums bool
	// RotateCRC: the first, fake Rotate carries a checksum (the replica
	// set @master_binlog_checksum to CRC32; mariadb-binlog sets NONE).
	RotateCRC bool
	// NonBlock: stop at the end of the log (mariadb-binlog without
	// --stop-never); Dump then returns the packets it sent, for the
	// caller's EOF packet.
	NonBlock bool
}

func fatal(format string, args ...any) error {
	return mysql.NewSQLError(1236, "HY000", format, args...)
}

// start is where a dump begins: a file and a position in it.
type start struct {
	file uint32
	pos  uint64
}

// Dump streams the log to c from file name at pos (COM_BINLOG_DUMP), until
// the connection fails or the log closes (BL-4). An empty name starts at
// the oldest file.
func (l *Log) Dump(c *mysql.Conn, name string, pos uint64, o DumpOptions) (int, error) {
	if !o.Checksums {
		return 0, fatal("Slave can not handle replication events with the checksum that master is configured to log")
	}
	l.mu.Lock()
	first, cur := l.first, l.file
	l.mu.Unlock()
	st := start{file: first, pos: 4}
	if name != "" {
		n, ok := l.fileNumber(name)
		if !ok || n < first || n > cur {
			return 0, fatal("Could not find first log file name in binary log index file")
		}
		st = start{file: n, pos: pos}
	}
	if st.pos < 4 {
		st.pos = 4
	}
	w := &sender{c: c}
	err := l.stream(w, st, nil, o)
	return w.n, err
}

// DumpGTID streams the transactions whose GTIDs are not in have
// (COM_BINLOG_DUMP_GTID); a nil set means a dump by position (name, pos).
func (l *Log) DumpGTID(c *mysql.Conn, name string, pos uint64, have mysql.GTIDSet, o DumpOptions) (int, error) {
	if have == nil {
		return l.Dump(c, name, pos, o)
	}
	set, ok := have.(mysql.Mysql56GTIDSet)
	if !ok {
		return 0, fatal("unsupported GTID set %v", have)
	}
	l.mu.Lock()
	first := l.first
	l.mu.Unlock()
	// Every transaction the replica lacks must still be here: the first
	// file's Previous_gtids must be within what it has.
	if prev, err := l.previousGTIDs(first); err != nil {
		return 0, err
	} else if !set.Contains(prev) {
		return 0, fatal("Cannot replicate because the master purged required binary logs. Replicate the missing transactions from elsewhere, or provision a new slave from backup.")
	}
	w := &sender{c: c}
	err := l.stream(w, start{file: first, pos: 4}, set, o)
	return w.n, err
}

func (l *Log) previousGTIDs(file uint32) (mysql.Mysql56GTIDSet, error) {
	tx := l.db.Begin()
	defer tx.Rollback()
	h, ok, err := tx.Get(l.ks, key(file, 0))
	if err != nil || !ok {
		return mysql.Mysql56GTIDSet{}, err
	}
	off := 4 + int(binary.LittleEndian.Uint32(h[4+9:]))
	size := int(binary.LittleEndian.Uint32(h[off+9:]))
	return mysql.NewMysql56GTIDSetFromSIDBlock(h[off+headerLen : off+size-checksumLen])
}

// stream sends the fake Rotate, the file's Format_description, then every
// durable event from st on, waiting for commits at the end (BL-4). skip,
// when set, leaves out the transactions whose GTIDs it holds.
func (l *Log) stream(c *sender, st start, skip mysql.Mysql56GTIDSet, o DumpOptions) error {
	tx := l.db.Begin()
	h, ok, err := tx.Get(l.ks, key(st.file, 0))
	tx.Rollback()
	if err != nil {
		return err
	}
	if !ok {
		return fatal("Could not find first log file name in binary log index file")
	}
	m := mysql.BinlogEventMetadata{ServerID: l.opts.ServerID}
	// The fake Rotate names the file and position the stream starts at.
	rot := append([]byte(nil), mysql.NewFakeRotateEvent(l.format, m, l.FileName(st.file)).Bytes()...)
	binary.LittleEndian.PutUint64(rot[headerLen:], st.pos)
	if o.RotateCRC {
		seal(rot)
	} else {
		rot = rot[:len(rot)-checksumLen]
		binary.LittleEndian.PutUint32(rot[9:], uint32(len(rot)))
	}
	if err := c.send(rot); err != nil {
		return err
	}
	fdeSize := int(binary.LittleEndian.Uint32(h[4+9:]))
	fde := append([]byte(nil), h[4:4+fdeSize]...)
	if st.pos > 4 {
		// Not at the file's start: the replica must not take the
		// Format_description's position as its own (MySQL sends it so).
		binary.LittleEndian.PutUint32(fde[13:], 0)
		seal(fde)
		if err := c.send(fde); err != nil {
			return err
		}
	}
	file, pos := st.file, st.pos
	var heartbeat <-chan time.Time
	if o.Heartbeat > 0 {
		t := time.NewTicker(o.Heartbeat)
		defer t.Stop()
		heartbeat = t.C
	}
	for {
		wf, wp, wake := l.watermark()
		sent, nf, np, err := l.sendRange(c, file, pos, wf, wp, skip)
		if err != nil {
			return err
		}
		file, pos = nf, np
		if sent {
			if err := c.c.FlushBuffer(); err != nil {
				return err
			}
			continue
		}
		if o.NonBlock {
			return nil
		}
		select {
		case <-wake:
		case <-l.closed:
			return nil
		case <-heartbeat:
			hb := append([]byte(nil), mysql.NewHeartbeatEventWithLogFile(l.format, m, l.FileName(file)).Bytes()...)
			binary.LittleEndian.PutUint32(hb[13:], uint32(pos))
			seal(hb)
			if err := c.send(hb); err != nil {
				return err
			}
			if err := c.c.FlushBuffer(); err != nil {
				return err
			}
		}
	}
}

// sendRange sends the events at or after (file, pos) whose entries end at
// or before the watermark (wf, wp), up to a batch; it returns where the
// next call goes on. A position inside an entry must be an event's start.
func (l *Log) sendRange(c *sender, file uint32, pos uint64, wf uint32, wp uint64, skip mysql.Mysql56GTIDSet) (bool, uint32, uint64, error) {
	tx := l.db.Begin()
	defer tx.Rollback()
	// The entry holding pos: the last one starting at or before it.
	lo := key(file, 0)
	it := tx.Scan(l.ks, lo, key(file, pos+1), true)
	var base uint64
	var entry []byte
	if it.Next() {
		_, base = splitKey(it.Key())
		entry = append([]byte(nil), it.Value()...)
	}
	err := it.Err()
	it.Close()
	if err != nil {
		return false, file, pos, err
	}
	sent := false
	for batch := 0; batch < 256; batch++ {
		if entry == nil || base+uint64(len(entry)) <= pos {
			// pos is past this entry: the next one, in this file or the next
			it := tx.Scan(l.ks, key(file, pos), key(file+1, 1), false)
			entry = nil
			if it.Next() {
				f, p := splitKey(it.Key())
				if f == file && p == pos || f == file+1 && p == 0 {
					base, entry = p, append([]byte(nil), it.Value()...)
					if f != file {
						// a new file: its events from the Format_description on
						file, pos = f, 4
					}
				} else if f == file {
					it.Close()
					return sent, file, pos, fatal("Client requested master to start replication from impossible position")
				}
			}
			err := it.Err()
			it.Close()
			if err == nil && entry == nil {
				l.mu.Lock()
				purged := file < l.first
				l.mu.Unlock()
				if purged {
					return sent, file, pos, fatal("Could not find the binary log file %s: purged while it was read", l.FileName(file))
				}
			}
			if err != nil || entry == nil {
				return sent, file, pos, err
			}
		}
		if file > wf || file == wf && base+uint64(len(entry)) > wp {
			return sent, file, pos, nil // not durable yet
		}
		// events from pos within the entry
		off := 0
		if base == 0 {
			off = 4 // the magic
		}
		if gno, ok := gnoOf(entry); ok && skip != nil && skip.ContainsGTID(mysql.Mysql56GTID{Server: l.sid, Sequence: gno}) {
			pos = base + uint64(len(entry))
			continue
		}
		for off < len(entry) {
			if off+headerLen > len(entry) {
				return sent, file, pos, fmt.Errorf("binlog: entry %d:%d is cut", file, base)
			}
			size := int(binary.LittleEndian.Uint32(entry[off+9:]))
			at := base + uint64(off)
			if at >= pos {
				if at != pos {
					return sent, file, pos, fatal("Client requested master to start replication from impossible position")
				}
				if err := c.send(entry[off : off+size]); err != nil {
					return sent, file, pos, err
				}
				sent = true
				pos = at + uint64(size)
			}
			off += size
		}
		if pos < base+uint64(len(entry)) {
			pos = base + uint64(len(entry))
		}
	}
	return sent, file, pos, nil
}

// sender writes events as packets and counts them.
type sender struct {
	c *mysql.Conn
	n int
}

func (s *sender) send(ev []byte) error {
	s.n++
	return s.c.WriteBinlogEvent(mysql.NewMysql56BinlogEvent(ev), false)
}
