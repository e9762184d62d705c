// Command strata is the Strata server: it opens (and recovers) the storage
// engine on the configured volumes, serves MySQL clients on --port and its
// metrics over HTTP in Prometheus format until SIGTERM/SIGINT, when it
// stops accepting clients, checkpoints and exits cleanly.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"strata/engine"
	"strata/iogov"
	"strata/memgov"
	"strata/metrics"
	"strata/mysql/auth"
	"strata/mysql/binlog"
	"strata/mysql/server"
	"strata/wal"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parseSize reads 128M, 1G, 4096, ... as bytes.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return n * mult, nil
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "strata:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "backup":
			return runBackup(args[1:])
		case "restore":
			return runRestore(args[1:])
		}
	}
	fs := flag.NewFlagSet("strata", flag.ContinueOnError)
	port := fs.Int("port", 3306, "MySQL protocol port")
	bind := fs.String("bind-address", "127.0.0.1", "address the MySQL listener binds to")
	metricsAddr := fs.String("metrics-addr", "127.0.0.1:9104", "address of the Prometheus metrics endpoint (empty: off)")
	datadir := fs.String("datadir", "./strata-data", "base directory; log, data and bpe subdirectories stand for the volumes")
	pool := fs.String("buffer-pool-size", "128M", "buffer pool size")
	logDir := fs.String("log-dir", "", "log volume directory (default DATADIR/log)")
	var dataDirs multiFlag
	fs.Var(&dataDirs, "data-dir", "data volume directory; repeat to stripe (default DATADIR/data)")
	logCap := fs.String("log-capacity", "256M", "redo log capacity (fixed when the log is created)")
	syncCommit := fs.Bool("sync-commit", true, "fsync the redo log before acknowledging a commit")
	commitDelay := fs.Duration("max-commit-delay", wal.DefaultMaxCommitDelay, "longest wait of the redo log writer for concurrent commits to share a sync (0: never wait)")
	tornWrite := fs.String("torn-write-protection", "", "doublewrite or atomic (default: atomic where the data volume guarantees it)")
	emulate := fs.String("emulate-volume", "", "emulated cloud volume profile for the data volumes (gp2-1t, gp3, io1-6k, essd-pl1, ...)")
	iops := fs.Int("volume-iops", 0, "override the profile's IOPS")
	mbps := fs.Int("volume-mbps", 0, "override the profile's MiB/s")
	lat := fs.Duration("volume-latency", 0, "override the profile's base latency")
	atomic := fs.Bool("volume-atomic", false, "declare the emulated volume atomic for whole pages")
	bpePath := fs.String("bpe-path", "", "buffer pool extension file on the local SSD (default DATADIR/bpe/bpe.cache)")
	bpeSize := fs.String("bpe-size", "0", "buffer pool extension size (0 = off; SET GLOBAL strata_bpe_size changes it online)")
	bpeAdmission := fs.String("bpe-admission", "all", "BPE admission policy: all (every clean eviction) or second (second eviction)")
	noDirect := fs.Bool("disable-direct-io", false, "open volume files without O_DIRECT (tmpfs)")
	ioLimiter := fs.String("io-limiter", "auto", "background page writes: auto (paced against foreground read latency), off (flush in bursts) or a fixed page-write rate per second")
	ioCapacity := fs.Int("io-capacity", 0, "data volumes' write IOPS: the auto limiter's ceiling, and group commit waits longer for company while the log's volume uses half of them (0: the limiter uses --emulate-volume's, else 3000; group commit's longer waits need it set)")
	maxDirty := fs.Int("max-dirty-pct", iogov.DefaultMaxDirtyPct, "dirty-page percentage at which background flushing runs at its full rate")
	rootPassword := fs.String("root-password", os.Getenv("STRATA_ROOT_PASSWORD"), "root@localhost's password, set at first start (default $STRATA_ROOT_PASSWORD; empty only on a loopback --bind-address)")
	secureFiles := fs.String("secure-file-priv", "", "the only directory LOAD_FILE, LOAD DATA INFILE and INTO OUTFILE may use (default DATADIR/files)")
	sslCert := fs.String("ssl-cert", "", "server certificate (PEM); default DATADIR/server-cert.pem, generated at first start")
	sslKey := fs.String("ssl-key", "", "server certificate's key (PEM); default DATADIR/server-key.pem")
	sslCA := fs.String("ssl-ca", "", "CA (PEM) for client certificates, shown in ssl_ca (default DATADIR/ca.pem, which signed the generated certificate)")
	requireTLS := fs.Bool("require-secure-transport", false, "refuse TCP clients that do not use TLS (error 3159)")
	tlsMin := fs.String("tls-min-version", "1.2", "lowest TLS version offered: 1.2 or 1.3")
	skipGrants := fs.Bool("skip-grant-tables", false, "accept every connection with every privilege (emergencies only; loopback only)")
	memBudget := fs.String("memory-budget", "", "the process's memory, buffer pool included; statements that would pass it fail with 1041 (default: 3/4 of the machine's or cgroup's memory)")
	versionBudget := fs.String("version-budget", "64M", "memory kept for the history open snapshots read; past it the oldest snapshots get 1412")
	maxTxnMem := fs.String("max-txn-memory", "0", "one transaction's changes and row locks; past it 1206 (0: the redo log capacity)")
	var logBin logBinFlag
	fs.Var(&logBin, "log-bin", "write the binary log (row-based, GTIDs) and serve replicas; --log-bin=NAME names its files NAME.000001, ... (default binlog)")
	serverID := fs.Uint("server-id", 1, "server id of the binary log's events")
	maxBinlog := fs.String("max-binlog-size", "1G", "a binary log file is rotated when a transaction would take it past this size (at most 1G)")
	maxBinlogTxn := fs.String("max-binlog-cache-size", "", "one transaction's binary log events; past it 1197 (default: an eighth of --log-capacity, the most one commit record can carry)")
	args, sysVars, err := systemVariableArgs(fs, args)
	if err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *port <= 0 || *port > 65535 {
		return fmt.Errorf("--port %d out of range", *port)
	}
	poolBytes, err := parseSize(*pool)
	if err != nil {
		return fmt.Errorf("--buffer-pool-size: %w", err)
	}
	logBytes, err := parseSize(*logCap)
	if err != nil {
		return fmt.Errorf("--log-capacity: %w", err)
	}
	bpeBytes, err := parseSize(*bpeSize)
	if err != nil {
		return fmt.Errorf("--bpe-size: %w", err)
	}
	versionBytes, err := parseSize(*versionBudget)
	if err != nil || versionBytes <= 0 {
		return fmt.Errorf("--version-budget %q: want a positive size", *versionBudget)
	}
	txnBytes, err := parseSize(*maxTxnMem)
	if err != nil {
		return fmt.Errorf("--max-txn-memory: %w", err)
	}
	budget, err := memoryBudget(*memBudget, poolBytes)
	if err != nil {
		return err
	}
	if *bpePath == "" {
		*bpePath = filepath.Join(*datadir, "bpe", "bpe.cache")
	}
	if err := os.MkdirAll(*datadir, 0o755); err != nil {
		return fmt.Errorf("--datadir: %w", err)
	}
	opts := engine.Options{Dir: *datadir, LogDir: *logDir, DataDirs: dataDirs, BufferPoolBytes: poolBytes,
		LogCapacity: logBytes, AsyncCommit: !*syncCommit, MaxCommitDelay: commitDelayOption(*commitDelay), TornWriteProtection: *tornWrite, Emulate: *emulate,
		VolumeIOPS: *iops, VolumeMBps: *mbps, VolumeLatency: *lat, VolumeAtomic: *atomic, DisableDirectIO: *noDirect,
		BPEPath: *bpePath, BPEBytes: bpeBytes, BPEAdmission: *bpeAdmission,
		IOLimiter: *ioLimiter, IOCapacity: *ioCapacity, MaxDirtyPct: *maxDirty, MaxTxnMemory: txnBytes, VersionBudget: versionBytes}
	if err := memgov.Start(budget); err != nil {
		return err
	}
	defer memgov.Stop()
	slog.Info("memory budget", "bytes", budget, "machine_bytes", memgov.MachineMemory())
	// SIGTERM/SIGINT are caught from here on, before the listener can accept
	// a client: a signal that arrives while the engine opens or the listener
	// starts still ends in the clean shutdown below, not in a default-action
	// exit (a test that stops the server right after its first query saw that).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	db, err := engine.Open(opts)
	if err != nil {
		return fmt.Errorf("open %s: %w", filepath.Clean(*datadir), err)
	}
	st := db.Stats()
	slog.Info("engine open", "datadir", *datadir, "buffer_pool_pages", st.Pool.Frames,
		"torn_write_protection", st.TornWriteProtection, "recovered_records", st.RecoveredRecords,
		"open_time", time.Since(start).Round(time.Millisecond))
	tlsCfg, err := auth.LoadTLS(auth.TLSConfig{Dir: *datadir, Cert: *sslCert, Key: *sslKey, CA: *sslCA,
		MinVersion: *tlsMin, Hosts: []string{*bind}})
	if err != nil {
		db.Close()
		return err
	}
	var blog *binlog.Log
	if logBin.on {
		fileSize, err := parseSize(*maxBinlog)
		if err != nil || fileSize < 4096 || fileSize > 1<<30 {
			db.Close()
			return fmt.Errorf("--max-binlog-size %q: want 4K..1G", *maxBinlog)
		}
		txnSize := db.LogCapacity() / 8
		if *maxBinlogTxn != "" {
			if txnSize, err = parseSize(*maxBinlogTxn); err != nil || txnSize <= 0 || txnSize > db.LogCapacity()/4 {
				db.Close()
				return fmt.Errorf("--max-binlog-cache-size %q: want a positive size up to a quarter of the redo log (%d)", *maxBinlogTxn, db.LogCapacity()/4)
			}
		}
		if blog, err = binlog.Open(db, binlog.Options{Basename: logBin.name, ServerID: uint32(*serverID),
			MaxFileSize: fileSize, MaxTxnBytes: txnSize, Version: server.DefaultVersion}); err != nil {
			db.Close()
			return fmt.Errorf("binary log: %w", err)
		}
		defer blog.Close()
		file, pos, _ := blog.Status()
		slog.Info("binary log on", "file", file, "position", pos, "server_id", *serverID, "server_uuid", blog.ServerUUID())
	}
	srvAddr := net.JoinHostPort(*bind, strconv.Itoa(*port))
	sqlSrv, err := server.New(db, server.Config{Addr: srvAddr, TLS: tlsCfg, RequireSecureTransport: *requireTLS,
		Auth:      auth.Config{BindAddress: *bind, RootPassword: *rootPassword, SkipGrantTables: *skipGrants, SecureFilePriv: *secureFiles},
		Variables: sysVars, Binlog: blog})
	if err != nil {
		db.Close()
		return fmt.Errorf("mysql listener %s: %w", srvAddr, err)
	}
	go func() {
		if err := sqlSrv.Start(); err != nil {
			slog.Error("mysql listener", "err", err)
		}
	}()
	slog.Info("serving MySQL clients", "addr", sqlSrv.Addr().String())

	var srv *http.Server
	if *metricsAddr != "" {
		reg := prometheus.NewRegistry()
		reg.MustRegister(metrics.NewCollector(db))
		ln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			sqlSrv.Close()
			db.Close()
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		// CPU and heap profiles and execution traces for benchmarks: go tool pprof http://ADDR/debug/pprof/profile
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		srv = &http.Server{Handler: mux}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				slog.Error("metrics endpoint", "err", err)
			}
		}()
		slog.Info("metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	}
	<-ctx.Done()
	slog.Info("shutting down: closing client connections, then checkpoint")
	if err := sqlSrv.Close(); err != nil {
		slog.Error("closing the mysql listener", "err", err)
	}
	if srv != nil {
		srv.Close()
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	slog.Info("clean shutdown")
	return nil
}

// systemVariableArgs takes the options that name a server system variable
// rather than a flag of strata's (--character-set-server=latin1,
// --sql-mode=..., --max-connections 200: mysqld's way of setting a global
// at start) out of args; the server sets them (server SRV-STARTVARS).
func systemVariableArgs(fs *flag.FlagSet, args []string) ([]string, map[string]string, error) {
	var rest []string
	vars := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil || name == "h" || name == "help" || !server.IsSystemVariable(name) {
			rest = append(rest, a)
			if f != nil && !hasValue && !isBoolFlag(f) && i+1 < len(args) {
				i++
				rest = append(rest, args[i]) // the flag's value
			}
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, nil, fmt.Errorf("%s: needs a value", a)
			}
			i++
			value = args[i]
		}
		vars[name] = value
	}
	return rest, vars, nil
}

// logBinFlag is --log-bin, alone (on, files named binlog.NNNNNN) or
// --log-bin=NAME.
type logBinFlag struct {
	on   bool
	name string
}

func (f *logBinFlag) IsBoolFlag() bool { return true }
func (f *logBinFlag) String() string {
	if f == nil || !f.on {
		return ""
	}
	return f.name
}
func (f *logBinFlag) Set(v string) error {
	switch strings.ToLower(v) {
	case "true", "on", "1":
		f.on, f.name = true, "binlog"
	case "false", "off", "0":
		f.on = false
	default:
		if strings.ContainsAny(v, "/\\") {
			return fmt.Errorf("a base name, not a path: %q", v)
		}
		f.on, f.name = true, v
	}
	return nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// memoryBudget is --memory-budget, or memgov's default (MEM-1) but never
// less than the buffer pool plus 256 MiB. A given budget must leave 64 MiB
// beside the pool.
func memoryBudget(flagValue string, poolBytes int64) (int64, error) {
	if flagValue == "" {
		return max(memgov.DefaultBudget(), poolBytes+256<<20), nil
	}
	b, err := parseSize(flagValue)
	if err != nil {
		return 0, fmt.Errorf("--memory-budget: %w", err)
	}
	if b < poolBytes+64<<20 {
		return 0, fmt.Errorf("--memory-budget %s leaves less than 64 MiB beside the %d-byte buffer pool: raise it or lower --buffer-pool-size", flagValue, poolBytes)
	}
	return b, nil
}

// commitDelayOption maps --max-commit-delay to the engine's option, whose
// zero means the default: 0 turns the wait off.
func commitDelayOption(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
