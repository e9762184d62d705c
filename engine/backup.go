package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"strata/page"
	"strata/pagestore"
	"strata/volume"
)

// Online backup (EN-12): Backup copies a running database into a new
// directory laid out as a data directory (log/redo.log, data/data.strata)
// that Open recovers to a consistent state: every transaction committed
// (durable) before the copy of the data ended, and none that was not.
//
//   - The checkpoint is held at S for the whole backup (backupFloor:
//     setCheckpoint never writes a later one), so no record after S is
//     overwritten (WAL-3). Commits and page writes go on; if the log fills
//     meanwhile, commits wait for log space until the backup ends
//     (ensureLogSpace, ErrLogFull after its wait).
//   - Data pages are copied through the data volume (striped or not, into
//     one file), each verified (page.Verify) and read again while a
//     concurrent write tears it; the doublewrite area is left empty (no
//     copied page is torn). Pages written after their copy, or past the
//     size read at the start, are rebuilt by redo from S.
//   - After the pages, E = the durable end of the log: every copied page's
//     LSN is at most E (a page is written only once the log is durable up
//     to its LSN, BP-3), and every record in [S, E] is in place, so the
//     whole log volume copied now replays at least to E. Recovery of the
//     copy (Open) redoes [S, end] and stops at the first torn record past
//     E (WAL-4).
//   - The BPE is not copied (clean pages only).

// backupPause, when set (tests), runs after each batch of pages copied.
var backupPause func()

// BackupInfo describes a backup (also written to DIR/backup.json).
type BackupInfo struct {
	Start   page.LSN  `json:"start_lsn"` // the checkpoint recovery starts from
	End     page.LSN  `json:"end_lsn"`   // recovery replays at least to here
	Pages   int64     `json:"pages"`
	Retries int64     `json:"torn_reads_retried"`
	Taken   time.Time `json:"taken"`
}

// Backup copies the database to dir, which must not exist (EN-12).
func (db *DB) Backup(dir string) (BackupInfo, error) {
	var info BackupInfo
	if db.closed.Load() {
		return info, ErrClosed
	}
	if _, err := os.Stat(dir); err == nil {
		return info, fmt.Errorf("engine: backup directory %s exists", dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return info, err
	}
	// A full checkpoint first: recovery of the copy then replays only what
	// commits during the copy.
	if err := db.Checkpoint(); err != nil {
		return info, err
	}
	db.backupMu.Lock()
	defer db.backupMu.Unlock()
	db.ckptMu.Lock()
	info.Start = db.log.Checkpoint()
	db.backupFloor.Store(uint64(info.Start))
	db.ckptMu.Unlock()
	defer db.backupFloor.Store(0)
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return info, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "log"), 0o755); err != nil {
		return info, err
	}
	data, err := os.OpenFile(filepath.Join(dir, "data", "data.strata"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return info, err
	}
	defer data.Close()
	const batch = 64
	buf := volume.AlignedBuffer(batch * page.Size)
	one := volume.AlignedBuffer(page.Size)
	n := db.dataVol.Size() / page.Size
	for first := int64(0); first < n; first += batch {
		k := min(int64(batch), n-first)
		b := buf[:k*page.Size]
		if err := db.dataVol.ReadAt(b, first*page.Size); err != nil {
			return info, err
		}
		for i := int64(0); i < k; i++ {
			id := page.ID(first + i)
			p := b[i*page.Size : (i+1)*page.Size]
			if id >= 1 && id < pagestore.FirstDataPage {
				clear(p) // the doublewrite area: nothing to repair in a copy
				continue
			}
			for try := 0; page.Verify(p, id) != nil; try++ {
				// Torn by a write in progress: read it again.
				if try == 100 {
					return info, fmt.Errorf("engine: backup: page %d fails verification: %w", id, page.Verify(p, id))
				}
				info.Retries++
				time.Sleep(time.Millisecond)
				if err := db.dataVol.ReadAt(one, int64(id)*page.Size); err != nil {
					return info, err
				}
				copy(p, one)
			}
		}
		if _, err := data.WriteAt(b, first*page.Size); err != nil {
			return info, err
		}
		if backupPause != nil {
			backupPause()
		}
	}
	info.Pages = n
	info.End = db.log.Durable()
	if err := data.Sync(); err != nil {
		return info, err
	}
	// The log, whole: [S, E] is in place and stays so while the checkpoint
	// is held at S (the header may say S or less).
	logf, err := os.OpenFile(filepath.Join(dir, "log", "redo.log"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return info, err
	}
	defer logf.Close()
	size := db.logVol.Size()
	chunk := volume.AlignedBuffer(1 << 20)
	for off := int64(0); off < size; off += int64(len(chunk)) {
		c := chunk[:min(int64(len(chunk)), size-off)]
		if err := db.logVol.ReadAt(c, off); err != nil {
			return info, err
		}
		if _, err := logf.WriteAt(c, off); err != nil {
			return info, err
		}
	}
	if err := logf.Sync(); err != nil {
		return info, err
	}
	info.Taken = time.Now().UTC()
	meta, _ := json.MarshalIndent(info, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "backup.json"), append(meta, '\n'), 0o644); err != nil {
		return info, err
	}
	return info, nil
}
