package backend

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// Insert ids of a statement (SES-8). go-mysql-server reports in the OK
// packet of REPLACE and INSERT ... ON DUPLICATE KEY UPDATE the session's
// last generated id, even when the statement generated none, and a
// REPLACE's generated id does not reach LAST_INSERT_ID(). The editor
// records what MariaDB reports instead:
//
//   - the OK packet's insert id: the first value the statement generated,
//     and when it generated none, the AUTO_INCREMENT value of the last row
//     it inserted or changed (given), else 0 (MariaDB's
//     first_successful_insert_id_in_cur_stmt, else next_number_field);
//   - LAST_INSERT_ID(): the first value the statement generated for a row
//     it inserted (a value handed out for a row that then met a duplicate
//     key does not count).
type insertIDs struct {
	ok, generated uint64 // the last row's value; the first generated
	generatedSet  bool
	handedOut     uint64 // last value GetNextAutoIncrementValue generated
	handedOutSet  bool
	// The statement's own table, when known (InsertIDsOf): rows a trigger
	// writes into another table are not the statement's (MariaDB runs
	// triggers as sub-statements; their ids never reached the OK packet).
	db, table  string
	lastBefore int64 // LAST_INSERT_ID() when the statement began
}

// BeginInsertIDs starts a statement's insert id record.
func (s *Session) BeginInsertIDs() {
	s.ids, s.dups = insertIDs{lastBefore: s.GetLastQueryInfoInt(sql.LastInsertId)}, nil
}

// LastInsertIDBefore is LAST_INSERT_ID() as the statement found it: what
// it stays when the statement generates no id of its own table (a
// trigger's generated ids are restored when it ends, as MariaDB does).
func (s *Session) LastInsertIDBefore() int64 { return s.ids.lastBefore }

// InsertIDsOf names the statement's own table (an INSERT's or REPLACE's
// target) after BeginInsertIDs: only its rows give the statement's insert
// ids (SES-8).
func (s *Session) InsertIDsOf(db, table string) { s.ids.db, s.ids.table = db, table }

// InsertIDs returns the statement's OK-packet insert id (0 if none) and
// its first generated id, with whether it generated one (SES-8).
func (s *Session) InsertIDs() (ok, generated uint64, generatedSet bool) {
	ok = s.ids.ok
	if s.ids.generatedSet {
		ok = s.ids.generated
	}
	return ok, s.ids.generated, s.ids.generatedSet
}

func (s *Session) handOut(t *table, v uint64) {
	if !s.ownTable(t) {
		return // a trigger's insert into another table
	}
	s.ids.handedOut, s.ids.handedOutSet = v, true
}

// ownTable reports whether t is the statement's own table, or may be
// (none named).
func (s *Session) ownTable(t *table) bool {
	return s.ids.table == "" || strings.EqualFold(t.def.Name, s.ids.table) && strings.EqualFold(t.db.name, s.ids.db)
}

// wrote records row, just inserted (or changed, when inserted is false),
// in table t.
func (s *Session) wrote(ctx *sql.Context, t *table, row sql.Row, inserted bool) {
	if t.autoCol < 0 || row[t.autoCol] == nil {
		return
	}
	if !s.ownTable(t) {
		return // another table's: a trigger's write
	}
	cv, err := t.cols[t.autoCol].canonical(ctx, row[t.autoCol])
	if err != nil {
		return
	}
	var v uint64
	switch x := cv.(type) {
	case int64:
		v = uint64(x)
	case uint64:
		v = x
	default:
		return
	}
	s.ids.ok = v
	if inserted && !s.ids.generatedSet && s.ids.handedOutSet && s.ids.handedOut == v {
		s.ids.generated, s.ids.generatedSet = v, true
	}
}

// rowChanged reports whether an update changes any column (an ON
// DUPLICATE KEY UPDATE that sets the values the row has reports insert
// id 0, as it reports 0 rows affected).
func rowChanged(ctx *sql.Context, sch sql.Schema, old, row sql.Row) bool {
	for i, c := range sch {
		if (old[i] == nil) != (row[i] == nil) {
			return true
		}
		if old[i] == nil {
			continue
		}
		if cmp, err := c.Type.Compare(ctx, old[i], row[i]); err != nil || cmp != 0 {
			return true
		}
	}
	return false
}

// dupEntry is a duplicate-key error's entry and key name as MariaDB
// words them ("Duplicate entry 'a-b' for key 'name'").
type dupEntry struct{ entry, key string }

// noteDup records the MariaDB wording of the duplicate-key error whose
// go-mysql-server text is keyStr, for this statement.
func (s *Session) noteDup(keyStr, entry, key string) {
	if s == nil {
		return
	}
	if s.dups == nil || len(s.dups) > 1000 {
		s.dups = map[string]dupEntry{}
	}
	s.dups[keyStr] = dupEntry{entry, key}
}

// DupEntry returns the entry and key name of the statement's duplicate-key
// error whose go-mysql-server text is keyStr ("[v1,v2]").
func (s *Session) DupEntry(keyStr string) (entry, key string, ok bool) {
	d, ok := s.dups[keyStr]
	return d.entry, d.key, ok
}
