package engine

import (
	"strata/bpe"
	"strata/iogov"
	"strata/memgov"
	"strata/mtr"
	"strata/mvcc"
	"time"

	"strata/bufpool"
	"strata/pagestore"
	"strata/volume"
	"strata/wal"
)

// Stats is a snapshot of every engine counter (exported as SHOW GLOBAL
// STATUS and Prometheus metrics by the server).
type Stats struct {
	Pool       bufpool.Stats
	BPE        bpe.Stats // zero without a BPE
	Log        wal.Stats
	Pages      pagestore.Stats
	LogVolume  volume.MeteredStats
	DataVolume volume.MeteredStats
	// DataVolumes are the data volumes opened from DataDirs, one per
	// directory (the members of a stripe); empty for an injected volume.
	DataVolumes []volume.MeteredStats
	// IO is the background I/O governor (limiter rate and why).
	IO iogov.Status
	// LogSpaceWaits counts commits that had to checkpoint because the log
	// was nearly full.
	LogSpaceWaits int64
	// CleanerErrors counts failed page-cleaner flushes and checkpoints (the
	// first is logged; a failed page write is sticky, see bufpool).
	CleanerErrors int64
	// Memory is the process's memory budget and use (memgov MEM-4).
	Memory memgov.Stats
	// MaxTxnMemory is EN-6's bound on one transaction.
	MaxTxnMemory int64
	// Versions is the version store (mvcc MV-5; EN-8).
	Versions mvcc.Stats
	// Apply is the apply latch's use (mtr MTR-1): every commit's changes
	// are applied one mini-transaction at a time.
	Apply mtr.Stats

	Commits, Rollbacks, RecoveredRecords int64
	// Spills, StagedCommits and Escalations count EN-9's write-set spills
	// and roll-forward commits and EN-10's keyspaces locked whole.
	Spills, StagedCommits, Escalations int64
	LockWaits, Deadlocks, LockTimeouts int64
	LogUsedBytes, LogCapacityBytes     int64
	TornWriteProtection                string
}

// Stats returns the current counters.
func (db *DB) Stats() Stats {
	var bs bpe.Stats
	if db.bpe != nil {
		bs = db.bpe.Stats()
	}
	return Stats{
		BPE:  bs,
		Pool: db.pool.Stats(), Log: db.log.Stats(), Pages: db.store.Stats(),
		LogVolume: db.logVol.Stats(), DataVolume: db.dataVol.Stats(), DataVolumes: db.memberStats(),
		IO: db.gov.Status(), LogSpaceWaits: db.logSpaceWaits.Load(), CleanerErrors: db.cleanerErrs.Load(),
		Spills: db.spills.Load(), StagedCommits: db.stagedCommits.Load(), Escalations: db.escalations.Load(),
		Commits: db.commits.Load(), Rollbacks: db.rollbacks.Load(), RecoveredRecords: db.recoveredRecords.Load(),
		LockWaits: db.locks.Waits.Load(), Deadlocks: db.locks.Deadlocks.Load(), LockTimeouts: db.locks.Timeouts.Load(),
		LogUsedBytes: db.log.Used(), LogCapacityBytes: db.log.Capacity(),
		TornWriteProtection: db.store.Mode().String(),
		Memory:              memgov.Read(), MaxTxnMemory: db.opts.MaxTxnMemory, Versions: db.versions.Stats(),
		Apply: db.mtrs.Stats(),
	}
}

// SetLockWaitTimeout changes the row-lock wait timeout at run time.
func (db *DB) SetLockWaitTimeout(d time.Duration) { db.locks.SetTimeout(d) }

// LockWaitTimeout is the engine's row-lock wait timeout as opened.
func (db *DB) LockWaitTimeout() time.Duration { return db.opts.LockWaitTimeout }

func (db *DB) memberStats() []volume.MeteredStats {
	out := make([]volume.MeteredStats, len(db.members))
	for i, m := range db.members {
		out[i] = m.Stats()
	}
	return out
}

// Dir is the base directory the engine was opened with ("" for injected
// volumes without one).
func (db *DB) Dir() string { return db.opts.Dir }
