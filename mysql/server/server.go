// Package server runs the MySQL protocol listener: go-mysql-server's engine
// and wire protocol over the Strata backend. It owns listener set-up, the
// server's defaults (root with an empty password, a default database) and
// the engine counters shown by SHOW GLOBAL STATUS, and what its protocol
// handler (handler.go) corrects on the wire where go-mysql-server differs
// from MySQL: status flags, error codes and the diagnostics area, result
// metadata, statement-text corrections before the parser (rewrite.go:
// LIKE escapes, YEAR(4)/BLOB(n)/TEXT(n), DEFAULT f(), LOCK TABLE, the
// generated-column values of MariaDB dumps), DO, KILL of unknown ids and
// DEFAULT(col). It holds no data of its own: everything durable is in the
// engine.
//
// Its numbered rules, each stated where it is implemented: SRV-PANIC
// (panics.go: a panic is answered and counted, never the end of the
// server), SRV-CALL (callresults.go: a CALL's result sets), SRV-CHARSET
// (charset.go: statements in the client's character set), SRV-HANDSHAKE
// (charset.go: the handshake's collation is the connection's),
// SRV-REPLACE (replacetable.go: MariaDB's CREATE OR REPLACE TABLE),
// SRV-NESTING (nesting.go: subqueries nested past 12 levels are 1473),
// SRV-FLOATS (handler.go floatText: FLOAT and DOUBLE values written as
// MySQL writes them), SRV-CTAS (ctas.go: CREATE TABLE ... SELECT with
// column definitions or a UNION), SRV-PARENJOIN (parenjoins.go: FROM t1
// JOIN (t2, t3)), SRV-ORDERALIAS (orderalias.go: select-list aliases
// inside ORDER BY and GROUP BY expressions), SRV-PARENQUERY
// (parenquery.go: (SELECT ...) ORDER BY/LIMIT, CREATE VIEW v AS (SELECT
// ...)), SRV-DMLJOIN (dmljoin.go: a correlated subquery in a single-table
// DELETE or UPDATE), SRV-LOCKOPT (lockoptions.go: NOWAIT, SKIP LOCKED),
// SRV-WORDS (sqlwords.go: INTERVAL's compound units, USE/IGNORE/FORCE KEY),
// SRV-DIAG (diagnostics.go: SHOW ERRORS, SHOW COUNT(*) WARNINGS |
// ERRORS), SRV-STARTVARS (server.go startupVariables: global system
// variables from the command line, --character-set-server=latin1 as
// mysqld takes it), the fast path's FP-n (fastpath.go).
package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	sqle "github.com/dolthub/go-mysql-server"
	gms "github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"strata/engine"
	"strata/metrics"
	"strata/mysql/auth"
	"strata/mysql/backend"
	"strata/mysql/binlog"
	"strata/mysql/fastpath"
	"strata/mysql/infoschema"
	"strata/mysql/planner"
	"strata/mysql/routines"
	"strata/mysql/rules"
	"strata/page"
)

// Config is the listener's configuration.
type Config struct {
	Addr      string // host:port
	DefaultDB string // created on first start if not empty
	Version   string // server version announced to clients
	// NoFastPath sends every statement through go-mysql-server (tests and
	// comparisons).
	NoFastPath bool
	// Auth configures accounts (package auth); its BindAddress defaults
	// to Addr's host.
	Auth auth.Config
	// TLS is offered to clients when set (auth.LoadTLS); with
	// RequireSecureTransport plaintext TCP logins are refused (AUTH-10).
	TLS                    *tls.Config
	RequireSecureTransport bool
	// Variables are global system variables given on the command line
	// (--character-set-server=latin1, as mysqld takes them), set once the
	// server's own defaults are in place (SRV-STARTVARS).
	Variables map[string]string
	// Binlog, when set, is the binary log the server writes and serves
	// (package binlog; SRV-REPL-n).
	Binlog *binlog.Log
}

// DefaultVersion is the server version announced to clients.
const DefaultVersion = "8.0.33-strata"

// Server is a running MySQL protocol listener over one engine.
type Server struct {
	Backend *backend.Backend
	srv     *gms.Server
	ln      net.Listener
}

// New opens the SQL catalog on db and binds the listener (not serving
// until Start).
func New(db *engine.DB, cfg Config) (*Server, error) {
	b, err := backend.New(db, cfg.DefaultDB)
	if err != nil {
		return nil, fmt.Errorf("sql catalog: %w", err)
	}
	rules.Install()
	planner.Install() // PL-9
	auth.InstallRules()
	rules.ErrOutOfMemory = backend.ErrOutOfMemory
	e := sqle.NewDefault(b)
	e.Analyzer.Catalog.StatsProvider = rules.SafeStats(e.Analyzer.Catalog.StatsProvider) // RULE-21
	e.Analyzer.Coster = planner.New()                                                    // PL-1..7
	e.Analyzer.ExecBuilder = rules.Exec                                                  // RULE-80
	infoschema.Install(e.Analyzer.Catalog, routines.RoutineRows(b))                      // IS-1
	builtins := []string{}
	for _, f := range function.BuiltIns {
		builtins = append(builtins, f.FunctionName())
	}
	for _, f := range rules.Functions() { // FUNC-1: where the name is free
		builtins = append(builtins, f.FunctionName())
		if _, ok := e.Analyzer.Catalog.Function(sql.NewEmptyContext(), f.FunctionName()); !ok {
			e.Analyzer.Catalog.RegisterFunction(sql.NewEmptyContext(), f)
		}
	}
	routines.Install(e, b, builtins)   // FN-2, FN-3: stored functions in expressions
	if cfg.Auth.SecureFilePriv == "" { // auth AUTH-8's default
		dir := db.Dir()
		if dir == "" {
			dir = os.TempDir()
		}
		cfg.Auth.SecureFilePriv = filepath.Join(dir, "files")
	}
	if cfg.Auth.BindAddress == "" {
		cfg.Auth.BindAddress, _, _ = net.SplitHostPort(cfg.Addr)
	}
	if err := auth.Setup(e, db, cfg.Auth); err != nil {
		return nil, err
	}
	installStatus(b)
	installVariables(b)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	version := cfg.Version
	if version == "" {
		version = DefaultVersion
	}
	if err := serverVariables(db, ln, cfg.Auth.BindAddress, version); err != nil {
		ln.Close()
		return nil, err
	}
	if err := startupVariables(cfg.Variables); err != nil {
		ln.Close()
		return nil, err
	}
	if cfg.RequireSecureTransport {
		if cfg.TLS == nil {
			ln.Close()
			return nil, fmt.Errorf("require_secure_transport needs TLS")
		}
		if err := sql.SystemVariables.AssignValues(map[string]any{"require_secure_transport": int8(1)}); err != nil {
			ln.Close()
			return nil, err
		}
	}
	sessions := b.SessionBuilder()
	if cfg.Binlog != nil {
		b.SetBinlog(cfg.Binlog)
		if err := binlogVariables(cfg.Binlog); err != nil {
			ln.Close()
			return nil, err
		}
	}
	gcfg := gms.Config{Protocol: "tcp", Listener: &connLimit{Listener: ln, dump: cfg.Binlog != nil}, Version: version, TLSConfig: cfg.TLS,
		ProtocolListenerFactory: func(c gms.Config, lc mysql.ListenerConfig, sel gms.ServerEventListener) (gms.ProtocolListener, error) {
			lc.AuthServer = auth.WrapAuthServer(lc.AuthServer) // AUTH-6
			return gms.MySQLProtocolListenerFactory(c, lc, sel)
		}}
	srv, err := gms.NewServerWithHandler(gcfg, e,
		sql.NewContext, func(ctx context.Context, c *mysql.Conn, addr string) (sql.Session, error) {
			s, err := sessions(ctx, c, addr)
			if err == nil {
				auth.TLSStatus(sql.NewContext(ctx, sql.WithSession(s)), s, c) // AUTH-9
			}
			return s, err
		}, nil,
		func(h mysql.Handler) (mysql.Handler, error) {
			eh := &errorHandler{Handler: h, b: b, grants: e.Analyzer.Catalog.MySQLDb, binlog: cfg.Binlog, prepared: e.PreparedDataCache}
			if !cfg.NoFastPath {
				eh.fast = fastpath.New(b, e.Analyzer.Catalog.MySQLDb)
			}
			return eh, nil
		})
	if err != nil {
		ln.Close()
		return nil, err
	}
	return &Server{Backend: b, srv: srv, ln: ln}, nil
}

// started is when the server started (Uptime).
var started atomic.Int64

// serverVariables makes the variables that describe the server say what
// it is: its port and address, data directory, version (the handshake's
// string), host name, no socket; max_allowed_packet starts at MariaDB
// 10.11's 16 MiB, the largest value a row stores (btree.MaxValue; MySQL
// 8's 64 MiB would let a client send values no row takes, and
// go-mysql-server's 1 GiB let one statement take that much).
func serverVariables(db *engine.DB, ln net.Listener, bind, version string) error {
	started.Store(time.Now().Unix())
	port := int64(ln.Addr().(*net.TCPAddr).Port)
	datadir := db.Dir()
	if datadir != "" {
		if abs, err := filepath.Abs(datadir); err == nil {
			datadir = abs + string(filepath.Separator)
		}
	}
	host, _ := os.Hostname()
	return sql.SystemVariables.AssignValues(map[string]any{
		"port": port, "bind_address": bind, "datadir": datadir, "version": version,
		"version_comment": "Strata", "hostname": host, "socket": "", "max_allowed_packet": int64(16 << 20),
		"tmpdir": os.TempDir(),
	})
}

// IsSystemVariable reports whether name (dashes or underscores) is a
// server system variable, which the command line may set (SRV-STARTVARS).
func IsSystemVariable(name string) bool {
	_, _, ok := sql.SystemVariables.GetGlobal(strings.ReplaceAll(name, "-", "_"))
	return ok
}

// startupVariables sets the command line's global system variables
// (SRV-STARTVARS). A character set without a collation brings its default
// collation, as mysqld's --character-set-server does; the database
// variables follow the server's, the defaults new databases take (RULE-6).
func startupVariables(vars map[string]string) error {
	set := map[string]string{}
	for k, v := range vars {
		set[strings.ToLower(strings.ReplaceAll(k, "-", "_"))] = v
	}
	if cs, ok := set["character_set_server"]; ok {
		if _, ok := set["collation_server"]; !ok {
			c, err := sql.ParseCharacterSet(cs)
			if err != nil {
				return fmt.Errorf("--character-set-server: %w", err)
			}
			coll := c.DefaultCollation()
			if c == rules.DefaultCollation.CharacterSet() {
				coll = rules.DefaultCollation // MySQL 8's utf8mb4 default, not go-mysql-server's
			}
			set["collation_server"] = coll.Name()
		}
	}
	if coll, ok := set["collation_server"]; ok {
		c, err := sql.ParseCollation("", coll, false)
		if err != nil {
			return fmt.Errorf("--collation-server: %w", err)
		}
		set["character_set_server"] = c.CharacterSet().Name()
		for _, v := range []string{"collation_database", "character_set_database"} {
			if _, ok := set[v]; !ok {
				set[v] = set[strings.Replace(v, "database", "server", 1)]
			}
		}
	}
	ctx := sql.NewEmptyContext()
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if err := sql.SystemVariables.SetGlobal(ctx, name, set[name]); err != nil {
			return fmt.Errorf("--%s: %w", strings.ReplaceAll(name, "_", "-"), err)
		}
	}
	return nil
}

// Addr is the address the listener is bound to.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Start serves connections until Close.
func (s *Server) Start() error { return s.srv.Start() }

// Close stops accepting, closes client connections and persists the
// AUTO_INCREMENT counters (the engine is the caller's to close).
func (s *Server) Close() error {
	err := s.srv.Close()
	if cerr := s.Backend.CloseCounters(); err == nil {
		err = cerr
	}
	return err
}

// statusRegistry adds the engine's counters to go-mysql-server's global
// status variables, read fresh on every SHOW STATUS.
type statusRegistry struct {
	sql.StatusVariableRegistry
	b *backend.Backend
}

var installed atomic.Pointer[backend.Backend]

func installStatus(b *backend.Backend) {
	if installed.Swap(b) == nil {
		sql.StatusVariables = &statusRegistry{StatusVariableRegistry: sql.StatusVariables}
	}
}

func (r *statusRegistry) NewGlobalMap() map[string]sql.StatusVarValue {
	m := r.StatusVariableRegistry.NewGlobalMap()
	b := installed.Load()
	if b == nil {
		return m
	}
	for name, v := range status(b) {
		m[name] = &constStatus{name: name, val: v}
	}
	if t := started.Load(); t != 0 {
		m["Uptime"] = &constStatus{name: "Uptime", val: time.Now().Unix() - t}
	}
	pool, bpeRatio := metrics.HitRatios(b.Engine().Stats())
	m["Strata_pool_hit_ratio"] = &constStatus{name: "Strata_pool_hit_ratio", val: pool}
	m["Strata_bpe_hit_ratio"] = &constStatus{name: "Strata_bpe_hit_ratio", val: bpeRatio}
	io := b.Engine().Stats().IO
	m["Strata_io_limiter_mode"] = &constStatus{name: "Strata_io_limiter_mode", val: io.Mode}
	m["Strata_io_limiter_reason"] = &constStatus{name: "Strata_io_limiter_reason", val: io.Reason}
	return m
}

// constStatus is a read-only status value.
type constStatus struct {
	name string
	val  any // int64, float64 or string
}

func (c *constStatus) Increment(uint64) error { return fmt.Errorf("%s is read-only", c.name) }
func (c *constStatus) Set(any) error          { return fmt.Errorf("%s is read-only", c.name) }
func (c *constStatus) Value() any             { return c.val }
func (c *constStatus) Copy() sql.StatusVarValue {
	cp := *c
	return &cp
}
func (c *constStatus) Variable() sql.StatusVariable {
	switch c.val.(type) {
	case float64:
		return &sql.MySQLStatusVariable{Name: c.name, Scope: sql.StatusVariableScope_Global, Type: types.Float64, Default: 0.0}
	case string:
		return &sql.MySQLStatusVariable{Name: c.name, Scope: sql.StatusVariableScope_Global, Type: types.LongText, Default: ""}
	}
	return &sql.MySQLStatusVariable{Name: c.name, Scope: sql.StatusVariableScope_Global, Type: types.Int64, Default: int64(0)}
}

// installVariables registers the server's own system variables: SET
// GLOBAL strata_bpe_size = N resizes the buffer pool extension online.
func installVariables(b *backend.Backend) {
	size := b.Engine().Stats().BPE.Slots * page.Size
	// innodb_lock_wait_timeout: session and global, in seconds, as InnoDB
	// (go-mysql-server has it global and fixed at 1); new transactions take
	// the session's value (backend SES-7), SET GLOBAL also sets the
	// engine's default.
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    "innodb_lock_wait_timeout",
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic: true,
		Type:    types.NewSystemIntType("innodb_lock_wait_timeout", 1, 1073741824, false),
		Default: int64(max(1, b.Engine().LockWaitTimeout()/time.Second)),
		NotifyChanged: func(ctx *sql.Context, scope sql.SystemVariableScope, v sql.SystemVarValue) error {
			if secs, ok := v.Val.(int64); ok && scope.IsGlobalOnly() {
				if cur := installed.Load(); cur != nil {
					cur.Engine().SetLockWaitTimeout(time.Duration(secs) * time.Second)
				}
			}
			return nil
		},
	}})
	// warning_count and error_count: read-only, session; their values
	// come from the diagnostics area (backend SES-11).
	for _, name := range []string{"warning_count", "error_count"} {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
			Name: name, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Session), Dynamic: false,
			Type: types.NewSystemUintType(name, 0, math.MaxUint64), Default: uint64(0),
		}})
	}
	// optimizer_switch: accepted and shown (MySQL 8 has it; dump tools
	// and test suites set it), with no effect on go-mysql-server's planner.
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    "optimizer_switch",
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic: true,
		Type:    types.NewSystemStringType("optimizer_switch"),
		Default: "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on," +
			"engine_condition_pushdown=on,index_condition_pushdown=on,mrr=on,mrr_cost_based=on," +
			"block_nested_loop=on,batched_key_access=off,materialization=on,semijoin=on,loosescan=on," +
			"firstmatch=on,duplicateweedout=on,subquery_materialization_cost_based=on," +
			"use_index_extensions=on,condition_fanout_filter=on,derived_merge=on,use_invisible_indexes=off," +
			"skip_scan=on,hash_join=on,subquery_to_derived=off,prefer_ordering_index=on," +
			"hypergraph_optimizer=off,derived_condition_pushdown=on",
	}})
	// MariaDB's optimizer knobs, which its tools and test suites set:
	// accepted, shown, no effect (go-mysql-server has its own planner).
	for name, def := range map[string]any{
		"join_cache_level": int64(2), "optimizer_use_condition_selectivity": int64(4),
		"join_buffer_space_limit": int64(2097152), "histogram_size": int64(254),
		"tmp_memory_table_size": int64(16777216), "expensive_subquery_limit": int64(100),
	} {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
			Name: name, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true,
			Type: types.NewSystemIntType(name, 0, math.MaxInt64, false), Default: def,
		}})
	}
	// InnoDB's statistics knobs (MySQL 8 has them; scripts set them):
	// accepted, shown, global; strata's statistics are its own (ANALYZE).
	for name, def := range map[string]int64{"innodb_stats_persistent": 1, "innodb_stats_auto_recalc": 1} {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
			Name: name, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true,
			Type: types.NewSystemBoolType(name), Default: int8(def),
		}})
	}
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name: "innodb_stats_persistent_sample_pages", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true,
		Type: types.NewSystemUintType("innodb_stats_persistent_sample_pages", 1, math.MaxUint32), Default: uint64(20),
	}})
	for name, def := range map[string]string{"note_verbosity": "basic,explain", "use_stat_tables": "preferably_for_queries"} {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
			Name: name, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Both), Dynamic: true,
			Type: types.NewSystemStringType(name), Default: def,
		}})
	}
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{&sql.MysqlSystemVariable{
		Name:    "strata_bpe_size",
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Global),
		Dynamic: true,
		Type:    types.NewSystemIntType("strata_bpe_size", 0, math.MaxInt64, false),
		Default: size,
		NotifyChanged: func(ctx *sql.Context, _ sql.SystemVariableScope, v sql.SystemVarValue) error {
			cur := installed.Load()
			if cur == nil {
				return fmt.Errorf("no server")
			}
			n, ok := v.Val.(int64)
			if !ok {
				return fmt.Errorf("strata_bpe_size: want an integer, got %T", v.Val)
			}
			if err := cur.Engine().ResizeBPE(n); err != nil {
				return mysql.NewSQLError(mysql.ERWrongValueForVar, "42000", "strata_bpe_size: %v", err)
			}
			return nil
		},
	}})
}

// status is the engine's counters plus the SQL layer's row counters.
func status(b *backend.Backend) map[string]int64 {
	m := metrics.Status(b.Engine().Stats())
	read, written := b.RowCounters()
	m["Strata_rows_read"] = int64(read)
	m["Strata_rows_written"] = int64(written)
	m["Strata_fast_path_selects"] = int64(b.FastSelects())
	m["Strata_fast_path_writes"] = int64(b.FastWrites())
	m["Strata_fast_path_transaction_statements"] = int64(b.FastTxControl())
	m["Memory_used"] = m["Strata_memory_used_bytes"]      // MariaDB's name for it
	m["Strata_panics_recovered"] = panicsRecovered.Load() // SRV-PANIC
	return m
}
