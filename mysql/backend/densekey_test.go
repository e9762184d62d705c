package backend

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"testing"
)

// CODEC-12: a table created now writes string keys with variable-length
// weights; a table of the format before keeps its 5-byte weights. Both
// answer unique checks, ranges, LIKE prefixes and ORDER BY alike, before
// and after a restart, and their indexes check against their rows.
func TestDenseStringKeys(t *testing.T) {
	h := &keylessHarness{t: t, dir: t.TempDir()}
	h.open()
	defer func() { h.db.Close() }()
	h.rows("CREATE DATABASE d")
	h.ctx.SetCurrentDatabase("d")
	defer func(f int) { newTableKeyFormat = f }(newTableKeyFormat)
	newTableKeyFormat = keyFormatRowOrder
	const ddl = " (id INT PRIMARY KEY, s VARCHAR(40) COLLATE utf8mb4_general_ci, u VARCHAR(40) COLLATE utf8mb4_0900_ai_ci, UNIQUE KEY us (s), KEY ku (u, id))"
	h.rows("CREATE TABLE old" + ddl)
	newTableKeyFormat = keyFormatDenseWeights
	h.rows("CREATE TABLE new" + ddl)
	values := "(1, 'abc', 'Zebra'), (2, 'ABD ', 'zèbre'), (3, 'straße', '中文'), (4, '😀x', 'émoji 😀'), " +
		"(5, '~tilde', 'Ångström'), (6, '', 'a'), (7, NULL, NULL), (8, 'ab', 'ZEBRA')"
	for _, tbl := range []string{"old", "new"} {
		h.rows("INSERT INTO " + tbl + " VALUES " + values)
		_, it, _, err := h.e.Query(h.ctx, "INSERT INTO "+tbl+" VALUES (9, 'ABC  ', 'x')")
		if err == nil {
			_, err = sql.RowIterToRows(h.ctx, it)
		}
		if err == nil || !strings.Contains(err.Error(), "uplicate") {
			t.Errorf("%s: 'ABC  ' into a unique index holding 'abc': %v", tbl, err)
		}
	}
	d, _ := h.b.Database(h.ctx, "d")
	for tbl, dense := range map[string]bool{"old": false, "new": true} {
		tb, _, _ := d.GetTableInsensitive(h.ctx, tbl)
		if got := tb.(*Table).t.cols[1].dense; got != dense {
			t.Errorf("%s: dense string keys %v, want %v", tbl, got, dense)
		}
	}
	queries := []string{
		"SELECT id FROM %s WHERE s = 'ABC'",
		"SELECT id FROM %s WHERE s BETWEEN 'ab' AND 'abd' ORDER BY s",
		"SELECT id FROM %s WHERE s LIKE 'ab%%' ORDER BY id",
		"SELECT id, s FROM %s ORDER BY s, id",
		"SELECT id FROM %s WHERE u = 'zebra' ORDER BY id",
		"SELECT id FROM %s WHERE u > 'zebra' ORDER BY u, id",
		"SELECT id FROM %s ORDER BY u DESC, id",
	}
	compare := func() {
		t.Helper()
		for _, q := range queries {
			old, new := h.rows(fmt.Sprintf(q, "old")), h.rows(fmt.Sprintf(q, "new"))
			if strings.Join(old, " ") != strings.Join(new, " ") || len(old) == 0 {
				t.Errorf("%s: old format %v, new %v", q, old, new)
			}
		}
		h.check("old")
		h.check("new")
	}
	compare()
	h.want("SELECT id FROM new WHERE s BETWEEN 'ab' AND 'abd' ORDER BY s, id", "8", "1", "2")
	h.reopen()
	compare()
	h.rows("UPDATE new SET s = 'ABE' WHERE id = 2")
	h.rows("UPDATE old SET s = 'ABE' WHERE id = 2")
	compare()
}
