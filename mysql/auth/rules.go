package auth

import (
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
)

// AUTH-7 The privileges go-mysql-server v0.20.0 does not check are
// checked by an analyzer rule, before planning: SET GLOBAL / SET PERSIST
// needs SUPER or SYSTEM_VARIABLES_ADMIN (else 1227); SELECT ... INTO
// OUTFILE/DUMPFILE and LOAD DATA INFILE (not LOCAL) need FILE (else 1045,
// as MySQL answers); LOAD_FILE() without FILE is NULL, as in MySQL. The
// files they may touch are further confined to secure_file_priv.

const privilegesRuleID analyzer.RuleId = 10_500

var once sync.Once

// InstallRules adds AUTH-7's rule to go-mysql-server's analyzer; call it
// before the engine is built.
func InstallRules() {
	once.Do(func() {
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: privilegesRuleID, Apply: privileges}}, analyzer.OnceBeforeDefault...)
	})
}

func privileges(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	mdb := a.Catalog.MySQLDb
	if mdb == nil || !mdb.Enabled() {
		return n, transform.SameTree, nil
	}
	var ps *mysql_db.PrivilegeSet
	privs := func() mysql_db.PrivilegeSet {
		if ps == nil {
			p := mdb.UserActivePrivilegeSet(ctx)
			ps = &p
		}
		return *ps
	}
	var err error
	transform.Inspect(n, func(n sql.Node) bool {
		switch n := n.(type) {
		case *plan.Set:
			for _, e := range n.Exprs {
				if sf, ok := e.(*expression.SetField); ok {
					if sv, ok := sf.LeftChild.(*expression.SystemVar); ok && globalScope(sv.Scope) {
						if p := privs(); !p.Has(sql.PrivilegeType_Super) && !p.HasDynamic("SYSTEM_VARIABLES_ADMIN") {
							err = mysql.NewSQLError(mysql.ERSpecifiedAccessDenied, "42000",
								"Access denied; you need (at least one of) the SUPER, SYSTEM_VARIABLES_ADMIN privilege(s) for this operation")
						}
					}
				}
			}
		case *plan.Into:
			if (n.Outfile != "" || n.Dumpfile != "") && !privs().Has(sql.PrivilegeType_File) {
				err = fileDenied(ctx, mdb)
			}
		case *plan.LoadData:
			if !n.Local && !privs().Has(sql.PrivilegeType_File) {
				err = fileDenied(ctx, mdb)
			}
		}
		return err == nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	if privs := privs(); privs.Has(sql.PrivilegeType_File) {
		return n, transform.SameTree, nil
	}
	return transform.NodeExprs(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		if _, ok := e.(*function.LoadFile); ok {
			return expression.NewLiteral(nil, types.LongBlob), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
}

// fileDenied is MySQL's answer to a statement needing FILE: 1045.
func fileDenied(ctx *sql.Context, mdb *mysql_db.MySQLDb) error {
	c := ctx.Session.Client()
	withPassword := false
	rd := mdb.Reader()
	if u := mdb.GetUser(rd, c.User, c.Address, false); u != nil {
		withPassword = u.AuthString != ""
	}
	rd.Close()
	using := "NO"
	if withPassword {
		using = "YES"
	}
	host := c.Address
	if Loopback(host) {
		host = "localhost"
	}
	return mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError,
		"Access denied for user '%s'@'%s' (using password: %s)", c.User, host, using)
}

func globalScope(s sql.SystemVariableScope) bool {
	ms, ok := s.(*sql.MysqlScope)
	return !ok || ms.Type != sql.SystemVariableScope_Session
}
