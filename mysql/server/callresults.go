package server

import (
	"context"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"strata/mysql/fastpath"
	"strata/mysql/rules"
)

// SRV-CALL A CALL sent by a client with multi-statements (COM_QUERY
// through ComMultiQuery) answers one result set per SELECT its procedure
// ran (rules RULE-41), in order, each flagged "more results", then the
// CALL's OK packet, as MySQL does. The wire library writes one result set per handler call and asks
// again while the handler returns text left to run, so the handler sends
// the first set, keeps the others for the connection, and returns
// callResultsMarker as that text: each later call with it sends the next
// set, the last one returns the statement's real remainder. A client
// without multi-statements (PyMySQL's and go-sql-driver's default) gets
// the same: from its first COM_QUERY on, its queries are routed through
// ComMultiQuery too (the wire library decides by the capability flag),
// where a text that is not one CALL goes to ComQuery as before, so such
// a client still cannot run several statements in one query. A CALL that
// fails after result sets (a SIGNAL after a SELECT) sends them, then its
// error instead of the OK packet.

// callResultsMarker is the remainder standing for a CALL's result sets
// still to send; text from a client that starts with it and has nothing
// pending is an ordinary statement.
const callResultsMarker = "/*strata: more CALL results*/"

// pendingCall is what a CALL has still to send.
type pendingCall struct {
	results []*sqltypes.Result
	rest    string // the text after the CALL
	err     error  // the CALL failed after these results: sent after them
}

var pendingCalls sync.Map // connection id -> *pendingCall

// singleStatementClients are the connections whose client did not ask
// for multi-statements, routed through ComMultiQuery (SRV-CALL).
var singleStatementClients sync.Map // connection id -> struct{}

// routeThroughMulti makes the wire library hand c's later COM_QUERYs to
// ComMultiQuery, remembering that the client asked for one statement per
// query.
func routeThroughMulti(c *mysql.Conn) {
	if c.Capabilities&mysql.CapabilityClientMultiStatements == 0 && !c.DisableClientMultiStatements {
		singleStatementClients.Store(c.ConnectionID, struct{}{})
		c.Capabilities |= mysql.CapabilityClientMultiStatements
	}
}

// singleCall reports whether query is one CALL statement.
func singleCall(query string) bool {
	if !startsWithWord(query, "call") {
		return false
	}
	_, rest, err := sqlparser.SplitStatement(query)
	return err == nil && strings.TrimSpace(rest) == ""
}

// callWithResults runs a CALL (the first statement of query), sending
// its first result set and keeping the others (SRV-CALL).
func (h *errorHandler) callWithResults(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) (string, error) {
	id := c.ConnectionID
	rules.CollectProcedureResults(id)
	var own []*sqltypes.Result // go-mysql-server's answer: the last result set, or the OK
	rest, err := h.Handler.ComMultiQuery(ctx, c, query, h.spool(c, query, func(r *sqltypes.Result, _ bool) error {
		own = append(own, r)
		return nil
	}))
	results := rules.TakeProcedureResults(id)
	err = h.statementErrors(c, query, h.mapError(c, err))
	// A CALL that fails after result sets sends them, then its error, as
	// MySQL does (a SIGNAL after a SELECT).
	failed := err
	if err != nil && len(results) > 0 {
		err = nil
	}
	if err != nil || len(results) == 0 {
		for _, r := range own {
			if err == nil {
				err = cb(r, rest != "")
			}
		}
		h.done(c, err)
		return rest, err
	}
	s := h.session(c)
	if s == nil {
		h.done(c, nil)
		return rest, nil
	}
	sctx := sql.NewContext(ctx, sql.WithSession(s))
	sets := make([]*sqltypes.Result, len(results))
	for i, r := range results {
		res := &sqltypes.Result{Fields: fastpath.Fields(sctx, r.Schema), Rows: make([][]sqltypes.Value, len(r.Rows))}
		ords := make([]int, len(r.Schema))
		for j := range ords {
			ords[j] = j
		}
		enc := fastpath.NewRowEncoder(sctx, r.Schema, ords)
		for j, row := range r.Rows {
			if res.Rows[j], err = enc.Row(sctx, row); err != nil {
				h.done(c, err)
				return "", err
			}
		}
		sets[i] = res
	}
	if failed != nil {
		pendingCalls.Store(id, &pendingCall{results: sets[1:], err: failed})
	} else {
		h.done(c, nil)
		// MySQL ends a CALL's result sets with the CALL's own OK packet.
		sets = append(sets, &sqltypes.Result{})
		pendingCalls.Store(id, &pendingCall{results: sets[1:], rest: rest})
	}
	if err := h.spool(c, query, cb)(sets[0], true); err != nil {
		pendingCalls.Delete(id)
		return "", err
	}
	return callResultsMarker, nil
}

// nextCallResult sends the next kept result set of c's CALL, if any
// (SRV-CALL).
func (h *errorHandler) nextCallResult(c *mysql.Conn, query string, cb mysql.ResultSpoolFn) (rest string, ok bool, err error) {
	if !strings.HasPrefix(query, callResultsMarker) {
		return "", false, nil
	}
	v, found := pendingCalls.Load(c.ConnectionID)
	if !found {
		return "", false, nil
	}
	p := v.(*pendingCall)
	if len(p.results) == 0 { // only the CALL's error is left
		pendingCalls.Delete(c.ConnectionID)
		h.done(c, p.err)
		return "", true, p.err
	}
	next := p.results[0]
	p.results = p.results[1:]
	rest = callResultsMarker
	if len(p.results) == 0 && p.err == nil {
		pendingCalls.Delete(c.ConnectionID)
		rest = p.rest
	}
	if err := h.spool(c, "CALL", cb)(next, rest != ""); err != nil {
		pendingCalls.Delete(c.ConnectionID)
		return "", true, err
	}
	return rest, true, nil
}
