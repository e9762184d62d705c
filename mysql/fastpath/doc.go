// Package fastpath answers the common single-table OLTP statements
// directly on the engine, skipping go-mysql-server's parse, binding and
// analysis. It serves prepared statements (COM_STMT_EXECUTE) and the same
// statements sent as text (COM_QUERY), the shapes sysbench's OLTP
// workloads and most applications' key lookups use, with any table and
// column names:
//
//	SELECT col[, col...] FROM t WHERE pk = ? [ORDER BY col]
//	SELECT col[, col...] FROM t WHERE col = ? [ORDER BY pk | col]  (col: integer or string, own index)
//	SELECT [DISTINCT] col[, col...] FROM t WHERE pk BETWEEN ? AND ? [ORDER BY col [ASC]]
//	SELECT SUM(col) FROM t WHERE pk BETWEEN ? AND ?
//	SELECT COUNT(*) FROM t
//	UPDATE t SET col = ? | col = col {+|-} n [, ...] WHERE pk = ?
//	DELETE FROM t WHERE pk = ?
//	INSERT INTO t [(every column, or all but AUTO_INCREMENT)] VALUES (?, ...)[, (?, ...)...]
//	BEGIN | START TRANSACTION | COMMIT | ROLLBACK
//
// The engine side is mysql/backend's FastTable (rules FPB-1..3: which
// tables qualify, reads in the session's transaction, writes through the
// editor); the server's handler calls Prepared and Text before it hands a
// statement to go-mysql-server.
//
// FP-1 Only these exact shapes are taken: plain column names of one table
// in the session's current database whose primary key is the single
// column pk (an INSERT or COUNT(*): any primary key), parameters whose
// type family (integer, string) matches their column's. Anything else, including any value or state the backend does
// not handle exactly as go-mysql-server would (backend.ErrFallback), goes
// to go-mysql-server, with nothing done.
// FP-2 Reads and writes run in the session's transaction as
// go-mysql-server's would (backend FPB-2, FPB-3): in autocommit mode with
// no transaction, or in a transaction that stays open (BEGIN, autocommit
// off). A transaction that go-mysql-server would commit at the end of the
// statement (left by a failed autocommit statement) takes its path.
// FP-3 Results (column metadata, values, affected rows, insert id, info)
// are what go-mysql-server returns for the same statement; a test runs
// generated statements through both paths, as prepared statements and as
// text, and compares.
// FP-4 DISTINCT and ORDER BY are taken only on integer columns and strings
// under a binary NO PAD collation, where equal means byte-equal; sorting
// is stable, as go-mysql-server's; DISTINCT with ORDER BY only when the
// order column is selected. Selects fall back while sql_select_limit is
// not its default.
// FP-5 A text statement is answered only where the same statement sent
// prepared, its literals as parameters, would be (FP-1..4): normalize
// replaces each integer and plain single-quoted string literal by '?' and
// binds it as a parameter of that type (a quoted '5' stays a string; a
// minus sign directly before a number after an operator, '(', ',',
// BETWEEN or AND is part of it); a plain decimal (1.25) becomes a DECIMAL
// parameter (FP-9). Any other literal (float with an exponent, hex,
// bit, NULL, TRUE, an escaped or non-ASCII string, a charset
// introducer), comments, user variables, '?' outside a string, double
// quotes and more than one statement make the text fall back whole.
// Parameter values are read without copies: a text statement's alias its
// (immutable) text, a prepared statement's are copied once out of the
// packet buffer the next packet reuses.
// FP-6 Shapes are cached by statement text (prepared) or normalized text
// (text), at most maxShapes of each; a shape names tables and columns,
// which are resolved at every execution (the current database and the
// catalog can change between two).
//
// FP-7 A multi-row INSERT, as text or prepared, whose tuples are all
// written as the first one (as dumps and batching drivers write them) is the
// single-row shape applied to each tuple's parameters, as one statement:
// every row is inserted or none (a value that does not fit, or a
// duplicate key, undoes the statement and hands it to go-mysql-server),
// affected rows are the row count, and the insert id is the last row's
// AUTO_INCREMENT value (backend SES-8).
// FP-8 An INSERT may leave out the AUTO_INCREMENT column only (sysbench's
// loader does): every row's value is generated as go-mysql-server's
// AutoIncrement expression generates it, and a statement that falls back
// afterwards gives the values back when no other statement took one
// since (backend FastTable.Insert). The OK packet's insert id and
// LAST_INSERT_ID() come from the session's record of the statement, as
// for go-mysql-server's inserts (backend SES-8).
// FP-9 DECIMAL, DATE and DATETIME (without fractional seconds) columns
// take stored values (INSERT, UPDATE ... SET col = ?) from a decimal or
// integer parameter, or a string, only where the converted value is the
// parameter exactly: digits the column would cut (the general path's
// truncation note), a date in any spelling but the column's own
// (2024-01-02, 2024-01-02 10:00:00), a zero or invalid date fall back.
// Keys and comparisons stay integers and strings (FP-1).
// FP-10 SELECT COUNT(*) FROM t counts the primary keys the statement's
// snapshot and the transaction's own writes show (FPB-2), without
// decoding a row.
// FP-11 An equality on an integer or string column with a single-column
// index of its own reads that index (backend FastTable.LookupEqual; a
// string compares by its collation key, as the column's collation
// compares, and takes parameters as FP-1 does): the rows in primary key
// order, which is the order go-mysql-server returns them in
// whether it reads that index or scans the table; ORDER BY only by the
// primary key or the column itself (equal everywhere).
// FP-14 A range select ordered by a string column under a NO PAD
// collation sorts by the collation's weights, compared as the column's
// keys compare (backend CODEC-14): by each row's first four weights packed
// in a number, and where those are equal up to the first difference of
// the strings (rows are sorted as small entries, the values moved once);
// equal values
// keep their scan (primary key) order, as go-mysql-server's stable sort
// does. SELECT DISTINCT c ... ORDER BY c removes duplicates after the
// sort, from neighbours: the first of each run of equal values is the one
// scanned first, the one go-mysql-server keeps.
// FP-15 Result values are made as each column type's SQL method makes
// them (FP-3); a utf8mb4 string column sent in utf8mb4 (the results
// character set utf8mb4, unset or binary) is its stored bytes once they
// are valid UTF-8, exactly StringType.SQL's value without its per-value
// session lookup and copy: the value shares the string's bytes, which
// neither the string nor the result ever writes (RowEncoder).
//
// Not done here: fast-path statements do not appear in the process list
// (SHOW PROCESSLIST, KILL QUERY) nor in Questions/Com_* counters.
//
// Privileges: a statement is taken only when the session holds its
// privileges on the table and, for writes, read_only is off (auth AUTH-5);
// otherwise go-mysql-server runs and checks it.
//
// FP-12 An INSERT into a table whose only trigger for INSERT is one AFTER
// INSERT trigger (no FOLLOWS/PRECEDES) with the body
// `UPDATE u SET c = c {+|-} v [, ...] WHERE key = NEW.k` (u another table
// of the database, unqualified, key its one-column primary key; v a NEW
// column or an integer literal) runs the trigger itself: after each row,
// in the INSERT's statement and transaction, u's row is read for update
// and changed as the general path changes it (backend FPB-6). Only where
// the answer is exactly the general path's: NEW.k a non-NULL integer,
// integer columns plus signed integer operands (a 64-bit overflow or a
// value outside the column falls back), DECIMAL columns plus DECIMAL or
// integer operands whose sum the column holds exactly; u fires no UPDATE
// trigger and is fast-writable (FPB-3: no foreign keys, no enforced
// CHECK); its rows never give the INSERT's insert ids (backend SES-8, as
// on the general path); the client holds UPDATE and SELECT on u (never less than the
// general path asks, AUTH-5). A trigger on a table the database no longer
// has (renamed) may be on this one: the statement falls back. Anything
// else, at any row, undoes the statement and falls back. Writes to a
// table fire no trigger of another table: triggers elsewhere in the
// database no longer keep an UPDATE, DELETE or INSERT off the fast path.
package fastpath
