package rules

import (
	"sync"

	sqle "github.com/dolthub/go-mysql-server"
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

// RULE-78 DDL that a stored procedure runs, or that EXECUTE runs from a
// PREPAREd statement, is logged in the binary log as its text like DDL a
// client sends (binlog BL-6, backend CAT-7): the CALL's statement runner
// runs each such statement inside the session's StatementLog.Nested,
// naming its text (the statement as the parser prints it: the procedure's
// own text is not kept per statement; an EXECUTE's from go-mysql-server's
// cache of prepared statements). Top-level EXECUTE is the server's
// (SRV-REPL-4).

// StatementLog is the session side of RULE-78 (backend's Session).
type StatementLog interface {
	// Nested runs a statement of a procedure that is logged as text
	// (asText: its row changes not captured, CREATE TABLE ... SELECT).
	Nested(db, text string, asText bool, run func() error) error
}

// LoggedAsText reports whether a statement is logged in the binary log as
// its text (binlog BL-6): DDL of schema objects, not of TEMPORARY tables,
// not account statements; asText is true for CREATE TABLE ... SELECT,
// whose rows are not captured.
func LoggedAsText(stmt ast.Statement) (logged, asText bool) {
	switch n := stmt.(type) {
	case *ast.DDL:
		return !n.Temporary, n.OptSelect != nil
	case *ast.DBDDL, *ast.AlterTable:
		return true, false
	}
	return false, false
}

// ExecutedText is the statement EXECUTE name runs in session id, when it
// is logged as text (RULE-78); cache is the engine's.
func ExecutedText(cache *sqle.PreparedDataCache, id uint32, name string) (text string, asText, ok bool) {
	if cache == nil {
		return "", false, false
	}
	stmt, found := cache.GetCachedStmt(id, name)
	if !found {
		return "", false, false
	}
	logged, asText := LoggedAsText(stmt)
	if !logged {
		return "", false, false
	}
	return ast.String(stmt), asText, true
}

// procedureResults is RULE-41's and RULE-78's analyzer rule.
func procedureResults(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	log, _ := ctx.Session.(StatementLog)
	var cache *sqle.PreparedDataCache
	if e, ok := a.Runner.(*sqle.Engine); ok {
		cache = e.PreparedDataCache
	}
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		call, ok := n.(*plan.Call)
		if !ok || call.Procedure == nil {
			return n, transform.SameTree, nil
		}
		runner := call.GetRunner()
		if runner == nil {
			return n, transform.SameTree, nil
		}
		if _, done := runner.(*procedureRunner); done {
			return n, transform.SameTree, nil
		}
		selects := map[*ast.Select]bool{}
		for _, op := range call.Procedure.Ops {
			if s, ok := op.PrimaryData.(*ast.Select); ok && op.OpCode == procedures.OpCode_Select && s.Into == nil {
				selects[s] = true
			}
		}
		return call.SetStatementRunner(ctx, &procedureRunner{inner: runner, selects: selects, log: log, prepared: cache}), transform.NewTree, nil
	})
}

// procedureRunner runs a procedure's statements: it keeps the rows of its
// result SELECTs when the session collects them (RULE-41), and runs its
// DDL inside the session's StatementLog (RULE-78).
type procedureRunner struct {
	inner    sql.StatementRunner
	selects  map[*ast.Select]bool
	log      StatementLog
	prepared *sqle.PreparedDataCache
}

func (r *procedureRunner) QueryWithBindings(ctx *sql.Context, query string, parsed ast.Statement, bindings map[string]ast.Expr, qFlags *sql.QueryFlags) (sch sql.Schema, it sql.RowIter, flags *sql.QueryFlags, err error) {
	if r.log != nil {
		text, asText, logged := "", false, false
		if e, ok := parsed.(*ast.Execute); ok {
			text, asText, logged = ExecutedText(r.prepared, ctx.Session.ID(), e.Name)
		} else if logged, asText = LoggedAsText(parsed); logged {
			text = ast.String(parsed)
		}
		if logged {
			// The statement runs whole inside Nested (its rows read), so
			// the log knows whether it succeeded.
			err = r.log.Nested(ctx.GetCurrentDatabase(), text, asText, func() error {
				var rows []sql.Row
				var qerr error
				sch, it, flags, qerr = r.inner.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
				if qerr == nil {
					rows, qerr = sql.RowIterToRows(ctx, it)
					it = sql.RowsToRowIter(rows...)
				}
				return qerr
			})
			if err != nil {
				return nil, nil, nil, err
			}
			return sch, it, flags, nil
		}
	}
	sch, it, flags, err = r.inner.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
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
