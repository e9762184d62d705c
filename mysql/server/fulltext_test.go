package server

import (
	"strings"
	"testing"
)

// FULLTEXT indexes (backend FT-1..FT-4) through a driver: MATCH ... AGAINST
// in natural language mode finds the rows whose words match, and keeps
// finding the right ones through UPDATE, DELETE, a rolled-back
// transaction, CREATE/DROP INDEX on a table with rows, a restart and a
// dump round trip; the pseudo-tables stay out of sight and go with their
// table; what is not built says 1235.
func TestFullTextIndexes(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	c.SetMaxOpenConns(1)
	mustExec(t, c, "CREATE TABLE art (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(200), body TEXT, FULLTEXT KEY ft (title, body))")
	mustExec(t, c, `INSERT INTO art (title, body) VALUES ('MySQL Tutorial', 'DBMS stands for DataBase'),
		('How To Use MySQL Well', 'After you went through a'), ('Optimizing MySQL', 'In this tutorial we show'),
		('1001 MySQL Tricks', 'Never run mysqld as root'), ('MySQL vs. YourSQL', 'In the following database comparison'),
		('MySQL Security', 'When configured properly')`)
	search := func(words string) string {
		t.Helper()
		return strings.Join(queryStrings(t, c, "SELECT id FROM art WHERE MATCH (title, body) AGAINST ('"+words+"') ORDER BY id"), ",")
	}
	if got := search("database"); got != "1,5" {
		t.Fatalf("database: %s", got)
	}
	if got := search("tutorial security"); got != "1,3,6" {
		t.Fatalf("tutorial security: %s", got)
	}
	mustExec(t, c, "UPDATE art SET body = 'nothing here' WHERE id = 5")
	mustExec(t, c, "DELETE FROM art WHERE id = 1")
	if got := search("database tutorial"); got != "3" {
		t.Fatalf("after UPDATE and DELETE: %s", got)
	}
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "INSERT INTO art (title, body) VALUES ('Database internals', 'pages and logs')")
	if got := search("database"); got != "7" {
		t.Fatalf("inside the transaction: %s", got)
	}
	mustExec(t, c, "ROLLBACK")
	if got := search("database"); got != "" {
		t.Fatalf("after ROLLBACK: %s", got)
	}
	wantRows(t, c, "SHOW TABLES", "art")
	wantRows(t, c, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd'", "1")
	if create := queryStrings(t, c, "SHOW CREATE TABLE art")[0]; !strings.Contains(create, "FULLTEXT KEY `ft` (`title`,`body`)") {
		t.Fatalf("SHOW CREATE TABLE: %s", create)
	}
	wantErrCode(t, c, 1235, "SELECT id FROM art WHERE MATCH (title, body) AGAINST ('+mysql -yoursql' IN BOOLEAN MODE)")
	wantErrCode(t, c, 1235, "ALTER TABLE art ADD COLUMN extra INT")

	// An index made on a table with rows indexes them; dropping it drops
	// its tables.
	mustExec(t, c, "CREATE FULLTEXT INDEX ft_title ON art (title)")
	wantRows(t, c, "SELECT id FROM art WHERE MATCH (title) AGAINST ('security tricks') ORDER BY id", "4", "6")
	mustExec(t, c, "ALTER TABLE art DROP INDEX ft_title")
	wantErrCode(t, c, 1191, "SELECT id FROM art WHERE MATCH (title) AGAINST ('security')")

	// A restart keeps the index and its words.
	ts.stop()
	ts = startServer(t, dir)
	c = ts.open("d")
	if got := search("tricks"); got != "4" {
		t.Fatalf("after a restart: %s", got)
	}

	// A dump restores the table and its index; DROP TABLE takes the
	// index's tables along, so the table can be created again.
	if dump := ts.dumpAndRestore("d"); strings.Contains(dump, "strata_ft_") {
		t.Fatalf("the dump holds FULLTEXT pseudo-tables:\n%s", dump)
	}
	c = ts.open("d")
	if got := search("tricks mysqld"); got != "4" {
		t.Fatalf("after a dump and restore: %s", got)
	}
	// CREATE TABLE LIKE copies the index as FULLTEXT (rules RULE-67);
	// a foreign key's cascade keeps the child's index.
	mustExec(t, c, "CREATE TABLE art2 LIKE art")
	mustExec(t, c, "INSERT INTO art2 VALUES (1, 'copied', 'words')")
	wantRows(t, c, "SELECT id FROM art2 WHERE MATCH (title, body) AGAINST ('copied')", "1")
	mustExec(t, c, "CREATE TABLE p (id INT PRIMARY KEY)")
	mustExec(t, c, "INSERT INTO p VALUES (1), (2)")
	mustExec(t, c, "CREATE TABLE ch (id INT PRIMARY KEY, pid INT, t TEXT, FULLTEXT (t), FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)")
	mustExec(t, c, "INSERT INTO ch VALUES (10, 1, 'cascade me'), (11, 2, 'stay here')")
	mustExec(t, c, "DELETE FROM p WHERE id = 1")
	wantRows(t, c, "SELECT id FROM ch WHERE MATCH (t) AGAINST ('cascade stay')", "11")

	mustExec(t, c, "DROP TABLE art")
	mustExec(t, c, "CREATE TABLE art (id INT PRIMARY KEY, title VARCHAR(200), body TEXT, FULLTEXT KEY ft (title, body))")
	mustExec(t, c, "INSERT INTO art VALUES (1, 'again', 'fresh words')")
	if got := search("fresh"); got != "1" {
		t.Fatalf("a table made again: %s", got)
	}
}
