package rules

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-99 A semi-join go-mysql-server plans as an inner hash join with a
// DISTINCT side (`EXISTS (SELECT ... WHERE o.k = c.k)` and `c.k IN
// (SELECT k ...)` become Project(c's columns) over HashJoin(c,
// HashLookup(Distinct(Project(o.k) ...))), or the sides swapped) runs as
// a key-set semi-join: the DISTINCT side's keys go into a set, the other
// side's rows stream through, and those whose key is in the set pass as
// they are. The hash join had built a second table of those keys (the
// DISTINCT's set, then the hash table), a joined row per match and a
// projected row of it (exists-returned: half its CPU).
// It applies when the join is an inner hash join without an outer scope
// whose whole condition is one equality of a column of each side, both
// integers; the DISTINCT side's rows are exactly that column; and the
// Project above reads only the other side's columns (no subquery). Then
// every row of the other side matched at most one distinct key (integers
// are equal when they are the same number; a NULL matches nothing), so
// the join gave it once or not at all: the same rows, in the streamed
// side's order (no order is promised without ORDER BY; go-mysql-server
// moves no sort into a join, replace_sort.go).
//
// RULE-100 `LEFT JOIN o ON o.k = c.k WHERE o.x IS NULL` (and NOT EXISTS,
// which go-mysql-server plans the same way) over a left merge join runs
// as a merge anti-join: it keeps the left rows no right row matches,
// with the right side's columns NULL, and builds no joined row for the
// matches the filter drops (customers-without-orders built 250,000 and
// compared each pair of keys through go-mysql-server's comparison). It
// applies when the merge condition is one equality of integer columns
// and the filter requires IS NULL of a right column a matched row never
// has NULL: the right key itself, or a column declared NOT NULL. The
// filter stays above and sees the same unmatched rows, in the same order.
// The merge's inputs come ascending by key (go-mysql-server's merge join
// relies on the same); an input found out of order fails the statement
// rather than answer wrong.
func keyJoins(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, scope *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	if !scope.IsEmpty() || !n.IsReadOnly() {
		return n, transform.SameTree, nil
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch x := n.(type) {
		case *plan.Project:
			if nn := semiJoinOf(x); nn != nil {
				return nn, transform.NewTree, nil
			}
		case *plan.Filter:
			if nn := antiJoinOf(x); nn != nil {
				return nn, transform.NewTree, nil
			}
		}
		return n, transform.SameTree, nil
	})
}

// integerKeys returns the two columns of cond when it is one equality of
// integer columns.
func integerKeys(cond sql.Expression) (a, b *expression.GetField, ok bool) {
	eq, ok := cond.(*expression.Equals)
	if !ok {
		return nil, nil, false
	}
	a, ok1 := eq.Left().(*expression.GetField)
	b, ok2 := eq.Right().(*expression.GetField)
	if !ok1 || !ok2 || !exactInteger(a.Type()) || !exactInteger(b.Type()) {
		return nil, nil, false
	}
	return a, b, true
}

func exactInteger(t sql.Type) bool {
	return types.IsInteger(t) && !types.IsYear(t)
}

// skipChecks returns n under its memory checks.
func skipChecks(n sql.Node) sql.Node {
	for {
		m, ok := n.(*memoryChecked)
		if !ok {
			return n
		}
		n = m.Child
	}
}

// semiJoinOf is RULE-99's rewrite of p, or nil.
func semiJoinOf(p *plan.Project) sql.Node {
	j, ok := p.Child.(*plan.JoinNode)
	if !ok || j.Op != plan.JoinTypeHash || j.ScopeLen != 0 {
		return nil
	}
	a, b, ok := integerKeys(j.Filter)
	if !ok {
		return nil
	}
	left, right := j.Left(), j.Right()
	hl, ok := right.(*plan.HashLookup)
	if !ok {
		return nil
	}
	nl := len(left.Schema())
	// The side that is a DISTINCT of its key column.
	keyRows := func(side sql.Node) (*plan.Project, bool) {
		d, ok := skipChecks(side).(*plan.Distinct)
		if !ok {
			return nil, false
		}
		pr, ok := skipChecks(d.Child).(*plan.Project)
		if !ok || len(pr.Projections) != 1 {
			return nil, false
		}
		if _, ok := pr.Projections[0].(*expression.GetField); !ok {
			return nil, false
		}
		return pr, true
	}
	var stream sql.Node
	var keys *plan.Project
	// offset is where the streamed side's columns start in the join row,
	// keyAt the key side's one column.
	offset, keyAt := 0, nl
	if kr, ok := keyRows(left); ok {
		// Distinct side left: the right (hashed) side streams.
		keys, stream, offset, keyAt = kr, hl.Child, nl, 0
	} else if kr, ok := keyRows(hl.Child); ok {
		keys, stream = kr, left
	} else {
		return nil
	}
	ns := len(stream.Schema())
	// The condition equates the key side's column with one of the stream's.
	inStream := func(g *expression.GetField) bool { return g.Index() >= offset && g.Index() < offset+ns }
	var streamKey *expression.GetField
	switch {
	case a.Index() == keyAt && inStream(b):
		streamKey = b
	case b.Index() == keyAt && inStream(a):
		streamKey = a
	default:
		return nil
	}
	projections, ok := shiftFields(p.Projections, offset, ns)
	if !ok {
		return nil
	}
	// The set takes the key from the projection's input: no projected row.
	sj := &semiJoin{keyJoin{left: stream, right: &memoryChecked{UnaryNode: plan.UnaryNode{Child: keys.Child}},
		leftKey: streamKey.WithIndex(streamKey.Index() - offset), rightKey: keys.Projections[0]}}
	np, err := p.WithChildren(sj)
	if err != nil {
		return nil
	}
	np2, err := np.(*plan.Project).WithExpressions(projections...)
	if err != nil {
		return nil
	}
	return np2
}

// shiftFields returns es reading a row that starts at column offset of
// theirs and has n columns; false when one reads a column outside it or
// holds a subquery (which reads rows by position too).
func shiftFields(es []sql.Expression, offset, n int) ([]sql.Expression, bool) {
	out := make([]sql.Expression, len(es))
	for i, e := range es {
		ok := true
		ne, _, err := transform.Expr(e, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
			switch x := e.(type) {
			case *plan.Subquery:
				ok = false
			case *expression.GetField:
				if x.Index() < offset || x.Index() >= offset+n {
					ok = false
					return e, transform.SameTree, nil
				}
				if offset == 0 {
					return e, transform.SameTree, nil
				}
				return x.WithIndex(x.Index() - offset), transform.NewTree, nil
			}
			return e, transform.SameTree, nil
		})
		if err != nil || !ok {
			return nil, false
		}
		out[i] = ne
	}
	return out, true
}

// keyJoin is what RULE-99's and RULE-100's nodes share: two children
// joined by an integer key of each.
type keyJoin struct {
	left, right       sql.Node
	leftKey, rightKey sql.Expression // over the left and the right child's rows
}

func (k *keyJoin) Left() sql.Node   { return k.left }
func (k *keyJoin) Right() sql.Node  { return k.right }
func (k *keyJoin) IsReadOnly() bool { return true }
func (k *keyJoin) Resolved() bool   { return k.left.Resolved() && k.right.Resolved() }
func (k *keyJoin) Children() []sql.Node {
	return []sql.Node{k.left, k.right}
}
func (k *keyJoin) Expressions() []sql.Expression { return []sql.Expression{k.leftKey, k.rightKey} }

// with is k with children (when not nil) and keys (when not nil) replaced;
// n names the node in the error.
func (k keyJoin) with(n sql.Node, children []sql.Node, keys []sql.Expression) (keyJoin, error) {
	if children != nil {
		if len(children) != 2 {
			return k, sql.ErrInvalidChildrenNumber.New(n, len(children), 2)
		}
		k.left, k.right = children[0], children[1]
	}
	if keys != nil {
		if len(keys) != 2 {
			return k, sql.ErrInvalidChildrenNumber.New(n, len(keys), 2)
		}
		k.leftKey, k.rightKey = keys[0], keys[1]
	}
	return k, nil
}

// semiJoin passes the rows of its left child whose key is among the
// right child's one-column rows (RULE-99).
type semiJoin struct {
	keyJoin
}

var _ sql.ExecSourceRel = (*semiJoin)(nil)
var _ sql.Expressioner = (*semiJoin)(nil)

func (s *semiJoin) Schema() sql.Schema { return s.left.Schema() }

func (s *semiJoin) WithExpressions(es ...sql.Expression) (sql.Node, error) {
	k, err := s.with(s, nil, es)
	if err != nil {
		return nil, err
	}
	return &semiJoin{k}, nil
}

func (s *semiJoin) WithChildren(children ...sql.Node) (sql.Node, error) {
	k, err := s.with(s, children, nil)
	if err != nil {
		return nil, err
	}
	return &semiJoin{k}, nil
}

func (s *semiJoin) String() string {
	tp := sql.NewTreePrinter()
	_ = tp.WriteNode("SemiJoin(key set)")
	_ = tp.WriteChildren(fmt.Sprintf("keys: %s in %s", s.leftKey, s.rightKey), s.Left().String(), s.Right().String())
	return tp.String()
}

func (s *semiJoin) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	set, err := s.keySet(ctx, row)
	if err != nil {
		return nil, err
	}
	rows, err := Exec.Build(ctx, s.Left(), row)
	if err != nil {
		return nil, err
	}
	return &semiJoinIter{rows: rows, key: s.leftKey, set: set}, nil
}

// keySet reads the right child's keys into a frozen set.
func (s *semiJoin) keySet(ctx *sql.Context, row sql.Row) (_ intSet, err error) {
	keys, err := Exec.Build(ctx, s.Right(), row)
	if err != nil {
		return intSet{}, err
	}
	defer func() {
		if cerr := keys.Close(ctx); err == nil {
			err = cerr
		}
	}()
	set := intSet{compactAt: compactFloor}
	for {
		r, err := keys.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return intSet{}, err
		}
		v, err := s.rightKey.Eval(ctx, r)
		if err != nil {
			return intSet{}, err
		}
		if err := set.add(v); err != nil {
			return intSet{}, err
		}
	}
	set.freeze()
	return set, nil
}

type semiJoinIter struct {
	rows sql.RowIter
	key  sql.Expression
	set  intSet
}

func (i *semiJoinIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		r, err := i.rows.Next(ctx)
		if err != nil {
			return nil, err
		}
		v, err := i.key.Eval(ctx, r)
		if err != nil {
			return nil, err
		}
		if in, err := i.set.has(v); in || err != nil {
			return r, err
		}
	}
}

func (i *semiJoinIter) Close(ctx *sql.Context) error { return i.rows.Close(ctx) }

// orderedInt is an integer of any width and sign, ordered as numbers: hi is
// -1 for a negative value (lo its two's complement, which orders the
// negatives), 0 otherwise.
type orderedInt struct {
	hi int8
	lo uint64
}

// orderedIntOf is v's key; false for NULL (and anything not an integer).
func orderedIntOf(v any) (orderedInt, bool) {
	var s int64
	switch x := v.(type) {
	case int8:
		s = int64(x)
	case int16:
		s = int64(x)
	case int32:
		s = int64(x)
	case int64:
		s = x
	case int:
		s = int64(x)
	case uint8:
		return orderedInt{lo: uint64(x)}, true
	case uint16:
		return orderedInt{lo: uint64(x)}, true
	case uint32:
		return orderedInt{lo: uint64(x)}, true
	case uint64:
		return orderedInt{lo: x}, true
	case uint:
		return orderedInt{lo: uint64(x)}, true
	case bool: // a BOOLEAN's value may come as one
		if x {
			return orderedInt{lo: 1}, true
		}
		return orderedInt{}, true
	default:
		return orderedInt{}, false
	}
	if s < 0 {
		return orderedInt{hi: -1, lo: uint64(s)}, true
	}
	return orderedInt{lo: uint64(s)}, true
}

func (k orderedInt) compare(o orderedInt) int {
	switch {
	case k.hi != o.hi:
		return int(k.hi) - int(o.hi)
	case k.lo < o.lo:
		return -1
	case k.lo > o.lo:
		return 1
	}
	return 0
}

// intSet is a set of integers; NULL is never in it. Values are added,
// then the set is frozen and probed: keys in a range at most 64 times
// their number (ids, mostly) go into a bitmap, others into a map (the
// map's growth and probes were a fifth of exists-returned's CPU).
type intSet struct {
	vals      []int64 // added values in int64's range, until frozen
	compactAt int     // the length at which vals loses its duplicates
	lo        int64
	bits      []uint64            // bit v-lo, when the set is a bitmap
	m         map[int64]struct{}  // otherwise
	big       map[uint64]struct{} // values above int64's range
}

func (s *intSet) add(v any) error {
	k, ok := orderedIntOf(v)
	switch {
	case !ok && v != nil:
		return errKeyType(v)
	case !ok:
	case k.hi < 0 || k.lo <= math.MaxInt64:
		s.vals = append(s.vals, int64(k.lo))
		if len(s.vals) >= s.compactAt {
			// Duplicates go (the DISTINCT the rule dropped kept one of
			// each): the values held stay within twice the distinct ones.
			slices.Sort(s.vals)
			s.vals = slices.Compact(s.vals)
			s.compactAt = max(2*len(s.vals), compactFloor)
		}
	default:
		if s.big == nil {
			s.big = map[uint64]struct{}{}
		}
		s.big[k.lo] = struct{}{}
	}
	return nil
}

// compactFloor is the fewest values an intSet holds before it drops
// duplicates (a variable for the tests).
var compactFloor = 1 << 20

// errKeyType fails a statement whose key is not an integer, which the
// rules' type checks exclude: never answer as if it were NULL.
func errKeyType(v any) error {
	return fmt.Errorf("strata: key-set join on a value of type %T", v)
}

// freeze ends the adding.
func (s *intSet) freeze() {
	if len(s.vals) == 0 {
		s.m = map[int64]struct{}{}
		return
	}
	lo, hi := s.vals[0], s.vals[0]
	for _, v := range s.vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	if span := uint64(hi - lo); span/64 <= uint64(len(s.vals)) {
		s.lo = lo
		s.bits = make([]uint64, span/64+1)
		for _, v := range s.vals {
			d := uint64(v - lo)
			s.bits[d/64] |= 1 << (d % 64)
		}
	} else {
		s.m = make(map[int64]struct{}, len(s.vals))
		for _, v := range s.vals {
			s.m[v] = struct{}{}
		}
	}
	s.vals = nil
}

func (s *intSet) has(v any) (bool, error) {
	k, ok := orderedIntOf(v)
	switch {
	case !ok && v != nil:
		return false, errKeyType(v)
	case !ok:
		return false, nil
	case k.hi < 0 || k.lo <= math.MaxInt64:
		x := int64(k.lo)
		if s.bits != nil {
			d := uint64(x - s.lo)
			if x < s.lo || d/64 >= uint64(len(s.bits)) {
				return false, nil
			}
			return s.bits[d/64]&(1<<(d%64)) != 0, nil
		}
		_, in := s.m[x]
		return in, nil
	default:
		_, in := s.big[k.lo]
		return in, nil
	}
}

// antiJoinOf is RULE-100's rewrite of f, or nil.
func antiJoinOf(f *plan.Filter) sql.Node {
	j, ok := f.Child.(*plan.JoinNode)
	if !ok || j.Op != plan.JoinTypeLeftOuterMerge || j.ScopeLen != 0 {
		return nil
	}
	a, b, ok := integerKeys(j.Filter)
	if !ok {
		return nil
	}
	nl := len(j.Left().Schema())
	rs := j.Right().Schema()
	var lk, rk *expression.GetField
	switch {
	case a.Index() < nl && b.Index() >= nl:
		lk, rk = a, b
	case b.Index() < nl && a.Index() >= nl:
		lk, rk = b, a
	default:
		return nil
	}
	if rk.Index() >= nl+len(rs) {
		return nil
	}
	// The filter must require a right column no matched row has NULL.
	required := false
	for _, c := range expression.SplitConjunction(f.Expression) {
		isNull, ok := c.(*expression.IsNull)
		if !ok {
			continue
		}
		g, ok := isNull.Child.(*expression.GetField)
		if !ok || g.Index() < nl || g.Index() >= nl+len(rs) {
			continue
		}
		if g.Index() == rk.Index() || !rs[g.Index()-nl].Nullable {
			required = true
		}
	}
	if !required {
		return nil
	}
	rkey := rk.WithIndex(rk.Index() - nl)
	aj := &antiMergeJoin{keyJoin{left: j.Left(), right: j.Right(), leftKey: lk, rightKey: rkey}, j.Schema()}
	nf, err := f.WithChildren(aj)
	if err != nil {
		return nil
	}
	return nf
}

// antiMergeJoin gives the rows of its left child no row of its right
// child matches by key, each followed by NULLs for the right child's
// columns (RULE-100). Both children come ascending by key.
type antiMergeJoin struct {
	keyJoin
	schema sql.Schema // the left join's
}

var _ sql.ExecSourceRel = (*antiMergeJoin)(nil)
var _ sql.Expressioner = (*antiMergeJoin)(nil)

func (a *antiMergeJoin) Schema() sql.Schema { return a.schema }

func (a *antiMergeJoin) WithExpressions(es ...sql.Expression) (sql.Node, error) {
	k, err := a.with(a, nil, es)
	if err != nil {
		return nil, err
	}
	return &antiMergeJoin{k, a.schema}, nil
}

func (a *antiMergeJoin) WithChildren(children ...sql.Node) (sql.Node, error) {
	k, err := a.with(a, children, nil)
	if err != nil {
		return nil, err
	}
	return &antiMergeJoin{k, a.schema}, nil
}

func (a *antiMergeJoin) String() string {
	tp := sql.NewTreePrinter()
	_ = tp.WriteNode("AntiMergeJoin")
	_ = tp.WriteChildren(fmt.Sprintf("keys: %s = %s", a.leftKey, a.rightKey), a.Left().String(), a.Right().String())
	return tp.String()
}

func (a *antiMergeJoin) RowIter(ctx *sql.Context, row sql.Row) (sql.RowIter, error) {
	left, err := Exec.Build(ctx, a.Left(), row)
	if err != nil {
		return nil, err
	}
	right, err := Exec.Build(ctx, a.Right(), row)
	if err != nil {
		left.Close(ctx)
		return nil, err
	}
	return &antiMergeIter{left: left, right: right, n: a, nulls: len(a.Right().Schema())}, nil
}

var errMergeOrder = fmt.Errorf("merge join input out of key order")

type antiMergeIter struct {
	left, right sql.RowIter
	n           *antiMergeJoin
	nulls       int
	rk          orderedInt // the right side's current key
	rValid      bool       // rk holds a row's key
	rDone       bool
	lk          orderedInt // the last left key, for the order check
	lSeen       bool
}

// advance moves the right side to its first key not below k.
func (i *antiMergeIter) advance(ctx *sql.Context, k orderedInt) error {
	for !i.rDone && (!i.rValid || i.rk.compare(k) < 0) {
		r, err := i.right.Next(ctx)
		if err == io.EOF {
			i.rDone = true
			return nil
		}
		if err != nil {
			return err
		}
		v, err := i.n.rightKey.Eval(ctx, r)
		if err != nil {
			return err
		}
		nk, ok := orderedIntOf(v)
		if !ok {
			if v != nil {
				return errMergeOrder
			}
			if i.rValid { // a NULL after keys: not the index order
				return errMergeOrder
			}
			continue
		}
		if i.rValid && nk.compare(i.rk) < 0 {
			return errMergeOrder
		}
		i.rk, i.rValid = nk, true
	}
	return nil
}

func (i *antiMergeIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		r, err := i.left.Next(ctx)
		if err != nil {
			return nil, err
		}
		v, err := i.n.leftKey.Eval(ctx, r)
		if err != nil {
			return nil, err
		}
		k, ok := orderedIntOf(v)
		if ok {
			if i.lSeen && k.compare(i.lk) < 0 {
				return nil, errMergeOrder
			}
			i.lk, i.lSeen = k, true
			if err := i.advance(ctx, k); err != nil {
				return nil, err
			}
			if i.rValid && i.rk.compare(k) == 0 {
				continue // matched: the filter drops it
			}
		} else if v != nil {
			return nil, errMergeOrder
		} else if i.lSeen { // a NULL after keys: not the index order
			return nil, errMergeOrder
		}
		out := make(sql.Row, len(r)+i.nulls)
		copy(out, r)
		return out, nil
	}
}

func (i *antiMergeIter) Close(ctx *sql.Context) error {
	err := i.left.Close(ctx)
	if err2 := i.right.Close(ctx); err == nil {
		err = err2
	}
	return err
}
