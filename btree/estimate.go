package btree

import (
	"math/rand/v2"

	"strata/bufpool"
	"strata/page"
)

// EstimateEntries estimates the number of entries from probes random
// root-to-leaf descents: each descent multiplies the fanout of the nodes it
// passes (children of internal nodes, entries of the leaf), and the
// estimates are averaged. A single-leaf tree is counted exactly. It reads
// probes x depth pages, one latch at a time (BT-2), instead of every leaf.
func (tr Tree) EstimateEntries(pool *bufpool.Pool, probes int) (int64, error) {
	if probes < 1 {
		probes = 1
	}
	var sum float64
	done := 0
	for attempt := 0; done < probes; attempt++ {
		if attempt > 100*probes {
			break // the tree keeps changing under us: use what we have
		}
		est, ok, err := tr.probe(pool)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		sum += est
		done++
	}
	if done == 0 {
		return 0, nil
	}
	return int64(sum/float64(done) + 0.5), nil
}

// probe descends along random children; ok is false when a page changed
// under it (split, merge, drop) and the probe should be retried.
func (tr Tree) probe(pool *bufpool.Pool) (float64, bool, error) {
	id, level, est := tr.Root, -1, 1.0
	for {
		f, err := pool.Fix(id)
		if err != nil {
			return 0, false, err
		}
		f.Latch.RLock()
		n := node(f.Data())
		if page.TypeOf(n) != page.TypeBTree || page.KeyspaceOf(n) != tr.Keyspace || (level >= 0 && n.level() != level) {
			f.Latch.RUnlock()
			pool.Unfix(f)
			if id == tr.Root {
				return 0, false, ErrDropped
			}
			return 0, false, nil
		}
		if n.isLeaf() {
			est *= float64(n.nslots())
			f.Latch.RUnlock()
			pool.Unfix(f)
			return est, true, nil
		}
		children := n.nslots() + 1
		child := n.child(rand.IntN(children))
		level = n.level() - 1
		est *= float64(children)
		f.Latch.RUnlock()
		pool.Unfix(f)
		id = child
	}
}
