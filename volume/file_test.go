package volume

import (
	"errors"
	"path/filepath"
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
