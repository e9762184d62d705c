package fastpath

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

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

// Path is the fast path of one server.
type Path struct {
	b      *backend.Backend
	grants *mysql_db.MySQLDb // AUTH-5
	mu     sync.RWMutex
	shapes map[string]*shape // FP-6; nil: not a fast-path shape
}

// maxShapes bounds the shape cache (FP-6); a full cache starts over.
const maxShapes = 10000

// New is the fast path over b, checking privileges in grants.
func New(b *backend.Backend, grants *mysql_db.MySQLDb) *Path {
	return &Path{b: b, grants: grants, shapes: map[string]*shape{}}
}

// shape is the cached shape of a statement text (FP-6), nil if it is
// none.
func (fp *Path) shape(query string) *shape {
	fp.mu.RLock()
	sh, ok := fp.shapes[query]
	fp.mu.RUnlock()
	if ok {
		return sh
	}
	return fp.parse(query)
}

// normalizedShape is shape for a normalized text (FP-5), which the map
// lookup does not copy.
func (fp *Path) normalizedShape(norm []byte) *shape {
	fp.mu.RLock()
	sh, ok := fp.shapes[string(norm)]
	fp.mu.RUnlock()
	if ok {
		return sh
	}
	return fp.parse(string(norm))
}

func (fp *Path) parse(query string) *shape {
	sh := parseShape(query)
	if sh == nil {
		// A prepared multi-row INSERT (FP-7): the single-row shape, and
		// its number of tuples. (Text is cut to one tuple before its
		// lookup, in Text.)
		if single, n, ok := oneTuple([]byte(query)); ok {
			if one := parseShape(string(single)); one != nil && one.kind == insertValues {
				c := *one
				c.tuples = n
				sh = &c
			}
		}
	}
	fp.mu.Lock()
	if len(fp.shapes) >= maxShapes {
		clear(fp.shapes)
	}
	fp.shapes[query] = sh
	fp.mu.Unlock()
	return sh
}

// privileges are what a statement of kind k needs on its table (AUTH-5:
// never less than go-mysql-server asks; a missing one sends the statement
// to its path). UPDATE and DELETE read the key column, hence SELECT.
var privileges = map[kind][]auth.Privilege{
	pointSelect:  {auth.Select},
	rangeSelect:  {auth.Select},
	countRows:    {auth.Select},
	updateByKey:  {auth.Update, auth.Select},
	deleteByKey:  {auth.Delete, auth.Select},
	insertValues: {auth.Insert},
}

// Prepared answers a COM_STMT_EXECUTE if it can (ok); with ok false the
// caller runs it through go-mysql-server, nothing having been done.
func (fp *Path) Prepared(goctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData) (res *sqltypes.Result, ok bool, err error) {
	sh := fp.shape(prepare.PrepareStmt)
	if sh == nil {
		return nil, false, nil
	}
	rows := max(1, sh.tuples)
	n := sh.params * rows
	if int(prepare.ParamsCount) != n || len(prepare.BindVars) != n {
		return nil, false, nil
	}
	params := make([]*querypb.BindVariable, n)
	copies := make([]querypb.BindVariable, n)
	for i := range params {
		bv := prepare.BindVars["v"+strconv.Itoa(i+1)]
		if bv == nil {
			return nil, false, nil
		}
		// The values are slices of the connection's packet buffer, which
		// the next packet overwrites: copied once here, as bindParam
		// reads parameters without a copy (FP-5).
		copies[i].Type, copies[i].Value = bv.Type, bytes.Clone(bv.Value)
		params[i] = &copies[i]
	}
	return fp.run(goctx, c, sh, params, rows)
}

// textBuf holds normalized statement texts between uses.
var textBuf = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// Text answers a COM_QUERY if it can (ok), as Prepared would answer the
// statement prepared with its literals as parameters (FP-5).
func (fp *Path) Text(goctx context.Context, c *mysql.Conn, query string) (res *sqltypes.Result, ok bool, err error) {
	bp := textBuf.Get().(*[]byte)
	defer textBuf.Put(bp)
	norm, params, ok := normalize(query, (*bp)[:0])
	if !ok {
		return nil, false, nil
	}
	*bp = norm
	key, rows := norm, 1
	if single, n, ok := oneTuple(norm); ok { // FP-7
		key, rows = single, n
	}
	sh := fp.normalizedShape(key)
	if sh == nil || len(params) != sh.params*rows || rows > 1 && sh.kind != insertValues {
		return nil, false, nil
	}
	return fp.run(goctx, c, sh, params, rows)
}

// run executes a recognized statement with its parameters (rows tuples
// of them for a multi-row INSERT, FP-7).
func (fp *Path) run(goctx context.Context, c *mysql.Conn, sh *shape, params []*querypb.BindVariable, rows int) (res *sqltypes.Result, ok bool, err error) {
	s := fp.b.SessionByConn(c.ConnectionID)
	if s == nil {
		return nil, false, nil
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
	// with no transaction (the backend commits), a transaction that stays
	// open, or autocommit off with no transaction (go-mysql-server starts
	// one for the statement and leaves it open: so does the fast path,
	// below). Not taken: a transaction left behind by a failed autocommit
	// statement (go-mysql-server would commit it now).
	autocommit, err := plan.IsSessionAutocommit(ctx)
	if err != nil {
		return nil, false, nil
	}
	if s.GetTransaction() != nil && autocommit && !s.GetIgnoreAutoCommit() {
		return nil, false, nil
	}
	if sh.read() {
		// A non-default sql_select_limit adds a LIMIT (FP-1).
		if isDefault, _ := sql.HasDefaultValue(ctx, s, "sql_select_limit"); !isDefault {
			return nil, false, nil
		}
	}
	// A statement keyed by a column names the primary key, or, for a
	// point select, a column with its own index (FP-11). An INSERT's
	// columns are checked against the table by insert.
	ft, ok := s.FastTable(sh.table)
	if ok && sh.keyCol != "" && !ft.IsKey(sh.keyCol) && !(sh.kind == pointSelect && ft.IndexOrdinal(sh.keyCol) >= 0) {
		ok = false
	}
	if ok && !ft.SingleKey() && sh.kind != insertValues && sh.kind != countRows { // FP-1, FPB-1
		ok = false
	}
	var trigger *triggerRun
	if ok && !sh.read() {
		// FPB-3, FPB-6: asked before a write's values are converted and its
		// transaction begins; an INSERT may run its trigger itself (FP-12).
		tu := allowTriggers(ft, sh.table, sh.kind)
		ok = !ft.Triggered()
		if ok && tu != nil {
			trigger, ok = fp.prepareTrigger(ctx, s, ft, tu)
		}
	}
	if !ok {
		return nil, false, nil
	}
	if !auth.FastPathAllowed(ctx, fp.grants, s.GetCurrentDatabase(), sh.table, !sh.read(), privileges[sh.kind]...) {
		return nil, false, nil // AUTH-5
	}
	if !autocommit && s.GetTransaction() == nil {
		// As go-mysql-server's engine begins it (a fallback from here on
		// finds it started, as go-mysql-server would have).
		tx, err := s.StartTransaction(ctx, sql.ReadWrite)
		if err != nil {
			return nil, true, err
		}
		s.SetTransaction(tx)
	}
	switch sh.kind {
	case pointSelect:
		res, err = fp.pointSelect(ctx, ft, sh, params[0])
	case rangeSelect:
		res, err = fp.rangeSelect(ctx, ft, sh, params[0], params[1])
	case countRows:
		res, err = fp.count(ctx, ft, sh)
	case updateByKey:
		res, err = fp.update(ctx, c, ft, sh, params)
	case deleteByKey:
		res, err = fp.delete(ctx, ft, params[0])
	case insertValues:
		var after func(sql.Row) error
		if trigger != nil {
			after = func(row sql.Row) error { return trigger.run(ctx, row) }
		}
		res, err = fp.insert(ctx, ft, sh, params, rows, after)
	}
	if errors.Is(err, backend.ErrFallback) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if sh.read() {
		fp.b.CountFastSelect()
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

func (fp *Path) pointSelect(ctx *sql.Context, ft *backend.FastTable, sh *shape, p *querypb.BindVariable) (*sqltypes.Result, error) {
	sch, ords, err := projection(ft, sh.cols)
	if err != nil {
		return nil, err
	}
	if sh.orderBy != "" && ft.Ordinal(sh.orderBy) < 0 {
		return nil, backend.ErrFallback // go-mysql-server's error
	}
	if !ft.IsKey(sh.keyCol) {
		return fp.indexSelect(ctx, ft, sh, sch, ords, p)
	}
	key, ok := bindValue(p, ft.Column(ft.KeyOrdinal()).Type)
	if !ok {
		return nil, backend.ErrFallback
	}
	row, found, err := ft.Get(ctx, key, neededColumns(ft, ords))
	if err != nil {
		return nil, err
	}
	res := &sqltypes.Result{Fields: Fields(ctx, sch)}
	if found {
		enc := NewRowEncoder(ctx, sch, ords)
		vals, err := enc.Row(ctx, row)
		if err != nil {
			return nil, err
		}
		res.Rows = [][]sqltypes.Value{vals}
	}
	ctx.SetLastQueryInfoInt(sql.RowCount, -1)
	ctx.SetLastQueryInfoInt(sql.FoundRows, int64(len(res.Rows)))
	return res, nil
}

// indexSelect answers SELECT cols FROM t WHERE col = ? [ORDER BY pk|col]
// where col is an integer or string column with its own index (FP-11): the rows in
// primary key order, as go-mysql-server returns them through that index
// or a scan of the table.
func (fp *Path) indexSelect(ctx *sql.Context, ft *backend.FastTable, sh *shape, sch sql.Schema, ords []int, p *querypb.BindVariable) (*sqltypes.Result, error) {
	o := ft.IndexOrdinal(sh.keyCol)
	if o < 0 {
		return nil, backend.ErrFallback
	}
	if sh.orderBy != "" && !strings.EqualFold(sh.orderBy, sh.keyCol) && ft.Ordinal(sh.orderBy) != ft.KeyOrdinal() {
		return nil, backend.ErrFallback
	}
	key, ok := bindValue(p, ft.Column(o).Type)
	if !ok {
		return nil, backend.ErrFallback
	}
	res := &sqltypes.Result{Fields: Fields(ctx, sch)}
	enc := NewRowEncoder(ctx, sch, ords)
	err := ft.LookupEqual(ctx, o, key, neededColumns(ft, ords), func(row sql.Row) error {
		vals, err := enc.Row(ctx, row)
		if err != nil {
			return err
		}
		res.Rows = append(res.Rows, vals)
		return nil
	})
	if err != nil {
		return nil, err
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

func (fp *Path) rangeSelect(ctx *sql.Context, ft *backend.FastTable, sh *shape, p1, p2 *querypb.BindVariable) (*sqltypes.Result, error) {
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
	// A string ORDER BY column sorts in its collation's order, compared as
	// its keys compare (CODEC-14) without building them (FP-14).
	var cmpStr func(a, b string) (int, bool)
	var prefix func(string) (uint64, bool)
	if orderOrd >= 0 && collationComparable(ft.Column(orderOrd).Type) {
		if cmpStr, prefix = ft.StringOrder(orderOrd); cmpStr == nil {
			return nil, backend.ErrFallback
		}
	}
	// SELECT DISTINCT c ... ORDER BY c: duplicates are neighbours once
	// sorted, and the first of each run is the first scanned.
	afterSort := cmpStr != nil && len(ords) == 1 && ords[0] == orderOrd && byKey != nil && byKey[0]
	rows := make([]outRow, 0, rangeRows(lo, hi))
	var seen map[string]bool
	if sh.distinct && !afterSort {
		seen = map[string]bool{}
	}
	var keyBuf []byte
	need := neededColumns(ft, ords)
	if orderOrd >= 0 {
		need[orderOrd] = true
	}
	enc := NewRowEncoder(ctx, sch, ords)
	err = ft.Scan(ctx, lo, hi, need, func(row sql.Row) error {
		vals, err := enc.Row(ctx, row)
		if err != nil {
			return err
		}
		if cmpStr != nil && row[orderOrd] != nil {
			if _, ok := row[orderOrd].(string); !ok {
				return backend.ErrFallback
			}
		}
		if seen != nil {
			keyBuf = keyBuf[:0]
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
			if seen[string(keyBuf)] {
				return nil
			}
			seen[string(keyBuf)] = true
		}
		r := outRow{vals: vals}
		if orderOrd >= 0 {
			r.sort = row[orderOrd]
		}
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := &sqltypes.Result{Fields: Fields(ctx, sch), Rows: make([][]sqltypes.Value, len(rows))}
	if orderOrd < 0 {
		for i, r := range rows {
			res.Rows[i] = r.vals
		}
	} else if res.Rows, err = sortRows(ctx, ft.Column(orderOrd).Type, cmpStr, prefix, afterSort, rows, res.Rows); err != nil {
		return nil, err
	}
	ctx.SetLastQueryInfoInt(sql.RowCount, -1)
	ctx.SetLastQueryInfoInt(sql.FoundRows, int64(len(res.Rows)))
	return res, nil
}

// outRow is a range select's row: its values and its ORDER BY column's.
type outRow struct {
	vals []sqltypes.Value
	sort any
}

// sortEnt is a row's place in the sort (FP-14): its scan position and, for
// a string, its weight prefix.
type sortEnt struct {
	p    uint64
	i    int32
	null bool
	hasP bool
}

// sortRows fills out with rows' values ordered by their sort values (NULL
// first, then by typ, or cmpStr for strings, whose prefixes decide where
// they differ; equal values in scan order, as a stable sort). With dedupe,
// of each run of equal values only the first remains (FP-14), and out is
// cut to what remains.
func sortRows(ctx *sql.Context, typ sql.Type, cmpStr func(a, b string) (int, bool), prefix func(string) (uint64, bool),
	dedupe bool, rows []outRow, out [][]sqltypes.Value) ([][]sqltypes.Value, error) {
	order := make([]sortEnt, len(rows))
	for i, r := range rows {
		e := sortEnt{i: int32(i), null: r.sort == nil}
		if prefix != nil && !e.null {
			e.p, e.hasP = prefix(r.sort.(string))
		}
		order[i] = e
	}
	var cmpErr error
	compare := func(a, b sortEnt) int {
		switch {
		case a.null || b.null:
			return boolOrder(b.null) - boolOrder(a.null)
		case a.hasP && b.hasP && a.p < b.p:
			return -1
		case a.hasP && b.hasP && a.p > b.p:
			return 1
		case cmpStr != nil:
			c, ok := cmpStr(rows[a.i].sort.(string), rows[b.i].sort.(string))
			if !ok {
				cmpErr = backend.ErrFallback
			}
			return c
		}
		c, err := typ.Compare(ctx, rows[a.i].sort, rows[b.i].sort)
		if err != nil {
			cmpErr = err
		}
		return c
	}
	slices.SortFunc(order, func(a, b sortEnt) int {
		if c := compare(a, b); c != 0 {
			return c
		}
		return int(a.i - b.i)
	})
	if cmpErr != nil {
		return nil, backend.ErrFallback
	}
	out = out[:0]
	for k, e := range order {
		if dedupe && k > 0 && compare(order[k-1], e) == 0 {
			continue
		}
		out = append(out, rows[e.i].vals)
	}
	if cmpErr != nil {
		return nil, backend.ErrFallback
	}
	return out, nil
}

// boolOrder is 1 for true.
func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rangeRows is the room a result of the integer key range [lo, hi] starts
// with: its row count up to 256, else nothing.
func rangeRows(lo, hi any) int {
	var n uint64
	switch l := lo.(type) {
	case int64:
		if h, ok := hi.(int64); ok && h >= l {
			n = uint64(h-l) + 1
		}
	case uint64:
		if h, ok := hi.(uint64); ok && h >= l {
			n = h - l + 1
		}
	}
	return int(min(n, 256))
}

// sumRange answers SELECT SUM(col) of an integer column over a key range
// as the general path does (mysql/rules RULE-3): an exact DECIMAL, NULL
// over no rows.
func (fp *Path) sumRange(ctx *sql.Context, ft *backend.FastTable, sh *shape, lo, hi any) (*sqltypes.Result, error) {
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
		case int32:
			acc.addInt(int64(v))
		case int16:
			acc.addInt(int64(v))
		case int8:
			acc.addInt(int64(v))
		case uint64:
			acc.addUint(v)
		case uint32:
			acc.addInt(int64(v))
		case uint16:
			acc.addInt(int64(v))
		case uint8:
			acc.addInt(int64(v))
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
	res := &sqltypes.Result{Fields: Fields(ctx, sch), Rows: [][]sqltypes.Value{{val}}}
	ctx.SetLastQueryInfoInt(sql.RowCount, -1)
	ctx.SetLastQueryInfoInt(sql.FoundRows, 1)
	return res, nil
}

// count answers SELECT COUNT(*) FROM t (FP-10): the rows the statement
// sees, counted from the primary keys without decoding a row; BIGINT NOT
// NULL, as go-mysql-server types COUNT.
func (fp *Path) count(ctx *sql.Context, ft *backend.FastTable, sh *shape) (*sqltypes.Result, error) {
	n, err := ft.Count(ctx)
	if err != nil {
		return nil, err
	}
	sch := sql.Schema{{Name: sh.sum, Type: types.Int64, Nullable: false}}
	res := &sqltypes.Result{Fields: Fields(ctx, sch),
		Rows: [][]sqltypes.Value{{sqltypes.NewInt64(n)}}}
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

func (fp *Path) update(ctx *sql.Context, c *mysql.Conn, ft *backend.FastTable, sh *shape, params []*querypb.BindVariable) (*sqltypes.Result, error) {
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
			var ok bool
			a.val, ok = storeParam(ctx, ft, a.col, params[next])
			next++
			if !ok {
				return nil, backend.ErrFallback
			}
		} else if a.src = ft.Ordinal(sc.src); a.src < 0 || !types.IsInteger(typ) || !types.IsInteger(ft.Column(a.src).Type) {
			return nil, backend.ErrFallback
		} else if sc.deltaParam {
			// A signed integer only: an unsigned operand makes MySQL's
			// arithmetic unsigned.
			p := params[next]
			next++
			if !sqltypes.IsSigned(p.Type) {
				return nil, backend.ErrFallback
			}
			d, err := strconv.ParseInt(string(p.Value), 10, 64)
			if err != nil || sc.neg && d == math.MinInt64 {
				return nil, backend.ErrFallback
			}
			if sc.neg {
				d = -d
			}
			a.delta = d
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

func (fp *Path) delete(ctx *sql.Context, ft *backend.FastTable, p *querypb.BindVariable) (*sqltypes.Result, error) {
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

func (fp *Path) insert(ctx *sql.Context, ft *backend.FastTable, sh *shape, params []*querypb.BindVariable, rows int, after func(sql.Row) error) (*sqltypes.Result, error) {
	width := ft.Width()
	generate := false
	ords := make([]int, width)
	if sh.cols == nil { // every column, in the table's order
		if sh.params != width {
			return nil, backend.ErrFallback // go-mysql-server's column count error
		}
		for i := range ords {
			ords[i] = i
		}
	} else {
		set := make([]bool, width)
		for i, name := range sh.cols {
			o := ft.Ordinal(name)
			if o < 0 || set[o] {
				return nil, backend.ErrFallback
			}
			set[o], ords[i] = true, o
		}
		ords = ords[:len(sh.cols)]
		switch auto := ft.AutoIncrementOrdinal(); {
		case len(sh.cols) == width:
		case len(sh.cols) == width-1 && auto >= 0 && !set[auto]:
			generate = true // FP-8
		default:
			return nil, backend.ErrFallback // defaults for the others: go-mysql-server's job
		}
	}
	n := len(ords)
	all := make([]sql.Row, rows)
	for r := range all {
		row := make(sql.Row, width)
		for i, o := range ords {
			var ok bool
			if row[o], ok = storeParam(ctx, ft, o, params[r*n+i]); !ok {
				return nil, backend.ErrFallback
			}
		}
		all[r] = row
	}
	if err := ft.Insert(ctx, all, generate, after); err != nil {
		return nil, err
	}
	// The insert id: the handler's, from the session's record (SES-8).
	ctx.SetLastQueryInfoInt(sql.RowCount, int64(rows))
	return &sqltypes.Result{RowsAffected: uint64(rows)}, nil
}

// bindValue decodes a parameter compared with a column of type typ (a key)
// if its type family matches the column's (FP-1).
func bindValue(bv *querypb.BindVariable, typ sql.Type) (any, bool) { return bindParam(bv, typ, true) }

// bindStored decodes a parameter stored into a column of type typ.
func bindStored(bv *querypb.BindVariable, typ sql.Type) (any, bool) { return bindParam(bv, typ, false) }

func bindParam(bv *querypb.BindVariable, typ sql.Type, compared bool) (any, bool) {
	// Parameter values are never written after they are made (a text
	// statement's alias its text, a prepared statement's are copies,
	// FP-5): the string shares their bytes.
	v := unsafe.String(unsafe.SliceData(bv.Value), len(bv.Value))
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
	case compared:
	case types.IsDecimal(typ):
		// Stored only (FP-9): a decimal or integer literal, checked exact
		// after conversion (storeParam).
		if bv.Type == sqltypes.Decimal || sqltypes.IsSigned(bv.Type) || sqltypes.IsUnsigned(bv.Type) {
			return v, true
		}
	case typ.Type() == sqltypes.Date || typ.Type() == sqltypes.Datetime:
		// Stored only (FP-9): a string, checked to be the value's own
		// spelling after conversion (storeParam).
		if bv.Type == sqltypes.VarChar || bv.Type == sqltypes.Char {
			return v, true
		}
	}
	return nil, false
}

// storeParam is parameter bv converted for column o as go-mysql-server
// stores it; false where it would not store it unchanged (FP-9: a DECIMAL
// whose digits the column cuts, which the general path answers with a
// truncation note; a DATE or DATETIME written in any form but the one the
// column gives back, or with a time or fraction the column drops).
func storeParam(ctx *sql.Context, ft *backend.FastTable, o int, bv *querypb.BindVariable) (any, bool) {
	typ := ft.Column(o).Type
	v, ok := bindStored(bv, typ)
	if !ok {
		return nil, false
	}
	if in, isString := v.(string); isString && types.IsDecimal(typ) {
		if d, ok := ft.PlainDecimal(o, in); ok { // FPB-5: exact by construction
			return d, true
		}
	}
	cv, ok := ft.Convert(ctx, o, v)
	if !ok {
		return nil, false
	}
	in, isString := v.(string)
	if !isString {
		return cv, true
	}
	switch {
	case types.IsDecimal(typ):
		want, err := decimal.NewFromString(in)
		got, isDec := cv.(decimal.Decimal)
		return cv, err == nil && isDec && got.Equal(want)
	case typ.Type() == sqltypes.Date:
		t, isTime := cv.(time.Time)
		return cv, isTime && t.Format("2006-01-02") == in
	case typ.Type() == sqltypes.Datetime:
		t, isTime := cv.(time.Time)
		dt, isDT := typ.(sql.DatetimeType)
		return cv, isTime && isDT && dt.Precision() == 0 && t.Format("2006-01-02 15:04:05") == in
	}
	return cv, true
}
