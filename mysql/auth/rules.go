package auth

import (
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
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

// AUTH-11 SHOW DATABASES does not list `mysql`, as information_schema
// .SCHEMATA already does not: its tables are go-mysql-server's grant
// tables, not MariaDB's or MySQL's, so a logical dump of them
// (`mariadb-dump --all-databases` dumps every listed database, and
// insists on mysql.general_log and slow_log that do not exist here) could
// not be restored into either server. The schema stays reachable by name
// (mysql.user, SHOW GRANTS); accounts move with the data volume.

const (
	privilegesRuleID analyzer.RuleId = 10_500 + iota
	hideGrantSchemaID
)

var once sync.Once

// InstallRules adds AUTH-7's rule to go-mysql-server's analyzer; call it
// before the engine is built.
func InstallRules() {
	once.Do(func() {
		analyzer.OnceBeforeDefault = append([]analyzer.Rule{{Id: privilegesRuleID, Apply: privileges}}, analyzer.OnceBeforeDefault...)
		analyzer.OnceAfterAll = append([]analyzer.Rule{{Id: hideGrantSchemaID, Apply: hideGrantSchema}}, analyzer.OnceAfterAll...)
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
	return deniedFor(c.User, c.Address, withPassword)
}

func globalScope(s sql.SystemVariableScope) bool {
	ms, ok := s.(*sql.MysqlScope)
	return !ok || ms.Type != sql.SystemVariableScope_Session
}

// hideGrantSchema drops `mysql` from SHOW DATABASES (AUTH-11).
func hideGrantSchema(ctx *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		sd, ok := n.(*plan.ShowDatabases)
		if !ok {
			return n, transform.SameTree, nil
		}
		return &withoutGrantSchema{ShowDatabases: sd}, transform.NewTree, nil
	})
}

type withoutGrantSchema struct{ *plan.ShowDatabases }

var _ sql.ExecSourceRel = (*withoutGrantSchema)(nil)

func (w *withoutGrantSchema) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(w, len(children), 0)
	}
	return w, nil
}

func (w *withoutGrantSchema) RowIter(ctx *sql.Context, r sql.Row) (sql.RowIter, error) {
	it, err := rowexec.DefaultBuilder.Build(ctx, w.ShowDatabases, r)
	if err != nil {
		return nil, err
	}
	all, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, err
	}
	rows := all[:0]
	for _, row := range all {
		if name, _ := row[0].(string); !strings.EqualFold(name, "mysql") {
			rows = append(rows, row)
		}
	}
	return sql.RowsToRowIter(rows...), nil
}
