package server

import (
	"context"
	"fmt"
	"regexp"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

var ownGrantsRE = regexp.MustCompile(`(?i)^\s*SHOW\s+GRANTS(?:\s+FOR\s+CURRENT_USER(?:\s*\(\s*\))?)?\s*;?\s*$`)

// ownGrants answers SHOW GRANTS [FOR CURRENT_USER()] for any user, as
// MySQL does: go-mysql-server asks for SELECT on the grant schema even to
// show one's own grants.
func (h *errorHandler) ownGrants(goctx context.Context, c *mysql.Conn, query string) (*sqltypes.Result, bool, error) {
	if h.grants == nil || !h.grants.Enabled() || !ownGrantsRE.MatchString(query) {
		return nil, false, nil
	}
	u, ok := c.UserData.(sql.MysqlConnectionUser)
	if !ok {
		return nil, false, nil
	}
	// The statement may be the connection's first, before go-mysql-server
	// made its session: only the client's identity is needed.
	client := sql.Client{User: u.User, Address: u.Host}
	ctx := sql.NewContext(goctx, sql.WithSession(sql.NewBaseSessionWithClientServer("", client, c.ConnectionID)))
	node := &plan.ShowGrants{CurrentUser: true, MySQLDb: h.grants}
	it, err := rowexec.DefaultBuilder.Build(ctx, node, nil)
	if err != nil {
		return nil, true, err
	}
	rows, err := sql.RowIterToRows(ctx, it)
	if err != nil {
		return nil, true, err
	}
	rd := h.grants.Reader()
	account := h.grants.GetUser(rd, client.User, client.Address, false)
	rd.Close()
	name := fmt.Sprintf("%s@%s", client.User, client.Address)
	if account != nil {
		name = fmt.Sprintf("%s@%s", account.User, account.Host)
	}
	res := &sqltypes.Result{Fields: []*querypb.Field{textField("Grants for " + name)}}
	for _, row := range rows {
		res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.NewVarChar(fmt.Sprint(row[0]))})
	}
	return res, true, nil
}
