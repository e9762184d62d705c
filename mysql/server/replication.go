package server

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/sirupsen/logrus"

	"strata/mysql/backend"
	"strata/mysql/binlog"
	"strata/mysql/rules"
)

// The primary side of replication (package binlog serves the events):
//
// SRV-REPL-1 COM_BINLOG_DUMP (by file and position: MariaDB replicas,
// mariadb-binlog, Maxwell) is not handled by the wire library; while the
// binary log is on, each connection's reader (dumpConn) rewrites that
// command into a COM_BINLOG_DUMP_GTID without a GTID set, which the wire
// library hands to ComBinlogDumpGTID. Up to a TLS request the reader sees
// the packets; after one it passes bytes through (a dump over TLS gets
// 1047, as before).
// SRV-REPL-2 A dump needs REPLICATION SLAVE (binlog BL-5), answered with
// 1227 otherwise; the replica's @master_binlog_checksum and
// @master_heartbeat_period (nanoseconds) are read from its session.
// SRV-REPL-3 SHOW MASTER STATUS / SHOW BINARY LOG STATUS and SHOW BINARY
// LOGS / SHOW MASTER LOGS need REPLICATION CLIENT or SUPER; PURGE
// BINARY|MASTER LOGS TO 'file' | BEFORE 'datetime' needs SUPER (MySQL's
// BINLOG_ADMIN). Without the log, they answer as MySQL without --log-bin:
// 1381 "You are not using binary logging".
// SRV-REPL-6 SHOW STATUS LIKE 'binlog_snapshot_%' gives MariaDB's
// Binlog_snapshot_file/position: the log's position as of the open
// transaction's snapshot (binlog BL-9; START TRANSACTION WITH CONSISTENT
// SNAPSHOT), so mariadb-dump --single-transaction --master-data writes the
// position its data is at, without FLUSH TABLES WITH READ LOCK.
// SRV-REPL-7 COM_REGISTER_SLAVE's server id, host, port and master id
// (read by the connection's reader; the wire library keeps only host and
// port) are listed by SHOW SLAVE HOSTS / SHOW REPLICAS (REPLICATION SLAVE)
// while the replica's connection lasts.
// SRV-REPL-5 mariadb-binlog --read-from-remote-server (its handshake's
// program_name) is answered SELECT VERSION() with 5.7.99-<version>: the
// tool refuses a server whose version begins with 8.
// SRV-REPL-4 DDL (CREATE, ALTER, DROP, RENAME, TRUNCATE of schema
// objects; not TEMPORARY tables, not accounts: a password must not reach
// the log) is logged as its text (binlog BL-6) by the catalog commit that
// makes it visible (backend CAT-7), or, when it made none, as it succeeds,
// before its OK (spool, FinishStatement). Its row changes (an ALTER's
// copy) are not captured. CREATE TABLE ... SELECT is logged when it
// finishes, its rows not captured: the replica runs the statement on its
// own copy of the source tables. An EXECUTE of a PREPAREd DDL is logged as
// that DDL (rules RULE-78 for those inside procedures).

var snapshotStatusRE = regexp.MustCompile(`(?is)^\s*SHOW\s+(?:SESSION\s+|LOCAL\s+)?STATUS\s+LIKE\s+'binlog_snapshot_%'\s*;?\s*$`)

var replStatementRE = regexp.MustCompile(`(?is)^\s*(?:SHOW\s+(MASTER\s+STATUS|BINARY\s+LOG\s+STATUS|BINARY\s+LOGS|MASTER\s+LOGS|SLAVE\s+HOSTS|REPLICAS)|PURGE\s+(?:BINARY|MASTER)\s+LOGS\s+(TO|BEFORE)\s+(.+?))\s*;?\s*$`)

func (h *errorHandler) hasPrivilege(ctx *sql.Context, privs ...sql.PrivilegeType) bool {
	if h.grants == nil || !h.grants.Enabled() {
		return true
	}
	ps := h.grants.UserActivePrivilegeSet(ctx)
	for _, p := range privs {
		if ps.Has(p) {
			return true
		}
	}
	return false
}

func needPrivileges(names string) error {
	return mysql.NewSQLError(mysql.ERSpecifiedAccessDenied, "42000",
		"Access denied; you need (at least one of) the %s privilege(s) for this operation", names)
}

// replicationStatement answers SRV-REPL-3's statements (ok).
func (h *errorHandler) replicationStatement(goctx context.Context, c *mysql.Conn, query string) (*sqltypes.Result, bool, error) {
	if !startsWithWord(query, "show") && !startsWithWord(query, "purge") {
		return nil, false, nil
	}
	s := h.session(c)
	if s == nil {
		return nil, false, nil
	}
	if h.binlog != nil && snapshotStatusRE.MatchString(query) {
		// SRV-REPL-6: the log's position as of the transaction's snapshot
		// (binlog BL-9), else the current one.
		file, pos, _ := h.binlog.Status()
		if ts, ok := s.SnapshotTS(); ok {
			var known bool
			if file, pos, known = h.binlog.PositionAt(ts); !known {
				return nil, true, mysql.NewSQLError(1412, "HY000", "The snapshot is older than the binary log positions kept; start a new transaction")
			}
		}
		return &sqltypes.Result{Fields: []*querypb.Field{textField("Variable_name"), textField("Value")},
			Rows: [][]sqltypes.Value{
				{sqltypes.NewVarChar("Binlog_snapshot_file"), sqltypes.NewVarChar(file)},
				{sqltypes.NewVarChar("Binlog_snapshot_position"), sqltypes.NewVarChar(strconv.FormatUint(pos, 10))},
			}}, true, nil
	}
	m := replStatementRE.FindStringSubmatch(query)
	if m == nil {
		return nil, false, nil
	}
	ctx := sql.NewContext(goctx, sql.WithSession(s))
	show := strings.ToUpper(strings.Join(strings.Fields(m[1]), " "))
	if show == "SLAVE HOSTS" || show == "REPLICAS" {
		if !h.hasPrivilege(ctx, sql.PrivilegeType_ReplicationSlave, sql.PrivilegeType_Super) {
			return nil, true, needPrivileges("REPLICATION SLAVE")
		}
		if h.binlog == nil {
			return replicaColumns(show == "REPLICAS"), true, nil
		}
		return h.showReplicas(show == "REPLICAS"), true, nil
	}
	if show != "" {
		if !h.hasPrivilege(ctx, sql.PrivilegeType_ReplicationClient, sql.PrivilegeType_Super) {
			return nil, true, needPrivileges("SUPER, REPLICATION CLIENT")
		}
	} else if !h.hasPrivilege(ctx, sql.PrivilegeType_Super) {
		return nil, true, needPrivileges("SUPER, BINLOG_ADMIN")
	}
	l := h.binlog
	switch show {
	case "MASTER STATUS", "BINARY LOG STATUS":
		res := &sqltypes.Result{Fields: []*querypb.Field{textField("File"), {Name: "Position", Type: sqltypes.Uint64, Charset: 63, ColumnLength: 20},
			textField("Binlog_Do_DB"), textField("Binlog_Ignore_DB"), textField("Executed_Gtid_Set")}}
		if l != nil {
			file, pos, gtids := l.Status()
			res.Rows = [][]sqltypes.Value{{sqltypes.NewVarChar(file), sqltypes.NewUint64(pos),
				sqltypes.NewVarChar(""), sqltypes.NewVarChar(""), sqltypes.NewVarChar(gtids)}}
		}
		return res, true, nil
	case "BINARY LOGS", "MASTER LOGS":
		if l == nil {
			return nil, true, errNoBinlog
		}
		files, err := l.Files()
		if err != nil {
			return nil, true, err
		}
		res := &sqltypes.Result{Fields: []*querypb.Field{textField("Log_name"), {Name: "File_size", Type: sqltypes.Uint64, Charset: 63, ColumnLength: 20}}}
		for _, f := range files {
			res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.NewVarChar(f.Name), sqltypes.NewUint64(f.Size)})
		}
		return res, true, nil
	}
	if l == nil {
		return nil, true, errNoBinlog
	}
	arg := strings.TrimSpace(m[3])
	if len(arg) < 2 || arg[0] != '\'' && arg[0] != '"' || arg[len(arg)-1] != arg[0] {
		return nil, true, mysql.NewSQLError(mysql.ERParseError, "42000", "You have an error in your SQL syntax near '%s'", arg)
	}
	arg = arg[1 : len(arg)-1]
	var err error
	if strings.EqualFold(m[2], "to") {
		err = l.PurgeTo(arg)
	} else {
		var t time.Time
		if t, err = time.ParseInLocation("2006-01-02 15:04:05", arg, time.Local); err != nil {
			if t, err = time.ParseInLocation("2006-01-02", arg, time.Local); err != nil {
				return nil, true, mysql.NewSQLError(1210, "HY000", "Incorrect arguments to PURGE LOGS BEFORE")
			}
		}
		err = l.PurgeBefore(t)
	}
	if err != nil {
		return nil, true, err
	}
	return &sqltypes.Result{}, true, nil
}

var errNoBinlog = mysql.NewSQLError(1381, "HY000", "You are not using binary logging")

// ComRegisterReplica accepts a replica's registration (SRV-REPL-2) and
// lists it in SHOW SLAVE HOSTS / SHOW REPLICAS while its connection lasts
// (SRV-REPL-7).
func (h *errorHandler) ComRegisterReplica(c *mysql.Conn, host string, port uint16, user, password string) error {
	if h.binlog == nil {
		return errNoBinlog
	}
	if err := h.replicationAllowed(c); err != nil {
		return err
	}
	r := replicaInfo{host: host, port: port}
	if d, ok := c.Conn.(*dumpConn); ok {
		r = d.replica
	}
	h.replicas.Store(c.ConnectionID, r)
	return nil
}

// showReplicas answers SHOW SLAVE HOSTS (MariaDB's columns) and SHOW
// REPLICAS (MySQL 8's) from the registered replicas (SRV-REPL-7).
func (h *errorHandler) showReplicas(mysqlColumns bool) *sqltypes.Result {
	res := replicaColumns(mysqlColumns)
	own := h.binlog.ServerID()
	var rows [][]sqltypes.Value
	h.replicas.Range(func(_, v any) bool {
		r := v.(replicaInfo)
		master := r.masterID
		if master == 0 {
			master = own
		}
		row := []sqltypes.Value{sqltypes.NewUint32(r.serverID), sqltypes.NewVarChar(r.host), sqltypes.NewUint32(uint32(r.port)), sqltypes.NewUint32(master)}
		if mysqlColumns {
			row = append(row, sqltypes.NewVarChar(""))
		}
		rows = append(rows, row)
		return true
	})
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].ToString() < rows[j][0].ToString() })
	res.Rows = rows
	return res
}

func (h *errorHandler) replicationAllowed(c *mysql.Conn) error {
	if !h.hasPrivilege(h.connContext(c), sql.PrivilegeType_ReplicationSlave) {
		return needPrivileges("REPLICATION SLAVE")
	}
	return nil
}

// connContext is a context for c's account: its session's, or, before
// go-mysql-server made one (a dump sent as the first command), one for the
// user and host the handshake authenticated.
func (h *errorHandler) connContext(c *mysql.Conn) *sql.Context {
	if s := h.session(c); s != nil {
		return sql.NewContext(context.Background(), sql.WithSession(s))
	}
	var client sql.Client
	if u, ok := c.UserData.(sql.MysqlConnectionUser); ok {
		client = sql.Client{User: u.User, Address: u.Host}
	}
	base := sql.NewBaseSessionWithClientServer("", client, c.ConnectionID)
	base.SetPrivilegeSet(mysql_db.NewPrivilegeSet(), math.MaxUint64) // stale: computed at the first check
	return sql.NewContext(context.Background(), sql.WithSession(base))
}

// ComBinlogDumpGTID streams the binary log (SRV-REPL-1, -2); a nil set is
// a dump by file and position.
func (h *errorHandler) ComBinlogDumpGTID(c *mysql.Conn, logFile string, logPos uint64, gtidSet mysql.GTIDSet) error {
	if h.binlog == nil {
		return errNoBinlog
	}
	if err := h.replicationAllowed(c); err != nil {
		return err
	}
	o := binlog.DumpOptions{}
	if s := h.session(c); s != nil {
		ctx := sql.NewContext(context.Background(), sql.WithSession(s))
		if _, v, err := s.GetUserVariable(ctx, "master_binlog_checksum"); err == nil && v != nil {
			o.Checksums = true
			o.RotateCRC = strings.EqualFold(fmt.Sprint(v), "CRC32")
		}
		if _, v, err := s.GetUserVariable(ctx, "master_heartbeat_period"); err == nil && v != nil {
			if ns, err := strconv.ParseFloat(fmt.Sprint(v), 64); err == nil && ns > 0 {
				o.Heartbeat = time.Duration(ns)
			}
		}
	}
	if d, ok := c.Conn.(*dumpConn); ok && gtidSet == nil {
		o.NonBlock = d.nonBlock
	}
	n, err := h.binlog.DumpGTID(c, logFile, logPos, gtidSet, o)
	if err == nil && o.NonBlock {
		// The end of the log: an EOF packet after the n events, written
		// past the wire library (which has no writer for it).
		if err = c.FlushBuffer(); err == nil {
			_, err = c.Conn.Write([]byte{5, 0, 0, byte(n + 1), 0xfe, 0, 0, 0, 0})
		}
	}
	return err
}

// binlogReaderVersion answers SELECT VERSION() for mariadb-binlog
// (SRV-REPL-5): it reads from a server only if the version begins with 5
// or 1 (MariaDB's own tool takes MySQL 8's logs from files only); the
// events it reads are the same whatever the answer.
func (h *errorHandler) binlogReaderVersion(c *mysql.Conn, query string) (*sqltypes.Result, bool) {
	d, ok := c.Conn.(*dumpConn)
	if !ok || d.program != "mysqlbinlog" && d.program != "mariadb-binlog" ||
		!strings.EqualFold(strings.Join(strings.Fields(query), " "), "SELECT VERSION()") {
		return nil, false
	}
	v := "5.7.99-" + DefaultVersion
	if _, val, ok := sql.SystemVariables.GetGlobal("version"); ok {
		v = "5.7.99-" + fmt.Sprint(val)
	}
	return &sqltypes.Result{Fields: []*querypb.Field{textField("VERSION()")},
		Rows: [][]sqltypes.Value{{sqltypes.NewVarChar(v)}}}, true
}

// ddlLogged reports whether a statement is logged as its text
// (SRV-REPL-4).
func ddlLogged(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	word := func(w string) bool { return startsWithWord(q, w) }
	if !(word("create") || word("alter") || word("drop") || word("rename") || word("truncate")) {
		return false
	}
	fields := strings.Fields(strings.ToLower(q))
	if len(fields) < 2 {
		return false
	}
	switch fields[1] {
	case "temporary", "user", "role":
		return false
	case "or": // CREATE OR REPLACE ...
		return true
	case "definer": // CREATE DEFINER=... (a view, trigger, procedure)
		return true
	}
	return true
}

// statementText is the text a DDL statement is logged as: the first of a
// multi-statement text when it parses alone (a procedure's or trigger's
// body holds ';' the split would cut at: then the whole text, as one
// statement).
func statementText(query string) string {
	first, rest, err := sqlparser.SplitStatement(query)
	if err != nil || strings.TrimSpace(first) == "" || strings.TrimSpace(rest) == "" {
		first = query
	} else if _, perr := sqlparser.Parse(first); perr != nil {
		first = query
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(first), ";"))
}

var executeRE = regexp.MustCompile(`(?is)^\s*EXECUTE\s+([A-Za-z0-9_$]+|` + "`[^`]+`" + `)`)

// finishLogged finishes the statement before its OK is sent (SRV-REPL-4,
// backend CAT-7: the tables it created become everyone's, its text is
// logged); nothing while the log is off.
func (h *errorHandler) finishLogged(c *mysql.Conn) error {
	if h.binlog == nil {
		return nil
	}
	if s := h.session(c); s != nil {
		return s.FinishStatement()
	}
	return nil
}

// beginLogged names the text the statement is logged as in the binary log
// (SRV-REPL-4): a DDL's own, or the DDL text an EXECUTE runs (rules
// RULE-78); every other statement names none.
func (h *errorHandler) beginLogged(s *backend.Session, query string) {
	s.LogStatement("", "") // a statement that ended without done() logs nothing later
	text, asText := "", false
	if ddlLogged(query) {
		text, asText = statementText(query), mayCreateSelect(query)
	} else if m := executeRE.FindStringSubmatch(query); m != nil {
		var ok bool
		if text, asText, ok = rules.ExecutedText(h.prepared, s.ID(), strings.Trim(m[1], "`")); !ok {
			return
		}
	} else {
		return
	}
	if asText {
		s.LogAsText()
	}
	s.LogStatement(s.GetCurrentDatabase(), text) // backend CAT-7
}

// dumpConn is SRV-REPL-1's reader.
type dumpConn struct {
	net.Conn
	r       *bufio.Reader
	out     []byte // a packet read whole (rewritten or looked at), not yet read
	payload int    // bytes of the current packet still to pass through
	raw     bool   // after a TLS request: bytes pass unread
	// nonBlock: the last COM_BINLOG_DUMP asked to stop at the end of the
	// log (the rewritten command cannot say it: the wire library refuses
	// the flag).
	nonBlock bool
	program  string // the handshake's program_name attribute
	replica  replicaInfo
}

// replicaInfo is what a COM_REGISTER_SLAVE says of the replica.
type replicaInfo struct {
	serverID, masterID uint32
	host               string
	port               uint16
}

// parseRegister reads COM_REGISTER_SLAVE's payload after the command
// byte: server id, host, user, password (each length-prefixed), port,
// rank, master id.
func parseRegister(p []byte) replicaInfo {
	var r replicaInfo
	if len(p) < 4 {
		return r
	}
	r.serverID = binary.LittleEndian.Uint32(p)
	p = p[4:]
	var fields [3]string
	for i := range fields {
		if len(p) < 1 || len(p) < 1+int(p[0]) {
			return r
		}
		fields[i], p = string(p[1:1+int(p[0])]), p[1+int(p[0]):]
	}
	r.host = fields[0]
	if len(p) >= 2 {
		r.port = binary.LittleEndian.Uint16(p)
	}
	if len(p) >= 10 {
		r.masterID = binary.LittleEndian.Uint32(p[6:])
	}
	return r
}

func newDumpConn(c net.Conn) *dumpConn { return &dumpConn{Conn: c, r: bufio.NewReaderSize(c, 4096)} }

func (d *dumpConn) Read(p []byte) (int, error) {
	if len(d.out) > 0 {
		n := copy(p, d.out)
		d.out = d.out[n:]
		return n, nil
	}
	if d.raw {
		if d.r.Buffered() > 0 {
			return d.r.Read(p)
		}
		return d.Conn.Read(p)
	}
	if d.payload > 0 {
		if len(p) > d.payload {
			p = p[:d.payload]
		}
		n, err := d.r.Read(p)
		d.payload -= n
		return n, err
	}
	// A packet is read whole only when it is looked at: a
	// COM_BINLOG_DUMP or COM_REGISTER_SLAVE, or the handshake's; every
	// other one passes through from the buffer (header included).
	hdr, err := d.r.Peek(4)
	if err != nil {
		return 0, err
	}
	size := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	seq := hdr[3]
	inspect := size > 0 && size < 4096 && seq == 1
	if size > 0 && size < 4096 && seq == 0 {
		if c, err := d.r.Peek(5); err == nil && (c[4] == mysql.ComBinlogDump || c[4] == mysql.ComRegisterReplica) {
			inspect = true
		}
	}
	if !inspect {
		d.payload = 4 + size
		return d.Read(p)
	}
	pkt := make([]byte, 4+size)
	if _, err := io.ReadFull(d.r, pkt); err != nil {
		return 0, err
	}
	switch {
	case seq == 0 && pkt[4] == mysql.ComRegisterReplica:
		d.replica = parseRegister(pkt[5:])
	case seq == 0: // COM_BINLOG_DUMP
		d.nonBlock = len(pkt) >= 11 && binary.LittleEndian.Uint16(pkt[9:])&mysql.BinlogDumpNonBlock != 0
		pkt = rewriteDump(pkt[4:])
	case size == 32 && binary.LittleEndian.Uint32(pkt[4:])&mysql.CapabilityClientSSL != 0:
		// A TLS request (CLIENT_SSL in its capabilities): bytes pass
		// unread from here on.
		d.raw = true
	default:
		// The handshake response: its attributes name the client program.
		if i := strings.Index(string(pkt), "\x0cprogram_name"); i >= 0 && i+14 < len(pkt) {
			if n := int(pkt[i+13]); n < 0xfb && i+14+n <= len(pkt) {
				d.program = string(pkt[i+14 : i+14+n])
			}
		}
	}
	d.out = pkt
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

// rewriteDump turns a COM_BINLOG_DUMP payload (position 4, flags 2,
// server id 4, file name) into a COM_BINLOG_DUMP_GTID packet (flags 2,
// server id 4, name length 4, name, position 8, no GTID set).
func rewriteDump(p []byte) []byte {
	if len(p) < 11 {
		return append([]byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), 0}, p...)
	}
	pos := binary.LittleEndian.Uint32(p[1:])
	flags := binary.LittleEndian.Uint16(p[5:]) &^ (mysql.BinlogThroughGTID | mysql.BinlogDumpNonBlock) // non-block: dumpConn.nonBlock
	server := binary.LittleEndian.Uint32(p[7:])
	name := p[11:]
	out := []byte{mysql.ComBinlogDumpGTID}
	out = binary.LittleEndian.AppendUint16(out, flags)
	out = binary.LittleEndian.AppendUint32(out, server)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(name)))
	out = append(out, name...)
	out = binary.LittleEndian.AppendUint64(out, uint64(pos))
	n := len(out)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), 0}, out...)
}

// binlogVariables makes the variables describing the binary log say it is
// on, with its server id, uuid and formats.
func binlogVariables(l *binlog.Log) error {
	file, _, _ := l.Status()
	base := strings.TrimSuffix(file, file[strings.LastIndexByte(file, '.'):])
	if err := sql.SystemVariables.AssignValues(map[string]any{
		"log_bin": int8(1), "server_uuid": l.ServerUUID(), "server_id": l.ServerID(),
		"binlog_format": "ROW", "binlog_checksum": "CRC32", "binlog_row_image": "FULL",
		"gtid_mode": "ON", "enforce_gtid_consistency": "ON",
	}); err != nil {
		return err
	}
	sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{
		&sql.MysqlSystemVariable{Name: "log_bin_basename", Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global),
			Type: types.NewSystemStringType("log_bin_basename"), Default: base},
	})
	go expireLoop(l)
	return nil
}

// expireLoop purges the files older than binlog_expire_logs_seconds, at
// start and every minute (0: never).
func expireLoop(l *binlog.Log) {
	for {
		if _, v, ok := sql.SystemVariables.GetGlobal("binlog_expire_logs_seconds"); ok {
			if secs, ok := v.(int64); ok && secs > 0 {
				if err := l.PurgeBefore(time.Now().Add(-time.Duration(secs) * time.Second)); err != nil {
					logrus.Errorf("strata: binary log expiry: %v", err)
				}
			}
		}
		select {
		case <-l.Closed():
			return
		case <-time.After(time.Minute):
		}
	}
}

// replicaColumns is SHOW SLAVE HOSTS' (MariaDB) or SHOW REPLICAS' (MySQL
// 8) result without rows.
func replicaColumns(mysqlColumns bool) *sqltypes.Result {
	u32 := func(n string) *querypb.Field {
		return &querypb.Field{Name: n, Type: sqltypes.Uint32, Charset: 63, ColumnLength: 10}
	}
	if mysqlColumns {
		return &sqltypes.Result{Fields: []*querypb.Field{u32("Server_Id"), textField("Host"), u32("Port"), u32("Source_Id"), textField("Replica_UUID")}}
	}
	return &sqltypes.Result{Fields: []*querypb.Field{u32("Server_id"), textField("Host"), u32("Port"), u32("Master_id")}}
}
