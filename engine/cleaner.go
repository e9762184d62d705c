package engine

import (
	"log/slog"
	"time"

	"strata/iogov"
)

const (
	cleanerTick  = 100 * time.Millisecond
	cleanerBatch = 16 // pages per write batch: small, so reads interleave
	// hurryBatch is the batch while the redo log is past its high
	// watermark: what a sync costs is paid per batch, and reads wait less
	// than commits will if the log fills (IO-2). 64 pages fill the
	// doublewrite area. Not when only dirty pages crowd the pool: there
	// the cleaner written faster left the urgent plan for the oldest-first
	// order sooner and wrote hot pages (write_only, 8 x 150k rows, 64M
	// pool: 2.63 page writes per transaction against 2.12, -14% TPS).
	hurryBatch = 64
	readYield  = 5 * time.Millisecond
)

// pageCleaner writes dirty pages, oldest first, at the rate the governor
// plans (adaptive flushing, IO-4), taking limiter tokens per batch unless
// the plan is urgent (IO-1, IO-2). It replaces the pool's own flusher when
// the limiter is on; eviction still flushes synchronously if it must.
func (db *DB) pageCleaner() {
	defer db.wg.Done()
	t := time.NewTimer(cleanerTick)
	defer t.Stop()
	owed := 0.0
	last := time.Now()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		dt := now.Sub(last).Seconds()
		last = now
		plan := db.gov.Update(db.ioSample(now))
		db.sampleLogBudget(now)
		// Pages owed carry over a refused tick, but never more than two
		// ticks' worth (of the nominal tick: a tick that ran long must not
		// make the next one owe more, and so run longer still).
		owed = min(owed+plan.Rate*dt, 2*plan.Rate*cleanerTick.Seconds()+cleanerBatch)
		lastCkpt := now
		wrote := 0
		if owed >= 1 {
			// One scan of the pool per tick, batches paced by tokens.
			var err error
			// BP-9: cold pages first, unless the checkpoint needs the oldest.
			logHigh := float64(db.log.Used()) >= iogov.HighLogFill*float64(db.log.Capacity())
			cold := !logHigh
			batch := cleanerBatch
			if logHigh {
				batch = hurryBatch
			}
			wrote, err = db.pool.FlushOldestPaced(int(owed), batch, cold, func(n int) bool {
				select {
				case <-db.stop:
					return false
				default:
				}
				// On a slow volume a tick can run long: move the checkpoint
				// as it goes (it follows the pages just written), or commits
				// find the log full before the tick ends (IO-2).
				if time.Since(lastCkpt) > cleanerTick/2 && db.cleanerCheckpoint() {
					lastCkpt = time.Now()
				}
				if plan.Urgent {
					return true
				}
				if !db.gov.Take(n) {
					return false
				}
				if plan.Yield {
					db.yieldToReads()
				}
				return true
			})
			db.gov.Wrote(wrote, plan.Urgent)
			owed -= float64(wrote)
			if err != nil {
				if db.cleanerErrs.Add(1) == 1 {
					slog.Error("page cleaner: flush failed", "err", err)
				}
				owed = 0
			}
		}
		// Reclaim log space as the oldest pages get written: the checkpoint
		// follows the oldest dirty page (a no-op when it would not move).
		if wrote > 0 || plan.Hurry {
			db.cleanerCheckpoint()
		}
		next := cleanerTick
		if plan.Hurry {
			next = cleanerTick / 10 // commits are about to checkpoint themselves (IO-2)
		}
		t.Reset(next)
	}
}

// cleanerCheckpoint moves the checkpoint to the oldest dirty page once a
// sixteenth of the log is in use (below that it is not worth the header
// write and fsync); the first failure is logged. It reports whether it
// tried.
func (db *DB) cleanerCheckpoint() bool {
	if db.log.Used() <= db.log.Capacity()/16 {
		return false
	}
	if err := db.advanceCheckpoint(); err != nil && db.cleanerErrs.Add(1) == 1 {
		slog.Error("page cleaner: checkpoint failed", "err", err)
	}
	return true
}

// yieldToReads gives foreground reads of the data volume priority over a
// background batch: the batch waits, up to readYield, while reads are in
// flight (IO-1).
func (db *DB) yieldToReads() {
	deadline := time.Now().Add(readYield)
	for db.dataVol.ReadsInFlight() > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Microsecond)
	}
}

// ioSample is what the governor sees of the engine.
func (db *DB) ioSample(now time.Time) iogov.Sample {
	ps := db.pool.Stats()
	ds := db.dataVol.Stats()
	return iogov.Sample{Now: now, Frames: ps.Frames, Dirty: ps.Dirty, Dirtied: ps.Dirtied,
		LogUsed: db.log.Used(), LogCapacity: db.log.Capacity(),
		Reads: ds.Reads, ReadNanos: ds.ReadNanos}
}
