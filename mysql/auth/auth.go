// Package auth owns who may connect and what they may do: the accounts and
// grants (go-mysql-server's mysql_db, enabled), their persistence in the
// engine, the first start's root account, the refusal of insecure
// listeners, and the privilege decisions the fast path takes without
// go-mysql-server's planner. Its rules, cited where they apply:
//
// AUTH-1 Grant tables are go-mysql-server's mysql_db, enabled. Its whole
// state (users, grants, roles) is one blob in the engine (keyspace
// "sql.accounts", key "mysql_db"), written by a durable engine commit
// (whatever --sync-commit says) from the Persist hook that CREATE/ALTER/
// DROP USER, GRANT, REVOKE and roles call before they return: an
// acknowledged account change survives a crash, and accounts move with
// the data volume.
//
// AUTH-2 First start (no stored blob): root@localhost is created with the
// given root password, or with an empty one only while the listener is on
// loopback, and the server logs which. The account is stored at once.
//
// AUTH-3 A listener on a non-loopback address is refused at start while
// any account has an empty password, with a message saying how to set one.
//
// AUTH-4 --skip-grant-tables leaves mysql_db disabled (every connection
// is accepted with every privilege, go-mysql-server's behaviour without
// grant tables) and is refused unless the listener is on loopback.
//
// AUTH-5 The fast path runs a statement only for a session whose user holds
// the statement's privilege on the table at global, database or table
// level, and, for writes, only while read_only and super_read_only are
// off. Otherwise go-mysql-server's path runs it, and refuses it with
// MySQL's error where it must (1142). The decision reads the session's
// privilege set, which go-mysql-server caches per session and recomputes
// after any grant change (its update counter), so a REVOKE applies to the
// next execution of an already prepared statement.
//
// AUTH-8 secure_file_priv is always a directory (default DATADIR/files,
// created at start): LOAD_FILE, LOAD DATA INFILE and INTO OUTFILE cannot
// reach any other file, whoever holds FILE.
//
// Tests: auth_test.go (persistence across a power cut, first-start rules)
// and cmd/strata's accounts tests through real clients.
package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"

	"strata/engine"
)

const (
	keyspace = "sql.accounts"
	blobKey  = "mysql_db"
)

// Config is how the server was started.
type Config struct {
	// BindAddress is the listener's host (an IP address or name).
	BindAddress string
	// RootPassword is root@localhost's password at first start ("": empty,
	// allowed on loopback only).
	RootPassword string
	// SkipGrantTables disables accounts (AUTH-4).
	SkipGrantTables bool
	// SecureFilePriv is the one directory LOAD_FILE, LOAD DATA INFILE and
	// SELECT ... INTO OUTFILE may use (AUTH-8); created if missing.
	SecureFilePriv string
}

// Loopback reports whether host is a loopback address or "localhost".
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// store persists mysql_db's blob in the engine (AUTH-1).
type store struct {
	db *engine.DB
	ks *engine.Keyspace
}

func openStore(db *engine.DB) (*store, error) {
	ks, err := db.Keyspace(keyspace)
	if errors.Is(err, engine.ErrNoKeyspace) {
		ks, err = db.CreateKeyspace(keyspace)
	}
	if err != nil {
		return nil, err
	}
	return &store{db: db, ks: ks}, nil
}

func (s *store) load() ([]byte, bool, error) {
	tx := s.db.Begin()
	defer tx.Rollback()
	return tx.Get(s.ks, []byte(blobKey))
}

// Persist implements mysql_db.MySQLDbPersistence (AUTH-1).
func (s *store) Persist(_ *sql.Context, data []byte) error {
	tx := s.db.Begin()
	if err := tx.Put(s.ks, []byte(blobKey), data); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.CommitDurable(); err != nil {
		return fmt.Errorf("storing accounts and grants: %w", err)
	}
	return nil
}

// Setup enables and loads the accounts of e from db (AUTH-1..4).
func Setup(e *sqle.Engine, db *engine.DB, cfg Config) error {
	if cfg.SecureFilePriv == "" {
		return errors.New("auth: no secure_file_priv directory")
	}
	dir, err := filepath.Abs(cfg.SecureFilePriv)
	if err == nil {
		err = os.MkdirAll(dir, 0o750)
	}
	if err == nil {
		err = sql.SystemVariables.AssignValues(map[string]any{"secure_file_priv": dir}) // AUTH-8
	}
	if err != nil {
		return fmt.Errorf("secure_file_priv %s: %w", cfg.SecureFilePriv, err)
	}
	loopback := Loopback(cfg.BindAddress)
	mdb := e.Analyzer.Catalog.MySQLDb
	if cfg.SkipGrantTables {
		if !loopback {
			return fmt.Errorf("--skip-grant-tables lets anyone in with every privilege: it is refused with --bind-address %s (use 127.0.0.1)", cfg.BindAddress)
		}
		slog.Warn("grant tables skipped: every connection gets every privilege (--skip-grant-tables)")
		return nil
	}
	st, err := openStore(db)
	if err != nil {
		return fmt.Errorf("accounts: %w", err)
	}
	ctx := sql.NewEmptyContext()
	blob, found, err := st.load()
	if err != nil {
		return fmt.Errorf("accounts: %w", err)
	}
	if found {
		if err := mdb.LoadData(ctx, blob); err != nil {
			return fmt.Errorf("accounts: %w", err)
		}
		mdb.SetEnabled(true)
		mdb.SetPersister(st)
	} else {
		// AUTH-2
		if cfg.RootPassword == "" && !loopback {
			return fmt.Errorf("first start on %s: root would have an empty password on a non-loopback address; set one with --root-password or STRATA_ROOT_PASSWORD", cfg.BindAddress)
		}
		mdb.SetPersister(st)
		ed := mdb.Editor()
		mdb.AddSuperUser(ed, "root", "localhost", cfg.RootPassword)
		err := mdb.Persist(ctx, ed)
		ed.Close()
		if err != nil {
			return fmt.Errorf("accounts: %w", err)
		}
		if cfg.RootPassword == "" {
			slog.Warn("first start: created root@localhost with an empty password (the listener is on loopback); set one with ALTER USER root@localhost IDENTIFIED BY '...'")
		} else {
			slog.Info("first start: created root@localhost with the given password")
		}
	}
	if !loopback { // AUTH-3
		if names := emptyPasswords(mdb); len(names) > 0 {
			return fmt.Errorf("refusing to listen on %s while accounts have empty passwords (%s): start on 127.0.0.1 and run ALTER USER ... IDENTIFIED BY '...' for each, or drop them",
				cfg.BindAddress, strings.Join(names, ", "))
		}
	}
	return nil
}

func emptyPasswords(mdb *mysql_db.MySQLDb) []string {
	rd := mdb.Reader()
	defer rd.Close()
	var names []string
	rd.VisitUsers(func(u *mysql_db.User) {
		if !u.IsRole && !u.Locked && u.AuthString == "" {
			names = append(names, fmt.Sprintf("'%s'@'%s'", u.User, u.Host))
		}
	})
	return names
}

// Privilege is what a fast-path statement needs on its table.
type Privilege = sql.PrivilegeType

// The privileges of the fast path's statements.
const (
	Select = sql.PrivilegeType_Select
	Insert = sql.PrivilegeType_Insert
	Update = sql.PrivilegeType_Update
	Delete = sql.PrivilegeType_Delete
)

// FastPathAllowed reports whether the fast path may run a statement
// needing privs on db.table for ctx's session (AUTH-5); false sends the
// statement to go-mysql-server, which checks it fully.
func FastPathAllowed(ctx *sql.Context, mdb *mysql_db.MySQLDb, db, table string, write bool, privs ...Privilege) bool {
	if write && readOnly() {
		return false
	}
	if !mdb.Enabled() {
		return true
	}
	ps := mdb.UserActivePrivilegeSet(ctx)
	for _, p := range privs {
		if !ps.Has(p) && !ps.Database(db).Has(p) && !ps.Database(db).Table(table).Has(p) {
			return false
		}
	}
	return true
}

func readOnly() bool {
	for _, v := range []string{"read_only", "super_read_only"} {
		if _, val, ok := sql.SystemVariables.GetGlobal(v); ok {
			if on, _ := val.(int8); on != 0 {
				return true
			}
		}
	}
	return false
}
