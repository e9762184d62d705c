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

// Watch: a reader's handle made before its keyspace has any version
// space sees the versions of a commit that creates the space later, and a
// space of another keyspace does not make it need versions.
func TestWatchSeesSpaceCreatedLater(t *testing.T) {
	s := New(0)
	sn := s.Snapshot()
	w := sn.Watch(7)
	if w.Needs() {
		t.Fatal("no version exists: nothing needed")
	}
	c := s.Begin()
	c.Record(8, []byte("k"), nil, false) // another keyspace
	c.Publish()
	if w.Needs() || w.sp != nil {
		t.Fatal("a version of keyspace 8 made keyspace 7 need versions")
	}
	for i := 0; i < 3; i++ { // asked again with nothing changed: still none
		if w.Needs() {
			t.Fatal("nothing changed, yet versions needed")
		}
	}
	c = s.Begin()
	c.Record(7, []byte("k"), []byte("old"), true)
	c.Publish()
	if !w.Needs() {
		t.Fatal("a commit after the snapshot recorded a version of keyspace 7: the watch must need it")
	}
	if w2 := sn.Watch(7); !w2.Needs() {
		t.Fatal("a new watch at the old snapshot must need it too")
	}
	sn.Release()
}
