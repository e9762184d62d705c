package server

import (
	"context"
	"path/filepath"
	"regexp"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// SRV-CLONE MySQL 8's CLONE LOCAL DATA DIRECTORY = 'dir' takes an online
// backup of the running server into dir on the server's machine (engine
// EN-12): a data directory that `strata restore dir` prepares and `strata
// --datadir dir` then serves, at a binary log position `strata restore`
// prints. It needs BACKUP_ADMIN (or SUPER), an absolute path and a
// directory that does not exist; the statement returns when the copy is
// complete.
var cloneRE = regexp.MustCompile(`(?is)^\s*CLONE\s+LOCAL\s+DATA\s+DIRECTORY\s*=?\s*'((?:[^'\\]|\\.)*)'\s*;?\s*$`)

func (h *errorHandler) clone(goctx context.Context, c *mysql.Conn, query string) (*sqltypes.Result, bool, error) {
	if !startsWithWord(query, "clone") {
		return nil, false, nil
	}
	m := cloneRE.FindStringSubmatch(query)
	if m == nil {
		return nil, true, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
			"This version of Strata doesn't yet support 'CLONE other than LOCAL DATA DIRECTORY'")
	}
	s := h.session(c)
	if s == nil {
		return nil, false, nil
	}
	ctx := sql.NewContext(goctx, sql.WithSession(s))
	if h.grants != nil && h.grants.Enabled() {
		ps := h.grants.UserActivePrivilegeSet(ctx)
		if !ps.Has(sql.PrivilegeType_Super) && !ps.HasDynamic("BACKUP_ADMIN") {
			return nil, true, needPrivileges("BACKUP_ADMIN")
		}
	}
	dir := m[1]
	if !filepath.IsAbs(dir) {
		return nil, true, mysql.NewSQLError(3862, "HY000", "Clone Donor Error: the directory '%s' must be an absolute path", dir)
	}
	if _, err := h.b.Engine().Backup(filepath.Clean(dir)); err != nil {
		return nil, true, mysql.NewSQLError(3862, "HY000", "Clone Donor Error: %v", err)
	}
	return &sqltypes.Result{}, true, nil
}
