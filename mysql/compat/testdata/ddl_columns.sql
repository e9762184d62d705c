-- Column types and column definitions: each table is followed by inserts
-- and selects that show the definitions took effect.

-- Integers, signed and unsigned.
CREATE TABLE ints (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED,
  si SMALLINT, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED,
  bi BIGINT, bu BIGINT UNSIGNED
);
INSERT INTO ints VALUES (1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0);
INSERT INTO ints VALUES (2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615);
INSERT INTO ints (id) VALUES (3);
INSERT INTO ints VALUES (4, '12', '13', ' 14', '15', '-16', '17', '18', '19', '-20', '21');
SELECT * FROM ints ORDER BY id;
SELECT id, ti + 1, tu - 1, bi + 0, bu DIV 2 FROM ints WHERE id = 4;
SELECT SUM(ti), SUM(tu), SUM(i), MIN(bi), MAX(bu) FROM ints;
SELECT id FROM ints WHERE bu > 9223372036854775807 ORDER BY id;
SELECT id FROM ints WHERE bi < 0 ORDER BY id;
SELECT COUNT(*), COUNT(ti), COUNT(bu) FROM ints;
INSERT INTO ints (id, ti) VALUES (5, 128);
INSERT INTO ints (id, tu) VALUES (6, -1);
INSERT INTO ints (id, bu) VALUES (7, -1);
INSERT INTO ints (id, i) VALUES (8, 2147483648);
INSERT INTO ints (id, si) VALUES (9, 1.5);
INSERT INTO ints (id, si) VALUES (10, 2.5);
INSERT INTO ints (id, si) VALUES (11, -2.5);
INSERT INTO ints (id, mi) VALUES (12, '3.7');
SELECT id, si, mi FROM ints WHERE id >= 9 ORDER BY id;

-- Integer display widths and ZEROFILL-free BOOL.
CREATE TABLE bools (id INT PRIMARY KEY, b BOOL, bb BOOLEAN DEFAULT TRUE);
INSERT INTO bools (id, b) VALUES (1, TRUE), (2, FALSE), (3, NULL), (4, 7);
SELECT * FROM bools ORDER BY id;
SELECT id FROM bools WHERE b ORDER BY id;
SELECT id FROM bools WHERE NOT b ORDER BY id;
SELECT id, b IS TRUE, b IS FALSE, b IS NULL FROM bools ORDER BY id;

-- Fixed point.
CREATE TABLE decs (
  id INT PRIMARY KEY,
  d DECIMAL(10,2), d0 DECIMAL(5), du DECIMAL(6,3) UNSIGNED, big DECIMAL(30,10), n NUMERIC(4,1)
);
INSERT INTO decs VALUES (1, 12345678.91, 12345, 123.456, 12345678901234567890.0123456789, 123.4);
INSERT INTO decs VALUES (2, -0.01, -99999, 0, -1, -999.9);
INSERT INTO decs VALUES (3, 1.005, 1.5, 1.0005, 0.00000000005, 0.05);
INSERT INTO decs VALUES (4, '7.125', '-2.5', '3', '1e3', '-0.04');
INSERT INTO decs (id) VALUES (5);
SELECT * FROM decs ORDER BY id;
SELECT id, d * 2, d + 0.001, d / 3, -d FROM decs WHERE d IS NOT NULL ORDER BY id;
SELECT SUM(d), AVG(d), MIN(d0), MAX(big) FROM decs;
INSERT INTO decs (id, d) VALUES (6, 123456789.00);
INSERT INTO decs (id, du) VALUES (7, -1);
INSERT INTO decs (id, n) VALUES (8, 1000);
SELECT id, d, du, n FROM decs WHERE id >= 6 ORDER BY id;
-- UNSIGNED DECIMAL, FLOAT and DOUBLE: no negative values; kept by LIKE and ALTER.
CREATE TABLE unums (id INT PRIMARY KEY, d DECIMAL(5,2) UNSIGNED, f FLOAT UNSIGNED, g DOUBLE UNSIGNED NOT NULL DEFAULT 0, s DECIMAL(4,1));
SHOW CREATE TABLE unums;
INSERT INTO unums VALUES (1, 1.5, 2.5, 3.5, -1);
INSERT INTO unums VALUES (2, -1.5, 2.5, 3.5, -1);
INSERT INTO unums VALUES (3, 1.5, -2.5, 3.5, -1);
INSERT INTO unums VALUES (4, 1.5, 2.5, '-3.5', -1);
INSERT INTO unums VALUES (10, 0, -0.0, 0, 0);
INSERT IGNORE INTO unums VALUES (5, -1.5, -2.5, -3.5, -1);
SHOW WARNINGS;
UPDATE unums SET d = d - 10 WHERE id = 1;
UPDATE IGNORE unums SET d = d - 10, f = -f WHERE id = 1;
SELECT * FROM unums ORDER BY id;
SET @saved_mode = @@sql_mode;
SET sql_mode = '';
INSERT INTO unums VALUES (6, -7, -8, -9, -1);
SHOW WARNINGS;
SET sql_mode = @saved_mode;
SELECT * FROM unums ORDER BY id;
CREATE TABLE unums2 LIKE unums;
INSERT INTO unums2 (id, d) VALUES (1, -1);
ALTER TABLE unums2 ADD COLUMN e DECIMAL(3,0) UNSIGNED, MODIFY d DECIMAL(5,2);
INSERT INTO unums2 (id, d, e) VALUES (2, -1, 1);
INSERT INTO unums2 (id, e) VALUES (3, -1);
ALTER TABLE unums2 MODIFY d DECIMAL(5,2) UNSIGNED;
ALTER TABLE unums2 CHANGE f f2 FLOAT;
INSERT INTO unums2 (id, f2) VALUES (4, -1);
SELECT * FROM unums2 ORDER BY id;
ALTER TABLE unums MODIFY s DECIMAL(4,1) UNSIGNED;
SELECT id, s FROM unums ORDER BY id;

-- Floating point.
CREATE TABLE floats (id INT PRIMARY KEY, f FLOAT, d DOUBLE, r REAL, dp DOUBLE PRECISION);
INSERT INTO floats VALUES (1, 1.5, 1.5, 1.5, 1.5);
INSERT INTO floats VALUES (2, -0.25, 1e100, -1e-100, 3.0);
INSERT INTO floats VALUES (3, 100, 0.1, 123456789.125, -7);
INSERT INTO floats VALUES (4, '2.5', '3.25', '-4', '5e2');
INSERT INTO floats (id) VALUES (5);
SELECT * FROM floats ORDER BY id;
SELECT id, d * 2, d + 1, f * 2 FROM floats WHERE id IN (1, 3, 4) ORDER BY id;
SELECT SUM(d) FROM floats WHERE id IN (1, 4);
SELECT id FROM floats WHERE f > 1 ORDER BY id;
SELECT id FROM floats WHERE d = 0.1 ORDER BY id;

-- Character strings.
CREATE TABLE strs (
  id INT PRIMARY KEY,
  c CHAR(5), vc VARCHAR(10), t TEXT, tt TINYTEXT, mt MEDIUMTEXT, lt LONGTEXT
);
INSERT INTO strs VALUES (1, 'ab', 'ab', 'ab', 'ab', 'ab', 'ab');
INSERT INTO strs VALUES (2, 'ab  ', 'ab  ', 'ab  ', 'ab  ', 'ab  ', 'ab  ');
INSERT INTO strs VALUES (3, '', '', '', '', '', '');
INSERT INTO strs VALUES (4, 'héllo', 'ünïcödé', '日本語', 'emoji 😀', 'x', 'y');
INSERT INTO strs VALUES (5, 'it''s', 'a"b', 'back\\slash', 'tab\there', 'nl\nx', 'NULL');
INSERT INTO strs (id) VALUES (6);
SELECT * FROM strs ORDER BY id;
SELECT id, LENGTH(c), CHAR_LENGTH(c), LENGTH(vc), CHAR_LENGTH(vc), LENGTH(t) FROM strs ORDER BY id;
SELECT id, CONCAT('[', c, ']'), CONCAT('[', vc, ']') FROM strs ORDER BY id;
SELECT id FROM strs WHERE lt IS NULL ORDER BY id;
SELECT id FROM strs WHERE lt = 'NULL' ORDER BY id;

-- Byte strings.
CREATE TABLE bins (id INT PRIMARY KEY, b BINARY(4), vb VARBINARY(8), bl BLOB, tb TINYBLOB, lb LONGBLOB);
INSERT INTO bins VALUES (1, 'ab', 'ab', 'ab', 'ab', 'ab');
INSERT INTO bins VALUES (2, x'00ff', x'00ff', x'00ff00', x'', x'41');
INSERT INTO bins VALUES (3, '', '', '', '', '');
INSERT INTO bins (id) VALUES (4);
SELECT id, HEX(b), HEX(vb), HEX(bl), HEX(tb), HEX(lb) FROM bins ORDER BY id;
SELECT id, LENGTH(b), LENGTH(vb), LENGTH(bl) FROM bins ORDER BY id;
SELECT id FROM bins WHERE vb = x'00ff' ORDER BY id;
SELECT id FROM bins WHERE b = 'ab' ORDER BY id;
SELECT id FROM bins WHERE b = x'61620000' ORDER BY id;

-- Dates and times.
CREATE TABLE times (
  id INT PRIMARY KEY,
  d DATE, t TIME, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, ts6 TIMESTAMP(6) NULL, y YEAR
);
INSERT INTO times VALUES (1, '2024-02-29', '12:34:56', '2024-02-29 23:59:59', '2024-02-29 23:59:59.123456', '2024-02-29 23:59:59', '2024-02-29 23:59:59.654321', 2024);
INSERT INTO times VALUES (2, '1000-01-01', '-838:59:59', '1000-01-01 00:00:00', '9999-12-31 23:59:59.999999', '1970-01-01 00:00:01', '2038-01-19 03:14:07.999999', 1901);
INSERT INTO times VALUES (3, '9999-12-31', '838:59:59', '9999-12-31 23:59:59', '2000-01-01 00:00:00', '2000-01-01 00:00:00', '2000-01-01 00:00:00', 2155);
INSERT INTO times VALUES (4, 20240101, 123456, 20240101123456, '2024-01-01T12:34:56.5', 20240101123456, '2024-01-01 12:34:56.5', '99');
INSERT INTO times VALUES (5, '2024-1-2', '1:2:3', '2024-1-2 3:4:5', '2024-1-2 3:4:5.6', '2024-1-2 3:4:5', '2024-1-2 3:4:5.6', 0);
INSERT INTO times (id) VALUES (6);
SELECT * FROM times ORDER BY id;
SELECT id, YEAR(d), MONTH(d), DAY(d), HOUR(t), MINUTE(t), SECOND(dt) FROM times WHERE id <= 5 ORDER BY id;
SELECT id, dt6 + INTERVAL 1 SECOND, d + INTERVAL 1 DAY, ts - INTERVAL 1 HOUR FROM times WHERE id IN (1, 3) ORDER BY id;
SELECT id FROM times WHERE d BETWEEN '2000-01-01' AND '2030-01-01' ORDER BY id;
SELECT id FROM times WHERE dt6 > '2024-02-29 23:59:59.1' ORDER BY id;
SELECT id, y FROM times WHERE y > 2000 ORDER BY id;
SELECT MIN(d), MAX(d), MIN(t), MAX(dt6) FROM times;
INSERT INTO times (id, y) VALUES (7, 1900);
INSERT INTO times (id, y) VALUES (8, 5);
INSERT INTO times (id, ts) VALUES (9, '1969-12-31 23:59:59');
INSERT INTO times (id, t) VALUES (10, '839:00:00');
SELECT id, y, ts, t FROM times WHERE id >= 7 ORDER BY id;
CREATE TABLE times3 (id INT PRIMARY KEY, t3 TIME(3), dt3 DATETIME(3));
INSERT INTO times3 VALUES (1, '12:34:56.789', '2024-02-29 23:59:59.1239');
INSERT INTO times3 VALUES (2, '-00:00:01.5', '2024-02-29 23:59:59.9996');
INSERT INTO times3 VALUES (3, 1.5, 20240101123456.5);
SELECT * FROM times3 ORDER BY id;
SELECT id, MINUTE(t3), MICROSECOND(t3), MICROSECOND(dt3) FROM times3 ORDER BY id;

-- ENUM and SET, including quotes and commas in values.
CREATE TABLE enums (
  id INT PRIMARY KEY,
  e ENUM('small', 'medium', 'large'),
  s SET('a', 'b', 'c', 'd'),
  en ENUM('x', 'y') NOT NULL
);
INSERT INTO enums VALUES (1, 'small', 'a', 'x');
INSERT INTO enums VALUES (2, 'large', 'c,a', 'y');
INSERT INTO enums VALUES (3, 'medium', '', 'x');
INSERT INTO enums VALUES (4, 2, 'd,b,b', 2);
INSERT INTO enums (id, en) VALUES (5, 'y');
INSERT INTO enums (id) VALUES (6);
SELECT * FROM enums ORDER BY id;
SELECT id, e + 0, s + 0, en + 0 FROM enums ORDER BY id;
SELECT id FROM enums WHERE e = 'medium' ORDER BY id;
SELECT id FROM enums WHERE e = 2 ORDER BY id;
SELECT id FROM enums WHERE FIND_IN_SET('a', s) ORDER BY id;
SELECT e, COUNT(*) FROM enums GROUP BY e ORDER BY e;
SELECT id, e FROM enums ORDER BY e, id;
INSERT INTO enums (id, e, en) VALUES (7, 'huge', 'x');
INSERT INTO enums (id, s, en) VALUES (8, 'a,z', 'x');
INSERT INTO enums (id, e, en) VALUES (9, 0, 'x');
INSERT INTO enums (id, e, en) VALUES (10, 4, 'x');
CREATE TABLE enumq (id INT PRIMARY KEY, eq ENUM('it''s', 'say "hi"', 'back\\slash', ''), sq SET('x''y', 'a b'));
INSERT INTO enumq VALUES (1, 'it''s', 'x''y'), (2, 'say "hi"', 'a b,x''y'), (3, 'back\\slash', ''), (4, 4, 'a b');
SELECT id, eq, eq + 0, sq, sq + 0 FROM enumq ORDER BY id;

-- JSON (written in MySQL's normalized form so both servers print it alike).
CREATE TABLE docs (id INT PRIMARY KEY, j JSON);
INSERT INTO docs VALUES (1, '{"a": 1, "b": [1, 2, 3]}');
INSERT INTO docs VALUES (2, '[1, "two", null, true, false, 3.5]');
INSERT INTO docs VALUES (3, '"just a string"');
INSERT INTO docs VALUES (4, '42');
INSERT INTO docs VALUES (5, 'null');
INSERT INTO docs VALUES (6, NULL);
INSERT INTO docs VALUES (7, '{"k": {"n": {"m": "deep"}}}');
SELECT * FROM docs ORDER BY id;
SELECT id, JSON_TYPE(j) FROM docs ORDER BY id;
SELECT id, JSON_EXTRACT(j, '$.a') FROM docs ORDER BY id;
SELECT id, JSON_UNQUOTE(JSON_EXTRACT(j, '$.k.n.m')) FROM docs WHERE id = 7;
SELECT id FROM docs WHERE JSON_EXTRACT(j, '$.a') = 1 ORDER BY id;
SELECT id, JSON_LENGTH(j) FROM docs ORDER BY id;

-- BIT.
CREATE TABLE bits (id INT PRIMARY KEY, b1 BIT(1), b8 BIT(8), b64 BIT(64));
INSERT INTO bits VALUES (1, 0, 0, 0);
INSERT INTO bits VALUES (2, 1, 255, 18446744073709551615);
INSERT INTO bits VALUES (3, b'1', b'1010', b'11');
INSERT INTO bits (id) VALUES (4);
SELECT id, b1 + 0, b8 + 0, b64 + 0, HEX(b8), BIN(b8) FROM bits ORDER BY id;
SELECT id FROM bits WHERE b1 = 1 ORDER BY id;
INSERT INTO bits (id, b8) VALUES (5, 256);

-- Defaults: NULL, literals, expressions, CURRENT_TIMESTAMP.
CREATE TABLE defs (
  id INT PRIMARY KEY,
  a INT DEFAULT NULL,
  b INT DEFAULT 42,
  c VARCHAR(20) DEFAULT 'hello',
  d DECIMAL(5,2) DEFAULT '1.50',
  e DATE DEFAULT '2020-01-01',
  f ENUM('x', 'y') DEFAULT 'y',
  g DOUBLE DEFAULT -1.5,
  h INT NOT NULL DEFAULT 7,
  i VARCHAR(5) NOT NULL DEFAULT '',
  k BOOL DEFAULT FALSE
);
INSERT INTO defs (id) VALUES (1);
INSERT INTO defs (id, a, b, c) VALUES (2, 1, NULL, NULL);
INSERT INTO defs VALUES (3, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT, DEFAULT);
INSERT INTO defs (id, b) VALUES (4, DEFAULT(b) + 1);
INSERT INTO defs () VALUES ();
INSERT INTO defs (id, h) VALUES (5, NULL);
SELECT * FROM defs ORDER BY id;
UPDATE defs SET c = DEFAULT, b = DEFAULT WHERE id = 2;
SELECT id, b, c FROM defs WHERE id = 2;

CREATE TABLE defexpr (
  id INT PRIMARY KEY,
  a INT DEFAULT (1 + 2),
  b VARCHAR(20) DEFAULT (CONCAT('x', 'y')),
  c DOUBLE DEFAULT (SQRT(16)),
  d INT DEFAULT (id * 10),
  e JSON DEFAULT (JSON_ARRAY()),
  f DATE DEFAULT (DATE '2001-02-03' + INTERVAL 1 DAY),
  g TEXT DEFAULT ('text default'),
  h BLOB DEFAULT ('blob')
);
INSERT INTO defexpr (id) VALUES (1), (2);
INSERT INTO defexpr (id, a, d) VALUES (3, 0, 0);
SELECT * FROM defexpr ORDER BY id;

CREATE TABLE tsdefs (
  id INT PRIMARY KEY,
  v INT,
  created TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  updated TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  dt DATETIME DEFAULT CURRENT_TIMESTAMP,
  dt6 DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  manual DATETIME ON UPDATE CURRENT_TIMESTAMP
);
INSERT INTO tsdefs (id, v) VALUES (1, 1);
INSERT INTO tsdefs (id, v, updated, manual) VALUES (2, 2, '2001-01-01 00:00:00', '2001-01-01 00:00:00');
SELECT id, created > '2020-01-01', updated > '2020-01-01', dt > '2020-01-01', dt6 > '2020-01-01', manual FROM tsdefs ORDER BY id;
UPDATE tsdefs SET v = 20 WHERE id = 2;
SELECT id, v, updated > '2020-01-01', manual > '2020-01-01' FROM tsdefs ORDER BY id;
UPDATE tsdefs SET v = v WHERE id = 1;
UPDATE tsdefs SET v = 30, manual = '1999-09-09 09:09:09' WHERE id = 2;
SELECT id, v, manual IS NULL, manual FROM tsdefs WHERE id = 2;
SELECT id, v, manual IS NULL FROM tsdefs WHERE id = 1;
SELECT COUNT(*) FROM tsdefs WHERE created = dt;

-- Generated columns.
CREATE TABLE gen (
  id INT PRIMARY KEY,
  a INT,
  b INT,
  s INT AS (a + b) STORED,
  v INT AS (a * b) VIRTUAL,
  g VARCHAR(30) GENERATED ALWAYS AS (CONCAT(a, '-', b)),
  n INT AS (a + 1) STORED
);
INSERT INTO gen (id, a, b) VALUES (1, 2, 3), (2, 10, -1);
INSERT INTO gen (id, a, b) VALUES (3, NULL, 1);
INSERT INTO gen (id, a) VALUES (4, 5);
SELECT * FROM gen ORDER BY id;
UPDATE gen SET a = 100 WHERE id = 1;
SELECT id, s, v, g, n FROM gen ORDER BY id;
SELECT id FROM gen WHERE s > 5 ORDER BY id;
SELECT id FROM gen WHERE v = -10 ORDER BY id;
INSERT INTO gen (id, a, b, s) VALUES (5, 1, 1, 99);
INSERT INTO gen (id, a, b, s) VALUES (6, 1, 1, DEFAULT);
SELECT id, s FROM gen WHERE id >= 5 ORDER BY id;
CREATE TABLE genidx (id INT PRIMARY KEY, j JSON, name VARCHAR(20) AS (JSON_UNQUOTE(JSON_EXTRACT(j, '$.name'))) STORED, KEY (name));
INSERT INTO genidx (id, j) VALUES (1, '{"name": "bob"}'), (2, '{"name": "al"}'), (3, '{}');
SELECT id, name FROM genidx ORDER BY name, id;
SELECT id FROM genidx WHERE name = 'bob';

-- NOT NULL, AUTO_INCREMENT, comments.
CREATE TABLE ai (
  id INT AUTO_INCREMENT PRIMARY KEY COMMENT 'the key',
  name VARCHAR(20) NOT NULL COMMENT 'it''s a name',
  note VARCHAR(20) NULL
) COMMENT = 'table comment';
INSERT INTO ai (name) VALUES ('a');
INSERT INTO ai (name) VALUES ('b'), ('c');
INSERT INTO ai (id, name) VALUES (10, 'd');
INSERT INTO ai (name) VALUES ('e');
INSERT INTO ai (id, name) VALUES (0, 'f');
INSERT INTO ai (id, name) VALUES (NULL, 'g');
INSERT INTO ai (id, name) VALUES (5, 'h');
INSERT INTO ai (name) VALUES ('i');
SELECT * FROM ai ORDER BY id;
SELECT LAST_INSERT_ID();
INSERT INTO ai (name) VALUES (NULL);
INSERT INTO ai (note) VALUES ('x');
DELETE FROM ai WHERE id >= 12;
INSERT INTO ai (name) VALUES ('j');
SELECT id, name FROM ai WHERE name = 'j';
SELECT COLUMN_NAME, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'ai' ORDER BY ORDINAL_POSITION;
SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'ai';
CREATE TABLE ai_big (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, v INT) AUTO_INCREMENT = 1000;
INSERT INTO ai_big (v) VALUES (1), (2);
SELECT * FROM ai_big ORDER BY id;
CREATE TABLE ai_tiny (id TINYINT AUTO_INCREMENT PRIMARY KEY, v INT);
INSERT INTO ai_tiny (id, v) VALUES (126, 1);
INSERT INTO ai_tiny (v) VALUES (2);
INSERT INTO ai_tiny (v) VALUES (3);
SELECT * FROM ai_tiny ORDER BY id;

-- UNIQUE, composite keys, secondary keys.
CREATE TABLE uq (
  id INT PRIMARY KEY,
  email VARCHAR(50) UNIQUE,
  a INT, b INT,
  UNIQUE KEY ab (a, b),
  KEY (b)
);
INSERT INTO uq VALUES (1, 'x@y', 1, 1);
INSERT INTO uq VALUES (2, 'x@y', 1, 2);
INSERT INTO uq VALUES (3, NULL, 1, 1);
INSERT INTO uq VALUES (4, NULL, NULL, 1);
INSERT INTO uq VALUES (5, NULL, NULL, 1);
INSERT INTO uq VALUES (6, 'X@Y', 2, 2);
SELECT * FROM uq ORDER BY id;
SELECT id FROM uq WHERE a = 1 AND b = 1;
SELECT id FROM uq WHERE b = 1 ORDER BY id;
UPDATE uq SET email = 'x@y' WHERE id = 6;
UPDATE uq SET a = 1, b = 1 WHERE id = 6;
CREATE TABLE comp (a INT, b VARCHAR(10), c INT, PRIMARY KEY (a, b));
INSERT INTO comp VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', 3);
INSERT INTO comp VALUES (1, 'x', 4);
SELECT * FROM comp ORDER BY a, b;
SELECT c FROM comp WHERE a = 1 ORDER BY b DESC;
SELECT c FROM comp WHERE a = 1 AND b = 'y';
SELECT c FROM comp WHERE b = 'x' ORDER BY c;
UPDATE comp SET b = 'z' WHERE a = 2;
SELECT * FROM comp ORDER BY a, b;
DELETE FROM comp WHERE a = 1 AND b = 'x';
SELECT * FROM comp ORDER BY a, b;
CREATE TABLE nopk (a INT, b VARCHAR(10));
INSERT INTO nopk VALUES (1, 'a'), (1, 'a'), (2, NULL);
SELECT * FROM nopk ORDER BY a, b;
DELETE FROM nopk WHERE a = 1 LIMIT 1;
SELECT * FROM nopk ORDER BY a, b;
UPDATE nopk SET b = 'z' WHERE b IS NULL;
SELECT * FROM nopk ORDER BY a, b;

-- Foreign keys, named and unnamed.
CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(10));
CREATE TABLE child (
  id INT PRIMARY KEY,
  pid INT,
  FOREIGN KEY (pid) REFERENCES parent (id)
);
CREATE TABLE child2 (
  id INT PRIMARY KEY,
  pid INT,
  CONSTRAINT fk_child2_parent FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE TABLE child3 (
  id INT PRIMARY KEY,
  pid INT,
  CONSTRAINT fk_child3 FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE SET NULL
);
INSERT INTO parent VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO child VALUES (1, 1), (2, NULL);
INSERT INTO child VALUES (3, 99);
INSERT INTO child2 VALUES (1, 1), (2, 2);
INSERT INTO child3 VALUES (1, 2), (2, 3);
DELETE FROM parent WHERE id = 1;
DELETE FROM parent WHERE id = 2;
SELECT * FROM child2 ORDER BY id;
SELECT * FROM child3 ORDER BY id;
UPDATE parent SET id = 30 WHERE id = 3;
SELECT * FROM child3 ORDER BY id;
UPDATE parent SET id = 10 WHERE id = 1;
SELECT * FROM child2 ORDER BY id;
SELECT * FROM parent ORDER BY id;
SELECT CONSTRAINT_NAME, TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND CONSTRAINT_NAME LIKE 'fk%' ORDER BY CONSTRAINT_NAME;
SELECT DELETE_RULE, UPDATE_RULE FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = DATABASE() AND CONSTRAINT_NAME = 'fk_child2_parent';
DROP TABLE parent;
CREATE TABLE selfref (id INT PRIMARY KEY, boss INT, FOREIGN KEY (boss) REFERENCES selfref (id));
INSERT INTO selfref VALUES (1, NULL), (2, 1), (3, 2);
INSERT INTO selfref VALUES (4, 5);
DELETE FROM selfref WHERE id = 1;
SELECT * FROM selfref ORDER BY id;

-- CHECK constraints.
CREATE TABLE chk (
  id INT PRIMARY KEY,
  qty INT CHECK (qty >= 0),
  lo INT, hi INT,
  CONSTRAINT lo_le_hi CHECK (lo <= hi)
);
INSERT INTO chk VALUES (1, 5, 1, 2);
INSERT INTO chk VALUES (2, 0, NULL, 2);
INSERT INTO chk VALUES (3, NULL, 3, 3);
SELECT * FROM chk ORDER BY id;
UPDATE chk SET qty = qty + 1 WHERE id = 1;
SELECT qty FROM chk WHERE id = 1;

-- ALTER TABLE keeps data and applies new defaults.
CREATE TABLE alt (id INT PRIMARY KEY, a INT);
INSERT INTO alt VALUES (1, 1), (2, 2);
ALTER TABLE alt ADD COLUMN b VARCHAR(10) DEFAULT 'new';
ALTER TABLE alt ADD COLUMN c INT NOT NULL;
SELECT * FROM alt ORDER BY id;
ALTER TABLE alt MODIFY a BIGINT NOT NULL;
ALTER TABLE alt CHANGE b bb VARCHAR(20) DEFAULT 'changed';
INSERT INTO alt (id, a, c) VALUES (3, 3, 3);
SELECT id, a, bb, c FROM alt ORDER BY id;
ALTER TABLE alt DROP COLUMN c;
ALTER TABLE alt ALTER COLUMN a SET DEFAULT 99;
INSERT INTO alt (id) VALUES (4);
SELECT id, a, bb FROM alt ORDER BY id;
ALTER TABLE alt ALTER COLUMN a DROP DEFAULT;
INSERT INTO alt (id) VALUES (5);
ALTER TABLE alt ADD UNIQUE KEY ua (a);
INSERT INTO alt (id, a) VALUES (6, 1);
ALTER TABLE alt RENAME COLUMN bb TO b2;
SELECT id, b2 FROM alt ORDER BY id;
ALTER TABLE alt RENAME TO alt2;
SELECT COUNT(*) FROM alt2;
SELECT COUNT(*) FROM alt;
ALTER TABLE alt2 MODIFY b2 VARCHAR(2);
ALTER TABLE alt2 MODIFY a TINYINT;
SELECT id, a FROM alt2 ORDER BY id;
CREATE TABLE alt_dt (id INT PRIMARY KEY);
INSERT INTO alt_dt VALUES (1);
ALTER TABLE alt_dt ADD COLUMN d DATETIME NOT NULL;
ALTER TABLE alt_dt ADD COLUMN d2 DATE NOT NULL DEFAULT '2000-01-01';
SELECT * FROM alt_dt ORDER BY id;

-- DEFAULT(col) as an expression.
CREATE TABLE dfl (str VARCHAR(10) DEFAULT 'def', strnull VARCHAR(10), intg INT DEFAULT 10, rel DOUBLE DEFAULT 3.14, d DATE DEFAULT '2001-02-03', nn INT NOT NULL);
INSERT INTO dfl (nn) VALUES (1);
SELECT DEFAULT(str), DEFAULT(strnull), DEFAULT(intg), DEFAULT(rel), DEFAULT(d) FROM dfl;
SELECT nn FROM dfl WHERE str = DEFAULT(str);
SELECT DEFAULT(nn) FROM dfl;
UPDATE dfl SET intg = DEFAULT(intg) + 5;
SELECT intg FROM dfl;

-- Expression defaults whose expression is not a plain value (NOT, IS NULL).
CREATE TABLE dxp (a INT, b INT DEFAULT (NOT a), c INT DEFAULT (a IS NULL), d VARCHAR(10) DEFAULT ('x'), f INT DEFAULT (1+1));
ALTER TABLE dxp ALTER COLUMN f SET DEFAULT (a IS NOT NULL);
INSERT INTO dxp (a) VALUES (NULL), (0), (1);
SELECT a, b, c, d, f FROM dxp ORDER BY a;

-- ON UPDATE CURRENT_TIMESTAMP fires only when another column changes.
CREATE TABLE tsou (id INT PRIMARY KEY, v INT, updated TIMESTAMP DEFAULT '2000-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP, manual DATETIME ON UPDATE CURRENT_TIMESTAMP, g INT AS (v + 1));
INSERT INTO tsou (id, v) VALUES (1, 1), (2, 2);
UPDATE tsou SET v = v WHERE id = 1;
SELECT id, v, updated, manual, g FROM tsou ORDER BY id;
UPDATE tsou SET v = 20 WHERE id = 2;
SELECT id, v, updated > '2020-01-01', manual > '2020-01-01', g FROM tsou ORDER BY id;
UPDATE tsou SET v = 1, manual = '1999-09-09' WHERE id = 1;
SELECT id, v, updated > '2020-01-01', manual FROM tsou WHERE id = 1;
UPDATE tsou SET manual = '1999-09-09' WHERE id = 1;
UPDATE tsou SET v = NULL WHERE id = 1;
SELECT id, v, updated > '2020-01-01', manual > '2020-01-01' FROM tsou ORDER BY id;
-- MariaDB's CREATE OR REPLACE TABLE (server SRV-REPLACE).
CREATE OR REPLACE TABLE repl (a INT);
INSERT INTO repl VALUES (1);
CREATE OR REPLACE TABLE repl (b INT, c VARCHAR(5) DEFAULT 'x');
INSERT INTO repl (b) VALUES (2);
SELECT * FROM repl;
CREATE OR REPLACE TABLE repl LIKE repl;
CREATE OR REPLACE TABLE repl AS SELECT b FROM repl;
SELECT * FROM repl;
CREATE OR REPLACE TABLE IF NOT EXISTS repl (a INT);
CREATE OR REPLACE TABLE `repl` AS SELECT 5 AS x, 'y' AS y;
SELECT * FROM repl;
CREATE OR REPLACE TEMPORARY TABLE repl (t INT);
INSERT INTO repl VALUES (7);
SELECT * FROM repl;
DROP TEMPORARY TABLE repl;
SELECT * FROM repl;
SELECT id, e * 2, e - 5, e / 2, e + 0.5, s + 1 FROM enums ORDER BY id;
SELECT id, b64 + 1, b8 * 2, b8 + 0.5 FROM bits WHERE id <= 2 ORDER BY id;
-- CREATE TABLE ... SELECT with column definitions, keys, a UNION (server SRV-CTAS).
CREATE TABLE cts (a INT, b VARCHAR(10));
INSERT INTO cts VALUES (1, 'x'), (2, 'y');
CREATE TABLE ct1 (id INT AUTO_INCREMENT PRIMARY KEY, a INT) SELECT a, b FROM cts ORDER BY a;
SELECT * FROM ct1 ORDER BY id;
SHOW COLUMNS FROM ct1;
CREATE TABLE dnul (b VARCHAR(10) DEFAULT NULL, c INT DEFAULT NULL, d VARCHAR(4) DEFAULT 'NULL', e INT, f VARCHAR(6) DEFAULT 'it''s', g VARCHAR(3) DEFAULT '', h ENUM('x','y') DEFAULT 'y');
SHOW COLUMNS FROM dnul;
CREATE TABLE ct2 SELECT 1 AS n UNION SELECT 2 UNION SELECT 2;
SELECT * FROM ct2 ORDER BY n;
CREATE TABLE ct3 (a BIGINT NOT NULL, PRIMARY KEY (a)) SELECT a FROM cts;
SELECT * FROM ct3 ORDER BY a;
CREATE TABLE ct4 (b VARCHAR(5)) AS SELECT b FROM cts;
SELECT * FROM ct4 ORDER BY b;
CREATE TABLE ct5 (KEY (a)) SELECT a FROM cts;
SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_NAME = 'ct5';
CREATE TABLE ct6 (a INT, b VARCHAR(3) NOT NULL DEFAULT 'q') SELECT 7 AS a;
SELECT * FROM ct6;
CREATE TABLE ct7 (a INT PRIMARY KEY) SELECT 1 AS a UNION ALL SELECT 1;
SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'ct7';
CREATE TABLE ct8 (a INT) SELECT 1 AS a FRM cts;

-- CREATE TABLE ... SELECT copies the comments of the columns it selects (RULE-27).
CREATE TABLE cmt_src (a INT COMMENT 'the a', b VARCHAR(5) COMMENT 'the b', c INT);
CREATE TABLE cmt_dst AS SELECT a, b AS bx, c + 1 AS c1, x.a AS a2 FROM cmt_src x;
SELECT COLUMN_NAME, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'cmt_dst' ORDER BY ORDINAL_POSITION;
CREATE TABLE IF NOT EXISTS cmt_dst (z INT);
SHOW WARNINGS;

-- ALTER TABLE with several clauses: an earlier clause's rename stays
-- (backend ALT-5; CHANGE a a1, CHANGE c c1 lost a1).
CREATE TABLE mc (a INT, b INT, c INT, KEY (a));
INSERT INTO mc VALUES (1, 2, 3);
ALTER TABLE mc CHANGE COLUMN a a1 INT, CHANGE COLUMN c c1 INT;
SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'mc' ORDER BY ORDINAL_POSITION;
ALTER TABLE mc CHANGE a1 a2 BIGINT, ADD COLUMN x INT, MODIFY b SMALLINT;
SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'mc' ORDER BY ORDINAL_POSITION;
ALTER TABLE mc DROP COLUMN x, CHANGE c1 c2 INT;
SELECT * FROM mc;
SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'mc';
-- CREATE TABLE ... SELECT of expressions that may be NULL makes nullable columns (rules RULE-27).
CREATE TABLE ctn SELECT 1 IN (2, NULL) AS x, 1 IN (2, 3) AS y, ROUND(10, NULL) AS z, ROUND(10, 1) AS w, 1 + NULL AS v, IF(1, NULL, 2) AS q, 'a' AS s;
SELECT * FROM ctn;
SELECT column_name AS n, is_nullable AS nl FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'ctn' ORDER BY ordinal_position;
CREATE TABLE ctn2 (a INT NOT NULL, b INT);
INSERT INTO ctn2 VALUES (1, NULL), (2, 3);
CREATE TABLE ctn3 SELECT a, b, a + 1 AS c, b + 1 AS d, (SELECT MAX(a) FROM ctn2 WHERE a > 5) AS e FROM ctn2;
SELECT column_name AS n, is_nullable AS nl FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'ctn3' ORDER BY ordinal_position;
SELECT * FROM ctn3 ORDER BY a;
