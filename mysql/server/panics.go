package server

import (
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/sirupsen/logrus"
)

// SRV-PANIC A panic while a command runs is a bug, but not the end of the
// connection or the server: the command handlers recover it, log it with
// its stack, answer the client with error 1105 naming it, and count it in
// Strata_panics_recovered. The panics go-mysql-server recovers itself (its
// result spooling turns them into "handler caught panic" errors) are
// counted too. Tests that drive hostile input assert the counter stays 0,
// so every panic found becomes a bug fixed at its cause.
var panicsRecovered atomic.Int64

// PanicsRecovered is the number of panics recovered since start.
func PanicsRecovered() int64 { return panicsRecovered.Load() }

// panicProbe, set only by tests, sees each COM_QUERY text before it is
// rewritten, so that the SRV-PANIC path is tested without depending on a
// bug that is still there.
var panicProbe func(query string)

// recoverCommand is deferred by each command handler (SRV-PANIC).
func recoverCommand(c *mysql.Conn, err *error) {
	r := recover()
	if r == nil {
		return
	}
	panicsRecovered.Add(1)
	var id uint32
	if c != nil {
		id = c.ConnectionID
	}
	logrus.Errorf("strata: recovered panic in connection %d: %v\n%s", id, r, debug.Stack())
	*err = mysql.NewSQLError(mysql.ERUnknownError, "HY000", "internal error (recovered panic: %v)", r)
}

// countCaughtPanic counts a panic go-mysql-server recovered and returned
// as an error (SRV-PANIC).
func countCaughtPanic(err error) {
	if err != nil && strings.Contains(err.Error(), "handler caught panic") {
		panicsRecovered.Add(1)
	}
}
