package btree

import (
	"encoding/binary"
	"fmt"

	"strata/page"
)

// BT-7 Every B+tree and overflow page read from a volume is checked for
// structure before it is used (page.RegisterValidator): slot count, cell
// offsets and lengths, fence cells, child references and overflow lengths
// lie inside the page. A page that passes its checksum but not this is
// refused as corrupt, so no reader indexes past its bounds.
func init() {
	page.RegisterValidator(page.TypeBTree, func(p []byte) error { return node(p).validate() })
	page.RegisterValidator(page.TypeOverflow, validateOverflow)
}

// validate checks that every offset and length the node's readers follow
// stays inside the page.
func (n node) validate() error {
	if len(n) != page.Size {
		return fmt.Errorf("btree node of %d bytes", len(n))
	}
	ns, top := n.nslots(), n.cellTop()
	if slotsStart+2*ns > top || top > page.Size {
		return fmt.Errorf("btree node: %d slots, cells from %d", ns, top)
	}
	if n.garbage() > page.Size {
		return fmt.Errorf("btree node: garbage %d", n.garbage())
	}
	cell := func(off int) (kl, vl int, ovf bool, err error) {
		if off < slotsStart || off+4 > page.Size {
			return 0, 0, false, fmt.Errorf("btree node: cell at %d", off)
		}
		raw := binary.LittleEndian.Uint16(n[off:])
		kl, vl = int(raw&^ovfFlag), int(binary.LittleEndian.Uint16(n[off+2:]))
		if off+4+kl+vl > page.Size || kl > MaxKey {
			return 0, 0, false, fmt.Errorf("btree node: cell at %d of %d+%d bytes", off, kl, vl)
		}
		return kl, vl, raw&ovfFlag != 0, nil
	}
	for i := 0; i < ns; i++ {
		_, vl, ovf, err := cell(n.slot(i))
		if err != nil {
			return err
		}
		if !n.isLeaf() && vl != 8 {
			return fmt.Errorf("btree node: child reference of %d bytes", vl)
		}
		if ovf && vl != ovfRefSize {
			return fmt.Errorf("btree node: overflow reference of %d bytes", vl)
		}
	}
	if n.flags()&flagLowInf == 0 {
		if _, _, _, err := cell(int(binary.LittleEndian.Uint16(n[offLowFence:]))); err != nil {
			return err
		}
	}
	if n.flags()&flagHighInf == 0 {
		if _, _, _, err := cell(int(binary.LittleEndian.Uint16(n[offHighFnc:]))); err != nil {
			return err
		}
	}
	return nil
}

func validateOverflow(p []byte) error {
	if used := int(binary.LittleEndian.Uint16(p[ovfUsed:])); used > ovfCap {
		return fmt.Errorf("overflow page: %d bytes used", used)
	}
	return nil
}
