package backend

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"strata/engine"
)

// SES-9 Consistent reads (engine EN-8), as InnoDB gives them:
//   - Plain reads (SELECT without FOR UPDATE / FOR SHARE, and the fast
//     path's reads) read through the transaction's snapshot; the row
//     searches of locking statements (UPDATE, DELETE, REPLACE, INSERT,
//     SELECT ... FOR UPDATE / SHARE), unique checks and the rows they
//     re-read under their locks read the latest committed versions
//     (InnoDB's current reads).
//   - REPEATABLE READ (the default) and SERIALIZABLE: the snapshot is
//     taken at the transaction's first consistent read and kept until it
//     ends. READ COMMITTED: a snapshot per statement. READ UNCOMMITTED:
//     the latest committed versions (there is nothing uncommitted to see).
//   - START TRANSACTION WITH CONSISTENT SNAPSHOT takes the snapshot at once
//     (ConsistentSnapshot; the parser drops the clause, the server detects
//     it).
//   - SERIALIZABLE: inside a transaction (BEGIN, or autocommit off) plain
//     reads are shared locking reads, as InnoDB turns them into LOCK IN
//     SHARE MODE; an autocommit SELECT stays a consistent read.

// isolation is the isolation level of the session's transaction, upper
// case with dashes ("REPEATABLE-READ"): fixed at its first consistent
// read, from SET TRANSACTION's level for the next transaction if one was
// given, else the session's.
func (s *Session) isolation(ctx *sql.Context) string {
	if s.txIsolation != "" {
		return s.txIsolation
	}
	if s.nextIsolation != "" {
		return s.nextIsolation
	}
	v, err := s.GetSessionVariable(ctx, "transaction_isolation")
	if err != nil {
		return "REPEATABLE-READ"
	}
	str, _ := v.(string)
	return strings.ToUpper(str)
}

// SetNextIsolation is SET TRANSACTION ISOLATION LEVEL without GLOBAL or
// SESSION: the level of the next transaction only (level as
// "READ-COMMITTED"); inside a transaction MySQL refuses it (1568).
func (s *Session) SetNextIsolation(level string) error {
	if s.tx != nil && s.GetTransaction() != nil && s.GetIgnoreAutoCommit() {
		return mysql.NewSQLError(1568, "25001", "Transaction characteristics can't be changed while a transaction is in progress")
	}
	s.nextIsolation = level
	return nil
}

// consistentRead gives tx the snapshot a plain read of the current
// statement reads through (SES-9).
func (s *Session) consistentRead(ctx *sql.Context, tx *engine.Tx) {
	if tx.HasSnapshot() && !s.snapPerStatement {
		return
	}
	if tx.HasSnapshot() && s.snapStatement == ctx.Query() && ctx.Query() != "" {
		return
	}
	level := s.isolation(ctx)
	s.txIsolation, s.nextIsolation = level, ""
	switch level {
	case "READ-UNCOMMITTED":
		return
	case "READ-COMMITTED":
		s.snapPerStatement, s.snapStatement = true, ctx.Query()
	default:
		s.snapPerStatement = false
	}
	tx.SetSnapshot()
}

// statementSnapshotDone ends a READ COMMITTED statement's snapshot.
func (s *Session) statementSnapshotDone() {
	if s.snapPerStatement && s.tx != nil {
		s.tx.ClearSnapshot()
	}
	s.snapStatement = ""
}

// ConsistentSnapshot starts the transaction's snapshot now (START
// TRANSACTION WITH CONSISTENT SNAPSHOT, SES-9).
func (s *Session) ConsistentSnapshot(ctx *sql.Context) error {
	tx, err := s.engineTx()
	if err != nil {
		return err
	}
	s.snapPerStatement = false
	tx.SetSnapshot()
	return nil
}

// SnapshotTS is the version timestamp the open transaction reads at; ok
// is false without a transaction snapshot.
func (s *Session) SnapshotTS() (uint64, bool) {
	if s.tx == nil || s.snapPerStatement {
		return 0, false
	}
	return s.tx.SnapshotTS()
}

// ChainState is what COMMIT/ROLLBACK AND CHAIN carries into the next
// transaction (SES-10): the ending transaction's isolation level and
// access mode. ok is false outside an explicit transaction.
func (s *Session) ChainState(ctx *sql.Context) (level string, readOnly, ok bool) {
	if s.gtx == nil {
		return "", false, false
	}
	return s.isolation(ctx), s.gtx.readOnly, true
}

// ChainIsolation makes level the isolation of the transaction a chained
// COMMIT/ROLLBACK starts next (SES-10).
func (s *Session) ChainIsolation(level string) { s.nextIsolation = level }

// snapshotRead reports whether the current statement's reads take no
// locks, so that they read at the snapshot (SES-9): neither a locking
// statement nor a SERIALIZABLE read in a transaction.
func (s *Session) snapshotRead(ctx *sql.Context) bool {
	return !s.lockingReads(ctx) && !s.serializableRead(ctx)
}

// serializableRead reports whether a plain read of the current statement
// is a shared locking read (SES-9: SERIALIZABLE inside a transaction).
func (s *Session) serializableRead(ctx *sql.Context) bool {
	if s.isolation(ctx) != "SERIALIZABLE" {
		return false
	}
	autocommit, _ := s.TransactionState()
	return s.GetIgnoreAutoCommit() || !autocommit
}
