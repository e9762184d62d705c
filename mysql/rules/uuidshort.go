package rules

import (
	"sync/atomic"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// uuidShortFunction is UUID_SHORT() (FUNC-1): a 64-bit value unique within
// the server's life, as MySQL builds it: (server_id & 255) << 56, plus the
// server's start time in seconds << 24, plus a counter incremented at
// each call.
func uuidShortFunction() sql.Function {
	return sql.Function0{Name: "uuid_short", Fn: func() sql.Expression { return uuidShort{} }}
}

var (
	uuidShortStart = uint64(time.Now().Unix())
	uuidShortCount atomic.Uint64
)

type uuidShort struct{}

var _ sql.FunctionExpression = uuidShort{}
var _ sql.NonDeterministicExpression = uuidShort{}

func (uuidShort) Resolved() bool             { return true }
func (uuidShort) IsNullable() bool           { return false }
func (uuidShort) Type() sql.Type             { return types.Uint64 }
func (uuidShort) Children() []sql.Expression { return nil }
func (uuidShort) FunctionName() string       { return "uuid_short" }
func (uuidShort) Description() string {
	return "returns a short universal identifier as a 64-bit unsigned integer"
}
func (uuidShort) IsNonDeterministic() bool { return true }
func (uuidShort) String() string           { return "UUID_SHORT()" }
func (uuidShort) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return sql.Collation_binary, 5
}
func (u uuidShort) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(u, len(children), 0)
	}
	return u, nil
}

func (uuidShort) Eval(ctx *sql.Context, _ sql.Row) (any, error) {
	serverID := uint64(1)
	if _, v, ok := sql.SystemVariables.GetGlobal("server_id"); ok {
		switch x := v.(type) {
		case uint32:
			serverID = uint64(x)
		case uint64:
			serverID = x
		case int64:
			serverID = uint64(x)
		}
	}
	return (serverID&255)<<56 + uuidShortStart<<24 + uuidShortCount.Add(1), nil
}
