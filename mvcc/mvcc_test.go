package mvcc

import (
	"testing"
	"time"
)

// MV-3: a snapshot opened while a commit that records nothing applies
// waits for it, so it never needs that commit's before-images.
func TestSnapshotWaitsForUnrecordedCommit(t *testing.T) {
	s := New(0)
	c := s.Begin() // no snapshot open: records nothing
	if c.Recording() {
		t.Fatal("a commit with no snapshot open records")
	}
	got := make(chan uint64)
	go func() { got <- s.Snapshot().TS }()
	select {
	case ts := <-got:
		t.Fatalf("snapshot at %d opened while the commit applied", ts)
	case <-time.After(50 * time.Millisecond):
	}
	c.Publish()
	if ts := <-got; ts != c.TS {
		t.Fatalf("snapshot at %d, want the commit's %d", ts, c.TS)
	}
}

// MV-3, MV-5: the value at a snapshot is the before-image of the earliest
// newer version; versions are collected once no snapshot needs them.
func TestResolveAndCollect(t *testing.T) {
	s := New(0)
	sn := s.Snapshot() // at 0
	for i, v := range []string{"a", "b", "c"} {
		c := s.Begin()
		old, existed := []byte(nil), false
		if i > 0 {
			old, existed = []byte([]string{"a", "b", "c"}[i-1]), true
		}
		c.Record(1, []byte("k"), old, existed)
		c.Publish()
		_ = v
	}
	if _, existed, ok, err := sn.Resolve(1, []byte("k")); err != nil || !ok || existed {
		t.Fatalf("at 0 the key did not exist: existed=%v ok=%v err=%v", existed, ok, err)
	}
	mid := s.Snapshot() // at 3: needs nothing
	if _, _, ok, _ := mid.Resolve(1, []byte("k")); ok {
		t.Fatal("a snapshot at the clock resolved a version")
	}
	sn.Release()
	mid.Release()
	if st := s.Stats(); st.Bytes != 0 {
		t.Fatalf("versions left after every snapshot closed: %+v", st)
	}
}
