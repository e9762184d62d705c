package server

import (
	"context"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// SRV-PARENJOIN: a parenthesized list of tables in a FROM clause, `t1
// LEFT JOIN (t2, t3) ON ...`, is the cross join of the list, as in
// MySQL. go-mysql-server's planner takes a parenthesized table expression
// of one element only ("unsupported syntax: (t2, t3)"). The statement is
// parsed, each such list becomes (t2 JOIN t3) in the syntax tree, and the
// tree is executed with the statement's own text (go-mysql-server names
// the result columns from it). Text queries only: a prepared statement
// holding such a list is still refused by the planner.

// mayParenJoin is the cheap test before parenJoins parses: a comma after
// a parenthesis in a statement with a JOIN or a FROM (.
func mayParenJoin(q string) bool {
	i := strings.IndexByte(q, '(')
	return i >= 0 && strings.IndexByte(q[i:], ',') >= 0 &&
		(containsFold(q, "join") || containsFold(q, "from ("))
}

// parenJoins parses q and rewrites its parenthesized table lists; ok is
// false when q has none (or does not parse: the normal path reports it).
func parenJoins(q string) (sqlparser.Statement, bool) {
	if !mayParenJoin(q) {
		return nil, false
	}
	stmt, err := sqlparser.Parse(q)
	if err != nil {
		return nil, false
	}
	changed := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if p, ok := node.(*sqlparser.ParenTableExpr); ok && len(p.Exprs) > 1 {
			join := p.Exprs[0]
			for _, next := range p.Exprs[1:] {
				join = &sqlparser.JoinTableExpr{LeftExpr: join, Join: sqlparser.JoinStr, RightExpr: next}
			}
			p.Exprs = sqlparser.TableExprs{join}
			changed = true
		}
		return true, nil
	}, stmt)
	return stmt, changed
}

// parsedQuerier is go-mysql-server's handler running a statement parsed
// already.
type parsedQuerier interface {
	ComParsedQuery(ctx context.Context, c *mysql.Conn, query string, parsed sqlparser.Statement, cb mysql.ResultSpoolFn) error
}

func (h *errorHandler) parsedQuerier() parsedQuerier {
	pq, _ := h.Handler.(parsedQuerier)
	return pq
}

// comQuery runs one statement through go-mysql-server's handler, with
// SRV-PARENJOIN's rewrite where the statement needs it, and
// SRV-ORDERALIAS's or SRV-DMLJOIN's when it failed for theirs.
func (h *errorHandler) comQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) error {
	pq := h.parsedQuerier()
	if pq == nil {
		return h.Handler.ComQuery(ctx, c, q, cb)
	}
	stmt, ok := parenJoins(q)
	var err error
	if ok {
		err = pq.ComParsedQuery(ctx, c, q, stmt, cb)
	} else {
		stmt = nil
		err = h.Handler.ComQuery(ctx, c, q, cb)
	}
	return h.retryParsed(ctx, c, q, stmt, err, cb)
}

// retryParsed runs q again from its syntax tree (prev when it has one)
// while SRV-ORDERALIAS finds an alias to replace for its error, or
// SRV-DMLJOIN a multi-table form.
func (h *errorHandler) retryParsed(ctx context.Context, c *mysql.Conn, q string, prev sqlparser.Statement, err error, cb mysql.ResultSpoolFn) error {
	pq := h.parsedQuerier()
	for i := 0; err != nil && pq != nil && i < orderAliasRetries; i++ {
		stmt, ok, rerr := orderAliasRetry(q, mapError(err), prev)
		if rerr != nil {
			return rerr
		}
		if !ok {
			stmt, ok = dmlJoinRetry(q, mapError(err), prev)
		}
		if !ok {
			break
		}
		prev = stmt
		err = pq.ComParsedQuery(ctx, c, q, stmt, cb)
	}
	return err
}

// parenJoinFirst runs the first statement of a multi-statement text when
// it holds a parenthesized table list (SRV-PARENJOIN); ok is false when
// it does not (the text is split only when mayParenJoin allows).
func (h *errorHandler) parenJoinFirst(ctx context.Context, c *mysql.Conn, query string, ch *chainedTx, cb mysql.ResultSpoolFn) (rest string, ok bool, err error) {
	pq := h.parsedQuerier()
	if pq == nil || !mayParenJoin(query) {
		return "", false, nil
	}
	first, rest, err := sqlparser.SplitStatement(query)
	if err != nil {
		return "", false, nil
	}
	stmt, ok := parenJoins(first)
	if !ok {
		return "", false, nil
	}
	spool := h.spool(c, first, chainStatus(c, ch, cb))
	err = pq.ComParsedQuery(ctx, c, first, stmt, func(r *sqltypes.Result, more bool) error {
		return spool(r, more || strings.TrimSpace(rest) != "")
	})
	err = h.statementErrors(c, first, h.mapError(c, err))
	h.done(c, err)
	h.chainAfter(ctx, c, ch, err)
	if err != nil {
		return "", true, err
	}
	return rest, true, nil
}
