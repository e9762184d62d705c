package server

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/shopspring/decimal"

	"strata/mysql/auth"
	"strata/mysql/backend"
	"strata/mysql/rules"
)

// The fast path (FP-n) answers the common prepared single-table OLTP
// statements directly on the engine, skipping go-mysql-server's
// per-execute binding and analysis (the shapes sysbench's OLTP workloads
// use, with any table and column names):
//
//	SELECT col[, col...] FROM t WHERE pk = ?
//	SELECT [DISTINCT] col[, col...] FROM t WHERE pk BETWEEN ? AND ? [ORDER BY col [ASC]]
//	SELECT SUM(col) FROM t WHERE pk BETWEEN ? AND ?
//	UPDATE t SET col = ? | col = col {+|-} n [, ...] WHERE pk = ?
//	DELETE FROM t WHERE pk = ?
//	INSERT INTO t (every column) VALUES (?, ...)
//	BEGIN | START TRANSACTION | COMMIT | ROLLBACK
//
// FP-1 Only these exact shapes are taken: plain column names of one table
// in the session's current database whose primary key is the single
// column pk, parameters whose type family (integer, string) matches their
// column's. Anything else, including any value or state the backend does
// not handle exactly as go-mysql-server would (backend.ErrFallback), goes
// to go-mysql-server, with nothing done.
// FP-2 Reads and writes run in the session's transaction as
// go-mysql-server's would (backend FPB-2, FPB-3): in autocommit mode with
// no transaction, or in a transaction that stays open (BEGIN, autocommit
// off). A transaction that go-mysql-server would commit at the end of the
// statement (left by a failed autocommit statement) takes its path.
// FP-3 Results (column metadata, values, affected rows, insert id, info)
// are what go-mysql-server returns for the same statement; a test runs
// generated statements through both paths and compares.
// FP-4 DISTINCT and ORDER BY are taken only on integer columns and strings
// under a binary NO PAD collation, where equal means byte-equal; sorting
// is stable, as go-mysql-server's; DISTINCT with ORDER BY only when the
// order column is selected. Selects fall back while sql_select_limit is
// not its default.
//
// Not done here: fast-path statements do not appear in the process list
// (SHOW PROCESSLIST, KILL QUERY) nor in Questions/Com_* counters.
//
// Privileges: a statement is taken only when the session holds its
// privileges on the table and, for writes, read_only is off (auth AUTH-5);
// otherwise go-mysql-server runs and checks it.

const (
	ident = "`?(\\w+)`?"
	tail  = "\\s*;?\\s*$"
)

var (
	pointSelectRE = regexp.MustCompile("(?is)^\\s*SELECT\\s+(.+?)\\s+FROM\\s+" + ident + "\\s+WHERE\\s+" + ident + "\\s*=\\s*\\?" + tail)
	rangeSelectRE = regexp.MustCompile("(?is)^\\s*SELECT\\s+(DISTINCT\\s+)?(.+?)\\s+FROM\\s+" + ident + "\\s+WHERE\\s+" + ident +
		"\\s+BETWEEN\\s+\\?\\s+AND\\s+\\?(?:\\s+ORDER\\s+BY\\s+" + ident + "(?:\\s+ASC)?)?" + tail)
	updateRE   = regexp.MustCompile("(?is)^\\s*UPDATE\\s+" + ident + "\\s+SET\\s+(.+?)\\s+WHERE\\s+" + ident + "\\s*=\\s*\\?" + tail)
	deleteRE   = regexp.MustCompile("(?is)^\\s*DELETE\\s+FROM\\s+" + ident + "\\s+WHERE\\s+" + ident + "\\s*=\\s*\\?" + tail)
	insertRE   = regexp.MustCompile("(?is)^\\s*INSERT\\s+INTO\\s+" + ident + "\\s*\\(([^()]*)\\)\\s*VALUES\\s*\\(\\s*\\?((?:\\s*,\\s*\\?)*)\\s*\\)" + tail)
	beginRE    = regexp.MustCompile("(?i)^\\s*(?:BEGIN(?:\\s+WORK)?|START\\s+TRANSACTION)" + tail)
	commitRE   = regexp.MustCompile("(?i)^\\s*COMMIT(?:\\s+WORK)?" + tail)
	rollbackRE = regexp.MustCompile("(?i)^\\s*ROLLBACK(?:\\s+WORK)?" + tail)
	identRE    = regexp.MustCompile("^" + ident + "$")
	sumRE      = regexp.MustCompile("(?i)^SUM\\(\\s*" + ident + "\\s*\\)$")
	setRE      = regexp.MustCompile("(?i)^" + ident + "\\s*=\\s*(?:(\\?)|" + ident + "\\s*([-+])\\s*(\\d{1,19}))$")
	// keywordRE: words that may not be read as column or table names (a
	// backquoted column with such a name is left to go-mysql-server).
	keywordRE = regexp.MustCompile("(?i)^(select|from|where|distinct|all|as|and|or|not|xor|div|mod|is|in|like|null|true|false|unknown|default|" +
		"order|by|asc|desc|between|set|values|value|into|limit|for|lock|union|binary|interval|case|when|then|else|end|exists|" +
		"current_date|current_time|current_timestamp|current_user|localtime|localtimestamp|utc_date|utc_time|utc_timestamp|" +
		"sum|count|min|max|avg)$")
)

type kind uint8

const (
	pointSelect kind = iota + 1
	rangeSelect
	updateByKey
	deleteByKey
	insertValues
	txBegin
	txCommit
	txRollback
)

// shape is a recognized statement (tables resolve per execution: the
// current database and the catalog can change).
type shape struct {
	kind     kind
	table    string
	keyCol   string
	cols     []string // selected or inserted columns
	sum      string   // SELECT SUM(col): the expression as written, cols[0] is col
	distinct bool
	orderBy  string
	sets     []setClause
	params   int
}

// setClause is one assignment of an UPDATE: col = ? (param) or col = src + delta.
type setClause struct {
	col, src string
	param    bool
	delta    int64
}

type fastPath struct {
	b      *backend.Backend
	grants *mysql_db.MySQLDb // AUTH-5
	mu     sync.RWMutex
	shapes map[string]*shape // by statement text; nil: not a fast-path shape
}

func newFastPath(b *backend.Backend, grants *mysql_db.MySQLDb) *fastPath {
	return &fastPath{b: b, grants: grants, shapes: map[string]*shape{}}
}

// privileges are what a statement of kind k needs on its table (AUTH-5:
// never less than go-mysql-server asks; a missing one sends the statement
// to its path). UPDATE and DELETE read the key column, hence SELECT.
var privileges = map[kind][]auth.Privilege{
	pointSelect:  {auth.Select},
	rangeSelect:  {auth.Select},
	updateByKey:  {auth.Update, auth.Select},
	deleteByKey:  {auth.Delete, auth.Select},
	insertValues: {auth.Insert},
}

func (fp *fastPath) shape(query string) *shape {
	fp.mu.RLock()
	sh, ok := fp.shapes[query]
	fp.mu.RUnlock()
	if ok {
		return sh
	}
	sh = parseShape(query)
	fp.mu.Lock()
	if len(fp.shapes) < 10000 {
		fp.shapes[query] = sh
	}
	fp.mu.Unlock()
	return sh
}

// identList splits "a, `b`, c" into names; nil if any item is not a plain
// column name.
func identList(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		m := identRE.FindStringSubmatch(strings.TrimSpace(c))
		if m == nil || !plainIdent(m[1]) {
			return nil
		}
		out = append(out, m[1])
	}
	return out
}

// parseShape recognizes a statement, or returns nil; every name in it must
// be a plain identifier (not a number, not a keyword).
func parseShape(q string) *shape {
	sh := matchShape(q)
	if sh == nil {
		return nil
	}
	names := append([]string{sh.table, sh.keyCol, sh.orderBy}, sh.cols...)
	for _, sc := range sh.sets {
		names = append(names, sc.col, sc.src)
	}
	for _, n := range names {
		if n != "" && !plainIdent(n) {
			return nil
		}
	}
	return sh
}

func plainIdent(n string) bool {
	return (n[0] < '0' || n[0] > '9') && !keywordRE.MatchString(n)
}

func matchShape(q string) *shape {
	switch {
	case beginRE.MatchString(q):
		return &shape{kind: txBegin}
	case commitRE.MatchString(q):
		return &shape{kind: txCommit}
	case rollbackRE.MatchString(q):
		return &shape{kind: txRollback}
	}
	if m := pointSelectRE.FindStringSubmatch(q); m != nil {
		if cols := identList(m[1]); cols != nil {
			return &shape{kind: pointSelect, cols: cols, table: m[2], keyCol: m[3], params: 1}
		}
		return nil
	}
	if m := rangeSelectRE.FindStringSubmatch(q); m != nil {
		sh := &shape{kind: rangeSelect, distinct: m[1] != "", table: m[3], keyCol: m[4], orderBy: m[5], params: 2}
		list := strings.TrimSpace(m[2])
		if sm := sumRE.FindStringSubmatch(list); sm != nil {
			if sh.distinct || sh.orderBy != "" {
				return nil
			}
			sh.sum, sh.cols = list, []string{sm[1]}
			return sh
		}
		if sh.cols = identList(list); sh.cols == nil {
			return nil
		}
		return sh
	}
	if m := updateRE.FindStringSubmatch(q); m != nil {
		sh := &shape{kind: updateByKey, table: m[1], keyCol: m[3], params: 1}
		for _, a := range strings.Split(m[2], ",") {
			am := setRE.FindStringSubmatch(strings.TrimSpace(a))
			if am == nil {
				return nil
			}
			sc := setClause{col: am[1], param: am[2] != ""}
			if sc.param {
				sh.params++
			} else {
				sc.src = am[3]
				d, err := strconv.ParseInt(am[5], 10, 64)
				if err != nil {
					return nil
				}
				if am[4] == "-" {
					d = -d
				}
				sc.delta = d
			}
			sh.sets = append(sh.sets, sc)
		}
		return sh
	}
	if m := deleteRE.FindStringSubmatch(q); m != nil {
		return &shape{kind: deleteByKey, table: m[1], keyCol: m[2], params: 1}
	}
	if m := insertRE.FindStringSubmatch(q); m != nil {
		cols := identList(m[2])
		if cols == nil || len(cols) != 1+strings.Count(m[3], "?") {
			return nil
		}
		return &shape{kind: insertValues, table: m[1], cols: cols, params: len(cols)}
	}
	return nil
}

// execute answers the statement if it can (ok); with ok false the caller
// runs it through go-mysql-server.
func (fp *fastPath) execute(goctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData) (res *sqltypes.Result, ok bool, err error) {
	sh := fp.shape(prepare.PrepareStmt)
	if sh == nil || int(prepare.ParamsCount) != sh.params || len(prepare.BindVars) != sh.params {
		return nil, false, nil
	}
	s := fp.b.SessionByConn(c.ConnectionID)
	if s == nil {
		return nil, false, nil
	}
	params := make([]*querypb.BindVariable, sh.params)
	for i := range params {
		if params[i] = prepare.BindVars["v"+strconv.Itoa(i+1)]; params[i] == nil {
			return nil, false, nil
		}
	}
	ctx := sql.NewContext(goctx, sql.WithSession(s))
	if sh.kind >= txBegin {
		if err := transactionControl(ctx, c, s, sh.kind); err != nil {
			return nil, true, err
		}
		fp.b.CountFastTxControl()
		return &sqltypes.Result{}, true, nil
	}
	// FP-2: go-mysql-server commits at the end of a statement when
	// autocommit is on and no BEGIN is in force. Taken here: autocommit
	// with no transaction (the backend commits), or a transaction that
	// stays open. Not taken: autocommit off with no transaction (one would
	// be started and left open), or a transaction left behind by a failed
	// autocommit statement (go-mysql-server would commit it now).
	autocommit, err := plan.IsSessionAutocommit(ctx)
	if err != nil {
		return nil, false, nil
	}
	if s.GetTransaction() == nil {
		if !autocommit {
			return nil, false, nil
		}
	} else if autocommit && !s.GetIgnoreAutoCommit() {
		return nil, false, nil
	}
	if sh.kind == pointSelect || sh.kind == rangeSelect {
		// A non-default sql_select_limit adds a LIMIT (FP-1).
		if isDefault, _ := sql.HasDefaultValue(ctx, s, "sql_select_limit"); !isDefault {
			return nil, false, nil
		}
	}
	var ft *backend.FastTable
	if sh.kind == insertValues {
		ft, ok = fp.insertTable(s, sh)
	} else {
		ft, ok = s.FastTable(sh.table, sh.keyCol)
	}
	if !ok {
		return nil, false, nil
	}
	if !auth.FastPathAllowed(ctx, fp.grants, s.GetCurrentDatabase(), sh.table, sh.kind != pointSelect && sh.kind != rangeSelect, privileges[sh.kind]...) {
		return nil, false, nil // AUTH-5
	}
	switch sh.kind {
	case pointSelect:
		res, err = fp.pointSelect(ctx, ft, sh, params[0])
	case rangeSelect:
		res, err = fp.rangeSelect(ctx, ft, sh, params[0], params[1])
	case updateByKey:
		res, err = fp.update(ctx, c, ft, sh, params)
	case deleteByKey:
		res, err = fp.delete(ctx, ft, params[0])
	case insertValues:
		res, err = fp.insert(ctx, ft, sh, params)
	}
	if errors.Is(err, backend.ErrFallback) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	s.ClearWarnings()
	return res, true, nil
}

// transactionControl runs BEGIN, COMMIT or ROLLBACK as go-mysql-server's
// plan nodes do (sql/rowexec/transaction.go): BEGIN commits an open
// transaction first; the connection's in-transaction status flag follows.
func transactionControl(ctx *sql.Context, c *mysql.Conn, s *backend.Session, k kind) error {
	cur := s.GetTransaction()
	switch k {
	case txBegin:
		if cur != nil {
			if err := s.CommitTransaction(ctx, cur); err != nil {
				return err
			}
		}
		tx, err := s.StartTransaction(ctx, sql.ReadWrite)
		if err != nil {
			return err
		}
		s.SetTransaction(tx)
		s.SetIgnoreAutoCommit(true)
	case txCommit, txRollback:
		if cur != nil {
			var err error
			if k == txCommit {
				err = s.CommitTransaction(ctx, cur)
			} else {
				err = s.Rollback(ctx, cur)
			}
			if err != nil {
				return err
			}
			s.SetIgnoreAutoCommit(false)
			s.SetTransaction(nil)
		}
	}
	s.SetLastQueryInfoInt(sql.RowCount, 0)
	s.ClearWarnings()
	if s.GetTransaction() != nil {
		c.StatusFlags |= uint16(mysql.ServerInTransaction)
	} else {
		c.StatusFlags &^= uint16(mysql.ServerInTransaction)
	}
	return nil
}

// insertTable resolves an INSERT's table by its primary key column.
func (fp *fastPath) insertTable(s *backend.Session, sh *shape) (*backend.FastTable, bool) {
	for _, col := range sh.cols {
		if ft, ok := s.FastTable(sh.table, col); ok {
			return ft, true
		}
	}
	return nil, false
}

func (fp *fastPath) pointSelect(ctx *sql.Context, ft *backend.FastTable, sh *shape, p *querypb.BindVariable) (*sqltypes.Result, error) {
	sch, ords, err := projection(ft, sh.cols)
	if err != nil {
		return nil, err
	}
	key, ok := bindValue(p, ft.Column(ft.KeyOrdinal()).Type)
	if !ok {
		return nil, backend.ErrFallback
	}
	row, found, err := ft.Get(ctx, key, neededColumns(ft, ords))
	if err != nil {
		return nil, err
	}
	res := &sqltypes.Result{Fields: schemaFields(ctx, sch)}
	if found {
		vals, err := sqlRow(ctx, sch, ords, row)
		if err != nil {
			return nil, err
		}
		res.Rows = [][]sqltypes.Value{vals}
	}
	ctx.SetLastQueryInfoInt(sql.RowCount, -1)
	ctx.SetLastQueryInfoInt(sql.FoundRows, int64(len(res.Rows)))
	return res, nil
}

func projection(ft *backend.FastTable, cols []string) (sql.Schema, []int, error) {
	sch := make(sql.Schema, len(cols))
	ords := make([]int, len(cols))
	for i, c := range cols {
		if ords[i] = ft.Ordinal(c); ords[i] < 0 {
			return nil, nil, backend.ErrFallback
		}
		sch[i] = ft.ResultColumn(c, ords[i])
	}
	return sch, ords, nil
}

// neededColumns marks the ordinals a statement reads (the rest of the row
// is not decoded).
func neededColumns(ft *backend.FastTable, ords []int) []bool {
	need := make([]bool, ft.Width())
	for _, o := range ords {
		need[o] = true
	}
	return need
}

func sqlRow(ctx *sql.Context, sch sql.Schema, ords []int, row sql.Row) ([]sqltypes.Value, error) {
	vals := make([]sqltypes.Value, len(ords))
	for i, o := range ords {
		if row[o] == nil {
			vals[i] = sqltypes.NULL
			continue
		}
		v, err := sch[i].Type.SQL(ctx, nil, row[o])
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// collationComparable: a string column under a NO PAD collation (equal
// values have equal collation keys, trailing spaces count).
func collationComparable(typ sql.Type) bool {
	st, ok := typ.(sql.StringType)
	return ok && types.IsTextOnly(typ) && st.Collation().PadAttribute() == "NO PAD"
}

// byteComparable: equal values are byte-equal (FP-4).
func byteComparable(typ sql.Type) bool {
	if types.IsInteger(typ) {
		return true
	}
	if st, ok := typ.(sql.StringType); ok && types.IsTextOnly(typ) {
		coll := st.Collation()
		return (strings.HasSuffix(coll.Name(), "_bin") || coll == sql.Collation_binary) && coll.PadAttribute() == "NO PAD"
	}
	return false
}

func (fp *fastPath) rangeSelect(ctx *sql.Context, ft *backend.FastTable, sh *shape, p1, p2 *querypb.BindVariable) (*sqltypes.Result, error) {
	keyType := ft.Column(ft.KeyOrdinal()).Type
	lo, ok1 := bindValue(p1, keyType)
	hi, ok2 := bindValue(p2, keyType)
	if !ok1 || !ok2 {
		return nil, backend.ErrFallback
	}
	if sh.sum != "" {
		return fp.sumRange(ctx, ft, sh, lo, hi)
	}
	sch, ords, err := projection(ft, sh.cols)
	if err != nil {
		return nil, err
	}
	orderOrd := -1
	if sh.orderBy != "" {
		orderOrd = ft.Ordinal(sh.orderBy)
		if orderOrd < 0 || !byteComparable(ft.Column(orderOrd).Type) && !collationComparable(ft.Column(orderOrd).Type) {
			return nil, backend.ErrFallback
		}
	}
	var byKey []bool // DISTINCT compares these columns by collation key
	if sh.distinct {
		byKey = make([]bool, len(ords))
		for i, o := range ords {
			typ := ft.Column(o).Type
			if !byteComparable(typ) {
				if !collationComparable(typ) {
					return nil, backend.ErrFallback
				}
				byKey[i] = true
			}
		}
		// go-mysql-server sorts before it removes duplicates when the
		// ORDER BY column is not selected; with it selected the orders agree.
		if orderOrd >= 0 && !slices.Contains(ords, orderOrd) {
			return nil, backend.ErrFallback
		}
	}
	type outRow struct {
		vals    []sqltypes.Value
		sort    any
		sortKey []byte // collation key of sort (keyOrder), nil for NULL
	}
	// A string ORDER BY column sorts by its collation key (memcomparable,
	// CODEC-1): one key per row instead of a collation compare per pair.
	keyOrder := orderOrd >= 0 && collationComparable(ft.Column(orderOrd).Type)
	var rows []outRow
	var seen map[string]bool
	if sh.distinct {
		seen = map[string]bool{}
	}
	var keyBuf []byte
	need := neededColumns(ft, ords)
	if orderOrd >= 0 {
		need[orderOrd] = true
	}
	// SELECT DISTINCT c ... ORDER BY c: c's collation key serves both.
	oneKey := keyOrder && len(ords) == 1 && ords[0] == orderOrd && byKey != nil && byKey[0]
	err = ft.Scan(ctx, lo, hi, need, func(row sql.Row) error {
		vals, err := sqlRow(ctx, sch, ords, row)
		if err != nil {
			return err
		}
		var sortKey []byte
		if keyOrder && row[orderOrd] != nil {
			if s, ok := row[orderOrd].(string); ok {
				sortKey = make([]byte, 0, 5*len(s)+2)
			}
			if sortKey, err = ft.AppendEqualityKey(ctx, sortKey, orderOrd, row[orderOrd]); err != nil {
				return backend.ErrFallback
			}
		}
		if seen != nil {
			keyBuf = keyBuf[:0]
			if oneKey {
				keyBuf = append(append(keyBuf, 1), sortKey...)
				if sortKey == nil {
					keyBuf = append(keyBuf[:0], 0)
				}
			} else {
				for i, v := range vals {
					if v.IsNull() {
						keyBuf = append(keyBuf, 0)
					} else if byKey[i] {
						if keyBuf, err = ft.AppendEqualityKey(ctx, append(keyBuf, 1), ords[i], row[ords[i]]); err != nil {
							return backend.ErrFallback
						}
					} else {
						keyBuf = append(keyBuf, 1)
						keyBuf = strconv.AppendInt(keyBuf, int64(len(v.Raw())), 10)
						keyBuf = append(keyBuf, ':')
						keyBuf = append(keyBuf, v.Raw()...)
					}
				}
			}
			if seen[string(keyBuf)] {
				return nil
			}
			seen[string(keyBuf)] = true
		}
		r := outRow{vals: vals, sortKey: sortKey}
		if orderOrd >= 0 {
			r.sort = row[orderOrd]
		}
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if keyOrder {
		slices.SortStableFunc(rows, func(a, b outRow) int {
			switch {
			case a.sort == nil && b.sort == nil:
				return 0
			case a.sort == nil:
				return -1
			case b.sort == nil:
				return 1
			}
			return bytes.Compare(a.sortKey, b.sortKey)
		})
	} else if orderOrd >= 0 {
		typ := ft.Column(orderOrd).Type
		var cmpErr error
		slices.SortStableFunc(rows, func(a, b outRow) int {
			switch {
			case a.sort == nil && b.sort == nil:
				return 0
			case a.sort == nil:
				return -1
			case b.sort == nil:
				return 1
			}
			c, err := typ.Compare(ctx, a.sort, b.sort)
			if err != nil {
				cmpErr = err
			}
			return c
		})
		if cmpErr != nil {
			return nil, backend.ErrFallback
		}
	}
	res := &sqltypes.Result{Fields: schemaFields(ctx, sch), Rows: make([][]sqltypes.Value, len(rows))}
	for i, r := range rows {
		res.Rows[i] = r.vals
	}
	ctx.SetLastQueryInfoInt(sql.RowCount, -1)
	ctx.SetLastQueryInfoInt(sql.FoundRows, int64(len(res.Rows)))
	return res, nil
}

// sumRange answers SELECT SUM(col) of an integer column over a key range
// as the general path does (mysql/rules RULE-3): an exact DECIMAL, NULL
// over no rows.
func (fp *fastPath) sumRange(ctx *sql.Context, ft *backend.FastTable, sh *shape, lo, hi any) (*sqltypes.Result, error) {
	o := ft.Ordinal(sh.cols[0])
	if o < 0 || !types.IsInteger(ft.Column(o).Type) {
		return nil, backend.ErrFallback
	}
	typ, ok := rules.ExactAggregateType(ft.Column(o).Type, false)
	if !ok {
		return nil, backend.ErrFallback
	}
	var acc exactSum
	err := ft.Scan(ctx, lo, hi, neededColumns(ft, []int{o}), func(row sql.Row) error {
		switch v := row[o].(type) {
		case nil:
		case int64:
			acc.addInt(v)
		case uint64:
			acc.addUint(v)
		default:
			return backend.ErrFallback
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sch := sql.Schema{{Name: sh.sum, Type: typ, Nullable: true}}
	val := sqltypes.NULL
	if acc.nonNull {
		if val, err = typ.SQL(ctx, nil, acc.value()); err != nil {
			return nil, backend.ErrFallback
		}
	}
	res := &sqltypes.Result{Fields: schemaFields(ctx, sch), Rows: [][]sqltypes.Value{{val}}}
	ctx.SetLastQueryInfoInt(sql.RowCount, -1)
	ctx.SetLastQueryInfoInt(sql.FoundRows, 1)
	return res, nil
}

// exactSum adds integers in an int64 while they fit, in a decimal after.
type exactSum struct {
	small   int64
	big     decimal.Decimal
	isBig   bool
	nonNull bool
}

func (s *exactSum) addInt(v int64) {
	s.nonNull = true
	if !s.isBig {
		if r := s.small + v; (v >= 0) == (r >= s.small) {
			s.small = r
			return
		}
		s.big, s.isBig = decimal.NewFromInt(s.small), true
	}
	s.big = s.big.Add(decimal.NewFromInt(v))
}

func (s *exactSum) addUint(v uint64) {
	if v <= math.MaxInt64 {
		s.addInt(int64(v))
		return
	}
	s.nonNull = true
	if !s.isBig {
		s.big, s.isBig = decimal.NewFromInt(s.small), true
	}
	s.big = s.big.Add(decimal.NewFromBigInt(new(big.Int).SetUint64(v), 0))
}

func (s *exactSum) value() decimal.Decimal {
	if s.isBig {
		return s.big
	}
	return decimal.NewFromInt(s.small)
}

func (fp *fastPath) update(ctx *sql.Context, c *mysql.Conn, ft *backend.FastTable, sh *shape, params []*querypb.BindVariable) (*sqltypes.Result, error) {
	type assign struct {
		col, src int
		val      any // param: converted value
		param    bool
		delta    int64
	}
	as := make([]assign, len(sh.sets))
	next := 0
	for i, sc := range sh.sets {
		a := assign{col: ft.Ordinal(sc.col), param: sc.param, delta: sc.delta}
		if a.col < 0 || a.col == ft.KeyOrdinal() {
			return nil, backend.ErrFallback
		}
		typ := ft.Column(a.col).Type
		if sc.param {
			v, ok := bindStored(params[next], typ)
			next++
			if !ok {
				return nil, backend.ErrFallback
			}
			if a.val, ok = ft.Convert(ctx, a.col, v); !ok {
				return nil, backend.ErrFallback
			}
		} else if a.src = ft.Ordinal(sc.src); a.src < 0 || !types.IsInteger(typ) || !types.IsInteger(ft.Column(a.src).Type) {
			return nil, backend.ErrFallback
		}
		as[i] = a
	}
	key, ok := bindValue(params[next], ft.Column(ft.KeyOrdinal()).Type)
	if !ok {
		return nil, backend.ErrFallback
	}
	matched, changed, err := ft.UpdateByKey(ctx, key, func(row sql.Row) error {
		// Assignments apply left to right, each seeing the earlier ones
		// (MySQL's single-table UPDATE).
		for _, a := range as {
			if a.param {
				row[a.col] = a.val
				continue
			}
			v, ok := ft.AddInt(ctx, a.src, row[a.src], a.delta)
			if !ok {
				return backend.ErrFallback
			}
			if row[a.col], ok = ft.Convert(ctx, a.col, v); !ok {
				return backend.ErrFallback // out of range: go-mysql-server's error
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	affected := changed
	if c.Capabilities&mysql.CapabilityClientFoundRows != 0 {
		affected = matched
	}
	ctx.SetLastQueryInfoInt(sql.FoundRows, matched)
	ctx.SetLastQueryInfoInt(sql.RowCount, affected)
	return &sqltypes.Result{RowsAffected: uint64(affected),
		Info: plan.UpdateInfo{Matched: int(matched), Updated: int(changed)}.String()}, nil
}

func (fp *fastPath) delete(ctx *sql.Context, ft *backend.FastTable, p *querypb.BindVariable) (*sqltypes.Result, error) {
	key, ok := bindValue(p, ft.Column(ft.KeyOrdinal()).Type)
	if !ok {
		return nil, backend.ErrFallback
	}
	n, err := ft.DeleteByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	ctx.SetLastQueryInfoInt(sql.RowCount, n)
	return &sqltypes.Result{RowsAffected: uint64(n)}, nil
}

func (fp *fastPath) insert(ctx *sql.Context, ft *backend.FastTable, sh *shape, params []*querypb.BindVariable) (*sqltypes.Result, error) {
	if len(sh.cols) != ft.Width() {
		return nil, backend.ErrFallback // defaults for the others: go-mysql-server's job
	}
	row := make(sql.Row, ft.Width())
	set := make([]bool, ft.Width())
	for i, name := range sh.cols {
		o := ft.Ordinal(name)
		if o < 0 || set[o] {
			return nil, backend.ErrFallback
		}
		set[o] = true
		v, ok := bindStored(params[i], ft.Column(o).Type)
		if !ok {
			return nil, backend.ErrFallback
		}
		if row[o], ok = ft.Convert(ctx, o, v); !ok {
			return nil, backend.ErrFallback
		}
	}
	id, err := ft.Insert(ctx, row)
	if err != nil {
		return nil, err
	}
	ctx.SetLastQueryInfoInt(sql.RowCount, 1)
	return &sqltypes.Result{RowsAffected: 1, InsertID: id}, nil
}

// bindValue decodes a parameter compared with a column of type typ (a key)
// if its type family matches the column's (FP-1).
func bindValue(bv *querypb.BindVariable, typ sql.Type) (any, bool) { return bindParam(bv, typ, true) }

// bindStored decodes a parameter stored into a column of type typ.
func bindStored(bv *querypb.BindVariable, typ sql.Type) (any, bool) { return bindParam(bv, typ, false) }

func bindParam(bv *querypb.BindVariable, typ sql.Type, compared bool) (any, bool) {
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
		switch bv.Type {
		case sqltypes.VarChar, sqltypes.Char, sqltypes.Text:
			return v, true
		case sqltypes.VarBinary, sqltypes.Binary, sqltypes.Blob:
			// Drivers send strings as bytes (go-sql-driver: VARBINARY).
			// Stored, they become the column's string; compared, byte
			// semantics agree with the column's only under a binary NO PAD
			// collation.
			if !compared || byteComparable(typ) {
				return v, true
			}
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
		if types.IsUnsigned(c.Type) || types.IsYear(c.Type) {
			flags |= querypb.MySqlFlag_UNSIGNED_FLAG
		}
		if types.IsYear(c.Type) {
			flags |= querypb.MySqlFlag_ZEROFILL_FLAG // as fixFields sends YEAR
		}
		f := &querypb.Field{Name: c.Name, OrgName: c.Name, Table: c.Source, OrgTable: c.Source,
			Database: c.DatabaseSource, Type: c.Type.Type(), Charset: charset,
			ColumnLength: c.Type.MaxTextResponseByteLength(ctx), Flags: uint32(flags)}
		if types.IsDecimal(c.Type) {
			f.Decimals = uint32(c.Type.(sql.DecimalType).Scale())
		} else if types.IsDatetimeType(c.Type) {
			f.Decimals = uint32(c.Type.(sql.DatetimeType).Precision())
		} else if types.IsFloat(c.Type) {
			f.Decimals = 31 // not fixed, as fixFields sends it
		}
		out[i] = f
	}
	return out
}
