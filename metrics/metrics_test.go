package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"strata/engine"
)

func TestCollectorExportsEngineCounters(t *testing.T) {
	db, err := engine.Open(engine.Options{Dir: t.TempDir(), BufferPoolBytes: 4 << 20, LogCapacity: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ks, _ := db.CreateKeyspace("k")
	for i := 0; i < 3; i++ {
		tx := db.Begin()
		tx.Put(ks, []byte{byte(i)}, []byte("v"))
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewCollector(db))
	if n, err := testutil.GatherAndCount(reg); err != nil || n < 30 {
		t.Fatalf("gathered %d metrics, err %v", n, err)
	}
	col := NewCollector(db)
	if got := testutil.ToFloat64(prometheus.CollectorFunc(func(ch chan<- prometheus.Metric) {
		for m := range collectOne(col, "strata_commits_total") {
			ch <- m
		}
	})); got != 3 {
		t.Fatalf("strata_commits_total = %v, want 3", got)
	}
}

func collectOne(col *Collector, name string) chan prometheus.Metric {
	out := make(chan prometheus.Metric, 100)
	all := make(chan prometheus.Metric, 100)
	col.Collect(all)
	close(all)
	for m := range all {
		if m.Desc() == col.descs[name] {
			out <- m
		}
	}
	close(out)
	return out
}
