-- @default-collation
-- Case-insensitive comparisons under the default collation (MySQL 8.0:
-- utf8mb4_0900_ai_ci; MariaDB 10.11: utf8mb4_general_ci; both case- and
-- accent-insensitive) and under explicit collations. Statements where
-- the two default collations legitimately differ (trailing spaces: 0900
-- collations are NO PAD; 'ß' vs 'ss'; collation names) are left out.

SELECT 'a' = 'A', 'abc' = 'ABC', 'é' = 'e', 'a' < 'B', 'B' > 'a';
SELECT 'abc' LIKE 'A%', 'ABC' LIKE '%b%', STRCMP('abc', 'ABC');
SELECT 'a' = 'A' COLLATE utf8mb4_bin, 'a' = BINARY 'A', BINARY 'a' = 'a';
SELECT 'a' = 'a ' COLLATE utf8mb4_bin, 'a' = 'a ' COLLATE utf8mb4_general_ci, 'a' = 'a ' COLLATE utf8mb4_unicode_ci;
SELECT 'A' = 'a' COLLATE utf8mb4_general_ci, 'A' = 'a' COLLATE utf8mb4_unicode_ci, 'Ä' = 'a' COLLATE utf8mb4_general_ci;

CREATE TABLE ci (id INT PRIMARY KEY, s VARCHAR(20));
INSERT INTO ci VALUES (1, 'abc'), (2, 'ABC'), (3, 'Abc'), (4, 'abd'), (5, 'ábc'), (6, 'b'), (7, 'B'), (8, NULL);
SELECT id FROM ci WHERE s = 'abc' ORDER BY id;
SELECT id FROM ci WHERE s = 'ABC' ORDER BY id;
SELECT id FROM ci WHERE s <> 'abc' ORDER BY id;
SELECT id FROM ci WHERE s IN ('ABD', 'b') ORDER BY id;
SELECT id FROM ci WHERE s LIKE 'ab%' ORDER BY id;
SELECT id FROM ci WHERE s LIKE 'A_C' ORDER BY id;
SELECT id FROM ci WHERE s > 'abc' ORDER BY id;
SELECT id FROM ci WHERE s BETWEEN 'ABA' AND 'ABZ' ORDER BY id;
SELECT id FROM ci ORDER BY s, id;
SELECT id FROM ci ORDER BY s DESC, id;
SELECT COUNT(DISTINCT s) FROM ci;
SELECT COUNT(*) FROM ci GROUP BY s ORDER BY COUNT(*), MIN(id);
SELECT MIN(id), COUNT(*) FROM ci GROUP BY s ORDER BY MIN(id);
SELECT id FROM ci WHERE s = 'abc' COLLATE utf8mb4_bin ORDER BY id;
SELECT id FROM ci WHERE BINARY s = 'ABC' ORDER BY id;
SELECT id FROM ci WHERE s COLLATE utf8mb4_bin LIKE 'A%' ORDER BY id;
SELECT id FROM ci ORDER BY s COLLATE utf8mb4_bin, id;
SELECT a.id, b.id FROM ci a JOIN ci b ON a.s = b.s AND a.id < b.id ORDER BY a.id, b.id;
SELECT id FROM ci WHERE s = (SELECT 'ABD') ORDER BY id;
SELECT UPPER(s), LOWER(s) FROM ci WHERE id IN (1, 5) ORDER BY id;
SELECT id, FIND_IN_SET('ABC', 'x,abc'), LOCATE('B', s), INSTR(s, 'C'), REPLACE(s, 'b', 'x') FROM ci WHERE id <= 3 ORDER BY id;
SELECT id, FIELD(s, 'ABC') FROM ci WHERE id <= 3 ORDER BY id;

-- UNIQUE keys follow the collation.
CREATE TABLE uci (id INT PRIMARY KEY, s VARCHAR(20), UNIQUE KEY (s));
INSERT INTO uci VALUES (1, 'abc');
INSERT INTO uci VALUES (2, 'ABC');
INSERT INTO uci VALUES (3, 'ábc');
INSERT INTO uci VALUES (4, 'abd');
INSERT IGNORE INTO uci VALUES (5, 'ABD');
SELECT * FROM uci ORDER BY id;
SELECT id FROM uci WHERE s = 'ABD';
INSERT INTO uci VALUES (6, 'Abc') ON DUPLICATE KEY UPDATE s = 'new';
SELECT * FROM uci ORDER BY id;
REPLACE INTO uci VALUES (7, 'NEW');
SELECT * FROM uci ORDER BY id;

-- A case-insensitive primary key.
CREATE TABLE pkci (k VARCHAR(10) PRIMARY KEY, v INT);
INSERT INTO pkci VALUES ('key', 1);
INSERT INTO pkci VALUES ('KEY', 2);
SELECT * FROM pkci WHERE k = 'Key';
UPDATE pkci SET v = 3 WHERE k = 'KEY';
SELECT * FROM pkci;
DELETE FROM pkci WHERE k = 'kEy';
SELECT COUNT(*) FROM pkci;

-- Explicit collations on columns.
CREATE TABLE mixed (id INT PRIMARY KEY, cs VARCHAR(10) COLLATE utf8mb4_bin, gi VARCHAR(10) COLLATE utf8mb4_general_ci, ui VARCHAR(10) COLLATE utf8mb4_unicode_ci);
INSERT INTO mixed VALUES (1, 'a', 'a', 'a'), (2, 'A', 'A', 'A'), (3, 'b', 'b', 'b');
SELECT id FROM mixed WHERE cs = 'a' ORDER BY id;
SELECT id FROM mixed WHERE gi = 'a' ORDER BY id;
SELECT id FROM mixed WHERE ui = 'a' ORDER BY id;
SELECT id FROM mixed ORDER BY cs, id;
SELECT id FROM mixed ORDER BY gi, id;
SELECT COUNT(DISTINCT cs), COUNT(DISTINCT gi), COUNT(DISTINCT ui) FROM mixed;
SELECT id FROM mixed WHERE gi = 'a ' ORDER BY id;
SELECT id FROM mixed WHERE cs = 'a ' ORDER BY id;
SELECT id FROM mixed WHERE cs = gi ORDER BY id;
SELECT COLLATION(cs), COLLATION(gi), COLLATION(ui) FROM mixed WHERE id = 1;
SELECT COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'mixed' AND COLUMN_NAME <> 'id' ORDER BY ORDINAL_POSITION;
CREATE TABLE ucs (s VARCHAR(10) COLLATE utf8mb4_bin PRIMARY KEY);
INSERT INTO ucs VALUES ('a'), ('A');
INSERT INTO ucs VALUES ('a ');
SELECT HEX(s) FROM ucs ORDER BY s;

-- PAD SPACE: trailing spaces do not count, in filters, ranges, IN lists and joins alike.
CREATE TABLE padg (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_general_ci, KEY (s));
INSERT INTO padg VALUES (1, 'a'), (2, 'a '), (3, 'b'), (4, 'B  ');
SELECT id FROM padg WHERE s = 'a' ORDER BY id;
SELECT id FROM padg IGNORE INDEX (s) WHERE s = 'a   ' ORDER BY id;
SELECT id FROM padg WHERE s >= 'a   ' AND s <= 'a' ORDER BY id;
SELECT id FROM padg WHERE s IN ('a  ', 'b ') ORDER BY id;
SELECT id FROM padg WHERE s > 'a' ORDER BY id;
SELECT a.id, b.id FROM padg a JOIN padg b ON a.s = b.s WHERE a.id < b.id ORDER BY a.id, b.id;
SELECT a.id, b.id FROM padg a JOIN padg b IGNORE INDEX (s) ON a.s = b.s WHERE a.id < b.id ORDER BY a.id, b.id;
SELECT 'x ' = 'x' COLLATE utf8mb4_bin, 'x ' < 'x' COLLATE utf8mb4_unicode_ci, 'x' = 'x  ' COLLATE utf8mb4_general_ci;
-- IN lists compare under the operand's collation, PAD SPACE without trailing spaces (RULE-26).
CREATE TABLE padn (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_general_ci);
INSERT INTO padn SELECT * FROM padg;
SELECT id FROM padn WHERE s IN ('a  ', 'b ') ORDER BY id;
SELECT id FROM padn WHERE s IN ('A', 'x') ORDER BY id;
SELECT id FROM padn WHERE s NOT IN ('a', 'x') ORDER BY id;
SELECT id, s IN ('a', 'b'), s IN ('A ') FROM padn ORDER BY id;
SELECT id FROM padn WHERE s IN ('a', NULL) ORDER BY id;
SELECT id FROM padn WHERE s NOT IN ('a', NULL) ORDER BY id;
SELECT id FROM padn WHERE s COLLATE utf8mb4_bin IN ('a') ORDER BY id;
CREATE TABLE padc (id INT PRIMARY KEY, a VARCHAR(10), b VARCHAR(10)) COLLATE utf8mb4_general_ci;
INSERT INTO padc VALUES (1, 'x ', 'x'), (2, 'y', 'Y  '), (3, 'z', NULL), (4, NULL, 'q');
SELECT id FROM padc WHERE a IN (b, 'zz') ORDER BY id;
SELECT id, a IN (b), a NOT IN (b, 'q ') FROM padc ORDER BY id;
SELECT id FROM padc WHERE CONCAT(a, '') IN ('x', 'Z ') ORDER BY id;
SELECT id FROM padc WHERE CONCAT(a, '') IN ('x', 'Z') ORDER BY id;
-- Expressions over strings keep their arguments' collation (RULE-58).
CREATE TABLE names (id INT PRIMARY KEY, nick VARCHAR(10), name VARCHAR(10)) DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci;
INSERT INTO names VALUES (1, 'a', 'Zed'), (2, NULL, 'b'), (3, 'A', 'x'), (4, NULL, 'B'), (5, 'c', 'c');
SELECT IF(id > 0, nick, name) x, COUNT(*) FROM names GROUP BY x ORDER BY x;
SELECT COALESCE(nick, name) x, COUNT(*) FROM names GROUP BY x ORDER BY x;
SELECT CASE WHEN nick IS NULL THEN name ELSE nick END x, COUNT(*) FROM names GROUP BY x ORDER BY x;
SELECT COUNT(DISTINCT COALESCE(nick, name)), COUNT(DISTINCT CONCAT(name, '')), COUNT(DISTINCT LOWER(name)) FROM names;
SELECT id FROM names WHERE COALESCE(nick, name) = 'B' ORDER BY id;
SELECT id FROM names WHERE CASE WHEN id = 3 THEN nick ELSE 'q' END = 'a' ORDER BY id;
SELECT DISTINCT IFNULL(nick, 'A') x FROM names ORDER BY x;
SELECT x, COUNT(*) FROM (SELECT COALESCE(nick, name) x FROM names) d GROUP BY x ORDER BY x;
SELECT CONCAT(name, '') x, COUNT(*) FROM names GROUP BY x ORDER BY x;
SELECT COLLATION(IF(id > 0, nick, name)), COLLATION(COALESCE(nick, 'x')), COLLATION(CASE WHEN id THEN name END), COLLATION(CONCAT(name, 'x')) FROM names WHERE id = 1;
SELECT COALESCE(nick COLLATE utf8mb4_bin, name) x FROM names WHERE id IN (1, 3) ORDER BY x;
