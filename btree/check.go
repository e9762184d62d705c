package btree

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"strata/bufpool"
	"strata/page"
)

// Check walks the whole tree and verifies its invariants: node layout, key
// order, fences matching the parent's separators, all leaves at level 0.
// It returns the number of entries. Not safe against concurrent writers.
func (tr Tree) Check(pool *bufpool.Pool) (int, error) { return tr.CheckPages(pool, nil) }

// CheckPages is Check that also calls visit (if not nil) with every page
// of the tree: nodes and overflow pages.
func (tr Tree) CheckPages(pool *bufpool.Pool, visit func(page.ID)) (int, error) {
	count := 0
	var walk func(id page.ID, level int, lo, hi fence) error
	walk = func(id page.ID, level int, lo, hi fence) error {
		f, err := pool.Fix(id)
		if err != nil {
			return err
		}
		defer pool.Unfix(f)
		f.Latch.RLock()
		n := node(append([]byte(nil), f.Data()...))
		f.Latch.RUnlock()
		if err := n.check(); err != nil {
			return err
		}
		if visit != nil {
			visit(id)
		}
		if page.KeyspaceOf(n) != tr.Keyspace {
			return fmt.Errorf("page %d: keyspace %d, want %d", id, page.KeyspaceOf(n), tr.Keyspace)
		}
		if level >= 0 && n.level() != level {
			return fmt.Errorf("page %d: level %d, want %d", id, n.level(), level)
		}
		nlo, nhi := n.fences()
		if nlo.inf != lo.inf || !bytes.Equal(nlo.key, lo.key) || nhi.inf != hi.inf || !bytes.Equal(nhi.key, hi.key) {
			return fmt.Errorf("page %d: fences do not match the parent's separators", id)
		}
		if n.isLeaf() {
			count += n.nslots()
			for i := 0; i < n.nslots(); i++ {
				if n.isOvf(i) {
					if err := checkChain(pool, tr.Keyspace, n.val(i)); err != nil {
						return fmt.Errorf("page %d slot %d: %w", id, i, err)
					}
					if visit != nil {
						if err := chainPages(pool, n.val(i), visit); err != nil {
							return err
						}
					}
				}
			}
			return nil
		}
		for i := 0; i <= n.nslots(); i++ {
			clo, chi := lo, hi
			if i > 0 {
				clo = fence{key: n.key(i - 1)}
			}
			if i < n.nslots() {
				chi = fence{key: n.key(i)}
			}
			if err := walk(n.child(i), n.level()-1, clo, chi); err != nil {
				return err
			}
		}
		return nil
	}
	return count, walk(tr.Root, -1, fence{inf: true}, fence{inf: true})
}

// chainPages calls visit with every page of an overflow chain.
func chainPages(pool *bufpool.Pool, ref []byte, visit func(page.ID)) error {
	_, _, id := parseRef(ref)
	for id != page.InvalidID {
		visit(id)
		f, err := pool.Fix(id)
		if err != nil {
			return err
		}
		f.Latch.RLock()
		next := page.ID(binary.LittleEndian.Uint64(f.Data()[ovfNext:]))
		f.Latch.RUnlock()
		pool.Unfix(f)
		id = next
	}
	return nil
}
