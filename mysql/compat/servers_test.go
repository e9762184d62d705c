package compat

import (
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"strata/engine"
	"strata/mysql/server"
)

// strataServer is an in-process strata server over a fresh engine.
type strataServer struct {
	db   *engine.DB
	srv  *server.Server
	addr string
}

func startStrata(dir string) (*strataServer, error) {
	db, err := engine.Open(engine.Options{Dir: dir, BufferPoolBytes: 16 << 20, LogCapacity: 32 << 20,
		DisableDirectIO: true, LockWaitTimeout: 2 * time.Second})
	if err != nil {
		return nil, err
	}
	srv, err := server.New(db, server.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		db.Close()
		return nil, err
	}
	go srv.Start()
	return &strataServer{db: db, srv: srv, addr: srv.Addr().String()}, nil
}

func (s *strataServer) stop() error {
	err := s.srv.Close()
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// quoteIdent quotes a MySQL identifier.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
