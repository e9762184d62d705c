package volume

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file volume is open in one place at a time: a second OpenFile of the
// same file fails with ErrInUse until the first is closed.
func TestFileVolumeExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v")
	a, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(path, FileOptions{}); !errors.Is(err, ErrInUse) {
		t.Fatalf("second open: %v, want ErrInUse", err)
	}
	a.Close()
	b, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	b.Close()
}

// A directory lock excludes a second holder, names the first one's pid,
// and is free again after Unlock.
func TestLockDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vol")
	a, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(dir)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	a.Unlock()
	b, err := LockDir(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	b.Unlock()
}
