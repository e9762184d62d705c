package rules

import (
	"errors"
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// RULE-102 An inner or left outer join whose right side is an index
// lookup (RULE-86) or a hash join's table (RULE-87) runs through
// joinRows: go-mysql-server's join iterator with the same row order,
// NULL handling and results, minus its per-row costs. Per outer row it
// copied the row (Row.Append of an empty scope row), dispatched the
// right side through the executor's builder (tracing span, override
// lookup, a fresh iterator object for a hash probe), and allocated each
// joined row alone; a quarter of a three-table lookup join's
// allocations. joinRows probes the right side directly (a hash probe is
// the bucket's rows, no iterator) and cuts joined rows from a chunk.
// Every other join, and a right side of another kind, stays
// go-mysql-server's.
//
// Design, as it must hold:
//   - A joined row is the scope row, the left row and the right row (or
//     NULLs for an unmatched left row of a left join), the scope row then
//     removed down to the join's scope length: go-mysql-server's layout.
//   - The join condition is evaluated on every candidate pair; NULL under
//     an exclude-nulls join drops the left row, as go-mysql-server did.
//   - Rows handed out are never written again (a chunk's rows are
//     disjoint), so consumers that keep rows (sorts, hash tables) see
//     them unchanged; a left row is read only until the next left row.
type joinRows struct {
	j       *plan.JoinNode
	parent  sql.Row
	left    sql.RowIter
	probe   func(ctx *sql.Context, row sql.Row) (sql.RowIter, []sql.Row, error)
	rowSize int

	primary sql.Row     // the current left row (after the scope row), nil: read one
	iter    sql.RowIter // the current left row's right rows, or
	rows    []sql.Row   // its hash bucket
	opened  bool        // the right side of primary is open
	matched bool
	chunk   sql.Row // joined rows are cut from it, from off on
	off     int
}

// joinedChunk is how many joined rows one allocation holds.
const joinedChunk = 32

// newJoinRows is RULE-102's iterator for j under the scope row, or nil
// when go-mysql-server must run j.
func newJoinRows(ctx *sql.Context, j *plan.JoinNode, row sql.Row) (sql.RowIter, error) {
	switch j.Op {
	case plan.JoinTypeInner, plan.JoinTypeLookup, plan.JoinTypeHash,
		plan.JoinTypeLeftOuter, plan.JoinTypeLeftOuterLookup, plan.JoinTypeLeftOuterHash,
		plan.JoinTypeLeftOuterExcludeNulls, plan.JoinTypeLeftOuterHashExcludeNulls:
	default:
		return nil, nil
	}
	probe := rightProbe(j.Right())
	if probe == nil {
		return nil, nil
	}
	left, err := Exec.Build(ctx, j.Left(), row)
	if err != nil {
		return nil, err
	}
	return &joinRows{j: j, parent: row, left: left, probe: probe,
		rowSize: len(row) + len(j.Left().Schema()) + len(j.Right().Schema())}, nil
}

// rightProbe returns how to find a left row's right rows when the right
// side is a lookup or a hash probe, else nil.
func rightProbe(right sql.Node) func(ctx *sql.Context, row sql.Row) (sql.RowIter, []sql.Row, error) {
	var ita *plan.IndexedTableAccess
	switch x := right.(type) {
	case *plan.HashLookup:
		return func(ctx *sql.Context, row sql.Row) (sql.RowIter, []sql.Row, error) {
			return probeHash(ctx, x, row)
		}
	case *plan.TableAlias:
		ita, _ = x.Child.(*plan.IndexedTableAccess)
	case *plan.IndexedTableAccess:
		ita = x
	}
	if ita == nil {
		return nil
	}
	var keys []any // the lookup's key values, reused per left row
	return func(ctx *sql.Context, row sql.Row) (sql.RowIter, []sql.Row, error) {
		it, err := lookupRows(ctx, ita, row, &keys)
		if it == nil && err == nil {
			it, err = Exec.Build(ctx, right, row) // go-mysql-server's lookup
		}
		return it, nil, err
	}
}

// errEmptyRight ends a join whose right side is a cached empty result
// (go-mysql-server's plan.ErrEmptyCachedResult).
var errEmptyRight = errors.New("empty right side")

func (i *joinRows) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		if i.primary == nil {
			r, err := i.left.Next(ctx)
			if err != nil {
				return nil, err
			}
			if len(i.parent) == 0 {
				i.primary = r // Append would copy it: left rows are not written again
			} else {
				i.primary = i.parent.Append(r)
			}
			i.matched = false
		}
		right, err := i.nextRight(ctx)
		if err != nil {
			if err != io.EOF && err != errEmptyRight {
				return nil, err
			}
			primary := i.primary
			i.primary = nil
			if !i.matched && i.j.Op.IsLeftOuter() {
				return i.finish(i.build(primary, nil)), nil
			}
			if err == errEmptyRight {
				return nil, io.EOF
			}
			continue
		}
		row := i.build(i.primary, right)
		res, err := sql.EvaluateCondition(ctx, i.j.Filter, row)
		if err != nil {
			return nil, err
		}
		if res == nil && i.j.Op.IsExcludeNulls() {
			if err := i.closeRight(ctx); err != nil {
				return nil, err
			}
			i.primary = nil
			i.unbuild()
			continue
		}
		if !sql.IsTrue(res) {
			i.unbuild()
			continue
		}
		i.matched = true
		return i.finish(row), nil
	}
}

// nextRight is the current left row's next right row; io.EOF when they
// are done (the right side closed).
func (i *joinRows) nextRight(ctx *sql.Context) (sql.Row, error) {
	if !i.opened {
		it, rows, err := i.probe(ctx, i.primary)
		if err != nil {
			return nil, err
		}
		if it != nil && plan.IsEmptyIter(it) {
			return nil, errEmptyRight
		}
		i.iter, i.rows, i.opened = it, rows, true
	}
	if i.iter == nil {
		if len(i.rows) == 0 {
			i.opened = false
			return nil, io.EOF
		}
		r := i.rows[0]
		i.rows = i.rows[1:]
		return r, nil
	}
	r, err := i.iter.Next(ctx)
	if err == io.EOF {
		if err := i.closeRight(ctx); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	return r, err
}

func (i *joinRows) closeRight(ctx *sql.Context) error {
	it := i.iter
	i.iter, i.rows, i.opened = nil, nil, false
	if it != nil {
		return it.Close(ctx)
	}
	return nil
}

// build is the joined row of primary and right (nil: NULLs), cut from
// the chunk; unbuild gives back the last one when it is not handed out.
func (i *joinRows) build(primary, right sql.Row) sql.Row {
	if i.off+i.rowSize > len(i.chunk) {
		i.chunk, i.off = make(sql.Row, i.rowSize*joinedChunk), 0
	}
	row := i.chunk[i.off : i.off+i.rowSize : i.off+i.rowSize]
	i.off += i.rowSize
	n := copy(row, primary)
	n += copy(row[n:], right)
	clear(row[n:]) // a slot given back holds an earlier candidate's values
	return row
}

func (i *joinRows) unbuild() { i.off -= i.rowSize }

// finish removes the scope row from a joined row but the join's scope
// length (go-mysql-server's removeParentRow).
func (i *joinRows) finish(r sql.Row) sql.Row {
	if len(i.parent) == 0 {
		return r
	}
	copy(r[i.j.ScopeLen:], r[len(i.parent):])
	return r[:len(r)-len(i.parent)+i.j.ScopeLen]
}

func (i *joinRows) Close(ctx *sql.Context) error {
	err := i.left.Close(ctx)
	if rerr := i.closeRight(ctx); err == nil {
		err = rerr
	}
	return err
}
