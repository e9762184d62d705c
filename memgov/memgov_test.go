package memgov

import (
	"errors"
	"testing"
	"time"
)

// MEM-3: allocating past the budget makes Check fail; freeing it lets
// statements run again.
func TestCheckFailsOverBudgetAndRecovers(t *testing.T) {
	base := Used()
	if err := Start(base + 64<<20); err != nil {
		t.Fatal(err)
	}
	defer Stop()
	if err := Check(); err != nil {
		t.Fatalf("under budget: %v", err)
	}
	hog := make([][]byte, 0, 256)
	for i := 0; i < 256; i++ { // 256 MiB, live
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = byte(j)
		}
		hog = append(hog, b)
	}
	if !waitFor(func() bool { return Check() != nil }) {
		t.Fatalf("not over budget with %d MiB live above a 64 MiB allowance (used %d, budget %d)",
			len(hog), Read().Used, Read().Budget)
	}
	if err := Check(); !errors.Is(err, ErrOverBudget) {
		t.Fatalf("Check = %v, want ErrOverBudget", err)
	}
	if st := Read(); st.Refusals == 0 || st.Peak < st.Budget {
		t.Fatalf("stats after refusals: %+v", st)
	}
	hog = nil
	if !waitFor(func() bool { return Check() == nil }) {
		t.Fatalf("still over budget after the memory was freed: %+v", Read())
	}
}

func TestStopLiftsBudget(t *testing.T) {
	if err := Start(1); err != nil {
		t.Fatal(err)
	}
	if !waitFor(Over) {
		t.Fatal("a 1-byte budget is not over")
	}
	Stop()
	if Over() || Check() != nil || Read().Budget != 0 {
		t.Fatalf("after Stop: %+v", Read())
	}
	if Start(0) == nil {
		t.Fatal("Start(0) accepted")
	}
}

func TestMachineMemory(t *testing.T) {
	if MachineMemory() <= 0 || DefaultBudget() >= MachineMemory() {
		t.Fatalf("machine %d, default budget %d", MachineMemory(), DefaultBudget())
	}
}

func waitFor(f func() bool) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if f() {
			return true
		}
	}
	return false
}
