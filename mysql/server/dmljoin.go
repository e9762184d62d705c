package server

import (
	"errors"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// SRV-DMLJOIN: a single-table DELETE or UPDATE whose expressions hold a
// correlated subquery (`DELETE FROM t WHERE NOT EXISTS (SELECT 1 FROM s
// WHERE s.x = t.x)`, common in clean-up jobs) runs as the multi-table
// statement it equals: `DELETE t FROM t WHERE ...`, and `UPDATE t,
// (SELECT 1) AS strata_one SET ... WHERE ...` (a one-row derived table
// leaves the rows and the assignments as they were). go-mysql-server
// plans the multi-table forms with the batches that prepare correlated
// subqueries; for the single-table forms rules RULE-63 answers 1235,
// before anything ran, and the statement is run again from the changed
// syntax tree with its own text. ORDER BY and LIMIT, which the
// multi-table forms do not take, keep the 1235. Text queries only.

// mayCorrelateDML is the cheap test before a multi-statement text is
// split for a retry: a DELETE or UPDATE.
func mayCorrelateDML(q string) bool { return startsWithWord(q, "delete", "update") }

// errCorrelatedDML is the message of RULE-63's refusal.
const errCorrelatedDML = "a correlated subquery in a single-table UPDATE or DELETE"

// dmlJoinRetry is SRV-DMLJOIN for one statement q that failed with err:
// the syntax tree to run instead, or ok false.
func dmlJoinRetry(q string, err error, prev sqlparser.Statement) (sqlparser.Statement, bool) {
	var se *mysql.SQLError
	if !errors.As(err, &se) || se.Num != mysql.ERNotSupportedYet || !strings.Contains(se.Message, errCorrelatedDML) {
		return nil, false
	}
	stmt := prev
	if stmt == nil {
		var perr error
		if stmt, perr = sqlparser.Parse(q); perr != nil {
			return nil, false
		}
	}
	switch s := stmt.(type) {
	case *sqlparser.Delete:
		if len(s.Targets) != 0 || len(s.TableExprs) != 1 || len(s.OrderBy) != 0 || s.Limit != nil || s.With != nil {
			return nil, false
		}
		at, ok := s.TableExprs[0].(*sqlparser.AliasedTableExpr)
		if !ok {
			return nil, false
		}
		tn, ok := at.Expr.(sqlparser.TableName)
		if !ok {
			return nil, false
		}
		if !at.As.IsEmpty() {
			tn = sqlparser.TableName{Name: at.As}
		}
		s.Targets = sqlparser.TableNames{tn}
		return s, true
	case *sqlparser.Update:
		if len(s.TableExprs) != 1 || len(s.OrderBy) != 0 || s.Limit != nil || s.With != nil {
			return nil, false
		}
		one, perr := sqlparser.Parse("SELECT * FROM t, (SELECT 1) AS strata_one")
		if perr != nil {
			return nil, false
		}
		s.TableExprs = append(s.TableExprs, one.(*sqlparser.Select).From[1])
		return s, true
	}
	return nil, false
}
