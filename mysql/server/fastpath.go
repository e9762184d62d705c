package server

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"strata/mysql/backend"
)

// The fast path (FP-n) answers the most common OLTP statement, a prepared
// primary-key point select, directly on the engine, skipping
// go-mysql-server's per-execute binding and analysis:
//
//	SELECT col[, col...] FROM table WHERE pkcol = ?
//
// FP-1 Only that exact shape is taken: plain column names of one table in
// the session's current database, a single-column primary key, one
// parameter whose type family matches the key column. Anything else,
// including a failed lookup of any kind, goes to go-mysql-server.
// FP-2 It reads in the session's transaction as go-mysql-server would: the
// open engine transaction if the client has one, else a fresh read-only
// one (autocommit), with the same visibility (read-your-writes).
// FP-3 Its result (column metadata and values) is what go-mysql-server
// returns for the same statement; a test compares the two paths.
//
// It does not check privileges: strata runs without user accounts (root,
// empty password). Enabling accounts must add a SELECT privilege check here.

var pointSelectRE = regexp.MustCompile("(?is)^\\s*SELECT\\s+(.+?)\\s+FROM\\s+`?(\\w+)`?\\s+WHERE\\s+`?(\\w+)`?\\s*=\\s*\\?\\s*;?\\s*$")
var identRE = regexp.MustCompile("^`?(\\w+)`?$")

// pointSelect is a parsed statement shape (table resolution happens per
// execution: the current database and the catalog can change).
type pointSelect struct {
	cols   []string
	table  string
	keyCol string
}

type fastPath struct {
	b      *backend.Backend
	mu     sync.Mutex
	shapes map[string]*pointSelect // by statement text; nil: not a point select
}

func newFastPath(b *backend.Backend) *fastPath {
	return &fastPath{b: b, shapes: map[string]*pointSelect{}}
}

func (fp *fastPath) shape(query string) *pointSelect {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	if ps, ok := fp.shapes[query]; ok {
		return ps
	}
	var ps *pointSelect
	if m := pointSelectRE.FindStringSubmatch(query); m != nil {
		ps = &pointSelect{table: m[2], keyCol: m[3]}
		for _, c := range strings.Split(m[1], ",") {
			im := identRE.FindStringSubmatch(strings.TrimSpace(c))
			if im == nil {
				ps = nil
				break
			}
			ps.cols = append(ps.cols, im[1])
		}
	}
	if len(fp.shapes) < 10000 {
		fp.shapes[query] = ps
	}
	return ps
}

// execute answers the statement if it can (ok); with ok false the caller
// runs it through go-mysql-server.
func (fp *fastPath) execute(goctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData) (res *sqltypes.Result, ok bool, err error) {
	if prepare.ParamsCount != 1 || len(prepare.BindVars) != 1 {
		return nil, false, nil
	}
	ps := fp.shape(prepare.PrepareStmt)
	if ps == nil {
		return nil, false, nil
	}
	s := fp.b.SessionByConn(c.ConnectionID)
	if s == nil {
		return nil, false, nil
	}
	bv := prepare.BindVars["v1"]
	if bv == nil {
		return nil, false, nil
	}
	ctx := sql.NewContext(goctx, sql.WithSession(s))
	lookup, ok := s.PrepareKeyLookup(ctx, ps.table, ps.keyCol, ps.cols)
	if !ok {
		return nil, false, nil
	}
	key, ok := bindValue(bv, lookup.KeyType())
	if !ok {
		return nil, false, nil
	}
	if s.GetTransaction() == nil {
		if autocommit, err := plan.IsSessionAutocommit(ctx); err != nil || !autocommit {
			return nil, false, nil // go-mysql-server starts the transaction
		}
	}
	row, found, err := lookup.Get(ctx, key)
	if errors.Is(err, backend.ErrFallback) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	sch := lookup.Schema()
	res = &sqltypes.Result{Fields: schemaFields(ctx, sch)}
	if found {
		vals := make([]sqltypes.Value, len(sch))
		for i, col := range sch {
			if row[i] == nil {
				vals[i] = sqltypes.NULL
				continue
			}
			if vals[i], err = col.Type.SQL(ctx, nil, row[i]); err != nil {
				return nil, true, err
			}
		}
		res.Rows = [][]sqltypes.Value{vals}
	}
	s.ClearWarnings()
	s.SetLastQueryInfoInt(sql.RowCount, -1)
	s.SetLastQueryInfoInt(sql.FoundRows, int64(len(res.Rows)))
	return res, true, nil
}

// bindValue decodes the parameter if its type family matches the key
// column's (FP-1).
func bindValue(bv *querypb.BindVariable, typ sql.Type) (any, bool) {
	v := string(bv.Value)
	switch {
	case types.IsInteger(typ):
		switch {
		case sqltypes.IsSigned(bv.Type):
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		case sqltypes.IsUnsigned(bv.Type):
			n, err := strconv.ParseUint(v, 10, 64)
			return n, err == nil
		}
	case types.IsTextOnly(typ):
		if bv.Type == sqltypes.VarChar || bv.Type == sqltypes.Char || bv.Type == sqltypes.Text {
			return v, true
		}
	}
	return nil, false
}

// schemaFields is the column metadata go-mysql-server sends for a result
// schema (FP-3).
func schemaFields(ctx *sql.Context, sch sql.Schema) []*querypb.Field {
	resultsCharset := ctx.GetCharacterSetResults()
	out := make([]*querypb.Field, len(sch))
	for i, c := range sch {
		charset := uint32(sql.Collation_Default.CharacterSet())
		if ct, ok := c.Type.(sql.TypeWithCollation); ok {
			charset = uint32(ct.Collation().CharacterSet())
		}
		if types.IsBinaryType(c.Type) {
			charset = uint32(sql.Collation_binary)
		} else if resultsCharset != sql.CharacterSet_Unspecified {
			charset = uint32(resultsCharset)
		}
		var flags querypb.MySqlFlag
		if !c.Nullable {
			flags |= querypb.MySqlFlag_NOT_NULL_FLAG
		}
		if c.AutoIncrement {
			flags |= querypb.MySqlFlag_AUTO_INCREMENT_FLAG
		}
		if c.PrimaryKey {
			flags |= querypb.MySqlFlag_PRI_KEY_FLAG
		}
		if types.IsUnsigned(c.Type) {
			flags |= querypb.MySqlFlag_UNSIGNED_FLAG
		}
		f := &querypb.Field{Name: c.Name, OrgName: c.Name, Table: c.Source, OrgTable: c.Source,
			Database: c.DatabaseSource, Type: c.Type.Type(), Charset: charset,
			ColumnLength: c.Type.MaxTextResponseByteLength(ctx), Flags: uint32(flags)}
		if types.IsDecimal(c.Type) {
			f.Decimals = uint32(c.Type.(sql.DecimalType).Scale())
		} else if types.IsDatetimeType(c.Type) {
			f.Decimals = uint32(c.Type.(sql.DatetimeType).Precision())
		}
		out[i] = f
	}
	return out
}
