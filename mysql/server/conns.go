package server

import (
	"net"
	"sync"
	"sync/atomic"
)

// connLimit refuses connections past max_connections with MySQL's 1040
// "Too many connections", read at each accept (so SET GLOBAL
// max_connections applies at once). The wire library would instead keep
// the client waiting or close its socket without a word. Unlike MySQL, no
// extra connection is kept for administrators.
type connLimit struct {
	net.Listener
	active   atomic.Int64
	refusals atomic.Int64
	dump     bool // the binary log is on: connections read through dumpConn (SRV-REPL-1)
}

func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		max, ok := globalInt("max_connections")
		if !ok {
			max = 151
		}
		if l.active.Load() >= max {
			l.refusals.Add(1)
			go refuse(c)
			continue
		}
		l.active.Add(1)
		if l.dump {
			return newDumpConn(&countedConn{Conn: c, l: l}), nil
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

// refuse answers a client with an error packet in place of the server's
// greeting, as MySQL does, and closes the connection.
func refuse(c net.Conn) {
	defer c.Close()
	msg := "Too many connections"
	payload := append([]byte{0xff, 0x10, 0x04, '#', '0', '8', '0', '0', '4'}, msg...) // 1040, SQLSTATE 08004
	pkt := append([]byte{byte(len(payload)), byte(len(payload) >> 8), byte(len(payload) >> 16), 0}, payload...)
	c.Write(pkt)
}

type countedConn struct {
	net.Conn
	l    *connLimit
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.active.Add(-1) })
	return c.Conn.Close()
}
