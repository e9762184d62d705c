package volume

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

var errNoAtomic = errors.New("volume: atomic writes not supported by this volume")

// FileOptions configure a file volume.
type FileOptions struct {
	// Direct opens the file with O_DIRECT (no page cache), as the engine
	// must on a throttled cloud disk: the cgroup throttle only sees I/O
	// the process issues itself.
	Direct bool
}

// FileVolume is a regular file or block device.
//
// Durability: WriteAt and WriteAtomic are durable after Sync (fdatasync).
// With Direct, a completed write is on the device but may sit in its
// volatile cache until Sync.
type FileVolume struct {
	f          *os.File
	fd         int
	path       string
	direct     bool
	atomicUnit int
	size       atomic.Int64
}

// OpenFile opens (creating) path.
func OpenFile(path string, opts FileOptions) (*FileVolume, error) {
	flags := os.O_RDWR | os.O_CREATE
	if opts.Direct {
		flags |= unix.O_DIRECT
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		if opts.Direct && errors.Is(err, unix.EINVAL) {
			return nil, fmt.Errorf("volume %s: the filesystem refuses O_DIRECT (tmpfs?): %w", path, err)
		}
		return nil, fmt.Errorf("volume %s: %w", path, err)
	}
	v := &FileVolume{f: f, fd: int(f.Fd()), path: path, direct: opts.Direct}
	if err := unix.Flock(v.fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is open in another strata process (one server per data directory)", ErrInUse, path)
		}
		return nil, fmt.Errorf("volume %s: flock: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	v.size.Store(st.Size())
	v.atomicUnit = queryAtomicUnit(path)
	return v, nil
}

// queryAtomicUnit asks statx for the largest untorn write (0: none).
func queryAtomicUnit(path string) int {
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_WRITE_ATOMIC, &sx); err != nil {
		return 0
	}
	if sx.Mask&unix.STATX_WRITE_ATOMIC == 0 || sx.Atomic_write_unit_max < BlockSize {
		return 0
	}
	return int(sx.Atomic_write_unit_max)
}

func (v *FileVolume) Name() string         { return v.path }
func (v *FileVolume) Size() int64          { return v.size.Load() }
func (v *FileVolume) AtomicWriteUnit() int { return v.atomicUnit }
func (v *FileVolume) Fd() int              { return v.fd }

func (v *FileVolume) check(p []byte, off int64) error {
	if err := CheckIO(p, off); err != nil {
		return err
	}
	if v.direct && !IsAligned(p) {
		return errors.New("volume: O_DIRECT buffer is not 4 KiB aligned")
	}
	return nil
}

func (v *FileVolume) ReadAt(p []byte, off int64) error {
	if err := v.check(p, off); err != nil {
		return err
	}
	for done := 0; done < len(p); {
		n, err := unix.Pread(v.fd, p[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("volume %s: read at %d: %w", v.path, off, err)
		}
		if n == 0 { // past the end: zeros
			clear(p[done:])
			return nil
		}
		done += n
	}
	return nil
}

func (v *FileVolume) grow(end int64) {
	for {
		cur := v.size.Load()
		if end <= cur || v.size.CompareAndSwap(cur, end) {
			return
		}
	}
}

func (v *FileVolume) WriteAt(p []byte, off int64) error {
	if err := v.check(p, off); err != nil {
		return err
	}
	for done := 0; done < len(p); {
		n, err := unix.Pwrite(v.fd, p[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("volume %s: write at %d: %w", v.path, off, err)
		}
		done += n
	}
	v.grow(off + int64(len(p)))
	return nil
}

// WriteAtomic writes p with RWF_ATOMIC: all of it or none survives a crash.
func (v *FileVolume) WriteAtomic(p []byte, off int64) error {
	if err := v.check(p, off); err != nil {
		return err
	}
	if v.atomicUnit < len(p) {
		return errNoAtomic
	}
	for {
		n, err := unix.Pwritev2(v.fd, [][]byte{p}, off, unix.RWF_ATOMIC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("volume %s: atomic write at %d: %w", v.path, off, err)
		}
		if n != len(p) {
			return fmt.Errorf("volume %s: short atomic write (%d of %d)", v.path, n, len(p))
		}
		v.grow(off + int64(len(p)))
		return nil
	}
}

func (v *FileVolume) Sync() error {
	if err := unix.Fdatasync(v.fd); err != nil {
		return fmt.Errorf("volume %s: fdatasync: %w", v.path, err)
	}
	return nil
}

// Truncate sets the file size.
func (v *FileVolume) Truncate(size int64) error {
	if err := v.f.Truncate(size); err != nil {
		return err
	}
	v.size.Store(size)
	return nil
}

// Preallocate reserves space up to size (best effort).
func (v *FileVolume) Preallocate(size int64) error {
	err := unix.Fallocate(v.fd, 0, 0, size)
	if err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
		return err
	}
	v.grow(size)
	return nil
}

func (v *FileVolume) Close() error { return v.f.Close() }
