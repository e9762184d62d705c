package server

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"strata/engine"
)

// FuzzStatementText: the text-level passes over every statement
// (rewrite.go's corrections, the interception tests, the placeholder
// count, the error rewording) take any text without panicking, and a
// rewrite keeps the text outside what it corrects (a statement without a
// backslash, YEAR, BLOB, TEXT, DEFAULT, LOCK, FOR or `:=` is returned as
// it is: `@v := expr` becomes strata_assign(@v, (expr)), FUNC-2).
func FuzzStatementText(f *testing.F) {
	for _, s := range []string{"SELECT 'a\\_b' LIKE 'a\\_b'", "CREATE TABLE t (y YEAR(4), b BLOB(10), d DATE DEFAULT curdate())",
		"LOCK TABLE t READ", "KILL 5", "SHOW GRANTS", "INSERT INTO t VALUES (?, ?)", "/* c */ DO 1", "SELECT `a``b` FROM t -- x"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, q string, escapes bool) {
		out := rewriteQuery(q, escapes)
		if !strings.ContainsAny(q, "\\yYbBtTdDlLfF") && !strings.Contains(q, ":=") && out != q {
			t.Fatalf("rewrote %q to %q", q, out)
		}
		mayIntercept(q)
		usesDefaultFunction(q)
		ownsInsertID(q)
		placeholderLimit(q)
		privilegeWording(q, nil)
		ownGrantsRE.MatchString(q)
	})
}

// fuzzServer is one server for all of FuzzCommandPackets' inputs.
var fuzzServer struct {
	once   sync.Once
	addr   string
	db     *sql.DB
	panics int64 // PanicsRecovered when the server started
}

// FuzzCommandPackets: after a proper login, any command packet (any
// command byte, any payload, possibly claiming more bytes than it sends)
// gets an answer or a closed connection, never a crash, and the server
// goes on serving other clients (checked every input).
func FuzzCommandPackets(f *testing.F) {
	f.Add(byte(0x03), []byte("SELECT 1"))                                     // COM_QUERY
	f.Add(byte(0x16), []byte("SELECT ?"))                                     // COM_STMT_PREPARE
	f.Add(byte(0x17), []byte{1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 1, 0, 0, 0}) // COM_STMT_EXECUTE
	f.Add(byte(0x02), []byte("nosuchdb"))                                     // COM_INIT_DB
	f.Add(byte(0x11), []byte("root\x00\x00"))                                 // COM_CHANGE_USER
	f.Add(byte(0x18), []byte{1, 0, 0, 0, 0, 0, 'x'})                          // COM_STMT_SEND_LONG_DATA
	f.Add(byte(0x1f), []byte{})                                               // COM_RESET_CONNECTION
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, cmd byte, payload []byte) {
		fuzzServer.once.Do(func() {
			// One server per fuzzing process, left running for its inputs.
			db, err := engine.Open(engine.Options{Dir: dir, BufferPoolBytes: 16 << 20, LogCapacity: 32 << 20, DisableDirectIO: true})
			if err != nil {
				panic(err)
			}
			srv, err := New(db, Config{Addr: "127.0.0.1:0"})
			if err != nil {
				panic(err)
			}
			go srv.Start()
			fuzzServer.addr = srv.Addr().String()
			fuzzServer.panics = PanicsRecovered()
			fuzzServer.db, _ = sql.Open("mysql", "root@tcp("+fuzzServer.addr+")/")
		})
		c, err := net.DialTimeout("tcp", fuzzServer.addr, 2*time.Second)
		if err != nil {
			t.Fatalf("server no longer accepts: %v", err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		if err := login(c); err != nil {
			t.Fatalf("login: %v", err)
		}
		if cmd == 0x01 { // COM_QUIT: nothing to see
			return
		}
		pkt := append([]byte{cmd}, payload...)
		writePacket(c, 0, pkt)
		writePacket(c, 0, []byte{0x01}) // COM_QUIT: the server closes after answering
		io.Copy(io.Discard, c)          // until it closes (or the deadline)
		var one int
		if err := fuzzServer.db.QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("after command 0x%02x %q the server does not answer: %v", cmd, payload, err)
		}
		if n := PanicsRecovered() - fuzzServer.panics; n != 0 { // SRV-PANIC
			t.Fatalf("after command 0x%02x %q: %d panic(s) recovered", cmd, payload, n)
		}
	})
}

// login answers the server's greeting as root with no password.
func login(c net.Conn) error {
	if _, err := readPacket(c); err != nil {
		return err
	}
	const flags = 0x00000200 | 0x00008000 | 0x00080000 | 0x00000001 | 0x00000004 // PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH, LONG_PASSWORD, LONG_FLAG
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint32(flags))
	binary.Write(&b, binary.LittleEndian, uint32(1<<24))
	b.WriteByte(45)
	b.Write(make([]byte, 23))
	b.WriteString("root\x00")
	b.WriteByte(0) // no auth data
	b.WriteString("mysql_native_password\x00")
	if err := writePacket(c, 1, b.Bytes()); err != nil {
		return err
	}
	for {
		p, err := readPacket(c)
		if err != nil {
			return err
		}
		switch {
		case len(p) > 0 && p[0] == 0x00:
			return nil
		case len(p) > 0 && p[0] == 0xfe: // auth switch: answer with no data
			if err := writePacket(c, 3, nil); err != nil {
				return err
			}
		default:
			return fmt.Errorf("login answered %q", p)
		}
	}
}

func writePacket(c net.Conn, seq byte, p []byte) error {
	h := []byte{byte(len(p)), byte(len(p) >> 8), byte(len(p) >> 16), seq}
	_, err := c.Write(append(h, p...))
	return err
}

func readPacket(c net.Conn) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return nil, err
	}
	p := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	_, err := io.ReadFull(c, p)
	return p, err
}
