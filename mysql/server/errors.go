package server

import (
	"context"
	"errors"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// errorHandler wraps go-mysql-server's protocol handler to give clients
// MySQL's error codes where go-mysql-server v0.20 answers with the generic
// 1105 (ER_UNKNOWN_ERROR).
type errorHandler struct {
	mysql.Handler
	fast *fastPath // nil: every statement goes to go-mysql-server
}

// mapError rewrites the errors go-mysql-server leaves as 1105.
func mapError(err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || se.Num != mysql.ERUnknownError {
		return err
	}
	msg := se.Message
	switch {
	case strings.HasPrefix(msg, "syntax error"):
		return mysql.NewSQLError(mysql.ERParseError, "42000",
			"You have an error in your SQL syntax; %s", msg)
	case strings.Contains(msg, "could not be found in any table in scope"):
		return mysql.NewSQLError(mysql.ERBadFieldError, "42S22", "Unknown column: %s", msg)
	}
	return err
}

func (h *errorHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) error {
	return mapError(h.Handler.ComQuery(ctx, c, query, cb))
}

func (h *errorHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, cb mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, query, cb)
	return rest, mapError(err)
}

func (h *errorHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, p *mysql.PrepareData) ([]*querypb.Field, error) {
	f, err := h.Handler.ComPrepare(ctx, c, query, p)
	return f, mapError(err)
}

func (h *errorHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) error {
	if h.fast != nil {
		if res, ok, err := h.fast.execute(ctx, c, p); ok {
			if err != nil {
				return mapError(sql.CastSQLError(err))
			}
			return cb(res)
		}
	}
	return mapError(h.Handler.ComStmtExecute(ctx, c, p, cb))
}
