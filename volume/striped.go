package volume

import (
	"errors"
	"fmt"
	"sync"
)

// Striped is RAID 0 over member volumes inside the engine: logical offset
// off lives on member (off/unit) mod n at ((off/unit)/n)*unit + off%unit.
// I/O spanning stripe units is split and issued to members in parallel.
//
// Durability: Sync syncs every member; a write is durable once it returns.
type Striped struct {
	vols []Volume
	unit int64
	name string
}

// NewStriped stripes over vols with the given unit (multiple of 4 KiB).
func NewStriped(vols []Volume, unit int64) (*Striped, error) {
	if len(vols) == 0 {
		return nil, errors.New("volume: striping needs at least one volume")
	}
	if unit <= 0 || unit%BlockSize != 0 {
		return nil, fmt.Errorf("volume: stripe unit %d is not a positive multiple of 4 KiB", unit)
	}
	name := "stripe("
	for i, v := range vols {
		if i > 0 {
			name += ","
		}
		name += v.Name()
	}
	return &Striped{vols: vols, unit: unit, name: name + ")"}, nil
}

type piece struct {
	vol     int
	physOff int64
	lo, hi  int
}

func (s *Striped) split(n int, off int64) []piece {
	var out []piece
	for done := 0; done < n; {
		pos := off + int64(done)
		su := pos / s.unit
		within := pos % s.unit
		k := min(int64(n-done), s.unit-within)
		out = append(out, piece{vol: int(su % int64(len(s.vols))), physOff: (su/int64(len(s.vols)))*s.unit + within, lo: done, hi: done + int(k)})
		done += int(k)
	}
	return out
}

func (s *Striped) each(ps []piece, fn func(p piece) error) error {
	if len(ps) == 1 {
		return fn(ps[0])
	}
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = fn(p) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s *Striped) ReadAt(p []byte, off int64) error {
	if err := CheckIO(p, off); err != nil {
		return err
	}
	return s.each(s.split(len(p), off), func(pc piece) error { return s.vols[pc.vol].ReadAt(p[pc.lo:pc.hi], pc.physOff) })
}

func (s *Striped) WriteAt(p []byte, off int64) error {
	if err := CheckIO(p, off); err != nil {
		return err
	}
	return s.each(s.split(len(p), off), func(pc piece) error { return s.vols[pc.vol].WriteAt(p[pc.lo:pc.hi], pc.physOff) })
}

// WriteAtomic issues an untorn write; p must lie within one stripe unit.
func (s *Striped) WriteAtomic(p []byte, off int64) error {
	ps := s.split(len(p), off)
	if len(ps) != 1 {
		return errNoAtomic
	}
	aw, ok := s.vols[ps[0].vol].(AtomicWriter)
	if !ok {
		return errNoAtomic
	}
	return aw.WriteAtomic(p, ps[0].physOff)
}

func (s *Striped) Sync() error {
	ps := make([]piece, len(s.vols))
	for i := range ps {
		ps[i].vol = i
	}
	return s.each(ps, func(pc piece) error { return s.vols[pc.vol].Sync() })
}

// Size is the logical size implied by the largest member.
func (s *Striped) Size() int64 {
	var m int64
	for _, v := range s.vols {
		m = max(m, v.Size())
	}
	return m * int64(len(s.vols))
}

func (s *Striped) AtomicWriteUnit() int {
	u := int(s.unit)
	for _, v := range s.vols {
		u = min(u, v.AtomicWriteUnit())
	}
	return u
}

// Members are the striped volumes.
func (s *Striped) Members() []Volume { return s.vols }

func (s *Striped) Name() string { return s.name }

func (s *Striped) Close() error {
	var errs []error
	for _, v := range s.vols {
		errs = append(errs, v.Close())
	}
	return errors.Join(errs...)
}
