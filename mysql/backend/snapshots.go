package backend

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

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
//   - SERIALIZABLE reads are not turned into shared-lock reads (InnoDB
//     does): it behaves as REPEATABLE READ.

// isolation is the session's transaction isolation level, upper case
// with dashes ("REPEATABLE-READ").
func (s *Session) isolation(ctx *sql.Context) string {
	v, err := s.GetSessionVariable(ctx, "transaction_isolation")
	if err != nil {
		return "REPEATABLE-READ"
	}
	str, _ := v.(string)
	return strings.ToUpper(str)
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
	switch s.isolation(ctx) {
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
