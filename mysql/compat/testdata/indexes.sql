-- Index prefix lengths (IX-1): WordPress-style schemas, uniqueness on the
-- cut value, lookups and ranges through a prefix index, sorts over it.

CREATE TABLE wp (meta_id BIGINT AUTO_INCREMENT PRIMARY KEY, post_id BIGINT NOT NULL DEFAULT 0, meta_key VARCHAR(255) DEFAULT NULL, meta_value LONGTEXT, KEY post_id (post_id), KEY meta_key (meta_key(191)), KEY mv (meta_value(10)));
INSERT INTO wp (post_id, meta_key, meta_value) VALUES (1, 'alpha', 'hello world'), (1, 'alphabet', 'hello there'), (2, 'beta', 'zz'), (3, NULL, NULL), (4, 'Alpha', 'HELLO WORLD!'), (5, 'alp', 'hello'), (6, 'alpha', 'hello worlds apart');
SELECT meta_id FROM wp WHERE meta_value = 'hello world' ORDER BY meta_id;
SELECT meta_id FROM wp WHERE meta_value = 'hello worl' ORDER BY meta_id;
SELECT meta_id FROM wp WHERE meta_value LIKE 'hello w%' ORDER BY meta_id;
SELECT meta_id, meta_value FROM wp WHERE meta_value > 'hello t' ORDER BY meta_value, meta_id;
SELECT meta_id FROM wp WHERE meta_value >= 'hello world' AND meta_value < 'hello worlds' ORDER BY meta_id;
SELECT meta_id FROM wp WHERE meta_key = 'alpha' ORDER BY meta_id;
SELECT meta_id FROM wp WHERE meta_key = 'alpha' AND meta_value = 'hello worlds apart';
SELECT meta_value FROM wp WHERE meta_value IS NULL;
SELECT meta_value FROM wp WHERE meta_value IS NOT NULL ORDER BY meta_value, meta_id;
SELECT meta_value FROM wp WHERE meta_value BETWEEN 'hello' AND 'hello th' ORDER BY 1;
SELECT meta_value FROM wp WHERE meta_value IN ('zz', 'hello there', 'hello worlds') ORDER BY 1;
SELECT meta_value FROM wp WHERE meta_value > 'h' ORDER BY meta_value DESC, meta_id LIMIT 3;
SELECT a.meta_id, b.meta_id FROM wp a JOIN wp b ON a.meta_value = b.meta_value AND a.meta_id < b.meta_id ORDER BY 1, 2;
SELECT INDEX_NAME, COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'wp' ORDER BY INDEX_NAME, SEQ_IN_INDEX;
UPDATE wp SET meta_value = 'hello world' WHERE meta_id = 6;
SELECT meta_id FROM wp WHERE meta_value = 'hello world' ORDER BY meta_id;
DELETE FROM wp WHERE meta_value = 'hello world';
SELECT COUNT(*) FROM wp;
SELECT meta_id FROM wp WHERE meta_value LIKE 'hello%' ORDER BY meta_id;

CREATE TABLE pu (id INT PRIMARY KEY, s VARCHAR(20), b VARBINARY(20), UNIQUE KEY us (s(3)), KEY bb (b(2)));
INSERT INTO pu VALUES (1, 'abcd', 0x010203), (2, 'xyz1', 0x0102FF);
INSERT INTO pu VALUES (3, 'abce', NULL);
INSERT INTO pu VALUES (3, 'ABC', NULL);
INSERT INTO pu VALUES (3, 'ab', NULL), (4, 'a', NULL), (5, NULL, NULL), (6, NULL, NULL);
INSERT IGNORE INTO pu VALUES (7, 'abzz', NULL);
INSERT INTO pu VALUES (8, 'xyz2', NULL) ON DUPLICATE KEY UPDATE s = 'xyq';
SELECT id, s FROM pu ORDER BY id;
SELECT id FROM pu WHERE b = 0x0102FF;
SELECT id FROM pu WHERE b > 0x0102 ORDER BY b;
SELECT id FROM pu WHERE b LIKE 0x0102 ORDER BY id;
UPDATE pu SET s = 'abcz' WHERE id = 3;
UPDATE pu SET s = 'abz' WHERE id = 3;
SELECT id, s FROM pu WHERE s = 'abz';
CREATE INDEX badint ON pu (id(2));
CREATE INDEX badlen ON pu (s(30));
CREATE INDEX whole ON pu (s(20));
SELECT INDEX_NAME, SUB_PART FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'pu' ORDER BY INDEX_NAME;
ALTER TABLE pu MODIFY s VARCHAR(30);
SELECT id, s FROM pu WHERE s = 'abz';
ALTER TABLE pu ADD COLUMN extra INT;
SELECT id, s FROM pu WHERE s LIKE 'ab%' ORDER BY id;
ALTER TABLE pu MODIFY s INT;
ALTER TABLE pu DROP COLUMN s;
SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'pu' ORDER BY INDEX_NAME;

CREATE TABLE pt (a INT, b TEXT, PRIMARY KEY (a), KEY k (b(5), a));
INSERT INTO pt VALUES (1, 'aaaaaz'), (2, 'aaaaab'), (3, 'aaaaa'), (4, 'aaaab'), (5, '');
SELECT a FROM pt WHERE b = 'aaaaab' AND a = 2;
SELECT a FROM pt WHERE b = 'aaaaab' AND a = 1;
SELECT a FROM pt WHERE b >= 'aaaaa' ORDER BY b;
SELECT a FROM pt WHERE b > 'aaaaa' ORDER BY b DESC;
SELECT a FROM pt FORCE INDEX (k) ORDER BY b DESC;
SELECT a FROM pt FORCE INDEX (k) WHERE b < 'aaaaaz' ORDER BY b;
SELECT b, COUNT(*) FROM pt GROUP BY b ORDER BY b;
CREATE TABLE t2 (a TEXT, KEY (a));
CREATE TABLE t3 (a BLOB, KEY (a(4)));
INSERT INTO t3 VALUES ('abcdef'), ('abcd'), ('abc'), (NULL);
SELECT a FROM t3 WHERE a = 'abcd';
SELECT a FROM t3 WHERE a > 'abcd' ORDER BY a;
CREATE TABLE t4 (a VARCHAR(10), b VARCHAR(10), UNIQUE KEY (a(2), b(2)));
INSERT INTO t4 VALUES ('xx1', 'yy1');
INSERT INTO t4 VALUES ('xx2', 'yy2');
INSERT INTO t4 VALUES ('xx2', 'yz2');
SELECT a, b FROM t4 ORDER BY a, b;

-- Table maintenance (backend CHK-1, CHK-2; server admin.go).
CHECK TABLE wp;
CHECK TABLE wp, pu QUICK;
CHECK TABLE nosuch;
CHECKSUM TABLE nosuch;
REPAIR TABLE pt;
OPTIMIZE TABLE pt;
ANALYZE TABLE pt, nosuch;
ANALYZE NO_WRITE_TO_BINLOG TABLE wp, pu;

-- Changing the primary key: one rewrite; a failure leaves the table as it was.
CREATE TABLE cpk (a INT PRIMARY KEY, b INT NOT NULL, c VARCHAR(10), KEY (c));
INSERT INTO cpk VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 20, 'z');
ALTER TABLE cpk DROP PRIMARY KEY, ADD PRIMARY KEY (b);
SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'cpk' AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION;
ALTER TABLE cpk DROP PRIMARY KEY, ADD PRIMARY KEY (b, a);
SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'cpk' AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION;
SELECT * FROM cpk ORDER BY b, a;
INSERT INTO cpk VALUES (2, 20, 'dup');
INSERT INTO cpk VALUES (4, 20, 'new');
SELECT a FROM cpk WHERE c = 'new';
ALTER TABLE cpk DROP PRIMARY KEY;
INSERT INTO cpk VALUES (4, 20, 'again');
SELECT COUNT(*) FROM cpk;
ALTER TABLE cpk ADD PRIMARY KEY (a);
DELETE FROM cpk WHERE c = 'again';
ALTER TABLE cpk ADD PRIMARY KEY (a);
ALTER TABLE cpk ADD PRIMARY KEY (b);
SELECT * FROM cpk ORDER BY a;
CREATE TABLE cpkai (id INT AUTO_INCREMENT PRIMARY KEY, v INT);
ALTER TABLE cpkai DROP PRIMARY KEY;
ALTER TABLE cpkai DROP PRIMARY KEY, ADD PRIMARY KEY (id, v);
ALTER TABLE cpkai MODIFY v INT NOT NULL;
ALTER TABLE cpkai DROP PRIMARY KEY, ADD PRIMARY KEY (id, v);
INSERT INTO cpkai (v) VALUES (5);
SELECT * FROM cpkai;

-- FULLTEXT indexes (backend FT-1..4): natural-language search, kept up
-- to date by writes; rows compared by id (relevance values differ).
CREATE TABLE fts (id INT PRIMARY KEY, title VARCHAR(100), body TEXT, FULLTEXT KEY ft_tb (title, body), FULLTEXT KEY ft_t (title));
INSERT INTO fts VALUES (1, 'MySQL Tutorial', 'DBMS stands for DataBase'), (2, 'How To Use MySQL Well', 'After you went through a'), (3, 'Optimizing MySQL', 'In this tutorial we show'), (4, '1001 MySQL Tricks', 'Never run mysqld as root'), (5, 'MySQL vs. YourSQL', 'In the following database comparison'), (6, 'MySQL Security', 'When configured properly');
SELECT id FROM fts WHERE MATCH (title, body) AGAINST ('database') ORDER BY id;
SELECT id FROM fts WHERE MATCH (title, body) AGAINST ('tutorial security' IN NATURAL LANGUAGE MODE) ORDER BY id;
SELECT id FROM fts WHERE MATCH (title) AGAINST ('tricks optimizing') ORDER BY id;
UPDATE fts SET body = 'nothing here' WHERE id = 5;
DELETE FROM fts WHERE id = 1;
SELECT id FROM fts WHERE MATCH (title, body) AGAINST ('database tutorial') ORDER BY id;
SELECT COUNT(*) FROM fts WHERE MATCH (title, body) AGAINST ('nosuchword');
SELECT id FROM fts WHERE MATCH (body) AGAINST ('tutorial');
SELECT INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, INDEX_TYPE, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'fts' ORDER BY INDEX_NAME, SEQ_IN_INDEX;

-- Wide ranges read by a scan of the table (planner PL-9) and integer and
-- temporal comparisons with literals (rules RULE-90): the same rows
-- whichever access is chosen, NULLs, aliases, signs at the ends of the
-- ranges of the types.
CREATE TABLE wr (id INT PRIMARY KEY, k INT, u INT UNSIGNED, b BIGINT UNSIGNED, t TINYINT, d DATE, dt DATETIME, v INT, KEY k (k), KEY u (u), KEY d (d), KEY dt (dt));
INSERT INTO wr VALUES (1, 5, 0, 18446744073709551615, -128, '2025-01-01', '2025-01-01 10:00:00', 1), (2, -3, 4294967295, 0, 127, '2025-02-01', '2025-02-01 00:00:00', NULL), (3, NULL, NULL, NULL, NULL, NULL, NULL, 3), (4, 0, 7, 9223372036854775808, 0, '2024-12-31', '2024-12-31 23:59:59', 4), (5, 100, 1, 1, -1, '2025-03-01', '2025-03-01 12:30:00', 5), (6, 7, 2, 2, 1, '2025-01-15', '2025-01-15 00:00:01', NULL);
SELECT id FROM wr WHERE k > -5 AND v > 0 ORDER BY id;
SELECT id FROM wr x WHERE x.k >= 0 AND x.v IS NULL ORDER BY id;
SELECT id FROM wr WHERE (k < 1 OR k > 6) AND id > 1 ORDER BY id;
SELECT id FROM wr WHERE u > -1 ORDER BY id;
SELECT id FROM wr WHERE u < 4294967296 AND u >= 1 ORDER BY id;
SELECT id FROM wr WHERE b > 9223372036854775807 ORDER BY id;
SELECT id FROM wr WHERE b < -1 ORDER BY id;
SELECT id FROM wr WHERE 9223372036854775808 <= b ORDER BY id;
SELECT id FROM wr WHERE t > 127 OR t < -128 ORDER BY id;
SELECT id FROM wr WHERE t >= -128 AND 300 > t ORDER BY id;
SELECT id FROM wr WHERE t = -1 OR t = 255 ORDER BY id;
SELECT id FROM wr WHERE d >= '2025-01-01' AND v > 0 ORDER BY id;
SELECT id FROM wr WHERE d < '2025-02-01' ORDER BY id;
SELECT id FROM wr WHERE '2025-01-15' = d ORDER BY id;
SELECT id FROM wr WHERE dt > '2025-01-01 10:00:00' ORDER BY id;
SELECT id FROM wr WHERE dt <= '2025-01-15 00:00:01' AND dt >= '2024-12-31 23:59:59' ORDER BY id;
SELECT id FROM wr WHERE dt > '2025-01-01' ORDER BY id;
SELECT COUNT(*), SUM(v) FROM wr WHERE k > -100;
SELECT id, b <=> 9223372036854775807, b <=> NULL, b > k, b = k, b <=> k, 9223372036854775807 = 9223372036854775808 FROM wr ORDER BY id;
SELECT id FROM wr WHERE b <=> 9223372036854775807 OR k <=> -3 ORDER BY id;
CREATE TABLE wd (id INT PRIMARY KEY, p DECIMAL(6,2), KEY p (p));
INSERT INTO wd VALUES (1, -9999.99), (2, 0), (3, 9999.99), (4, NULL), (5, 12.50);
SELECT id FROM wd WHERE p < 1000000 ORDER BY id;
SELECT id FROM wd WHERE p > -2147483648 AND p <= 99999.999 ORDER BY id;
SELECT id FROM wd WHERE p = 10000 OR p IN (-10000, 12.5) ORDER BY id;
SELECT id FROM wd WHERE p BETWEEN -1e9 AND 13 ORDER BY id;
SELECT id FROM wd WHERE p > 'abc' ORDER BY id;
CREATE TABLE ws (id INT PRIMARY KEY, s VARCHAR(10), KEY s (s));
INSERT INTO ws VALUES (1, 'a'), (2, '10'), (3, '9'), (4, '010'), (5, NULL), (6, '10.0');
SELECT id FROM ws WHERE s = 10 ORDER BY id;
SELECT id FROM ws WHERE s > 4294967296 ORDER BY id;
SELECT id FROM ws WHERE s < 5 ORDER BY id;
SELECT id FROM ws WHERE s IN (10, 9) ORDER BY id;
SELECT id FROM wd WHERE p <> 12.50 ORDER BY id;
SELECT x.id FROM wd x JOIN wd y ON y.id = x.id WHERE y.p <> 12.5 AND x.p != 0 ORDER BY x.id;
