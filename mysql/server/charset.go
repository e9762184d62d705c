package server

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"strata/mysql/backend"
)

// SRV-CHARSET A statement from a client whose character_set_client is
// not UTF-8 (latin1, the default of many older applications and of
// MariaDB's test client) is turned into UTF-8 before it is parsed, as
// MySQL reads a statement in the client's character set; go-mysql-server
// refused its non-ASCII bytes ("invalid string for charset utf8mb4").
// Results already go out in character_set_results. A statement holding a
// character set introducer (_binary, _utf8mb4, ...) keeps its bytes: its
// literals are not all in the client's character set. ASCII text, the
// common case, is not looked at twice. Column names go out in
// character_set_results, as the values do.
// introducerRE finds a character set introducer before a string literal.
var introducerRE = regexp.MustCompile(`(?i)\b_(binary|utf8mb4|utf8mb3|utf8|latin1|ascii|ucs2|utf16|utf32|cp\d+|[a-z]+\d*)\s*['"xXbB]`)

func clientText(s *backend.Session, query string) string {
	if isASCII(query) {
		return query
	}
	v, err := s.GetSessionVariable(nil, "character_set_client")
	if err != nil {
		return query
	}
	name, _ := v.(string)
	switch strings.ToLower(name) {
	case "", "utf8mb4", "utf8mb3", "utf8", "binary":
		return query
	}
	if strings.Contains(query, "_") && introducerRE.MatchString(query) {
		return query
	}
	cs, err := sql.ParseCharacterSet(name)
	if err != nil || cs.Encoder() == nil {
		return query
	}
	out, ok := cs.Encoder().Decode([]byte(query))
	if !ok {
		return query
	}
	return string(out)
}

// namesInResultsCharset writes non-ASCII column names in the session's
// character_set_results when that is not UTF-8 (SRV-CHARSET).
func namesInResultsCharset(s *backend.Session, res *sqltypes.Result) {
	nonASCII := false
	for _, f := range res.Fields {
		if !isASCII(f.Name) {
			nonASCII = true
			break
		}
	}
	if !nonASCII {
		return
	}
	v, err := s.GetSessionVariable(nil, "character_set_results")
	if err != nil {
		return
	}
	name, _ := v.(string)
	switch strings.ToLower(name) {
	case "", "utf8mb4", "utf8mb3", "utf8", "binary":
		return
	}
	cs, err := sql.ParseCharacterSet(name)
	if err != nil || cs.Encoder() == nil {
		return
	}
	for _, f := range res.Fields {
		if isASCII(f.Name) {
			continue
		}
		if b, ok := cs.Encoder().Encode([]byte(f.Name)); ok {
			f.Name = string(b)
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// SRV-HANDSHAKE The character set and collation a client names in its
// handshake (a collation id) are the connection's, as after SET NAMES
// charset COLLATE collation: character_set_client, _connection and
// _results and collation_connection. go-mysql-server ignored the id, so a
// client asking for latin1 or utf8mb4_unicode_ci got the server's
// defaults (go-sql-driver's TestCollation). An id strata does not know,
// or a character set it cannot encode, leaves the defaults (MySQL, too,
// falls back to the server's character set for an unknown one). Applied
// once per connection, before its first statement.
var handshakeApplied sync.Map // connection id -> struct{}

func (h *errorHandler) handshakeCollation(ctx context.Context, c *mysql.Conn) {
	if _, done := handshakeApplied.LoadOrStore(c.ConnectionID, struct{}{}); done || c.CharacterSet == 0 {
		return
	}
	coll := sql.CollationID(c.CharacterSet)
	name := coll.Name()
	cs := coll.CharacterSet().Name()
	if name == "" || cs == "" || coll == sql.Collation_Default {
		return
	}
	q := "SET NAMES " + cs + ", collation_connection = '" + name + "'"
	if coll == sql.Collation_binary {
		q = "SET NAMES binary"
	}
	// Errors (a character set strata cannot encode) leave the defaults.
	_ = h.Handler.ComQuery(ctx, c, q, func(*sqltypes.Result, bool) error { return nil })
}
