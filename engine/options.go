package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"strata/bpe"
	"strata/iogov"
	"strata/page"
	"strata/pagestore"
	"strata/volume"
)

// Options configure an engine. The zero value plus Dir is a working setup.
type Options struct {
	// Dir is the base directory: the log volume goes to Dir/log and the
	// data volume to Dir/data unless LogDir / DataDirs say otherwise.
	Dir string
	// LogDir is the directory standing for the log volume.
	LogDir string
	// DataDirs are the directories standing for the data volumes; more than
	// one stripes the data over them (RAID 0 inside the engine).
	DataDirs []string
	// StripeUnit is the striping unit in bytes (default 256 KiB).
	StripeUnit int64
	// BufferPoolBytes is the DRAM page cache size (default 128 MiB).
	BufferPoolBytes int64
	// LogCapacity is the size of the circular redo log (default 256 MiB;
	// fixed when the log is created).
	LogCapacity int64
	// AsyncCommit makes Commit return before its redo is synced (the
	// default, false, is durable commit).
	AsyncCommit bool
	// MaxCommitDelay bounds how long the log writer waits for concurrent
	// commits to share a sync (wal WAL-6): 0 is wal's default (1 ms), a
	// negative value turns the wait off.
	MaxCommitDelay time.Duration
	// TornWriteProtection is "doublewrite", "atomic" or "" (pick atomic
	// where the data volume guarantees whole-page atomic writes).
	TornWriteProtection string
	// Emulate applies an emulated cloud volume profile (volume.LookupProfile)
	// to the data volumes; VolumeIOPS/VolumeMBps/VolumeLatency override
	// its numbers and VolumeAtomic declares it atomic for whole pages.
	Emulate       string
	VolumeIOPS    int
	VolumeMBps    int
	VolumeLatency time.Duration
	VolumeAtomic  bool
	// BPEPath is the buffer pool extension file on the local SSD; with it
	// the BPE can be sized online (ResizeBPE) even if BPEBytes is 0.
	BPEPath string
	// BPEBytes is the BPE capacity (0: off).
	BPEBytes int64
	// BPEAdmission is the BPE admission policy: "all" (default) or "second".
	BPEAdmission string
	// BPEVolume replaces BPEPath with a given volume (tests).
	BPEVolume volume.Volume

	// DisableDirectIO opens volume files without O_DIRECT (for filesystems
	// such as tmpfs that refuse it).
	DisableDirectIO bool
	// VersionBudget bounds the memory of the version store that keeps the
	// history open snapshots read (mvcc MV-5; 0: 64 MiB).
	VersionBudget int64
	// MaxTxnMemory bounds one transaction's write set and row locks in
	// bytes (EN-6; default: the redo log's capacity, at least 16 MiB).
	MaxTxnMemory int64
	// SpillBytes is the write-set size past which a transaction's changes
	// move to its staging keyspace (EN-9); 0: a sixteenth of the log.
	SpillBytes int64
	// LockEscalation is the row-lock count in one keyspace at which a
	// transaction tries to lock the keyspace whole (EN-10; 0: 16384).
	LockEscalation int
	// LockWaitTimeout bounds a row-lock wait (default 50 s, as InnoDB).
	LockWaitTimeout time.Duration
	// MaxDirtyPct is the dirty-page ratio at which background flushing
	// runs at its full rate (default iogov.DefaultMaxDirtyPct, 80).
	MaxDirtyPct int
	// IOLimiter paces background page writes (package iogov): "auto"
	// (default), "off" (flush in bursts, as before the page cleaner) or a
	// fixed number of page writes per second.
	IOLimiter string
	// IOCapacity is the data volumes' page-write capacity per second for
	// the auto limiter (0: from the emulated profile, else iogov's default).
	IOCapacity int

	// DataVolume and LogVolume, when set, are used instead of files (tests
	// pass crashable or fault-injecting volumes here).
	DataVolume volume.Volume
	LogVolume  volume.Volume
}

const (
	defaultPool       = 128 << 20
	defaultStripeUnit = 256 << 10
	defaultLockWait   = 50 * time.Second
)

func (o *Options) fill() {
	if o.MaxDirtyPct == 0 {
		o.MaxDirtyPct = iogov.DefaultMaxDirtyPct
	}
	if o.BufferPoolBytes == 0 {
		o.BufferPoolBytes = defaultPool
	}
	if o.StripeUnit == 0 {
		o.StripeUnit = defaultStripeUnit
	}
	if o.LockWaitTimeout == 0 {
		o.LockWaitTimeout = defaultLockWait
	}
	if o.VersionBudget == 0 {
		o.VersionBudget = 64 << 20
	}
	if o.LogDir == "" && o.Dir != "" {
		o.LogDir = filepath.Join(o.Dir, "log")
	}
	if len(o.DataDirs) == 0 && o.Dir != "" {
		o.DataDirs = []string{filepath.Join(o.Dir, "data")}
	}
}

// openVolumes builds the log and data volumes the options describe. The
// returned flag says whether the data volume's atomic-write guarantee comes
// from the kernel (RWF_ATOMIC) rather than from a declaration.
func (o *Options) openVolumes() (logVol, dataVol volume.Volume, members []*volume.Metered, kernelAtomic bool, err error) {
	var opened []volume.Volume
	fail := func(e error) (volume.Volume, volume.Volume, []*volume.Metered, bool, error) {
		for _, v := range opened {
			v.Close()
		}
		return nil, nil, nil, false, e
	}
	openFile := func(dir, name string) (volume.Volume, error) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("volume directory %s: %w", dir, err)
		}
		v, err := volume.OpenFile(filepath.Join(dir, name), volume.FileOptions{Direct: !o.DisableDirectIO})
		if err != nil {
			return nil, err
		}
		opened = append(opened, v)
		return v, nil
	}
	logVol = o.LogVolume
	if logVol == nil {
		if o.LogDir == "" {
			return fail(errors.New("engine: no log volume: set Dir or LogDir"))
		}
		if logVol, err = openFile(o.LogDir, "redo.log"); err != nil {
			return fail(err)
		}
	}
	dataVol = o.DataVolume
	if dataVol == nil {
		if len(o.DataDirs) == 0 {
			return fail(errors.New("engine: no data volume: set Dir or DataDirs"))
		}
		var vols []volume.Volume
		for _, d := range o.DataDirs {
			v, err := openFile(d, "data.strata")
			if err != nil {
				return fail(err)
			}
			m := volume.NewMetered(o.emulate(v)) // per-volume counters
			members = append(members, m)
			vols = append(vols, m)
		}
		if len(vols) == 1 {
			dataVol = vols[0]
		} else if dataVol, err = volume.NewStriped(vols, o.StripeUnit); err != nil {
			return fail(err)
		}
		// Files report their atomic unit from statx: honouring it needs
		// RWF_ATOMIC on every write. A declared (emulated) guarantee does not.
		_, canIssue := dataVol.(volume.AtomicWriter)
		kernelAtomic = canIssue && !o.VolumeAtomic && dataVol.AtomicWriteUnit() >= page.Size
	} else {
		dataVol = o.emulate(dataVol)
	}
	return logVol, dataVol, members, kernelAtomic, nil
}

// ioCapacity is the data volumes' page-write capacity per second the auto
// limiter starts from: --io-capacity, else the emulated profile (IOPS, or
// bandwidth in pages, doubled by doublewrite), times the stripe width.
func (o *Options) ioCapacity(mode pagestore.Mode) float64 {
	if o.IOCapacity > 0 {
		return float64(o.IOCapacity)
	}
	if o.Emulate == "" {
		return 0
	}
	p, _ := volume.LookupProfile(o.Emulate)
	iops, mbps := p.IOPS, p.MBps
	if o.VolumeIOPS > 0 {
		iops = o.VolumeIOPS
	}
	if o.VolumeMBps > 0 {
		mbps = o.VolumeMBps
	}
	pages := float64(iops)
	if mbps > 0 {
		perPage := float64(page.Size)
		if mode == pagestore.Doublewrite {
			perPage *= 2
		}
		pages = min(pages, float64(mbps)*(1<<20)/perPage)
	}
	return pages * float64(max(1, len(o.DataDirs)))
}

func (o *Options) emulate(v volume.Volume) volume.Volume {
	if o.Emulate == "" {
		return v
	}
	p, _ := volume.LookupProfile(o.Emulate) // validated in Open
	if o.VolumeIOPS > 0 {
		p.IOPS = o.VolumeIOPS
	}
	if o.VolumeMBps > 0 {
		p.MBps = o.VolumeMBps
	}
	if o.VolumeLatency > 0 {
		p.BaseLatency = o.VolumeLatency
	}
	if o.VolumeAtomic {
		p.Atomic, p.AtomicUnit = true, max(p.AtomicUnit, 16384)
	}
	return volume.NewCloud(v, p)
}

func (o *Options) validate() error {
	if o.Emulate != "" {
		if _, err := volume.LookupProfile(o.Emulate); err != nil {
			return err
		}
	}
	if o.TornWriteProtection != "" {
		if _, err := pagestore.ParseMode(o.TornWriteProtection); err != nil {
			return err
		}
	}
	if _, _, err := iogov.ParseMode(o.IOLimiter); err != nil {
		return err
	}
	if o.MaxDirtyPct < 0 || o.MaxDirtyPct > 90 {
		return fmt.Errorf("engine: max dirty pages %d%% outside 0..90 (0: default %d)", o.MaxDirtyPct, iogov.DefaultMaxDirtyPct)
	}
	if o.IOCapacity < 0 {
		return fmt.Errorf("engine: negative I/O capacity %d", o.IOCapacity)
	}
	if o.VolumeAtomic && o.Emulate == "" && o.DataVolume == nil {
		return errors.New("--volume-atomic declares an emulated volume atomic: it needs --emulate-volume")
	}
	return nil
}

// openBPE opens the buffer pool extension in front of store, if configured.
func (o *Options) openBPE(store *pagestore.Store) (*bpe.Cache, error) {
	if o.BPEBytes < 0 {
		return nil, fmt.Errorf("engine: negative BPE size")
	}
	vol := o.BPEVolume
	var truncate func(int64) error
	index := ""
	if vol == nil {
		if o.BPEPath == "" {
			if o.BPEBytes > 0 {
				return nil, fmt.Errorf("engine: a BPE size needs a BPE path")
			}
			return nil, nil
		}
		if err := os.MkdirAll(filepath.Dir(o.BPEPath), 0o755); err != nil {
			return nil, fmt.Errorf("bpe: %w", err)
		}
		fv, err := volume.OpenFile(o.BPEPath, volume.FileOptions{Direct: !o.DisableDirectIO})
		if err != nil {
			return nil, fmt.Errorf("bpe: %w", err)
		}
		vol = fv
		path := o.BPEPath
		truncate = func(n int64) error { return os.Truncate(path, n) }
		index = o.BPEPath + ".index"
	}
	path := ""
	if o.BPEVolume == nil {
		path = o.BPEPath
	}
	return bpe.Open(store, bpe.Options{Volume: vol, Truncate: truncate, IndexPath: index, Path: path,
		Bytes: o.BPEBytes, Admission: o.BPEAdmission})
}
