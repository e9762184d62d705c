package btree

import (
	"fmt"
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

// Position estimates where key falls among the tree's entries: the fraction
// of entries below key (key nil: 1), from one descent that takes each
// level's child index over its fanout (subtrees assumed equal in size), and
// the leaf it ends in with the slot where key would go. It reads depth
// pages, one latch at a time (BT-2).
func (tr Tree) Position(pool *bufpool.Pool, key []byte) (frac float64, leaf page.ID, slot int, err error) {
	if key == nil {
		return 1, 0, 0, nil
	}
	for attempt := 0; attempt < 1000; attempt++ {
		id, level := tr.Root, -1
		frac, width := 0.0, 1.0
		for {
			f, err := pool.Fix(id)
			if err != nil {
				return 0, 0, 0, err
			}
			f.Latch.RLock()
			n := node(f.Data())
			if page.TypeOf(n) != page.TypeBTree || page.KeyspaceOf(n) != tr.Keyspace ||
				(level >= 0 && n.level() != level) || !n.covers(key) {
				f.Latch.RUnlock()
				pool.Unfix(f)
				if id == tr.Root {
					return 0, 0, 0, ErrDropped
				}
				break // changed under us: start again
			}
			if n.isLeaf() {
				s, _ := n.search(key)
				if ns := n.nslots(); ns > 0 {
					frac += width * float64(s) / float64(ns)
				}
				f.Latch.RUnlock()
				pool.Unfix(f)
				return frac, id, s, nil
			}
			ci, children := n.childIndexGE(key), n.nslots()+1
			frac += width * float64(ci) / float64(children)
			width /= float64(children)
			child := n.child(ci)
			level = n.level() - 1
			f.Latch.RUnlock()
			pool.Unfix(f)
			id = child
		}
	}
	return 0, 0, 0, fmt.Errorf("btree: descent of keyspace %d does not settle", tr.Keyspace)
}

// SampleLeaf descends along random children to a leaf and calls fn with
// each of its keys in order (under the leaf's latch: fn must not keep
// them). Leaves are not chosen uniformly when fanouts differ; for
// statistics that is close enough.
func (tr Tree) SampleLeaf(pool *bufpool.Pool, fn func(key []byte)) error {
	for attempt := 0; attempt < 1000; attempt++ {
		id, level := tr.Root, -1
		for {
			f, err := pool.Fix(id)
			if err != nil {
				return err
			}
			f.Latch.RLock()
			n := node(f.Data())
			if page.TypeOf(n) != page.TypeBTree || page.KeyspaceOf(n) != tr.Keyspace || (level >= 0 && n.level() != level) {
				f.Latch.RUnlock()
				pool.Unfix(f)
				if id == tr.Root {
					return ErrDropped
				}
				break
			}
			if n.isLeaf() {
				for i := 0; i < n.nslots(); i++ {
					fn(n.key(i))
				}
				f.Latch.RUnlock()
				pool.Unfix(f)
				return nil
			}
			child := n.child(rand.IntN(n.nslots() + 1))
			level = n.level() - 1
			f.Latch.RUnlock()
			pool.Unfix(f)
			id = child
		}
	}
	return fmt.Errorf("btree: descent of keyspace %d does not settle", tr.Keyspace)
}
