package volume

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// LockFileName is the file in each volume directory whose exclusive flock
// marks the directory as in use; it holds the holder's pid.
const LockFileName = "strata.lock"

// DirLock is an exclusive lock on a volume directory, held until Unlock
// or the process's exit (the kernel drops flocks of a dead process, so a
// crash leaves no stale lock).
type DirLock struct{ f *os.File }

// LockDir takes dir's lock, creating dir and the lock file as needed. A
// directory locked by another process (or another DirLock) fails with
// ErrInUse, naming the holder's pid.
func LockDir(dir string) (*DirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("volume directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			holder := "another process"
			if b, err := os.ReadFile(path); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
					holder = fmt.Sprintf("strata pid %d", pid)
				}
			}
			return nil, fmt.Errorf("%w: %s is locked by %s (one server per directory; lock file %s)", ErrInUse, dir, holder, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &DirLock{f: f}, nil
}

// Unlock releases the lock.
func (l *DirLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
