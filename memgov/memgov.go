// Package memgov owns the process's memory budget: how much memory the
// server may use, how much it uses, and the refusal of statements that
// would take it past the budget. Its rules, cited where they apply:
//
// MEM-1 The budget covers all of the memory the Go runtime holds for the
// process (runtime/metrics: mapped minus released minus free heap spans),
// the buffer pool included, as its frames are Go memory. The default is
// 3/4 of the machine's memory or of the cgroup's limit, whichever is less.
//
// MEM-2 The runtime's soft limit is 7/8 of the budget (debug.SetMemoryLimit),
// so the collector works harder as use approaches it, garbage does not
// count against statements, and the process's resident set (which the
// runtime's accounting undercounts a little) stays within the budget.
//
// MEM-3 A sampler reads the use every 10 ms. Use above the budget after a
// forced collection (at most every 100 ms, and 2 ms after each refusal, as
// the stopped statement's memory becomes garbage) makes the process "over". While over, Check fails with
// ErrOverBudget: the callers are the places where a statement's memory
// grows with its input (a transaction's write set per change, the storage
// layer per 64 rows read, the SQL layer's buffering operators per 64 rows;
// the SQL layer answers 1041). Only statements that have grown are stopped:
// a place checks once it has passed MinRows rows (a transaction once it
// holds MinRows changes), so small statements keep running while the
// stopped one unwinds. The statement ends, its memory is freed and the
// server keeps serving; a statement that only holds memory is not
// interrupted.
//
// MEM-4 Each refusal is counted; the budget, the use and the refusals are
// in SHOW STATUS (Strata_memory_*) and /metrics.
//
// Tests: memgov_test.go drives the sampler with an allocation past a small
// budget; cmd/strata's TestRunawayStatementsUnderMemoryBudget runs
// runaway statements against the binary under a budget and checks the
// errors, that the server keeps serving, and its peak RSS.
package memgov

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MinRows is how many rows a statement passes through a checked place
// before Check can stop it (MEM-3).
const MinRows = 4096

// ErrOverBudget is returned by Check while the process uses more memory
// than its budget (MEM-3).
var ErrOverBudget = errors.New("memgov: the server's memory budget is used up")

// Stats is a snapshot of the governor's state (MEM-4).
type Stats struct {
	Budget   int64 // bytes; 0: no budget
	Used     int64 // bytes, at the last sample
	Peak     int64 // highest sample
	Refusals int64 // Check calls that failed
	Over     bool
}

var (
	over     atomic.Bool
	budget   atomic.Int64
	used     atomic.Int64
	peak     atomic.Int64
	refusals atomic.Int64

	kick = make(chan struct{}, 1)

	mu   sync.Mutex
	stop chan struct{}
	done chan struct{}
)

// Check returns ErrOverBudget while the process is over its budget
// (MEM-3). It costs one atomic load.
func Check() error {
	if !over.Load() {
		return nil
	}
	refusals.Add(1)
	select { // the stopped statement frees its memory: judge again soon
	case kick <- struct{}{}:
	default:
	}
	return ErrOverBudget
}

// Over reports whether the process is over its budget.
func Over() bool { return over.Load() }

// Read returns the governor's state.
func Read() Stats {
	return Stats{Budget: budget.Load(), Used: used.Load(), Peak: peak.Load(),
		Refusals: refusals.Load(), Over: over.Load()}
}

// Start sets the process's budget (MEM-1, MEM-2) and starts the sampler
// (MEM-3). Calling it again replaces the budget.
func Start(bytes int64) error {
	if bytes <= 0 {
		return fmt.Errorf("memgov: budget %d must be positive", bytes)
	}
	Stop()
	mu.Lock()
	defer mu.Unlock()
	budget.Store(bytes)
	debug.SetMemoryLimit(bytes / 8 * 7)
	stop, done = make(chan struct{}), make(chan struct{})
	go sampler(stop, done, bytes)
	return nil
}

// Stop ends the sampler and lifts the budget.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
	stop, done = nil, nil
	over.Store(false)
	budget.Store(0)
	debug.SetMemoryLimit(math.MaxInt64) // the runtime's "no limit"
}

var samples = []metrics.Sample{
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
}

// Used reads the memory the runtime holds for the process now (MEM-1).
func Used() int64 {
	s := append([]metrics.Sample(nil), samples...)
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64() - s[2].Value.Uint64())
}

func sampler(stop, done chan struct{}, limit int64) {
	defer close(done)
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	var lastGC time.Time
	for {
		kicked := false
		select {
		case <-stop:
			return
		case <-t.C:
		case <-kick:
			// A statement was refused and is unwinding: give it a moment
			// to drop its rows, then collect and judge again.
			time.Sleep(2 * time.Millisecond)
			kicked = true
		}
		u := Used()
		if u > limit && (kicked || time.Since(lastGC) > 100*time.Millisecond) {
			// Garbage may be what puts use over: collect, then judge
			// on what is live (MEM-3).
			runtime.GC()
			lastGC = time.Now()
			u = Used()
		}
		used.Store(u)
		if u > peak.Load() {
			peak.Store(u)
		}
		over.Store(u > limit)
	}
}

// MachineMemory is the memory the process may have: the machine's, or
// its cgroup's limit when that is lower; 0 when unknown.
func MachineMemory() int64 {
	total := meminfoTotal()
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

func meminfoTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// DefaultBudget is MEM-1's default: 3/4 of MachineMemory (0 when that is
// unknown).
func DefaultBudget() int64 { return MachineMemory() / 4 * 3 }
