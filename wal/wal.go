// Package wal owns the redo log: a circular byte stream on its own volume,
// written with group commit and read back at recovery.
//
// Volume layout: two 4 KiB header blocks (offsets 0 and 4096, written
// alternately, the valid one with the highest sequence wins) followed by a
// data region of Capacity bytes. Stream position (LSN) l lives at physical
// offset dataStart + l mod Capacity.
//
// Record layout (little endian), records packed back to back:
//
//	0     4     8          16    17       24
//	+-----+-----+----------+-----+--------+-----------------+
//	| crc | len | lsn      |type | zero   | payload (len B) |
//	+-----+-----+----------+-----+--------+-----------------+
//
// crc is CRC32C over bytes [4, 24+len). lsn repeats the record's own stream
// position, so data left from an earlier lap around the circle never passes
// for a record.
//
// Rules (cited in code as WAL-n):
//
//	WAL-1 A record never starts in the last HeaderSize-1 bytes of a block;
//	      those bytes are skipped.
//	WAL-2 Every write to the volume starts on a block boundary and ends on
//	      one: the writer pads the tail of each group with a Pad record (or
//	      skipped bytes), so a written block is never rewritten and a torn
//	      write can only damage records that were never acknowledged.
//	WAL-3 Appends never overwrite the stream before the checkpoint LSN:
//	      End()-Checkpoint() stays below Capacity.
//	WAL-4 Replay stops at the first record whose length, lsn or crc is wrong
//	      (torn or stale tail). New appends after a replay start at the next
//	      block boundary, and are refused until the caller has written a
//	      checkpoint at or after that point, so a later recovery never has to
//	      read across the garbage of the old tail.
//	WAL-5 During the first lap the writer writes zeros a chunk ahead of the
//	      file's end before a small group lands there (fillAhead), so commits
//	      overwrite written blocks and their fdatasync does not journal a
//	      new file size each time. Zeros are only written at or past the
//	      file's size (never over a record) and read as the log's end.
//	WAL-6 Commits arriving together share a write and a sync (group
//	      commit). Before taking a group the writer waits d, half a group's
//	      write-and-sync time (its moving average) and at most
//	      MaxCommitDelay, when records arrive fast enough that at least
//	      0.75 more are expected in d (rate x d, the rate a moving average
//	      of records per second), so those commits join the group. On a
//	      cloud volume capped in IOPS every sync is one of them:
//	      oltp_write_only on the 3,000-IOPS volume took 0.41 syncs per
//	      commit, 0.24 with a 1 ms wait. A lone committer never waits (it
//	      commits at most once per write-and-sync time s, so rate x d <=
//	      1/s x s/2), and a fast device's short syncs make short waits.
//	WAL-7 On a volume whose IOPS budget is the scarce resource (Options.Busy
//	      reports it: the engine sees the log's volume spending at least
//	      half the write IOPS the operator declared for it), a sync's cost
//	      is the two I/Os it spends (the write and the flush), not its
//	      latency: the writer then waits the whole MaxCommitDelay when at least 0.5 more records are expected
//	      in it. oltp_read_write at 16 threads commits ~600 times a second,
//	      too sparse for WAL-6 (0.86 syncs per commit, 1.7 of its ~4.5
//	      write I/Os per transaction on the 3,000-IOPS volume). A wait
//	      must pay: while fewer than 0.25 records on average joined the
//	      recent waits (a lone committer, whose rate alone looks high),
//	      only every 16th group waits.
package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"sync/atomic"
	"time"

	"strata/page"
	"strata/volume"
)

const (
	// HeaderSize is the size of a record header.
	HeaderSize  = 24
	blockSize   = volume.BlockSize
	dataStart   = 2 * blockSize
	headerMagic = 0x5354524c // "STRL"
	// DefaultCapacity is the default size of the circular data region.
	DefaultCapacity = 256 << 20
	// firstLSN is where a brand-new log starts; LSN 0 means "none".
	firstLSN = page.LSN(blockSize)
	// maxWriteBytes bounds one volume write of the log writer.
	maxWriteBytes = 4 << 20
	// spareBytes is the capacity of the aligned buffer a commit group
	// appends into (a larger group grows it and is copied once to write).
	spareBytes = 1 << 20
)

// Record types.
const (
	TypePad  = 1
	TypeRedo = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var (
	// ErrLogFull is returned when an append would overwrite the stream
	// before the checkpoint (WAL-3).
	ErrLogFull = errors.New("wal: log full, checkpoint needed")
	// ErrClosed is returned after Close.
	ErrClosed         = errors.New("wal: closed")
	errNeedCheckpoint = errors.New("wal: appends refused until a checkpoint follows recovery")
)

// Options configure a Log.
type Options struct {
	// Capacity of the circular region in bytes (multiple of 4 KiB). Used
	// only when the volume holds no log yet.
	Capacity int64
	// FlushInterval bounds how long an appended record may stay in memory
	// when nobody waits for it (asynchronous commit). Default 10ms.
	FlushInterval time.Duration
	// MaxCommitDelay bounds WAL-6's wait for more commits to join a group.
	// 0 means DefaultMaxCommitDelay; a negative value turns the wait off.
	MaxCommitDelay time.Duration
	// Busy reports that the log's volume is short of IOPS (WAL-7); nil
	// means never. Called once per group: it must be cheap.
	Busy func() bool
}

// DefaultMaxCommitDelay is WAL-6's bound when Options set none.
const DefaultMaxCommitDelay = time.Millisecond

// Stats are cumulative counters.
type Stats struct {
	Appends, AppendBytes, Writes, WriteBytes, Syncs, Checkpoints int64
	// DelayedGroups counts groups the writer waited for (WAL-6).
	DelayedGroups int64
}

// Log is the redo log. Safe for concurrent use.
type Log struct {
	vol      volume.Volume
	capacity int64
	interval time.Duration
	maxDelay time.Duration // WAL-6; <= 0: off
	busy     func() bool   // WAL-7

	mu struct {
		sync.Mutex
		buf        []byte   // stream bytes [bufStart, end)
		bufStart   page.LSN // first LSN not yet handed to the writer
		end        page.LSN // next LSN to assign
		checkpoint page.LSN
		headerSeq  uint64
		needCkpt   page.LSN // WAL-4: appends refused until checkpoint >= needCkpt
		err        error    // sticky I/O error
		closed     bool
	}
	spare     []byte        // an aligned buffer for the next group, owned by the writer (writerMu)
	durable   atomic.Uint64 // everything below is on the volume and synced
	durableMu sync.Mutex
	durableCv *sync.Cond
	kick      chan struct{}
	done      chan struct{}
	stopped   chan struct{}
	writerMu  sync.Mutex // serializes volume writes and header writes
	filled    int64      // WAL-5: the volume holds written blocks below this offset (writerMu)
	zeros     []byte     // WAL-5's aligned zero chunk, made on first use (writerMu)

	appends, appendBytes, writes, writeBytes, syncs, checkpoints atomic.Int64

	// WAL-6's estimates (writerMu).
	groupNanos    float64   // a group's write and sync, moving average
	rate          float64   // records appended per second, moving average
	gain          float64   // WAL-7: records that joined during a busy wait, moving average
	busyGroups    int64     // WAL-7: groups taken while busy
	lastTake      time.Time // when the writer took the last group
	lastAppends   int64     // appends counted then
	delayedGroups atomic.Int64
}

type header struct {
	seq        uint64
	checkpoint page.LSN
	capacity   int64
}

// Open opens the log on vol, creating an empty log if the volume holds none.
// The returned log accepts appends only after Replay (if any records exist
// past the checkpoint the caller must Replay them first) and a checkpoint.
func Open(vol volume.Volume, opts Options) (*Log, error) {
	l := &Log{vol: vol, interval: opts.FlushInterval, maxDelay: opts.MaxCommitDelay, busy: opts.Busy, gain: 1,
		kick: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	if l.maxDelay == 0 {
		l.maxDelay = DefaultMaxCommitDelay
	}
	if l.interval <= 0 {
		l.interval = 10 * time.Millisecond
	}
	l.durableCv = sync.NewCond(&l.durableMu)
	h, ok, err := l.readHeader()
	if err != nil {
		return nil, err
	}
	if !ok {
		capacity := opts.Capacity
		if capacity <= 0 {
			capacity = DefaultCapacity
		}
		if capacity%blockSize != 0 || capacity < 16*blockSize {
			return nil, fmt.Errorf("wal: capacity %d must be a multiple of 4 KiB and at least 64 KiB", capacity)
		}
		h = header{seq: 0, checkpoint: firstLSN, capacity: capacity}
		l.capacity = capacity
		if err := l.writeHeader(h); err != nil {
			return nil, err
		}
		h.seq++
	}
	l.capacity = h.capacity
	l.filled = max((vol.Size()+blockSize-1)/blockSize*blockSize, dataStart) // WAL-5: never over a record or a header
	l.mu.checkpoint = h.checkpoint
	l.mu.headerSeq = h.seq
	l.mu.end = h.checkpoint
	l.mu.bufStart = h.checkpoint
	l.durable.Store(uint64(h.checkpoint))
	// Until Replay says otherwise, assume records may follow the checkpoint.
	l.mu.needCkpt = h.checkpoint + 1
	go l.writer()
	return l, nil
}

func (l *Log) readHeader() (header, bool, error) {
	buf := volume.AlignedBuffer(2 * blockSize)
	if err := l.vol.ReadAt(buf, 0); err != nil {
		return header{}, false, fmt.Errorf("wal: read header: %w", err)
	}
	var best header
	found := false
	for i := 0; i < 2; i++ {
		b := buf[i*blockSize : (i+1)*blockSize]
		if binary.LittleEndian.Uint32(b[4:]) != headerMagic {
			continue
		}
		if binary.LittleEndian.Uint32(b[0:]) != crc32.Checksum(b[4:], castagnoli) {
			continue
		}
		h := header{
			seq:        binary.LittleEndian.Uint64(b[8:]),
			checkpoint: page.LSN(binary.LittleEndian.Uint64(b[16:])),
			capacity:   int64(binary.LittleEndian.Uint64(b[24:])),
		}
		if !found || h.seq > best.seq {
			best, found = h, true
		}
	}
	return best, found, nil
}

func (l *Log) writeHeader(h header) error {
	b := volume.AlignedBuffer(blockSize)
	binary.LittleEndian.PutUint32(b[4:], headerMagic)
	binary.LittleEndian.PutUint64(b[8:], h.seq)
	binary.LittleEndian.PutUint64(b[16:], uint64(h.checkpoint))
	binary.LittleEndian.PutUint64(b[24:], uint64(h.capacity))
	binary.LittleEndian.PutUint32(b[0:], crc32.Checksum(b[4:], castagnoli))
	if err := l.vol.WriteAt(b, int64(h.seq%2)*blockSize); err != nil {
		return fmt.Errorf("wal: write header: %w", err)
	}
	if err := l.vol.Sync(); err != nil {
		return fmt.Errorf("wal: sync header: %w", err)
	}
	return nil
}

// Capacity is the size of the circular region.
func (l *Log) Capacity() int64 { return l.capacity }

// End is the LSN the next record will get (approximately: WAL-1 may skip).
func (l *Log) End() page.LSN {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.end
}

// Checkpoint is the LSN recovery starts from.
func (l *Log) Checkpoint() page.LSN {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.checkpoint
}

// Used is the number of stream bytes between the checkpoint and the end.
func (l *Log) Used() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(l.mu.end - l.mu.checkpoint)
}

// Durable is the LSN below which every record is synced.
func (l *Log) Durable() page.LSN { return page.LSN(l.durable.Load()) }

// Stats returns cumulative counters.
func (l *Log) Stats() Stats {
	return Stats{Appends: l.appends.Load(), AppendBytes: l.appendBytes.Load(), Writes: l.writes.Load(),
		WriteBytes: l.writeBytes.Load(), Syncs: l.syncs.Load(), Checkpoints: l.checkpoints.Load(),
		DelayedGroups: l.delayedGroups.Load()}
}

// MaxRecord is the largest payload Append accepts.
func (l *Log) MaxRecord() int { return int(l.capacity / 4) }

// Append adds a record and returns its LSN and the LSN just past it. The
// record is durable once WaitDurable(end) returns nil.
func (l *Log) Append(typ byte, payload []byte) (lsn, end page.LSN, err error) {
	if len(payload) > l.MaxRecord() {
		return 0, 0, fmt.Errorf("wal: record of %d bytes exceeds the maximum %d", len(payload), l.MaxRecord())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.appendableLocked(); err != nil {
		return 0, 0, err
	}
	l.skipBlockTailLocked() // WAL-1
	need := int64(HeaderSize + len(payload))
	if int64(l.mu.end-l.mu.checkpoint)+need+blockSize > l.capacity { // WAL-3
		return 0, 0, ErrLogFull
	}
	lsn = l.mu.end
	var hdr [HeaderSize]byte
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(payload)))
	binary.LittleEndian.PutUint64(hdr[8:], uint64(lsn))
	hdr[16] = typ
	crc := crc32.Update(crc32.Checksum(hdr[4:], castagnoli), castagnoli, payload)
	binary.LittleEndian.PutUint32(hdr[0:], crc)
	l.mu.buf = append(l.mu.buf, hdr[:]...)
	l.mu.buf = append(l.mu.buf, payload...)
	l.mu.end += page.LSN(need)
	l.appends.Add(1)
	l.appendBytes.Add(need)
	return lsn, l.mu.end, nil
}

func (l *Log) appendableLocked() error {
	switch {
	case l.mu.closed:
		return ErrClosed
	case l.mu.err != nil:
		return l.mu.err
	case l.mu.needCkpt != 0 && l.mu.checkpoint < l.mu.needCkpt:
		return errNeedCheckpoint
	}
	return nil
}

func (l *Log) skipBlockTailLocked() {
	if rem := blockSize - int64(l.mu.end)%blockSize; rem < HeaderSize {
		l.mu.buf = append(l.mu.buf, zeroBlock[:rem]...)
		l.mu.end += page.LSN(rem)
	}
}

// padLocked closes the current group on a block boundary (WAL-2).
func (l *Log) padLocked() {
	rem := (blockSize - int64(l.mu.end)%blockSize) % blockSize
	if rem == 0 {
		return
	}
	if rem < HeaderSize {
		l.mu.buf = append(l.mu.buf, zeroBlock[:rem]...)
		l.mu.end += page.LSN(rem)
		return
	}
	var hdr [HeaderSize]byte
	plen := rem - HeaderSize
	binary.LittleEndian.PutUint32(hdr[4:], uint32(plen))
	binary.LittleEndian.PutUint64(hdr[8:], uint64(l.mu.end))
	hdr[16] = TypePad
	zeros := zeroBlock[:plen]
	crc := crc32.Update(crc32.Checksum(hdr[4:], castagnoli), castagnoli, zeros)
	binary.LittleEndian.PutUint32(hdr[0:], crc)
	l.mu.buf = append(l.mu.buf, hdr[:]...)
	l.mu.buf = append(l.mu.buf, zeros...)
	l.mu.end += page.LSN(rem)
}

// WaitDurable blocks until every record below lsn is synced.
func (l *Log) WaitDurable(lsn page.LSN) error {
	if l.Durable() >= lsn {
		return nil
	}
	select {
	case l.kick <- struct{}{}:
	default:
	}
	l.durableMu.Lock()
	defer l.durableMu.Unlock()
	for l.Durable() < lsn {
		l.mu.Lock()
		err, closed := l.mu.err, l.mu.closed
		l.mu.Unlock()
		if err != nil {
			return err
		}
		if closed {
			return ErrClosed
		}
		l.durableCv.Wait()
	}
	return nil
}

// writer is the group-commit loop: it writes whatever accumulated, syncs,
// and wakes the waiters.
func (l *Log) writer() {
	defer close(l.stopped)
	t := time.NewTicker(l.interval)
	defer t.Stop()
	for {
		select {
		case <-l.kick:
		case <-t.C:
		case <-l.done:
			l.flushOnce()
			return
		}
		l.gather()
		l.flushOnce()
	}
}

// gather waits for more commits to join the next group when they are
// expected soon (WAL-6).
func (l *Log) gather() {
	l.mu.Lock()
	empty := len(l.mu.buf) == 0 // a kick left by records the last group took
	l.mu.Unlock()
	if empty {
		return
	}
	l.writerMu.Lock()
	wait, need, busy := min(l.maxDelay, time.Duration(l.groupNanos/2)), 0.75, false
	if l.busy != nil && l.busy() {
		// WAL-7, while its waits pay: a lone committer's are gathering
		// nothing, and then only every 16th group waits, to notice company.
		l.busyGroups++
		if l.gain >= 0.25 || l.busyGroups%16 == 0 {
			wait, need, busy = l.maxDelay, 0.5, true
		}
	}
	if l.maxDelay <= 0 || l.rate*wait.Seconds() < need {
		wait = 0
	}
	l.writerMu.Unlock()
	if wait > 0 {
		l.delayedGroups.Add(1)
		before := l.appends.Load()
		time.Sleep(wait)
		if busy {
			l.writerMu.Lock()
			l.gain += (float64(l.appends.Load()-before) - l.gain) / 8
			l.writerMu.Unlock()
		}
	}
}

func (l *Log) flushOnce() {
	l.writerMu.Lock()
	defer l.writerMu.Unlock()
	l.mu.Lock()
	if l.mu.err != nil || len(l.mu.buf) == 0 {
		l.mu.Unlock()
		return
	}
	began, appends := time.Now(), l.appends.Load() // Append counts under mu
	if !l.lastTake.IsZero() {
		// Records per second since the last group was taken, averaged
		// over about the last eight groups.
		r := float64(appends-l.lastAppends) / began.Sub(l.lastTake).Seconds()
		l.rate += (r - l.rate) / 8
	}
	l.lastTake, l.lastAppends = began, appends
	l.padLocked()
	start, buf := l.mu.bufStart, l.mu.buf
	if l.spare == nil {
		l.spare = volume.AlignedBuffer(spareBytes)[:0]
	}
	// The next group appends into the spare, the buffer the writer wrote
	// last (writerMu): aligned, so its write needs no copy (writeStream).
	l.mu.bufStart, l.mu.buf, l.spare = l.mu.end, l.spare, nil
	l.mu.Unlock()

	err := l.writeStream(start, buf)
	if cap(buf) <= spareBytes && volume.IsAligned(buf[:cap(buf)]) {
		l.spare = buf[:0]
	}
	if err == nil {
		err = l.vol.Sync()
		l.syncs.Add(1)
		took := float64(time.Since(began))
		if l.groupNanos == 0 {
			l.groupNanos = took
		} else {
			l.groupNanos += (took - l.groupNanos) / 8
		}
	}
	if err != nil {
		l.mu.Lock()
		l.mu.err = fmt.Errorf("wal: write failed, log unusable: %w", err)
		l.mu.Unlock()
	} else {
		l.durable.Store(uint64(start) + uint64(len(buf)))
	}
	l.durableMu.Lock()
	l.durableCv.Broadcast()
	l.durableMu.Unlock()
}

// zeroBlock pads a group to its block (padLocked).
var zeroBlock [blockSize]byte

// writeStream writes block-aligned stream bytes starting at lsn, wrapping.
func (l *Log) writeStream(lsn page.LSN, data []byte) error {
	if int64(lsn)%blockSize != 0 || len(data)%blockSize != 0 {
		panic(fmt.Sprintf("wal: unaligned group write at %d len %d (WAL-2)", lsn, len(data)))
	}
	for len(data) > 0 {
		pos := int64(lsn) % l.capacity
		n := int64(len(data))
		if n > l.capacity-pos {
			n = l.capacity - pos
		}
		if n > maxWriteBytes {
			n = maxWriteBytes
		}
		ab := data[:n]
		if !volume.IsAligned(ab) { // a group that outgrew its spare buffer
			ab = volume.AlignedBuffer(int(n))
			copy(ab, data[:n])
		}
		if n < bulkWrite { // a large group extends the file once for many records
			if err := l.fillAhead(dataStart + pos + n); err != nil {
				return err
			}
		}
		if err := l.vol.WriteAt(ab, dataStart+pos); err != nil {
			return err
		}
		l.filled = max(l.filled, dataStart+pos+n)
		l.writes.Add(1)
		l.writeBytes.Add(n)
		data = data[n:]
		lsn += page.LSN(n)
	}
	return nil
}

// fillAhead is WAL-5: before the first lap writes past the blocks the
// file holds, it writes zeros for the next zeroChunk bytes (up to the
// region's end), so a commit's write lands in written blocks and its
// fdatasync flushes data only. Appending instead extended the file with
// every commit, and each fdatasync then journaled the new size and blocks:
// 2,000 single-row autocommit INSERTs took 1.0 s on a fresh 256 MiB log and
// 0.61 s on a 1 MiB one that had wrapped (ext4). The zeros are past the
// log's end, read as no record by recovery (as the hole was), and made
// durable by the commit's own sync.
func (l *Log) fillAhead(upTo int64) error {
	end := dataStart + l.capacity
	for l.filled < upTo && l.filled < end {
		if l.zeros == nil {
			l.zeros = volume.AlignedBuffer(zeroChunk)
		}
		n := min(int64(zeroChunk), end-l.filled)
		if err := l.vol.WriteAt(l.zeros[:n], l.filled); err != nil {
			return err
		}
		l.filled += n
	}
	return nil
}

// zeroChunk is how far WAL-5 writes zeros ahead at a time; a group of
// bulkWrite bytes or more extends the file itself (a bulk load's groups:
// zeroing ahead of them doubled the first lap's writes and slowed sysbench
// prepare by 3-5%).
const (
	zeroChunk = 4 << 20
	bulkWrite = 32 << 10
)

// Flush writes and syncs everything appended so far.
func (l *Log) Flush() error {
	return l.WaitDurable(l.End())
}

// SetCheckpoint durably records that recovery may start at lsn. The caller
// guarantees that every page change logged below lsn is on the data
// volume and synced. lsn must be a record boundary at or below Durable().
func (l *Log) SetCheckpoint(lsn page.LSN) error {
	l.writerMu.Lock()
	defer l.writerMu.Unlock()
	l.mu.Lock()
	if lsn > page.LSN(l.durable.Load()) {
		l.mu.Unlock()
		return fmt.Errorf("wal: checkpoint %d beyond durable %d", lsn, l.durable.Load())
	}
	if lsn < l.mu.checkpoint {
		l.mu.Unlock()
		return nil
	}
	h := header{seq: l.mu.headerSeq, checkpoint: lsn, capacity: l.capacity}
	l.mu.Unlock()
	if err := l.writeHeader(h); err != nil {
		return err
	}
	l.checkpoints.Add(1)
	l.mu.Lock()
	l.mu.headerSeq++
	l.mu.checkpoint = lsn
	if l.mu.needCkpt != 0 && lsn >= l.mu.needCkpt {
		l.mu.needCkpt = 0
	}
	l.mu.Unlock()
	return nil
}

// Replay calls fn for every valid record from the checkpoint on, in order,
// and stops at the first invalid one (WAL-4). It returns the LSN where new
// records will go. Must be called once, right after Open, before Append.
func (l *Log) Replay(fn func(lsn page.LSN, typ byte, payload []byte) error) (page.LSN, error) {
	l.mu.Lock()
	pos := l.mu.checkpoint
	l.mu.Unlock()
	r := &streamReader{l: l}
	for {
		if rem := blockSize - int64(pos)%blockSize; rem < HeaderSize {
			pos += page.LSN(rem)
		}
		hdr, err := r.read(pos, HeaderSize)
		if err != nil {
			return 0, err
		}
		n := int64(binary.LittleEndian.Uint32(hdr[4:]))
		if page.LSN(binary.LittleEndian.Uint64(hdr[8:])) != pos || n > l.capacity/4 {
			break
		}
		typ := hdr[16]
		crc := binary.LittleEndian.Uint32(hdr[0:])
		rec, err := r.read(pos, HeaderSize+int(n))
		if err != nil {
			return 0, err
		}
		if crc32.Checksum(rec[4:], castagnoli) != crc {
			break
		}
		// The record is on the volume: pages it changes may be flushed.
		l.durable.Store(uint64(pos) + HeaderSize + uint64(n))
		if typ != TypePad {
			if err := fn(pos, typ, rec[HeaderSize:]); err != nil {
				return 0, err
			}
		}
		pos += page.LSN(HeaderSize + n)
	}
	// WAL-4: resume on the next block boundary; refuse appends until a
	// checkpoint at that point is written.
	if rem := int64(pos) % blockSize; rem != 0 {
		pos += page.LSN(blockSize - rem)
	}
	l.mu.Lock()
	l.mu.end, l.mu.bufStart = pos, pos
	l.durable.Store(uint64(pos))
	if pos == l.mu.checkpoint {
		l.mu.needCkpt = 0
	} else {
		l.mu.needCkpt = pos
	}
	l.mu.Unlock()
	return pos, nil
}

// streamReader reads the circular stream through a window of whole blocks.
type streamReader struct {
	l        *Log
	winStart page.LSN
	win      []byte
}

func (r *streamReader) read(lsn page.LSN, n int) ([]byte, error) {
	if lsn >= r.winStart && int64(lsn)+int64(n) <= int64(r.winStart)+int64(len(r.win)) {
		off := lsn - r.winStart
		return r.win[off : int(off)+n], nil
	}
	start := lsn - lsn%blockSize
	size := int64(lsn-start) + int64(n)
	if size < 1<<20 {
		size = 1 << 20
	}
	size = (size + blockSize - 1) / blockSize * blockSize
	if size > r.l.capacity {
		size = r.l.capacity
	}
	buf := volume.AlignedBuffer(int(size))
	for done := int64(0); done < size; {
		pos := (int64(start) + done) % r.l.capacity
		k := size - done
		if k > r.l.capacity-pos {
			k = r.l.capacity - pos
		}
		if err := r.l.vol.ReadAt(buf[done:done+k], dataStart+pos); err != nil {
			return nil, fmt.Errorf("wal: replay read: %w", err)
		}
		done += k
	}
	r.winStart, r.win = start, buf
	off := lsn - start
	return r.win[off : int(off)+n], nil
}

// Close flushes pending records and stops the writer.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.mu.closed {
		l.mu.Unlock()
		return nil
	}
	l.mu.closed = true
	l.mu.Unlock()
	close(l.done)
	<-l.stopped
	l.durableMu.Lock()
	l.durableCv.Broadcast()
	l.durableMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.err
}
