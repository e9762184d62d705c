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
			res, err := conn.ExecContext(ctx, q)
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
		t.Errorf("%d of %d statements differ:\n%s", len(diffs), len(stmts), strings.Join(diffs, "\n"))
	}
}
