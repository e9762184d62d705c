// Package metrics exports engine.Stats as Prometheus metrics. It owns the
// metric names; it reads a fresh Stats snapshot on every scrape and keeps
// no state of its own.
package metrics

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"strata/bpe"
	"strata/engine"
)

// Collector is a prometheus.Collector over an open engine.
type Collector struct {
	db     *engine.DB
	descs  map[string]*prometheus.Desc
	bpeLat *prometheus.Desc
}

type sample struct {
	name, help string
	counter    bool
	value      float64
	labels     []string
}

func samples(s engine.Stats) []sample {
	c := func(name, help string, v int64, labels ...string) sample {
		return sample{name, help, true, float64(v), labels}
	}
	g := func(name, help string, v int64, labels ...string) sample {
		return sample{name, help, false, float64(v), labels}
	}
	out := []sample{
		g("strata_pool_frames", "Buffer pool frames (16 KiB pages).", s.Pool.Frames),
		g("strata_pool_dirty_pages", "Dirty pages in the buffer pool.", s.Pool.Dirty),
		c("strata_pool_hits_total", "Buffer pool page hits.", s.Pool.Hits),
		c("strata_pool_misses_total", "Buffer pool page misses.", s.Pool.Misses),
		c("strata_pool_evictions_total", "Pages evicted from the buffer pool.", s.Pool.Evictions),
		c("strata_pool_pages_flushed_total", "Dirty pages written back.", s.Pool.PagesFlushed),
		c("strata_pool_flush_batches_total", "Flush batches.", s.Pool.FlushBatches),
		c("strata_pool_sync_flushes_total", "Evictions that had to flush synchronously.", s.Pool.SyncFlushes),
		c("strata_pool_prefetched_total", "Pages read ahead of use by scans and roll-forwards (bufpool BP-6).", s.Pool.Prefetched),
		c("strata_log_appends_total", "Redo records appended.", s.Log.Appends),
		c("strata_mtr_total", "Mini-transactions run under the apply latch (mtr MTR-1).", s.Apply.Count),
		c("strata_apply_latch_held_microseconds_total", "Time the apply latch was held (MTR-1): over strata_mtr_total, the serial part of a commit.", s.Apply.Held.Microseconds()),
		c("strata_apply_latch_wait_microseconds_total", "Time spent waiting for the apply latch.", s.Apply.Waited.Microseconds()),
		c("strata_log_append_bytes_total", "Redo bytes appended.", s.Log.AppendBytes),
		c("strata_log_writes_total", "Redo log volume writes.", s.Log.Writes),
		c("strata_log_syncs_total", "Redo log fsyncs (group commits).", s.Log.Syncs),
		c("strata_log_delayed_groups_total", "Group commits the log writer waited for more commits to join (wal WAL-6).", s.Log.DelayedGroups),
		c("strata_checkpoints_total", "Checkpoints written.", s.Log.Checkpoints),
		g("strata_log_used_bytes", "Redo log bytes between checkpoint and end.", s.LogUsedBytes),
		g("strata_log_capacity_bytes", "Redo log capacity.", s.LogCapacityBytes),
		c("strata_page_reads_total", "Pages read from the data volume.", s.Pages.PageReads),
		c("strata_page_writes_total", "Pages written in place.", s.Pages.PageWrites),
		c("strata_atomic_page_writes_total", "In-place page writes issued with RWF_ATOMIC.", s.Pages.AtomicWrites),
		c("strata_doublewrite_pages_total", "Pages written to the doublewrite area.", s.Pages.DoublewriteWrites),
		c("strata_pages_repaired_total", "Torn pages repaired from the doublewrite area.", s.Pages.Repaired),
		c("strata_pages_corrupt_total", "Pages that failed verification.", s.Pages.Corrupt),
		g("strata_memory_budget_bytes", "The process's memory budget (0: none).", s.Memory.Budget),
		g("strata_memory_used_bytes", "Memory the process holds, at the last sample.", s.Memory.Used),
		g("strata_memory_peak_bytes", "Highest memory use sampled.", s.Memory.Peak),
		c("strata_memory_refusals_total", "Statements stopped because the process was over its memory budget.", s.Memory.Refusals),
		g("strata_max_txn_memory_bytes", "Bound on one transaction's changes and row locks.", s.MaxTxnMemory),
		g("strata_version_store_bytes", "Memory of the versions kept for open snapshots.", s.Versions.Bytes),
		g("strata_version_store_peak_bytes", "Highest memory of the version store.", s.Versions.Peak),
		g("strata_version_store_budget_bytes", "The version store's budget; past it old snapshots get 1412.", s.Versions.Budget),
		g("strata_snapshots_open", "Open read snapshots.", int64(s.Versions.Snapshots)),
		c("strata_commits_total", "Committed transactions.", s.Commits),
		c("strata_txn_spills_total", "Write sets moved to a staging keyspace (transactions larger than memory).", s.Spills),
		c("strata_staged_commits_total", "Commits applied by rolling forward from a staging keyspace.", s.StagedCommits),
		c("strata_lock_escalations_total", "Keyspaces a transaction locked whole instead of row by row.", s.Escalations),
		c("strata_rollbacks_total", "Rolled back transactions.", s.Rollbacks),
		c("strata_lock_waits_total", "Row lock waits.", s.LockWaits),
		c("strata_deadlocks_total", "Deadlocks detected.", s.Deadlocks),
		g("strata_bpe_slots", "Buffer pool extension capacity in 16 KiB pages (0: off or disabled).", s.BPE.Slots),
		g("strata_bpe_pages", "Pages held by the buffer pool extension.", s.BPE.Used),
		g("strata_bpe_index_bytes", "Memory of the buffer pool extension's index.", s.BPE.IndexBytes),
		c("strata_bpe_hits_total", "Pool misses served by the buffer pool extension.", s.BPE.Hits),
		c("strata_bpe_misses_total", "Pool misses the buffer pool extension could not serve.", s.BPE.Misses),
		c("strata_bpe_admissions_total", "Pages written into the buffer pool extension.", s.BPE.Admissions),
		c("strata_bpe_retained_total", "Evicted pages whose identical copy the buffer pool extension already held.", s.BPE.Retained),
		c("strata_bpe_rejections_total", "Evicted pages not admitted (policy or full write queue).", s.BPE.Rejections),
		c("strata_bpe_evictions_total", "Pages dropped from the buffer pool extension to make room.", s.BPE.Evictions),
		c("strata_bpe_invalidations_total", "Buffer pool extension copies dropped because the page changed.", s.BPE.Invalidations),
		c("strata_bpe_failures_total", "I/O errors that disabled the buffer pool extension.", s.BPE.Failures),
		c("strata_lock_timeouts_total", "Row lock wait timeouts.", s.LockTimeouts),
		g("strata_io_limit_pages_per_second", "Background page writes per second the I/O limiter allows now (0: off).", int64(s.IO.Limit)),
		g("strata_io_flush_target_pages_per_second", "Page writes per second adaptive flushing aims at.", int64(s.IO.Target)),
		g("strata_io_urgent", "1 while the page cleaner writes past the limiter (log or dirty pages near their limit).", b2i(s.IO.Urgent)),
		g("strata_io_read_latency_microseconds", "Smoothed latency of foreground data-volume reads, as the limiter sees it.", int64(s.IO.ReadLatencyUs)),
		g("strata_io_read_latency_baseline_microseconds", "Baseline read latency the limiter compares against.", int64(s.IO.BaselineUs)),
		g("strata_io_dirty_rate_pages_per_second", "Pages turning dirty per second.", int64(s.IO.DirtyRate)),
		c("strata_io_background_pages_total", "Pages written by the page cleaner under the limiter.", s.IO.BackgroundPages),
		c("strata_io_urgent_pages_total", "Pages written by the page cleaner past the limiter.", s.IO.UrgentPages),
		c("strata_io_limit_cuts_total", "Limiter cuts because foreground reads slowed down.", s.IO.Cuts),
		c("strata_io_limit_raises_total", "Limiter raises because flushing needed more.", s.IO.Raises),
		c("strata_io_throttled_batches_total", "Page-cleaner batches deferred for lack of tokens.", s.IO.Throttle),
		c("strata_log_space_waits_total", "Commits that checkpointed because the redo log was nearly full.", s.LogSpaceWaits),
		c("strata_page_cleaner_errors_total", "Failed page-cleaner flushes and checkpoints.", s.CleanerErrors),
	}
	type volCounters struct{ r, w, s, br, bw int64 }
	vols := map[string]volCounters{
		"log":  {s.LogVolume.Reads, s.LogVolume.Writes, s.LogVolume.Syncs, s.LogVolume.BytesRead, s.LogVolume.BytesWritten},
		"data": {s.DataVolume.Reads, s.DataVolume.Writes, s.DataVolume.Syncs, s.DataVolume.BytesRead, s.DataVolume.BytesWritten},
	}
	if len(s.DataVolumes) > 1 { // the members of a stripe: data0, data1, ...
		for i, m := range s.DataVolumes {
			vols["data"+strconv.Itoa(i)] = volCounters{m.Reads, m.Writes, m.Syncs, m.BytesRead, m.BytesWritten}
		}
	}
	for role, st := range vols {
		out = append(out,
			c("strata_volume_reads_total", "Volume read operations.", st.r, role),
			c("strata_volume_writes_total", "Volume write operations.", st.w, role),
			c("strata_volume_syncs_total", "Volume syncs.", st.s, role),
			c("strata_volume_read_bytes_total", "Bytes read from the volume.", st.br, role),
			c("strata_volume_written_bytes_total", "Bytes written to the volume.", st.bw, role))
	}
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// HitRatios returns the pool hit ratio (hits / page requests) and the
// BPE hit ratio (BPE hits / pool misses), 0 when there were none.
func HitRatios(s engine.Stats) (pool, bpe float64) {
	if n := s.Pool.Hits + s.Pool.Misses; n > 0 {
		pool = float64(s.Pool.Hits) / float64(n)
	}
	if n := s.BPE.Hits + s.BPE.Misses; n > 0 {
		bpe = float64(s.BPE.Hits) / float64(n)
	}
	return pool, bpe
}

// NewCollector returns a collector for db.
func NewCollector(db *engine.DB) *Collector {
	col := &Collector{db: db, descs: map[string]*prometheus.Desc{},
		bpeLat: prometheus.NewDesc("strata_bpe_read_seconds", "Latency of reads from the buffer pool extension.", nil, nil)}
	for _, s := range samples(engine.Stats{}) {
		var labels []string
		if len(s.labels) > 0 {
			labels = []string{"volume"}
		}
		col.descs[s.name] = prometheus.NewDesc(s.name, s.help, labels, nil)
	}
	return col
}

// Describe implements prometheus.Collector.
func (col *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- col.bpeLat
	for _, d := range col.descs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (col *Collector) Collect(ch chan<- prometheus.Metric) {
	st := col.db.Stats()
	buckets := map[float64]uint64{}
	var cum uint64
	for i, b := range bpe.LatencyBounds() {
		cum += uint64(st.BPE.ReadLatency[i])
		buckets[b.Seconds()] = cum
	}
	ch <- prometheus.MustNewConstHistogram(col.bpeLat, uint64(st.BPE.ReadsBPE),
		float64(st.BPE.ReadLatencySumNanos)/1e9, buckets)
	for _, s := range samples(st) {
		t := prometheus.GaugeValue
		if s.counter {
			t = prometheus.CounterValue
		}
		ch <- prometheus.MustNewConstMetric(col.descs[s.name], t, s.value, s.labels...)
	}
}

// Status returns the engine counters as MySQL status variables (SHOW
// GLOBAL STATUS): strata_pool_hits_total becomes Strata_pool_hits, and
// per-volume counters get the volume as a suffix (Strata_volume_reads_data).
func Status(s engine.Stats) map[string]int64 {
	out := map[string]int64{}
	for _, smp := range samples(s) {
		name := strings.TrimSuffix(smp.name, "_total")
		for _, l := range smp.labels {
			name += "_" + l
		}
		out["S"+name[1:]] = int64(smp.value)
	}
	return out
}
