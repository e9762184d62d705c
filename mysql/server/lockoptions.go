package server

import (
	"regexp"

	"strata/mysql/backend"
)

// SRV-LOCKOPT: NOWAIT and SKIP LOCKED after a SELECT's FOR UPDATE, FOR
// SHARE or LOCK IN SHARE MODE (MySQL 8, MariaDB 10.6+; job queues take
// their next job with FOR UPDATE SKIP LOCKED) become the backend's markers
// (backend SES-12), comments go-mysql-server's parser skips; the parser
// has neither option. Elsewhere the words stay for the parser to refuse.
// Text queries only: the wire library parses COM_STMT_PREPARE's text
// itself before the handler sees it, and refuses the clauses there.
var lockOptionRE = regexp.MustCompile(`(?is)\b(for\s+update|for\s+share|lock\s+in\s+share\s+mode)\s+(nowait|skip\s+locked)\b`)

// lockOptions applies SRV-LOCKOPT to q.
func lockOptions(q string) string {
	if !containsFold(q, "nowait") && !containsFold(q, "locked") {
		return q
	}
	return lockOptionRE.ReplaceAllStringFunc(q, func(m string) string {
		sub := lockOptionRE.FindStringSubmatch(m)
		marker := backend.NoWaitMarker
		if len(sub[2]) > 6 {
			marker = backend.SkipLockedMarker
		}
		return sub[1] + " " + marker
	})
}
