package server

import (
	"errors"
	"regexp"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// SRV-ORDERALIAS: an expression in ORDER BY or GROUP BY may name an alias
// of the select list (`SELECT a + 1 AS n FROM t ORDER BY 30 - n`, `GROUP
// BY n + 1`), as in MySQL and MariaDB. go-mysql-server's planner resolves
// the names inside such an expression among the FROM clause's columns only
// and answers 1054 (a bare alias, `ORDER BY n`, it resolves). A name
// resolves to a FROM column first, as in MariaDB (`SELECT a AS b FROM
// t(a, b) ORDER BY b + 0` orders by t.b), so the statement runs unchanged
// first; only when it fails with 1054 naming an alias that some SELECT's
// ORDER BY or GROUP BY expression uses is the name replaced there by the
// aliased expression, and the statement runs again from the changed syntax
// tree with its own text. Nothing ran the first time: 1054 is a planning
// error, and only SELECT, a UNION and INSERT/REPLACE ... SELECT are
// retried (a CALL's 1054 may come after statements that ran). An alias of
// an aggregate or window function is 1247 ("reference to group
// function"), as MariaDB answers. Text queries only:
// a prepared statement keeps go-mysql-server's answer.

// unknownColumnRE takes the name out of a 1054 message.
var unknownColumnRE = regexp.MustCompile(`^Unknown column '([^'.]+)' in`)

// orderAliasRetries bounds the rounds: each replaces one name.
const orderAliasRetries = 4

// unknownAlias returns the unknown column's name when err is a 1054.
func unknownAlias(err error) (string, bool) {
	var se *mysql.SQLError
	if !errors.As(err, &se) || se.Num != mysql.ERBadFieldError {
		return "", false
	}
	m := unknownColumnRE.FindStringSubmatch(se.Message)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// mayUseAlias is the cheap test before a retry parses: the text has an
// ORDER BY or a GROUP BY.
func mayUseAlias(q string) bool {
	return containsFold(q, "order") || containsFold(q, "group")
}

// retriable reports whether stmt is a statement whose 1054 came before
// anything ran.
func retriable(stmt sqlparser.Statement) bool {
	switch s := stmt.(type) {
	case *sqlparser.Select, *sqlparser.SetOp:
		return true
	case *sqlparser.Insert:
		_, values := s.Rows.(*sqlparser.AliasedValues)
		return !values
	}
	return false
}

// replaceOrderAlias replaces, in every SELECT of stmt whose ORDER BY or
// GROUP BY expressions use name as an unqualified column, those uses by
// the select list's expression aliased name. changed is false when no
// SELECT has such an alias; err is 1247 for an aggregate's alias.
func replaceOrderAlias(stmt sqlparser.Statement, name string) (changed bool, err error) {
	werr := sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		sel, ok := n.(*sqlparser.Select)
		if !ok {
			return true, nil
		}
		aliased := aliasedExpr(sel, name)
		if aliased == nil {
			return true, nil
		}
		for _, o := range sel.OrderBy {
			c, err := replaceNameIn(&o.Expr, name, aliased)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		for i := range sel.GroupBy {
			c, err := replaceNameIn(&sel.GroupBy[i], name, aliased)
			if err != nil {
				return false, err
			}
			changed = changed || c
		}
		return true, nil
	}, stmt)
	return changed, werr
}

// aliasedExpr is the expression sel's select list names name, or nil.
func aliasedExpr(sel *sqlparser.Select, name string) sqlparser.Expr {
	for _, se := range sel.SelectExprs {
		if ae, ok := se.(*sqlparser.AliasedExpr); ok && ae.As.EqualString(name) {
			return ae.Expr
		}
	}
	return nil
}

// replaceNameIn replaces the unqualified column name inside *e (not *e
// itself when it is the bare name: go-mysql-server resolves that; nor
// inside a subquery) by a parenthesized copy of aliased; an aggregate's
// alias is 1247.
func replaceNameIn(e *sqlparser.Expr, name string, aliased sqlparser.Expr) (bool, error) {
	if c, ok := (*e).(*sqlparser.ColName); ok && c.Qualifier.IsEmpty() {
		return false, nil
	}
	var uses []*sqlparser.ColName
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Subquery:
			return false, nil // ReplaceExpr does not reach into it
		case *sqlparser.ColName:
			if x.Qualifier.IsEmpty() && x.Name.EqualString(name) {
				uses = append(uses, x)
			}
		}
		return true, nil
	}, *e)
	if len(uses) == 0 {
		return false, nil
	}
	if aggregateOf(aliased) {
		return false, mysql.NewSQLError(1247, "42S22", "Reference '%s' not supported (reference to group function)", name)
	}
	for _, c := range uses {
		cp, err := copyExpr(aliased)
		if err != nil {
			return false, nil
		}
		*e = sqlparser.ReplaceExpr(*e, c, &sqlparser.ParenExpr{Expr: cp})
	}
	return true, nil
}

// copyExpr copies e by printing and parsing it: go-mysql-server's planner
// is not promised a syntax tree whose nodes are shared.
func copyExpr(e sqlparser.Expr) (sqlparser.Expr, error) {
	stmt, err := sqlparser.Parse("SELECT " + sqlparser.String(e))
	if err != nil {
		return nil, err
	}
	return stmt.(*sqlparser.Select).SelectExprs[0].(*sqlparser.AliasedExpr).Expr, nil
}

// aggregateOf reports whether e calls an aggregate or window function
// outside a subquery.
func aggregateOf(e sqlparser.Expr) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch x := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.GroupConcatExpr:
			found = true
		case *sqlparser.FuncExpr:
			if x.Over != nil || x.IsAggregate() || x.Name.Lowered() == "any_value" {
				found = true
			}
		}
		return !found, nil
	}, e)
	return found
}

// orderAliasRetry is SRV-ORDERALIAS for one statement q that failed with
// err: the syntax tree to run instead, or ok false (err stands). A
// non-nil rerr replaces err (1247).
func orderAliasRetry(q string, err error, prev sqlparser.Statement) (stmt sqlparser.Statement, ok bool, rerr error) {
	name, isAlias := unknownAlias(err)
	if !isAlias || !mayUseAlias(q) || prev != nil && !retriable(prev) {
		return nil, false, nil
	}
	stmt = prev
	if stmt == nil {
		var perr error
		if stmt, perr = sqlparser.Parse(q); perr != nil || !retriable(stmt) {
			return nil, false, nil
		}
	}
	changed, rerr := replaceOrderAlias(stmt, name)
	if rerr != nil {
		return nil, false, rerr
	}
	return stmt, changed, nil
}
