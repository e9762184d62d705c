package server

import (
	"regexp"
	"strings"

	"strata/mysql/backend"
)

// SRV-LOCKOPT: NOWAIT and SKIP LOCKED after a SELECT's FOR UPDATE, FOR
// SHARE or LOCK IN SHARE MODE (MySQL 8, MariaDB 10.6+; job queues take
// their next job with FOR UPDATE SKIP LOCKED) become the backend's markers
// (backend SES-12), comments go-mysql-server's parser skips; the parser
// has neither option. Elsewhere the words stay for the parser to refuse.
// Text queries only: the wire library parses COM_STMT_PREPARE's text
// itself before the handler sees it, and refuses the clauses there.
var lockOptionRE = regexp.MustCompile(`(?is)^(for\s+update|for\s+share|lock\s+in\s+share\s+mode)\s+(nowait|skip\s+locked)\b`)

// lockOptions applies SRV-LOCKOPT to q, outside strings and comments.
func lockOptions(q string) string {
	if !containsFold(q, "nowait") && !containsFold(q, "locked") {
		return q
	}
	return spliceWords(q, func(i, j int) (int, int, string, bool) {
		if w := q[i:j]; !strings.EqualFold(w, "for") && !strings.EqualFold(w, "lock") {
			return 0, 0, "", false
		}
		m := lockOptionRE.FindStringSubmatchIndex(q[i:])
		if m == nil {
			return 0, 0, "", false
		}
		marker := backend.NoWaitMarker
		if m[5]-m[4] > len("nowait") {
			marker = backend.SkipLockedMarker
		}
		return i, i + m[1], q[i:i+m[3]] + " " + marker, true
	})
}
