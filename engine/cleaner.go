package engine

import (
	"log/slog"
	"time"

	"strata/iogov"
)

const (
	cleanerTick  = 100 * time.Millisecond
	cleanerBatch = 16 // pages per write batch: small, so reads interleave
	readYield    = 5 * time.Millisecond
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
		// Pages owed carry over a refused tick, but never more than two
		// ticks' worth: the governor re-plans every tick.
		owed = min(owed+plan.Rate*dt, 2*plan.Rate*dt+cleanerBatch)
		for owed >= 1 {
			select {
			case <-db.stop:
				return
			default:
			}
			n := min(int(owed), cleanerBatch)
			if !plan.Urgent {
				if !db.gov.Take(n) {
					break
				}
				if plan.Yield {
					db.yieldToReads()
				}
			}
			wrote, err := db.pool.FlushOldestN(n)
			db.gov.Wrote(wrote, plan.Urgent)
			if err != nil {
				if db.cleanerErrs.Add(1) == 1 {
					slog.Error("page cleaner: flush failed", "err", err)
				}
				owed = 0
				break
			}
			if wrote == 0 { // nothing (flushable) is dirty
				owed = 0
				break
			}
			owed -= float64(n)
		}
		next := cleanerTick
		if plan.Urgent {
			// Reclaim the log space just flushed, and look again soon:
			// commits are about to checkpoint themselves (IO-2).
			if err := db.advanceCheckpoint(); err != nil && db.cleanerErrs.Add(1) == 1 {
				slog.Error("page cleaner: checkpoint failed", "err", err)
			}
			next = cleanerTick / 10
		}
		t.Reset(next)
	}
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
