// Package scanfilter describes the checks a table scan makes on a stored
// row before it decodes it, so that rows a query is certain to discard
// cost a key step and a few byte comparisons instead of a decoded row
// (values, boxes, a row slice) and go-mysql-server's filter over it. The
// analyzer rules (mysql/rules RULE-95) make them from a query's WHERE
// conjuncts and its top-N; the backend (CODEC-14) evaluates them on the
// row's stored bytes.
//
// Rules:
//
// SF-1 A check only ever rejects a row the query discards anyway: each
// is one conjunct of the WHERE, or the top-N's bound, and the query
// still evaluates its full condition on every row a check passes. A check
// that cannot be decided from the stored bytes (a value of more than 18
// digits, a column added after the row was written, a number out of
// int64 at the compared scale) passes the row.
//
// SF-2 A comparison's constant is an exact number (an integer or DECIMAL
// literal; never a float or a string, which MySQL compares as doubles)
// against an integer or DECIMAL column; NULL never satisfies it.
//
// SF-4 A Deferred value is an uncorrelated scalar subquery's (an exact
// number), set when the statement's filter is built for a run (the
// subquery's value is computed then, and cached for the filter, which
// go-mysql-server clears when the statement ends); unset (not yet built,
// or a value that is no exact number) it passes every row.
//
// SF-5 A string column's equality with a string literal typed as the
// column (so compared under the column's collation) is decided by the
// index key encodings of the two values, which are equal exactly when the
// collation makes the strings equal (what the table's unique indexes and
// index lookups rely on).
//
// SF-3 A Bound is the worst sort key a top-N keeps once it holds its n
// rows: a row whose first sort key is strictly worse cannot enter it. It
// is set by the top-N and read by the scan under it in the same
// goroutine (the top-N reads all its input before it returns a row), and
// reset when the top-N starts, so a plan run again starts unbounded.
//
// Tested by TestCompare (numbers against each other, against a big.Rat
// reference) here, backend TestScanChecks (stored rows against
// go-mysql-server's evaluation of the same condition) and rules
// TestScanFilterQueries (queries with and without the checks, same rows).
package scanfilter

// Op is a comparison of a column's value (left) with a constant (right).
type Op uint8

const (
	LT Op = iota
	LE
	GT
	GE
	EQ
)

// Holds reports whether a value whose order against the constant is r
// (-1, 0, 1) satisfies op.
func (op Op) Holds(r int) bool {
	switch op {
	case LT:
		return r < 0
	case LE:
		return r <= 0
	case GT:
		return r > 0
	case GE:
		return r >= 0
	case EQ:
		return r == 0
	}
	return true
}

// Flip is op with its operands exchanged (5 < col is col > 5).
func (op Op) Flip() Op {
	switch op {
	case LT:
		return GT
	case LE:
		return GE
	case GT:
		return LT
	case GE:
		return LE
	}
	return op
}

// Num is the exact number M x 10^-Scale (a negative Scale for a number
// written with an exponent: 1E+3 is {1, -3}).
type Num struct {
	M     int64
	Scale int32
}

var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// Compare orders a against b; ok is false when one of them does not fit
// int64 at the other's scale (SF-1: undecided).
func Compare(a, b Num) (r int, ok bool) {
	x, y := a.M, b.M
	switch d := a.Scale - b.Scale; {
	case d > 0:
		if y, ok = scaleUp(y, d); !ok {
			return 0, false
		}
	case d < 0:
		if x, ok = scaleUp(x, -d); !ok {
			return 0, false
		}
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

func scaleUp(m int64, d int32) (int64, bool) {
	if d >= int32(len(pow10)) {
		return 0, m == 0
	}
	p := pow10[d]
	if m > (1<<63-1)/p || m < -(1<<63-1)/p {
		return 0, false
	}
	return m * p, true
}

// Cond is one check: the value of the table's column Col (its position in
// the table's full schema) against Value; or against Bound's value when
// Bound is not nil (a top-N's, SF-3) or Deferred's (a value known when
// the statement runs, SF-4), passing every row while that is unset.
type Cond struct {
	Col      int
	Op       Op
	Value    Num
	Bound    *Bound
	Deferred *Bound
	// NullFirst: a bound's NULL sorts before every number in the
	// top-N's order (it passes a set bound).
	NullFirst bool
	// A string column's equality with Str under the column's collation
	// (SF-5) instead of a number's comparison; Key is Str's index key,
	// which the table fills in.
	IsStr bool
	Str   string
	Key   []byte
}

// Bound is a top-N's current worst first sort key (SF-3), or a deferred
// value (SF-4).
type Bound struct {
	set bool
	v   Num
	// Key names a deferred value's source (its maker's, to find it again
	// when the statement runs).
	Key string
}

// Reset makes b unset (every row passes).
func (b *Bound) Reset() { b.set = false }

// Set makes v the bound.
func (b *Bound) Set(v Num) { b.set, b.v = true, v }

// Get is b's value, and whether it is set.
func (b *Bound) Get() (Num, bool) { return b.v, b.set }

// HoldsNull reports whether a NULL value passes c: only a bound's that
// is unset or that NULL sorts before (SF-2, SF-3).
func (c *Cond) HoldsNull() bool {
	r, _ := c.DecideNull()
	return r
}

// DecideNull is HoldsNull, and whether it was decided (not for an unset
// bound or deferred value).
func (c *Cond) DecideNull() (holds, decided bool) {
	if c.Bound != nil {
		if _, set := c.Bound.Get(); !set {
			return true, false
		}
		return c.NullFirst, true
	}
	if c.Deferred != nil {
		if _, set := c.Deferred.Get(); !set {
			return true, false
		}
	}
	return false, true
}

// Holds reports whether a non-NULL value v passes c; undecided passes.
func (c *Cond) Holds(v Num) bool {
	r, _ := c.Decide(v)
	return r
}

// Decide is Holds, and whether it was decided: false for a comparison
// Compare cannot make, and for an unset bound (which passes everything
// but is no comparison the row satisfies).
func (c *Cond) Decide(v Num) (holds, decided bool) {
	k := c.Value
	if b := c.slot(); b != nil {
		var set bool
		if k, set = b.Get(); !set {
			return true, false
		}
	}
	r, ok := Compare(v, k)
	if !ok {
		return true, false
	}
	return c.Op.Holds(r), true
}

// slot is the bound or deferred value c compares with, or nil.
func (c *Cond) slot() *Bound {
	if c.Bound != nil {
		return c.Bound
	}
	return c.Deferred
}

// Number states of NumberRow.State.
const (
	NumNull  = iota // the column is NULL
	NumExact        // Nums holds its value
	NumOther        // a value Nums cannot hold (decode the row)
)

// NumberRow is one stored row a number scan hands out (backend AGG-1):
// the wanted columns' numbers and, when Decided is false, a check it may
// fail that only the decoded row can tell.
type NumberRow struct {
	Nums    []Num
	State   []uint8
	Decided bool
}
