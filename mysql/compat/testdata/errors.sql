-- Error codes: each statement below fails (or warns) on MySQL; the code
-- is what clients branch on.

CREATE TABLE t (id INT PRIMARY KEY, u INT UNIQUE, v VARCHAR(5) NOT NULL DEFAULT 'x', n INT NOT NULL);
INSERT INTO t VALUES (1, 1, 'a', 1);

-- 1050 table exists, 1051 unknown table, 1146 no such table.
CREATE TABLE t (id INT);
CREATE TABLE IF NOT EXISTS t (id INT);
SHOW WARNINGS;
DROP TABLE nope;
DROP TABLE IF EXISTS nope;
SHOW WARNINGS;
DROP TABLE IF EXISTS nope1, nope2;
DROP TABLE nope_a, nope_b;
SELECT * FROM nope;
INSERT INTO nope VALUES (1);
UPDATE nope SET a = 1;
DELETE FROM nope;
ALTER TABLE nope ADD COLUMN x INT;
TRUNCATE TABLE nope;
SELECT * FROM t JOIN nope ON 1 = 1;
RENAME TABLE nope TO nope2;
SELECT COUNT(*) FROM t;

-- 1054 unknown column.
SELECT nope FROM t;
SELECT t.nope FROM t;
SELECT id FROM t WHERE nope = 1;
SELECT id FROM t ORDER BY nope;
SELECT id FROM t GROUP BY nope;
SELECT id, COUNT(*) FROM t GROUP BY id HAVING nope > 1;
INSERT INTO t (id, nope) VALUES (2, 1);
UPDATE t SET nope = 1;
UPDATE t SET v = nope;
SELECT x.id FROM t;
SELECT id FROM t WHERE id IN (SELECT nope FROM t);

-- 1136 column count, 1058 column count in values, 1110 column twice.
INSERT INTO t VALUES (2, 2);
INSERT INTO t VALUES (2, 2, 'b', 2, 9);
INSERT INTO t (id, u) VALUES (2);
INSERT INTO t (id, u) VALUES (2, 2), (3);
INSERT INTO t (id, id) VALUES (2, 2);
INSERT INTO t SELECT 1, 2;

-- 1062 duplicate key.
INSERT INTO t VALUES (1, 2, 'b', 2);
INSERT INTO t VALUES (2, 1, 'b', 2);
INSERT INTO t VALUES (3, 3, 'c', 3), (4, 3, 'd', 4);
SELECT id FROM t ORDER BY id;
UPDATE t SET id = 1 WHERE id = 3;
UPDATE t SET u = 1 WHERE id = 3;
UPDATE t SET id = id + 1;
SELECT id FROM t ORDER BY id;
CREATE TABLE dupidx (a INT, b INT);
INSERT INTO dupidx VALUES (1, 1), (1, 2);
ALTER TABLE dupidx ADD UNIQUE KEY (a);
ALTER TABLE dupidx ADD PRIMARY KEY (a);
CREATE UNIQUE INDEX ua ON dupidx (a);
SELECT COUNT(*) FROM dupidx;

-- 1048 / 1364 NOT NULL and missing defaults.
INSERT INTO t (id, u, v, n) VALUES (10, 10, NULL, 1);
INSERT INTO t (id, u, n) VALUES (11, 11, NULL);
INSERT INTO t (id, u) VALUES (12, 12);
INSERT INTO t (id, u, n) VALUES (13, 13, 1);
UPDATE t SET n = NULL WHERE id = 13;
UPDATE t SET v = NULL WHERE id = 13;
SELECT id, v, n FROM t WHERE id >= 10 ORDER BY id;

-- 1064 syntax errors.
SELEC 1;
SELECT * FROM;
SELECT 1 +;
INSERT INTO t VALUES;
CREATE TABLE (id INT);
SELECT 1 FROM t WHERE;
SELECT * FROM t LIMIT 'a';
SELECT * FROM t t1, t t1;

-- 1060 duplicate column, 1061 duplicate key name, 1068 multiple primary keys.
CREATE TABLE dupcol (a INT, a INT);
CREATE TABLE dupkey (a INT, b INT, KEY k (a), KEY k (b));
CREATE TABLE twopk (a INT PRIMARY KEY, b INT PRIMARY KEY);
ALTER TABLE t ADD COLUMN v INT;
ALTER TABLE t ADD INDEX u (v);
ALTER TABLE t ADD PRIMARY KEY (u);
ALTER TABLE t DROP COLUMN nope;
ALTER TABLE t DROP INDEX nope;
ALTER TABLE t RENAME COLUMN nope TO x;
ALTER TABLE t CHANGE nope x INT;
ALTER TABLE t MODIFY nope INT;

-- 1049 unknown database, 1007 / 1008 database exists / missing.
USE nope_db;
SELECT * FROM nope_db.t;
CREATE DATABASE d_errors;
CREATE DATABASE IF NOT EXISTS d_errors;
DROP DATABASE nope_db;
DROP DATABASE IF EXISTS nope_db;
CREATE TABLE nope_db.t (id INT);

-- 1075 auto-increment must be a key, 1063 bad column spec.
CREATE TABLE badai (a INT AUTO_INCREMENT, b INT);
CREATE TABLE badai2 (a INT AUTO_INCREMENT PRIMARY KEY, b INT AUTO_INCREMENT);
CREATE TABLE badai3 (a VARCHAR(10) AUTO_INCREMENT PRIMARY KEY);

-- 1067 invalid default, 1101 BLOB default, 1074 column too long.
CREATE TABLE baddef (a INT DEFAULT 'abc');
CREATE TABLE baddef2 (a DATE DEFAULT '2024-13-01');
CREATE TABLE baddef3 (a TINYINT DEFAULT 1000);
CREATE TABLE baddef4 (a VARCHAR(2) DEFAULT 'abc');
CREATE TABLE baddef5 (a ENUM('x') DEFAULT 'y');
CREATE TABLE baddef6 (a INT NOT NULL DEFAULT NULL);
CREATE TABLE toolong (a VARCHAR(70000));
CREATE TABLE badchar (a CHAR(256));
CREATE TABLE baddec (a DECIMAL(66, 2));
CREATE TABLE baddec2 (a DECIMAL(5, 6));
CREATE TABLE badfloat (a FLOAT(5, 6));

-- 1166 / 1059 identifiers.
CREATE TABLE `bad name ` (id INT);
CREATE TABLE aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa (id INT);
CREATE TABLE okcol (aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa INT);

-- 1452 / 1451 foreign keys, 1215 / 3780 / 1822 bad references.
CREATE TABLE p (id INT PRIMARY KEY);
CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id));
INSERT INTO p VALUES (1);
INSERT INTO c VALUES (1, 2);
INSERT INTO c VALUES (1, 1);
DELETE FROM p WHERE id = 1;
UPDATE p SET id = 5 WHERE id = 1;
UPDATE c SET pid = 7 WHERE id = 1;
TRUNCATE TABLE p;
DROP TABLE p;
CREATE TABLE c2 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES nope (id));
CREATE TABLE c3 (id INT PRIMARY KEY, pid VARCHAR(10), FOREIGN KEY (pid) REFERENCES p (id));
CREATE TABLE c4 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (nope));
SELECT COUNT(*) FROM c;

-- 3819 / 4025 CHECK constraints.
CREATE TABLE ck (id INT PRIMARY KEY, a INT CHECK (a > 0));
INSERT INTO ck VALUES (1, 1);
INSERT INTO ck VALUES (2, 0);
INSERT INTO ck VALUES (3, NULL);
UPDATE ck SET a = -1 WHERE id = 1;
SELECT * FROM ck ORDER BY id;

-- Range and conversion errors.
CREATE TABLE r (id INT PRIMARY KEY, ti TINYINT, v VARCHAR(2), d DATE, e ENUM('a'), dec2 DECIMAL(3,1));
INSERT INTO r (id, ti) VALUES (1, 200);
INSERT INTO r (id, v) VALUES (2, 'abc');
INSERT INTO r (id, d) VALUES (3, '2024-02-30');
INSERT INTO r (id, ti) VALUES (4, 'x');
INSERT INTO r (id, e) VALUES (5, 'b');
INSERT INTO r (id, dec2) VALUES (6, 100);
INSERT INTO r (id, dec2) VALUES (7, 'x');
INSERT INTO r (id, ti) VALUES (8, 1 / 0);
UPDATE r SET ti = 300;
SELECT COUNT(*) FROM r;
SELECT 18446744073709551615 + 1;
SELECT CAST(-1 AS UNSIGNED) + 1;
SELECT 1 DIV 0;
SELECT 1 + 'a';

-- 1242 / 1241 subquery shape, 1222 union shape, 1248 derived alias.
SELECT (SELECT id FROM t);
SELECT (SELECT id, u FROM t WHERE id = 1);
SELECT * FROM t WHERE id = (SELECT 1, 2);
SELECT id FROM t UNION SELECT id, u FROM t;
SELECT * FROM (SELECT 1);
SELECT 1 FROM t WHERE (id, u) = (1);

-- 1111 aggregate misuse, 1140 / 1055 grouping, 1052 ambiguous column.
SELECT id FROM t WHERE COUNT(*) > 1;
SELECT id, COUNT(*) FROM t;
SELECT id, v FROM t GROUP BY id + 0;
SELECT id FROM t a JOIN t b ON a.id = b.id;
SELECT SUM(SUM(id)) FROM t;
SELECT COUNT(*) FROM t GROUP BY COUNT(*);

-- Functions: unknown function, parameter count.
SELECT nosuchfunc(1);
SELECT ABS();
SELECT ABS(1, 2);
SELECT SUBSTRING('a');
SELECT CONCAT_WS();
SELECT IF(1, 2);

-- Unknown variables and bad values.
SELECT @@nosuchvar;
SET nosuchvar = 1;
SET @@session.nosuchvar = 1;
SET sql_mode = 'NOT_A_MODE';
SET autocommit = 2;
SET autocommit = 'maybe';
SET NAMES 'nosuchcharset';
SET time_zone = 'Nowhere/Nope';
SET time_zone = '+25:00';
SELECT @@sql_mode = @@SESSION.sql_mode;

-- Collations and charsets.
CREATE TABLE badcoll (a VARCHAR(5) COLLATE nosuch_coll);
CREATE TABLE badcs (a VARCHAR(5) CHARACTER SET nosuchcs);
CREATE TABLE mixcoll (a VARCHAR(5) CHARACTER SET latin1 COLLATE utf8mb4_bin);
SELECT 'a' COLLATE nosuch_coll;
SELECT _utf8mb4'a' COLLATE latin1_swedish_ci;

-- Views.
CREATE VIEW vt AS SELECT id FROM t;
CREATE VIEW vt AS SELECT id FROM t;
CREATE VIEW vbad AS SELECT nope FROM t;
DROP VIEW nope_view;
DROP TABLE vt;
INSERT INTO vt VALUES (100);
DROP VIEW vt;

-- Savepoints and transaction errors.
ROLLBACK TO SAVEPOINT nope;
RELEASE SAVEPOINT nope;
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
BEGIN;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
COMMIT;

-- SHOW WARNINGS / SHOW ERRORS after failing and warning statements.
INSERT INTO t VALUES (1, 1, 'a', 1);
SHOW WARNINGS;
SHOW ERRORS;
SHOW COUNT(*) WARNINGS;
SELECT 1 / 0;
SHOW WARNINGS;
SHOW COUNT(*) WARNINGS;
SHOW WARNINGS LIMIT 0;
SELECT * FROM nope;
SHOW WARNINGS;
SELECT nope FROM t;
SHOW ERRORS;
INSERT IGNORE INTO t VALUES (1, 1, 'a', 1), (2000, 2000, 'toolong', 1);
SHOW WARNINGS;
SELECT CAST('abc' AS SIGNED);
SHOW WARNINGS;
DROP TABLE IF EXISTS nope;
SHOW WARNINGS;
-- Error codes of malformed regular expressions, SELECT ... INTO with the wrong count, INTO in a subquery.
CREATE TABLE eg (a INT, c INT);
INSERT INTO eg VALUES (1, 2), (1, 3);
SELECT 'abc' REGEXP '(a';
SELECT 1 INTO @v, @w FROM eg LIMIT 1;
SELECT (SELECT 1 INTO @v FROM eg LIMIT 1);
-- A column qualified by a name no table of the statement has is 1054, not 1146 (server unknownQualifier).
CREATE TABLE uq (a INT);
SELECT nosuch.a FROM uq;
SELECT x.a FROM uq AS y;
UPDATE uq SET nosuch.a = 1;
SELECT * FROM nosuch_table_here;
SELECT * FROM uq JOIN nosuch_table_here ON nosuch_table_here.a = uq.a;
