// Package compat is a differential test of strata against MariaDB 10.11:
// it runs a corpus of SQL scripts on both servers and compares every
// statement's answer. The package has no non-test code; everything is in
// the _test.go files and testdata.
//
// # Servers
//
// TestCompat starts a private MariaDB (mariadb-install-db into a temporary
// directory, then mariadbd on a free port, character set utf8mb4 with
// utf8mb4_general_ci, time zone +00:00, explicit_defaults_for_timestamp)
// and an in-process strata server over a fresh engine, and stops both at
// the end. MariaDB is required: without mariadbd the test fails (install
// mariadb-server; .ci/run does).
//
// # Corpus
//
// testdata/*.sql are the scripts, run in file name order. Each runs in a
// fresh database d_<name> on each server (CHARACTER SET utf8mb4 COLLATE
// utf8mb4_bin unless the file says @default-collation), on one new
// connection per server, so session state (SET, BEGIN, user variables)
// carries from statement to statement but not from script to script. A
// connection the server drops is replaced (session state is then lost) and
// the statement reported with error -1. Before the first statement both sessions get
// MySQL 8.0's default sql_mode (ONLY_FULL_GROUP_BY, STRICT_TRANS_TABLES,
// NO_ZERO_IN_DATE, NO_ZERO_DATE, ERROR_FOR_DIVISION_BY_ZERO,
// NO_ENGINE_SUBSTITUTION), SET NAMES utf8mb4 and time_zone '+00:00'.
//
// A statement ends with ';' at the end of a line (outside quotes, so ';'
// inside a string is fine); it may span lines. There is no DELIMITER and
// no comment after the ';'. Lines starting with "--" are comments; a
// comment "-- @directive" applies to the next statement:
//
//	-- @ignore-result     compare only whether it failed and the error code
//	-- @ignore-warnings   do not compare the warnings it leaves
//	-- @sorted            compare the rows as a multiset
//
// and two apply to the whole file (written anywhere, conventionally at the
// top):
//
//	-- @default-collation the database gets the servers' default character
//	                      set and collation (MySQL 8.0: utf8mb4_0900_ai_ci,
//	                      which strata should follow; MariaDB:
//	                      utf8mb4_general_ci)
//	-- @exact-types       column types compared exactly (see below)
//
// Results must be deterministic: ORDER BY wherever more than one row comes
// back, nothing that depends on the clock, the server version or the
// server's own formatting (SHOW CREATE TABLE: MariaDB prints int(11)).
//
// # What is compared
//
// For every statement, on both servers:
//
//   - error or not, and the MySQL error number (not the message);
//   - for statements that return rows (SELECT, SHOW, WITH, VALUES, TABLE,
//     EXPLAIN, DESCRIBE, parenthesized queries): the column names, the
//     column types as go-sql-driver/mysql names them (normalized, below),
//     and the rows as text in text protocol, NULL distinct from 'NULL';
//   - for INSERT, REPLACE, UPDATE, DELETE: the affected-rows count (found
//     rows off, as in the driver's default), and for INSERT and REPLACE
//     the insert id of the OK packet;
//   - the warnings: after each statement the harness runs SHOW WARNINGS
//     and compares the list of "Level Code" (Error-level entries dropped:
//     the error itself is already compared). Not after statements that are
//     themselves SHOW WARNINGS / SHOW ERRORS. When a script runs SHOW
//     WARNINGS / SHOW ERRORS itself, its Message column is left out of the
//     comparison (server prose; Level and Code are compared).
//
// Column types: JSON is compared as TEXT (MariaDB's JSON is a LONGTEXT
// column).
// Unless the file says @exact-types, integer types are compared as INT or
// UNSIGNED INT, character strings as TEXT and byte strings as BLOB: the
// wire type of an expression follows from its computed maximum length,
// which MariaDB and MySQL compute differently (SELECT 1 is INT in MariaDB
// and BIGINT in MySQL 8.0). The @exact-types scripts select table columns
// only, whose types must agree exactly.
//
// Warnings: MySQL 5.7+ clears the diagnostics area at every nondiagnostic
// statement; MariaDB only at statements that use tables. So after a
// statement that left conditions the harness runs, on MariaDB only, a
// query on information_schema.ENGINES before the next nondiagnostic
// statement. A script's own SHOW WARNINGS sees the previous statement's
// list on both servers; @@warning_count and ROW_COUNT() after a statement
// with warnings are not comparable and stay out of the corpus.
//
// # ACCEPTED
//
// testdata/ACCEPTED lists the differences the test accepts. An entry is an
// unindented key line, "file.sql: statement" with white space collapsed
// ("file.sql#n: statement" for the n-th statement of a file with that
// text), followed by indented reason lines. The reason is either
//
//   - "BUG: <description>": a known strata bug, to be fixed; or
//   - an explanation of a legitimate difference: MariaDB does not behave
//     like MySQL 8.0 and strata follows MySQL 8.0's documentation. Such
//     statements are better kept out of the corpus (or made comparable,
//     e.g. with an explicit collation); an entry is for the few that show
//     something worth keeping.
//
// The test fails on any difference not in ACCEPTED, and on any entry that
// no longer differs (stale: the bug was fixed, or the statement changed),
// so the list only shrinks as bugs are fixed. Keys name statements, not
// positions, so adding statements does not disturb other entries. An entry
// accepts any difference on its statement: when a fix changes how a listed
// statement differs, COMPAT_VERBOSE=1 shows it, and the reason should be
// brought up to date. Statements that only differ because an earlier one
// did (a table that failed to be created, a row that was not inserted) get
// "BUG: follows from ..." reasons; keep scripts made of small independent
// tables so one bug does not cascade.
//
// Maintenance:
//
//	go test ./mysql/compat -run TestCompat -v          # report
//	COMPAT_UPDATE=1 go test ./mysql/compat -run TestCompat
//	    # rewrite ACCEPTED from the current differences: reasons of entries
//	    # that still differ are kept, new ones read "BUG: (unreviewed)"
//	    # (review them!), stale ones are dropped
//	COMPAT_VERBOSE=1 ...                               # show accepted diffs too
//	COMPAT_FILES=queries.sql,errors.sql ...            # run some scripts only
//
// A failure report shows, per statement, the file, statement number and
// line, the statement, and both servers' answers with the differing lines
// marked '!' (and the error messages, for information).
//
// # Random predicates
//
// TestRandomPredicatesMatchMariaDB (predicates_test.go) starts its own
// pair of servers, fills a table with a column of every integer width and
// sign, DECIMAL, strings under two collations, CHAR, DATE and DATETIME
// (values at the ends of the types' ranges, NULLs, trailing spaces), once
// with an index on every column and once without, and runs 1,500 seeded
// random WHERE clauses (comparisons, BETWEEN, IN, IS NULL, NOT, AND, OR;
// literals of other types and beyond the ranges) on both tables of strata
// and the unindexed table of MariaDB: every answer must be MariaDB's (no
// ACCEPTED list). Its comments name the forms it leaves out as known.
// TestRandomJoinsMatchMariaDB (joins_test.go) does the same for 500
// seeded joins (inner, left, right; =, <, <=> on integers of both signs,
// DECIMALs and strings), EXISTS, NOT EXISTS, IN and NOT IN subqueries and
// GROUP BY aggregates over two small tables, indexed differently.
package compat
