package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"strata/volume"
)

func TestBadConfigurationIsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := map[string][]string{
		"bad size":         {"--buffer-pool-size", "12Q"},
		"bad port":         {"--port", "70000"},
		"unknown flag":     {"--no-such-flag"},
		"datadir is file":  {"--datadir", file},
		"unknown profile":  {"--datadir", t.TempDir(), "--emulate-volume", "floppy"},
		"bad torn mode":    {"--datadir", t.TempDir(), "--torn-write-protection", "maybe"},
		"atomic w/o emul.": {"--datadir", t.TempDir(), "--volume-atomic"},
	}
	for name, args := range cases {
		err := run(append(args, "--metrics-addr", ""))
		if err == nil {
			t.Errorf("%s: accepted %v", name, args)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
	// The refusal of atomic mode says what to do (where the temp
	// filesystem really has atomic writes, atomic mode is rightly accepted).
	v, err := volume.OpenFile(filepath.Join(t.TempDir(), "probe"), volume.FileOptions{Direct: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.AtomicWriteUnit() >= 16384 {
		return
	}
	err = run([]string{"--datadir", t.TempDir(), "--torn-write-protection", "atomic", "--metrics-addr", ""})
	if err == nil || !strings.Contains(err.Error(), "doublewrite") {
		t.Fatalf("atomic refusal should point to doublewrite: %v", err)
	}
}
