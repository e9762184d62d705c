package compat

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// TestTriggerInsertIDsMatchMariaDB (backend SES-8): an INSERT's OK-packet
// insert id and LAST_INSERT_ID() are its own table's, whatever its
// triggers write into other tables with AUTO_INCREMENT columns (strata
// reported the trigger target's key: `INSERT INTO src VALUES (200, 2)`
// answered insert id 2, MariaDB 200), for generated and given ids,
// single and multi-row, qualified and quoted names, and REPLACE.
func TestTriggerInsertIDsMatchMariaDB(t *testing.T) {
	st, ma := startPair(t)
	execBoth(t, st, ma,
		"CREATE DATABASE ti",
		"CREATE TABLE ti.tgt (k INT AUTO_INCREMENT PRIMARY KEY, n INT NOT NULL)",
		"INSERT INTO ti.tgt VALUES (1, 0), (2, 0), (50, 0)",
		"CREATE TABLE ti.log (id INT AUTO_INCREMENT PRIMARY KEY, what INT)",
		"CREATE TABLE ti.src (id INT AUTO_INCREMENT PRIMARY KEY, k INT)",
		"CREATE TABLE ti.src2 (id INT PRIMARY KEY, k INT)",
		"CREATE TABLE ti.src3 (id INT AUTO_INCREMENT PRIMARY KEY, k INT)",
		"CREATE TRIGGER ti.s_t AFTER INSERT ON ti.src FOR EACH ROW UPDATE ti.tgt SET n = n + 1 WHERE k = NEW.k",
		"CREATE TRIGGER ti.s2_t AFTER INSERT ON ti.src2 FOR EACH ROW UPDATE ti.tgt SET n = n + 1 WHERE k = NEW.k",
		"CREATE TRIGGER ti.s3_log BEFORE INSERT ON ti.src3 FOR EACH ROW INSERT INTO ti.log (what) VALUES (NEW.k)")
	stmts := []string{
		"INSERT INTO src (k) VALUES (50)",
		"INSERT INTO src2 VALUES (8, 50)",
		"INSERT INTO src VALUES (200, 2)",
		"INSERT INTO src2 VALUES (9, 1)",
		"INSERT INTO src (k) VALUES (1), (2), (50)",
		"INSERT INTO `ti`.`src` (k) VALUES (2)",
		"INSERT INTO ti.src2 VALUES (10, 2), (11, 50)",
		"INSERT INTO src3 (k) VALUES (7)",
		"INSERT INTO src3 VALUES (500, 8)",
		"REPLACE INTO src VALUES (200, 50)",
		"INSERT INTO src2 VALUES (12, 99)",
	}
	ctx := context.Background()
	for _, prepared := range []bool{false, true} {
		execBoth(t, st, ma, "DELETE FROM ti.src WHERE id > 0", "DELETE FROM ti.src2 WHERE id > 0", "DELETE FROM ti.src3 WHERE id > 0")
		sameInsertIDs(t, ctx, st, ma, stmts, prepared)
	}
}

// sameInsertIDs runs stmts on both servers, as text or prepared, and
// compares each one's insert id, affected rows and LAST_INSERT_ID().
func sameInsertIDs(t *testing.T, ctx context.Context, st, ma *sql.DB, stmts []string, prepared bool) {
	var got [2][]string
	for side, db := range [2]*sql.DB{st, ma} {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "USE ti"); err != nil {
			t.Fatal(err)
		}
		for _, q := range stmts {
			var res sql.Result
			var err error
			if prepared {
				var ps *sql.Stmt
				if ps, err = conn.PrepareContext(ctx, q); err == nil {
					res, err = ps.ExecContext(ctx)
					ps.Close()
				}
			} else {
				res, err = conn.ExecContext(ctx, q)
			}
			if err != nil {
				got[side] = append(got[side], fmt.Sprintf("%s: error %v", q, err))
				continue
			}
			id, _ := res.LastInsertId()
			n, _ := res.RowsAffected()
			var lid int64
			if err := conn.QueryRowContext(ctx, "SELECT LAST_INSERT_ID()").Scan(&lid); err != nil {
				t.Fatal(err)
			}
			got[side] = append(got[side], fmt.Sprintf("%s: insert id %d, affected %d, LAST_INSERT_ID() %d", q, id, n, lid))
		}
		conn.Close()
	}
	var diffs []string
	for i := range stmts {
		if got[0][i] != got[1][i] {
			diffs = append(diffs, fmt.Sprintf("strata:  %s\nmariadb: %s", got[0][i], got[1][i]))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("prepared %v: %d of %d statements differ:\n%s", prepared, len(diffs), len(stmts), strings.Join(diffs, "\n"))
	}
}

// TestTriggersOutsideTheirDatabase (rules RULE-101): writes to a database
// with triggers, made from that database and from another one (which has
// a table of the same name as the bodies'), fire its triggers (whose
// bodies name tables of their own database) as MariaDB does; strata failed
// every such write from another database ("Table 'tgt' doesn't exist"),
// whichever table the triggers were on. (Without a current database:
// mysql/server's TestTriggersWithoutCurrentDatabase, whose connections
// can have none.)
func TestTriggersOutsideTheirDatabase(t *testing.T) {
	st, ma := startPair(t)
	execBoth(t, st, ma,
		"CREATE DATABASE tr", "CREATE DATABASE other",
		"CREATE TABLE tr.tgt (k INT PRIMARY KEY, n INT NOT NULL)",
		"INSERT INTO tr.tgt VALUES (1, 0), (2, 0)",
		"CREATE TABLE tr.src (id INT PRIMARY KEY, k INT)",
		"CREATE TABLE tr.plain (id INT PRIMARY KEY)",
		"CREATE TABLE other.tgt (k INT PRIMARY KEY, n INT NOT NULL)",
		"INSERT INTO other.tgt VALUES (1, 100), (2, 100)",
		"INSERT INTO other.tgt VALUES (3, 100)")
	ctx := context.Background()
	// The bodies name tgt unqualified: created in tr.
	for _, db := range []*sql.DB{st, ma} {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"USE tr",
			"CREATE TRIGGER src_ai AFTER INSERT ON src FOR EACH ROW UPDATE tgt SET n = n + 1 WHERE k = NEW.k",
			"CREATE TRIGGER src_au AFTER UPDATE ON src FOR EACH ROW UPDATE tgt SET n = n + 10 WHERE k = NEW.k",
			"CREATE TRIGGER src_ad AFTER DELETE ON src FOR EACH ROW UPDATE tgt SET n = n + 100 WHERE k = OLD.k"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		conn.Close()
	}
	for _, use := range []string{"", "USE other"} { // "": still tr, where the triggers were made
		for side, db := range [2]*sql.DB{st, ma} {
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if use != "" {
				if _, err := conn.ExecContext(ctx, use); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range []string{
				"INSERT INTO tr.src VALUES (10, 1), (11, 2)",
				"UPDATE tr.src SET k = 2 WHERE id = 10",
				"INSERT INTO tr.plain VALUES (5)",
				"DELETE FROM tr.plain WHERE id = 5",
				"DELETE FROM tr.src WHERE id = 11",
				"INSERT INTO `tr`.`src` (id, k) VALUES (12, 1)",
				"INSERT INTO tr.plain VALUES (6), (7)",
				"DELETE FROM tr.plain", // no WHERE: not a TRUNCATE of the current database's table
				"DELETE FROM tr.src",   // no WHERE: its DELETE trigger fires for each row
			} {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Errorf("%s (%q) on %s: %v", q, use, []string{"strata", "mariadb"}[side], err)
				}
			}
			conn.Close()
		}
		for _, q := range []string{"SELECT * FROM tr.tgt ORDER BY k", "SELECT * FROM other.tgt ORDER BY k", "SELECT * FROM tr.src ORDER BY id",
			"SELECT * FROM tr.plain ORDER BY id"} {
			if d := sameRows(st, ma, q); d != "" {
				t.Errorf("after the writes (%q): %s", use, d)
			}
		}
	}
}
