package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"

	"strata/memgov"
)

// ErrOutOfMemory makes the error a statement stopped by RULE-22 returns
// (the backend's 1041); set by the server.
var ErrOutOfMemory = func() error { return memgov.ErrOverBudget }

// memoryChecks puts a budget check under every operator that holds the
// rows it reads (RULE-22): a sort, a grouping, a window, a DISTINCT, a
// UNION that removes duplicates, a join's cached or hashed side. The rows
// such an operator buffers may come from a join of tables it never reads
// again (go-mysql-server caches a join's inner side), so the storage
// layer's own check (per 64 rows read) may not see them.
func memoryChecks(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n.(type) {
		case *plan.Sort, *plan.GroupBy, *plan.Window, *plan.Distinct, *plan.CachedResults, *plan.HashLookup:
		default:
			return n, transform.SameTree, nil
		}
		children := n.Children()
		if len(children) != 1 {
			return n, transform.SameTree, nil
		}
		if _, done := children[0].(*memoryChecked); done {
			return n, transform.SameTree, nil
		}
		nn, err := n.WithChildren(&memoryChecked{UnaryNode: plan.UnaryNode{Child: children[0]}})
		if err != nil {
			return nil, transform.SameTree, err
		}
		return nn, transform.NewTree, nil
	})
}

// memoryChecked passes its child's rows through, and fails the statement
// when the process is over its memory budget (checked every 64 rows once
// it has passed memgov.MinRows).
type memoryChecked struct {
	plan.UnaryNode
}

var _ sql.ExecSourceRel = (*memoryChecked)(nil)

func (m *memoryChecked) String() string   { return m.Child.String() }
func (m *memoryChecked) IsReadOnly() bool { return m.Child.IsReadOnly() }
func (m *memoryChecked) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(m, len(children), 1)
	}
	return &memoryChecked{UnaryNode: plan.UnaryNode{Child: children[0]}}, nil
}

func (m *memoryChecked) RowIter(ctx *sql.Context, r sql.Row) (sql.RowIter, error) {
	it, err := Exec.Build(ctx, m.Child, r)
	if err != nil {
		return nil, err
	}
	return &memoryCheckedIter{child: it}, nil
}

type memoryCheckedIter struct {
	child sql.RowIter
	n     uint32
}

func (i *memoryCheckedIter) Next(ctx *sql.Context) (sql.Row, error) {
	if i.n++; i.n >= memgov.MinRows && i.n%64 == 0 && memgov.Check() != nil {
		return nil, ErrOutOfMemory()
	}
	return i.child.Next(ctx)
}

func (i *memoryCheckedIter) Close(ctx *sql.Context) error { return i.child.Close(ctx) }
