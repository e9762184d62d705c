package backend

import (
	"context"
	"errors"
	"io"
	"math"
	"regexp"
	"slices"
	"strata/mysql/rules"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/vitess/go/mysql"

	"strata/btree"
	"strata/engine"
	"strata/memgov"
	"strata/mysql/binlog"
)

// Sessions (SES-n):
//
// SES-1 A go-mysql-server transaction maps to at most one live engine
// transaction at a time, begun lazily by the first statement that touches
// a table. COMMIT commits it; ROLLBACK, a dropped autocommit transaction
// (go-mysql-server forgets a failed autocommit statement's transaction
// without calling Rollback) and the end of the session roll it back.
// SES-2 Statement atomicity: editors roll back to their savepoint.
// SES-3 Locking reads: in UPDATE, DELETE, REPLACE, INSERT ... SELECT and
// SELECT ... FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE every row read is
// locked exclusively and re-read under the lock; editors re-check that the
// row they change is the one read, failing with 1020 otherwise.
// SES-4 A deadlock rolls back the whole engine transaction (as InnoDB
// does): later statements of the same client transaction start a new one.
// SES-7 innodb_lock_wait_timeout (session or global) bounds row-lock waits.
// SES-5 A statement is all or nothing for DDL too: CREATE TABLE runs as
// several catalog changes (the table, then its indexes, foreign keys and
// checks, then CREATE ... SELECT's rows), and a failure after the first
// leaves a table behind in go-mysql-server; StatementDone drops it.
// SES-8 A statement's insert ids (OK packet, LAST_INSERT_ID) are what the
// editor saw it write (insertid.go).
// SES-10 COMMIT AND CHAIN / ROLLBACK AND CHAIN (the parser drops the
// clause; the server detects it) start a new transaction at once with the
// ended one's isolation level and access mode (ChainState, ChainIsolation).
// SES-12 A locking SELECT with NOWAIT fails with 3572 at the first row
// another transaction holds a conflicting lock on (or awaits one); with
// SKIP LOCKED it leaves such rows out; in both cases without waiting
// (txn TX-4). Only the SELECT's row locks: metadata locks and the row
// locks of UPDATE/DELETE wait as always (MySQL takes NOWAIT / SKIP LOCKED
// only after FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE).
// SES-11 @@warning_count and @@error_count are read from the diagnostics
// area (the previous statement's warnings, notes and errors; errors only),
// as MySQL computes them; go-mysql-server has neither variable.

var ioEOF = io.EOF

var allPrivileges = mysql_db.NewPrivilegeSetWithAllPrivileges()

// Session is a client connection's state.
type Session struct {
	// arena holds the values the session's scans decode (CODEC-13):
	// shared by every scan and lookup of its statements, which run on one
	// goroutine (go-mysql-server's row iterators start none).
	arena valueArena
	*sql.BaseSession
	b       *Backend
	tx      *engine.Tx
	gtx     *Transaction
	mdl     map[uint32]bool
	savepts []savepoint // in creation order

	created []createdTable       // by the current statement (SES-5)
	ids     insertIDs            // the current statement's (SES-8)
	dups    map[string]dupEntry  // the current statement's duplicate keys
	temps   map[string]*tempSlot // temporary tables by db/name (TMP-1)
	decl    *ColumnDecl          // the current DDL statement's (CAT-5)

	lockQuery   string
	lockingRead bool
	lockShared  bool       // the locking read is LOCK IN SHARE MODE / FOR SHARE
	lockPolicy  lockPolicy // SES-12: NOWAIT / SKIP LOCKED of the locking SELECT
	lastLocked  scannedRow // the row a locking scan returned last (editor.locate)

	snapPerStatement bool   // SES-9: the snapshot is the statement's (READ COMMITTED)
	snapStatement    string // the statement that took it
	txIsolation      string // the level of the open transaction, once it read
	nextIsolation    string // SET TRANSACTION's level for the next transaction

	rowsRead    *atomic.Uint64
	rowsWritten *atomic.Uint64

	binlog *binlog.Txn // the open transaction's row changes while the binary log is on (BL-2)
	// binlogText: the current statement is logged as its text, its rows
	// not captured (CREATE TABLE ... SELECT; server SRV-REPL-4).
	binlogText bool
	// The current DDL statement's text and database, logged by the first
	// catalog commit it makes (stmtLogged then; binlog BL-6, CAT-7).
	stmtDB, stmtText string
	stmtLogged       bool
}

// LogAsText makes the current statement's row changes uncaptured: the
// server logs its text instead (server SRV-REPL-4).
func (s *Session) LogAsText() { s.binlogText = true }

// LogStatement names the text the current statement is logged as when it
// changes the catalog (CAT-7); "" for a statement logged otherwise.
func (s *Session) LogStatement(db, text string) {
	s.stmtDB, s.stmtText, s.stmtLogged = db, text, false
}

// PendingStatement is the current statement's text when no catalog
// commit logged it (CAT-7).
func (s *Session) PendingStatement() (db, text string, ok bool) {
	return s.stmtDB, s.stmtText, s.stmtText != "" && !s.stmtLogged
}

// FinishStatement ends a statement that succeeded, before its OK is sent
// (CAT-7): the tables it created become everyone's, and its text, if it
// is logged as text and no catalog commit logged it, goes to the binary
// log. An error is the statement's (its tables are dropped by
// StatementDone).
func (s *Session) FinishStatement() error {
	if s.b.binlog == nil {
		return nil
	}
	return s.finish(s.created)
}

// finish makes the created tables everyone's and logs the statement's
// text if no catalog commit did (CAT-7): FinishStatement's and Nested's.
func (s *Session) finish(created []createdTable) error {
	if err := s.finishCreated(created); err != nil {
		return err
	}
	if db, text, ok := s.PendingStatement(); ok {
		if err := s.b.binlog.Statement(db, text); err != nil {
			return err
		}
		s.stmtLogged = true
	}
	return nil
}

// Nested runs a DDL statement inside the current one (a stored
// procedure's, rules RULE-78) logged as text: by its first catalog commit
// (CAT-7), or after run succeeded when it made none. asText: its row
// changes are not captured (CREATE TABLE ... SELECT), so it is logged only
// after it succeeded. The current statement's own text is kept.
func (s *Session) Nested(db, text string, asText bool, run func() error) error {
	if s.b.binlog == nil {
		return run()
	}
	outerDB, outerText, outerLogged, outerAsText := s.stmtDB, s.stmtText, s.stmtLogged, s.binlogText
	defer func() {
		s.stmtDB, s.stmtText, s.stmtLogged, s.binlogText = outerDB, outerText, outerLogged, outerAsText
	}()
	s.LogStatement(db, text)
	s.binlogText = asText
	created := len(s.created)
	if err := run(); err != nil {
		return err
	}
	// CAT-7: a table the procedure created stays if the CALL fails later,
	// as DDL commits in MySQL.
	err := s.finish(s.created[created:])
	s.created = s.created[:created]
	return err
}

var _ sql.TransactionSession = (*Session)(nil)
var _ sql.LifecycleAwareSession = (*Session)(nil)

// NewSession wraps base for backend b.
func (b *Backend) NewSession(base *sql.BaseSession) *Session {
	s := &Session{BaseSession: base, b: b, rowsRead: &b.rowsRead, rowsWritten: &b.rowsWritten}
	if b.binlog != nil {
		s.binlog = b.binlog.NewTxn()
	}
	return s
}

// scannedRow is a primary-key row a locking scan returned: its value and
// the commit clock from before the scan began (engine GetLockedScanned).
type scannedRow struct {
	ks    *engine.Keyspace
	pk    []byte
	val   []byte
	clock uint64
}

type savepoint struct {
	name string // lower case
	pos  int    // engine write-set savepoint
}

func (s *Session) findSavepoint(name string) int {
	name = strings.ToLower(name)
	for i, sp := range s.savepts {
		if sp.name == name {
			return i
		}
	}
	return -1
}

// Transaction is the opaque go-mysql-server transaction.
type Transaction struct {
	readOnly bool
}

func (t *Transaction) String() string   { return "strata transaction" }
func (t *Transaction) IsReadOnly() bool { return t.readOnly }

func sessionOf(ctx *sql.Context) (*Session, error) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return nil, errors.New("strata: session is not a strata session")
	}
	return s, nil
}

// engineTx returns the live engine transaction, beginning one if needed.
func (s *Session) engineTx() (*engine.Tx, error) {
	if s.tx == nil {
		s.tx = s.b.db.Begin()
		s.mdl = nil
		// SES-7 A transaction's row-lock waits are bounded by the
		// session's innodb_lock_wait_timeout when it begins.
		if v, err := s.GetSessionVariable(nil, "innodb_lock_wait_timeout"); err == nil {
			if secs, ok := v.(int64); ok && secs > 0 {
				s.tx.SetLockWaitTimeout(time.Duration(secs) * time.Second)
			}
		}
	}
	return s.tx, nil
}

func (s *Session) endTx(commit bool) error {
	tx := s.tx
	s.tx, s.mdl, s.savepts = nil, nil, nil
	s.snapPerStatement, s.txIsolation = false, ""
	if s.binlog != nil {
		defer s.binlog.Reset()
	}
	if tx == nil {
		return nil
	}
	if commit {
		p := s.b.binlog.Prepare(tx, s.binlog) // BL-1: the events commit with the rows
		if err := tx.Commit(); err != nil {
			return mapEngineErr(err)
		}
		s.b.binlog.Committed(p)
		return nil
	}
	tx.Rollback()
	return nil
}

// rollbackTo undoes the transaction's changes after sp, in the engine and
// in the binary log's capture (BL-2).
func (s *Session) rollbackTo(tx *engine.Tx, sp int) {
	tx.RollbackTo(sp)
	if s.binlog != nil && tx == s.tx {
		s.binlog.RollbackTo(sp)
	}
}

// lockTableShared takes t's metadata lock for this transaction (MDL-1).
func (s *Session) lockTableShared(t *table) error {
	if s.mdl[t.def.ID] {
		return nil
	}
	if _, _, err := s.tx.GetForShare(s.b.cat, mdlKey(t.def.ID)); err != nil {
		return err
	}
	if s.mdl == nil {
		s.mdl = map[uint32]bool{}
	}
	s.mdl[t.def.ID] = true
	return nil
}

// lockingReads reports whether the current statement reads rows to change
// them, or to lock them (SES-3): SELECT ... LOCK IN SHARE MODE (and FOR
// SHARE, which the server rewrites to it) takes shared row locks, the
// others exclusive ones.
func (s *Session) lockingReads(ctx *sql.Context) bool {
	q := ctx.Query()
	if q == s.lockQuery && q != "" {
		return s.lockingRead
	}
	s.lockQuery = q
	s.lockingRead, s.lockShared = isLockingStatement(q)
	s.lockPolicy = lockPolicyOf(q)
	return s.lockingRead
}

// lockPolicy is how a locking read meets a row another transaction has
// locked (SES-12).
type lockPolicy uint8

const (
	lockWaits   lockPolicy = iota // wait (innodb_lock_wait_timeout)
	lockNoWait                    // NOWAIT: fail with 3572
	lockSkipped                   // SKIP LOCKED: leave the row out
)

// The markers the server leaves where a SELECT's locking clause said
// NOWAIT or SKIP LOCKED, which go-mysql-server's parser lacks (comments
// to the parser, the statement's text to the session).
const (
	NoWaitMarker     = "/*strata:nowait*/"
	SkipLockedMarker = "/*strata:skip_locked*/"
	lockMarkerPrefix = "/*strata:"
)

// lockPolicyOf reads the server's marker in a SELECT's text (SES-12).
func lockPolicyOf(q string) lockPolicy {
	if !strings.Contains(q, lockMarkerPrefix) {
		return lockWaits
	}
	switch {
	case strings.Contains(q, NoWaitMarker):
		return lockNoWait
	case strings.Contains(q, SkipLockedMarker):
		return lockSkipped
	}
	return lockWaits
}

// isLockingStatement reports whether q reads rows under locks (SES-3):
// UPDATE, DELETE, REPLACE and INSERT exclusively, a SELECT with FOR UPDATE
// exclusively, one with LOCK IN SHARE MODE / FOR SHARE (and no FOR
// UPDATE) shared.
func isLockingStatement(q string) (locking, shared bool) {
	q = strings.TrimLeft(q, " \t\r\n(")
	for strings.HasPrefix(q, "/*") {
		end := strings.Index(q, "*/")
		if end < 0 {
			break
		}
		q = strings.TrimLeft(q[end+2:], " \t\r\n(")
	}
	word := q
	if i := strings.IndexAny(q, " \t\r\n"); i >= 0 {
		word = q[:i]
	}
	switch strings.ToUpper(word) {
	case "UPDATE", "DELETE", "REPLACE", "INSERT":
		return true, false
	case "SELECT", "WITH":
		u := strings.ToUpper(q)
		if strings.Contains(u, "FOR UPDATE") {
			return true, false
		}
		shared = strings.Contains(u, "FOR SHARE") || strings.Contains(u, "LOCK IN SHARE MODE")
		return shared, shared
	}
	return false, false
}

// engineErr maps an engine error for the client; a deadlock also ends the
// engine transaction (SES-4).
func (s *Session) engineErr(err error) error {
	if errors.Is(err, engine.ErrDeadlock) {
		s.endTx(false)
	}
	return mapEngineErr(err)
}

// ErrOutOfMemory is MySQL's 1041 for a statement stopped because the
// server is over its memory budget (memgov MEM-3).
func ErrOutOfMemory() error {
	return mysql.NewSQLError(mysql.EROutOfResources, "HY000",
		"Out of memory: the server is over its memory budget (--memory-budget, %d bytes); the statement was stopped",
		memgov.Read().Budget)
}

func mapEngineErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, engine.ErrDeadlock):
		return mysql.NewSQLError(mysql.ERLockDeadlock, "40001", "Deadlock found when trying to get lock; try restarting transaction")
	case errors.Is(err, engine.ErrLockWaitTimeout):
		return mysql.NewSQLError(mysql.ERLockWaitTimeout, "HY000", "Lock wait timeout exceeded; try restarting transaction")
	case errors.Is(err, engine.ErrLockNotAvailable): // SES-12
		return mysql.NewSQLError(3572, "HY000", "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set.")
	case errors.Is(err, engine.ErrInterrupted):
		return mysql.NewSQLError(mysql.ERQueryInterrupted, "70100", "Query execution was interrupted")
	case errors.Is(err, engine.ErrSnapshotTooOld): // SES-9, as InnoDB for missing history
		return mysql.NewSQLError(1412, "HY000", "Table definition has changed, please retry transaction")
	case errors.Is(err, memgov.ErrOverBudget): // MEM-3
		return ErrOutOfMemory()
	case errors.Is(err, engine.ErrTxnTooLarge):
		return mysql.NewSQLError(mysql.ERLockTableFull, "HY000",
			"The transaction is too large for the buffer pool or redo log (%v); commit in smaller batches", err)
	case errors.Is(err, btree.ErrTooLarge):
		return mysql.NewSQLError(mysql.ERTooBigRowSize, "42000", "Row size too large: %v", err)
	}
	return err
}

// StartTransaction implements sql.TransactionSession. An engine
// transaction left by a failed autocommit statement is rolled back here.
func (s *Session) StartTransaction(ctx *sql.Context, tc sql.TransactionCharacteristic) (sql.Transaction, error) {
	s.endTx(false)
	s.gtx = &Transaction{readOnly: tc == sql.ReadOnly}
	return s.gtx, nil
}

// CommitTransaction implements sql.TransactionSession.
func (s *Session) CommitTransaction(ctx *sql.Context, tx sql.Transaction) error {
	s.gtx = nil
	return s.endTx(true)
}

// Rollback implements sql.TransactionSession.
func (s *Session) Rollback(ctx *sql.Context, tx sql.Transaction) error {
	s.gtx = nil
	return s.endTx(false)
}

func (s *Session) CreateSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	etx, err := s.engineTx()
	if err != nil {
		return err
	}
	// A savepoint with an existing name replaces it.
	if i := s.findSavepoint(name); i >= 0 {
		s.savepts = append(s.savepts[:i], s.savepts[i+1:]...)
	}
	s.savepts = append(s.savepts, savepoint{strings.ToLower(name), etx.Savepoint()})
	return nil
}

// RollbackToSavepoint undoes the writes after the savepoint and forgets
// the savepoints set after it (as MySQL does).
func (s *Session) RollbackToSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	i := s.findSavepoint(name)
	if i < 0 || s.tx == nil {
		return sql.ErrSavepointDoesNotExist.New(name)
	}
	s.rollbackTo(s.tx, s.savepts[i].pos)
	s.savepts = s.savepts[:i+1]
	return nil
}

func (s *Session) ReleaseSavepoint(ctx *sql.Context, tx sql.Transaction, name string) error {
	i := s.findSavepoint(name)
	if i < 0 {
		return sql.ErrSavepointDoesNotExist.New(name)
	}
	s.savepts = s.savepts[:i]
	return nil
}

// CommandBegin implements sql.LifecycleAwareSession.
func (s *Session) CommandBegin() error { return nil }

// CommandEnd rolls back an engine transaction whose go-mysql-server
// transaction is gone (SES-1).
func (s *Session) CommandEnd() {
	if s.tx != nil && s.GetTransaction() == nil {
		s.endTx(false)
	}
	s.lockQuery = ""
}

// SessionEnd rolls back whatever is open.
func (s *Session) SessionEnd() {
	s.endTx(false)
	s.dropAllTemporary()
	s.b.sessMu.Lock()
	if s.b.sessions[s.ID()] == s {
		delete(s.b.sessions, s.ID())
	}
	s.b.sessMu.Unlock()
}

// implicitCommit commits the open transaction before DDL, as MySQL does.
func (s *Session) implicitCommit() error { return s.endTx(true) }

// SessionBuilder returns a go-mysql-server server.SessionBuilder.
func (b *Backend) SessionBuilder() func(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
	return func(ctx context.Context, conn *mysql.Conn, addr string) (sql.Session, error) {
		host, user := "", ""
		if u, ok := conn.UserData.(sql.MysqlConnectionUser); ok {
			host, user = u.Host, u.User
		}
		client := sql.Client{Address: host, User: user, Capabilities: conn.Capabilities}
		s := b.NewSession(sql.NewBaseSessionWithClientServer(addr, client, conn.ConnectionID))
		// SES-6 go-mysql-server's grant tables are disabled (every check
		// passes), but information_schema lists views, triggers and
		// routines only to a session holding a privilege set: give it all
		// privileges, under a counter go-mysql-server's own grant cache
		// never reaches (so enabling grant tables recomputes it).
		s.SetPrivilegeSet(allPrivileges, math.MaxUint64)
		b.sessMu.Lock()
		b.sessions[conn.ConnectionID] = s
		b.sessMu.Unlock()
		return s, nil
	}
}

type createdTable struct {
	db   *Database
	name string
	id   uint32
}

// StatementDone ends a client statement: if it failed, the tables it
// created are dropped (SES-5).
func (s *Session) StatementDone(failed bool) {
	s.statementSnapshotDone() // SES-9
	s.decl = nil              // CAT-5
	s.binlogText = false      // SRV-REPL-4
	created := s.created
	defer s.LogStatement("", "")
	s.created = nil
	if !failed || len(created) == 0 {
		return
	}
	// The statement's own rows are rolled back already (SES-2); what the
	// transaction still holds came before it, and a CREATE commits that
	// (as MySQL does before running it). Committing also releases the
	// metadata lock the statement's writes took on the new table, which
	// the drop below waits for.
	if err := s.implicitCommit(); err != nil {
		return
	}
	s.LogStatement("", "") // CAT-7: a CREATE that failed logs nothing
	for _, c := range created {
		c.db.dropTable(s, c.name, c.id)
	}
}

// finishCreated makes the tables a CREATE TABLE made "creating" everyone's
// in one catalog commit carrying the statement's event (CAT-7).
func (s *Session) finishCreated(created []createdTable) error {
	puts := map[string][]byte{}
	var done []*table
	for _, c := range created {
		t := c.db.lookup(c.name)
		if t == nil || t.def.ID != c.id || !t.def.Creating {
			continue
		}
		def := *t.def
		def.Creating = false
		puts[string(tableKey(c.db.name, def.Name))] = encodeJSON(&def)
		done = append(done, t)
	}
	if len(done) == 0 {
		return nil
	}
	s.b.ddl.Lock()
	defer s.b.ddl.Unlock()
	s.binlogText = false // CREATE TABLE ... SELECT: its rows are in, its text goes now
	if err := s.b.writeCatalog(s, puts); err != nil {
		return err
	}
	for _, t := range done {
		t.def.Creating = false
		t.creator.Store(nil)
	}
	return nil
}

// TransactionState reports what the OK and EOF packets' status flags say
// (SERVER_STATUS_AUTOCOMMIT, SERVER_STATUS_IN_TRANS): whether autocommit
// is on, and whether a transaction is open that a later statement
// continues (BEGIN, or, with autocommit off, once a statement has touched
// a table). Drivers
// act on these: PyMySQL sends SET autocommit=0 only when the handshake
// says autocommit is on.
func (s *Session) TransactionState() (autocommit, inTransaction bool) {
	autocommit = true
	if v, err := s.GetSessionVariable(nil, "autocommit"); err == nil {
		if on, err := sql.ConvertToBool(nil, v); err == nil {
			autocommit = on
		}
	}
	inTransaction = s.GetIgnoreAutoCommit() || (!autocommit && s.tx != nil)
	return autocommit, inTransaction
}

// GeneratedColumns returns, for table (in db, or in the session's current
// database when db is empty), its column names and which are generated,
// with ok false when the table does not exist or has no generated column.
func (s *Session) GeneratedColumns(db, table string) (names []string, generated []bool, ok bool) {
	if db == "" {
		db = s.GetCurrentDatabase()
	}
	s.b.mu.RLock()
	d := s.b.dbs[strings.ToLower(db)]
	s.b.mu.RUnlock()
	if d == nil {
		return nil, nil, false
	}
	t := d.lookup(table)
	if t == nil {
		return nil, nil, false
	}
	for _, c := range t.def.Columns {
		names = append(names, c.Name)
		generated = append(generated, c.Generated != "")
		ok = ok || c.Generated != ""
	}
	return names, generated, ok
}

var dupIndexWarning = regexp.MustCompile(`^Duplicate index '(.*)' defined on the table '(.*)\.(.*)'\.`)

// DropFalseWarnings removes the warnings go-mysql-server v0.20 raises
// wrongly: 1831 "Duplicate index" for an index no other index of the
// table duplicates (its check compares only the column count).
func (s *Session) DropFalseWarnings() {
	if s.WarningCount() == 0 {
		return
	}
	ws := s.Warnings() // newest first
	keep := ws[:0:0]
	dropped := false
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if w.Code == 1831 {
			if m := dupIndexWarning.FindStringSubmatch(w.Message); m != nil && !s.b.duplicatesIndex(m[2], m[3], m[1]) {
				dropped = true
				continue
			}
		}
		keep = append(keep, w)
	}
	if !dropped {
		return
	}
	s.ClearWarnings()
	for _, w := range keep {
		s.Warn(w)
	}
}

// duplicatesIndex reports whether index name of db.table has the same
// columns as another secondary index of the table.
func (b *Backend) duplicatesIndex(db, table, name string) bool {
	b.mu.RLock()
	d := b.dbs[strings.ToLower(db)]
	b.mu.RUnlock()
	if d == nil {
		return true
	}
	t := d.lookup(table)
	if t == nil {
		return true
	}
	var cols []int
	var prefix []uint16
	for _, ix := range t.indexes {
		if strings.EqualFold(ix.def.Name, name) {
			cols, prefix = ix.cols, ix.def.Prefix
		}
	}
	if cols == nil {
		return true
	}
	for _, ix := range t.indexes {
		if !strings.EqualFold(ix.def.Name, name) && slices.Equal(ix.cols, cols) && slices.Equal(ix.def.Prefix, prefix) {
			return true
		}
	}
	return false
}

// Warn implements sql.Session: a warning's message is valid text, bytes
// that are not UTF-8 written as \xNN (a value quoted in it may be
// binary; SHOW WARNINGS failed to encode it, which ended mtr cases).
func (s *Session) Warn(w *sql.Warning) {
	if w != nil && !utf8.ValidString(w.Message) {
		c := *w
		c.Message = rules.Printable(w.Message)
		w = &c
	}
	s.BaseSession.Warn(w)
}

// GetSessionVariable answers warning_count and error_count from the
// diagnostics area (SES-11); every other name is go-mysql-server's.
func (s *Session) GetSessionVariable(ctx *sql.Context, name string) (interface{}, error) {
	if n := len(name); (n == len("warning_count") || n == len("error_count")) && strings.EqualFold(name[n-6:], "_count") {
		switch strings.ToLower(name) {
		case "warning_count":
			return s.DiagnosticsCount(false), nil
		case "error_count":
			return s.DiagnosticsCount(true), nil
		}
	}
	return s.BaseSession.GetSessionVariable(ctx, name)
}

// DiagnosticsCount is the number of conditions in the diagnostics area,
// errors only when errorsOnly (SES-11).
func (s *Session) DiagnosticsCount(errorsOnly bool) uint64 {
	n := uint64(0)
	for _, w := range s.Warnings() {
		if !errorsOnly || w.Level == "Error" {
			n++
		}
	}
	return n
}
