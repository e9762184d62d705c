package engine

import (
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// logBudget tells the redo log whether its volume is short of IOPS (WAL-7):
// the write I/Os (writes and syncs) of the log's volume, plus the data
// volume's when both live on one device, over the last sample, against the
// volume's write capacity. Short means at least half of it in use; it
// stays short until less than 35% is (hysteresis: the waits it starts
// lower the very I/Os it counts). Only a capacity the operator declared
// counts (--io-capacity, divided among the stripes: it is the data volumes'
// total): a local disk of unknown capacity passes 3,000 write I/Os a second
// without being short of them, and there the full wait cost
// oltp_update_index in memory 26% (16 clients waiting 1 ms per commit). An
// emulated profile does not count: it throttles the data volumes inside the
// process, and the log's syncs spend none of it.
type logBudget struct {
	capacity float64
	shared   bool // the log and the data volume are on one device
	busy     atomic.Bool
	last     time.Time
	lastIOs  int64
}

func newLogBudget(o *Options) *logBudget {
	b := &logBudget{} // capacity 0: unknown, never short
	if o.IOCapacity > 0 {
		b.capacity = float64(o.IOCapacity) / float64(max(1, len(o.DataDirs)))
	}
	if len(o.DataDirs) > 0 {
		b.shared = sameDevice(o.LogDir, o.DataDirs...)
	}
	return b
}

// sameDevice reports whether dir sits on the device of any of others.
func sameDevice(dir string, others ...string) bool {
	dev := func(p string) (uint64, bool) {
		fi, err := os.Stat(p)
		if err != nil {
			return 0, false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return 0, false
		}
		return uint64(st.Dev), true
	}
	d, ok := dev(dir)
	if !ok {
		return false
	}
	for _, o := range others {
		if e, ok := dev(o); ok && e == d {
			return true
		}
	}
	return false
}

// Busy is the log's Options.Busy.
func (b *logBudget) Busy() bool { return b.busy.Load() }

// sampleLogBudget updates busy from the volumes' cumulative write I/Os; called on
// the page cleaner's tick.
func (db *DB) sampleLogBudget(now time.Time) {
	b := db.budget
	if b.capacity <= 0 {
		return
	}
	ls := db.logVol.Stats()
	ios := ls.Writes + ls.Syncs
	if b.shared {
		ds := db.dataVol.Stats()
		ios += ds.Writes + ds.Syncs
	}
	if !b.last.IsZero() {
		if dt := now.Sub(b.last).Seconds(); dt > 0 {
			used := float64(ios-b.lastIOs) / dt / b.capacity
			b.busy.Store(used >= 0.5 || b.busy.Load() && used >= 0.35)
		}
	}
	b.last, b.lastIOs = now, ios
}
