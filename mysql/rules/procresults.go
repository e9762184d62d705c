package rules

import (
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/procedures"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// RULE-41 Each SELECT a stored procedure runs without INTO is a result
// set of its CALL, in the order the procedure runs them (a CALL inside it
// included), as MySQL sends them; go-mysql-server's interpreter returned
// the last one only. The server asks for them (CollectProcedureResults)
// when it can send several (a client with multi-statements); the rule
// gives the CALL a statement runner that keeps a copy of each such
// SELECT's rows (the interpreter reads them all at once anyway) for the
// server to send (TakeProcedureResults).

// ProcedureResult is one result set of a CALL.
type ProcedureResult struct {
	Schema sql.Schema
	Rows   []sql.Row
}

type procedureCollector struct {
	mu      sync.Mutex
	results []ProcedureResult
}

var procedureCollectors sync.Map // session id (uint32) -> *procedureCollector

// CollectProcedureResults makes the session's next CALL keep its result
// sets.
func CollectProcedureResults(session uint32) {
	procedureCollectors.Store(session, &procedureCollector{})
}

// TakeProcedureResults returns the result sets kept since
// CollectProcedureResults, and stops keeping them.
func TakeProcedureResults(session uint32) []ProcedureResult {
	v, ok := procedureCollectors.LoadAndDelete(session)
	if !ok {
		return nil
	}
	c := v.(*procedureCollector)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.results
}

// procedureResults is RULE-41's analyzer rule.
func procedureResults(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		call, ok := n.(*plan.Call)
		if !ok || call.Procedure == nil {
			return n, transform.SameTree, nil
		}
		runner := call.GetRunner()
		if runner == nil {
			return n, transform.SameTree, nil
		}
		if _, done := runner.(*resultRunner); done {
			return n, transform.SameTree, nil
		}
		selects := map[*ast.Select]bool{}
		for _, op := range call.Procedure.Ops {
			if s, ok := op.PrimaryData.(*ast.Select); ok && op.OpCode == procedures.OpCode_Select && s.Into == nil {
				selects[s] = true
			}
		}
		if len(selects) == 0 {
			return n, transform.SameTree, nil
		}
		return call.SetStatementRunner(ctx, &resultRunner{inner: runner, selects: selects}), transform.NewTree, nil
	})
}

// resultRunner runs a procedure's statements, keeping the rows of its
// result SELECTs when the session collects them.
type resultRunner struct {
	inner   sql.StatementRunner
	selects map[*ast.Select]bool
}

func (r *resultRunner) QueryWithBindings(ctx *sql.Context, query string, parsed ast.Statement, bindings map[string]ast.Expr, qFlags *sql.QueryFlags) (sql.Schema, sql.RowIter, *sql.QueryFlags, error) {
	sch, it, flags, err := r.inner.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	s, isSelect := parsed.(*ast.Select)
	if err != nil || !isSelect || !r.selects[s] {
		return sch, it, flags, err
	}
	v, collecting := procedureCollectors.Load(ctx.Session.ID())
	if !collecting {
		return sch, it, flags, err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, nil, nil, err
	}
	c := v.(*procedureCollector)
	c.mu.Lock()
	c.results = append(c.results, ProcedureResult{Schema: sch, Rows: rows})
	c.mu.Unlock()
	return sch, sql.RowsToRowIter(rows...), flags, nil
}
