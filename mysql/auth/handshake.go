package auth

import (
	"errors"
	"net"

	"github.com/dolthub/vitess/go/mysql"
)

// AUTH-6 Every refused login is MySQL's 1045 "Access denied for user
// 'u'@'host' (using password: YES|NO)": an unknown user too, which the
// wire library would otherwise answer with a handshake error clients
// report as a malformed packet (no auth method "handles" an unknown
// user). The server's auth methods are go-mysql-server's, wrapped.

// WrapAuthServer returns inner with AUTH-6's wording and a last auth
// method that refuses users no other method knows.
func WrapAuthServer(inner mysql.AuthServer) mysql.AuthServer {
	methods := inner.AuthMethods()
	out := make([]mysql.AuthMethod, 0, len(methods)+1)
	for _, m := range methods {
		out = append(out, deniedWording{m})
	}
	return &authServer{inner: inner, methods: append(out, unknownUser{})}
}

type authServer struct {
	inner   mysql.AuthServer
	methods []mysql.AuthMethod
}

func (a *authServer) AuthMethods() []mysql.AuthMethod { return a.methods }
func (a *authServer) DefaultAuthMethodDescription() mysql.AuthMethodDescription {
	return a.inner.DefaultAuthMethodDescription()
}

func accessDenied(user string, addr net.Addr, withPassword bool) error {
	host := ""
	if addr != nil && addr.Network() != "unix" {
		host, _, _ = net.SplitHostPort(addr.String())
	}
	return deniedFor(user, host, withPassword)
}

// deniedFor is MySQL's 1045 for user at host (loopback, a socket or an
// unknown host read as localhost).
func deniedFor(user, host string, withPassword bool) error {
	if host == "" || Loopback(host) {
		host = "localhost"
	}
	using := "NO"
	if withPassword {
		using = "YES"
	}
	return mysql.NewSQLError(mysql.ERAccessDeniedError, mysql.SSAccessDeniedError,
		"Access denied for user '%s'@'%s' (using password: %s)", user, host, using)
}

func sentPassword(data []byte) bool { return len(data) > 0 && !(len(data) == 1 && data[0] == 0) }

// deniedWording rewords an auth method's refusals (AUTH-6).
type deniedWording struct{ mysql.AuthMethod }

func (d deniedWording) HandleAuthPluginData(c *mysql.Conn, user string, server, client []byte, addr net.Addr) (mysql.Getter, error) {
	if err := requireSecure(c); err != nil { // AUTH-10
		return nil, err
	}
	g, err := d.AuthMethod.HandleAuthPluginData(c, user, server, client, addr)
	var se *mysql.SQLError
	if err != nil && errors.As(err, &se) && se.Num == mysql.ERAccessDeniedError {
		return nil, accessDenied(user, addr, sentPassword(client))
	}
	return g, err
}

// unknownUser takes the users no other method handles and refuses them
// after the client's answer, as mysql_native_password (AUTH-6).
type unknownUser struct{}

func (unknownUser) Name() mysql.AuthMethodDescription   { return mysql.MysqlNativePassword }
func (unknownUser) HandleUser(*mysql.Conn, string) bool { return true }
func (unknownUser) AllowClearTextWithoutTLS() bool      { return true }
func (unknownUser) AuthPluginData() ([]byte, error) {
	salt, err := mysql.NewSalt()
	if err != nil {
		return nil, err
	}
	return append(salt, 0), nil
}
func (unknownUser) HandleAuthPluginData(c *mysql.Conn, user string, _, client []byte, addr net.Addr) (mysql.Getter, error) {
	if err := requireSecure(c); err != nil { // AUTH-10
		return nil, err
	}
	return nil, accessDenied(user, addr, sentPassword(client))
}
