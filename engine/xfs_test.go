package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mountXFS makes a small XFS filesystem in a loop-mounted image (needs
// root and xfsprogs, which .ci/run installs) and returns its mount point.
func mountXFS(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a loop XFS volume needs root")
	}
	if _, err := exec.LookPath("mkfs.xfs"); err != nil {
		t.Fatal("mkfs.xfs not found: .ci/run installs xfsprogs")
	}
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "xfs.img"), filepath.Join(dir, "mnt")
	for _, c := range [][]string{{"truncate", "-s", "300M", img}, {"mkfs.xfs", "-q", img}, {"mkdir", mnt}, {"mount", "-o", "loop", img, mnt}} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", c, err, out)
		}
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	return mnt
}

// TestAtomicWritesOnXFS runs atomic mode for real: on XFS, statx reports
// an atomic write unit of at least a page, the default picks atomic, every
// in-place page write uses RWF_ATOMIC and nothing goes through the
// doublewrite area.
func TestAtomicWritesOnXFS(t *testing.T) {
	mnt := mountXFS(t)
	opts := Options{Dir: mnt, BufferPoolBytes: 2 << 20, LogCapacity: 8 << 20}
	db, err := Open(opts)
	must(t, err)
	ks, _ := db.CreateKeyspace("t")
	for i := 0; i < 20; i++ {
		tx := db.Begin()
		for j := 0; j < 50; j++ {
			must(t, tx.Put(ks, []byte(fmt.Sprintf("%03d-%03d", i, j)), make([]byte, 300)))
		}
		must(t, tx.Commit())
	}
	must(t, db.Checkpoint())
	st := db.Stats()
	if st.TornWriteProtection != "atomic" {
		t.Fatalf("default protection on XFS is %s, want atomic", st.TornWriteProtection)
	}
	if st.Pages.AtomicWrites == 0 || st.Pages.AtomicWrites != st.Pages.PageWrites || st.Pages.DoublewriteWrites != 0 {
		t.Fatalf("atomic writes %d of %d page writes, %d doublewrite copies", st.Pages.AtomicWrites, st.Pages.PageWrites, st.Pages.DoublewriteWrites)
	}
	must(t, db.Close())
	db, err = Open(opts)
	must(t, err)
	defer db.Close()
	if counts, err := db.CheckIntegrity(); err != nil || counts["t"] != 1000 {
		t.Fatalf("after reopen: %v %v", counts, err)
	}
}

// TestAtomicRefusedWithoutGuarantee: atomic mode on a filesystem that
// reports no atomic write unit (ext4 here) is refused with a reason.
func TestAtomicRefusedWithoutGuarantee(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(Options{Dir: dir, TornWriteProtection: "atomic"})
	if err == nil {
		st := db.Stats()
		db.Close()
		if st.TornWriteProtection == "atomic" {
			t.Skipf("%s supports atomic writes: nothing to refuse here", dir)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "doublewrite") {
		t.Fatalf("atomic mode on a volume without atomic writes: %v", err)
	}
}
