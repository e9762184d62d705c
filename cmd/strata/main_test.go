package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		"budget < pool":    {"--datadir", t.TempDir(), "--buffer-pool-size", "1G", "--memory-budget", "1G"},
		"bad txn memory":   {"--datadir", t.TempDir(), "--max-txn-memory", "lots"},
		"cert w/o key":     {"--datadir", t.TempDir(), "--ssl-cert", file},
		"old TLS":          {"--datadir", t.TempDir(), "--tls-min-version", "1.0"},
		"cert not PEM":     {"--datadir", t.TempDir(), "--ssl-cert", file, "--ssl-key", file},
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

// A second server on a data directory in use is refused, saying why,
// and the first keeps its data; after the first stops, the directory opens.
func TestSecondServerOnDatadirIsRefused(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, dir, freePort(t))
	if _, err := p.db("").Exec("CREATE DATABASE kept"); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	err := run([]string{"--datadir", dir, "--port", itoa(freePort(t)), "--metrics-addr", ""})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("strata pid %d", p.cmd.Process.Pid)) {
		t.Fatalf("second server on %s: %v (want the holder's pid %d named)", dir, err, p.cmd.Process.Pid)
	}
	if d := time.Since(started); d > time.Second {
		t.Fatalf("the second server took %v to give up", d)
	}
	t.Log(err)
	var n int
	if err := p.db("").QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'kept'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("first server after the refusal: %d, %v", n, err)
	}
	p.stop()
	p = startProc(t, dir, freePort(t))
	p.stop()
}
