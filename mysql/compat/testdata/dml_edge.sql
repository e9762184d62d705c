-- DML at the edges: range checks in strict mode, conversions, NULLs,
-- INSERT IGNORE, REPLACE, ON DUPLICATE KEY UPDATE, multi-row inserts.

CREATE TABLE n (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, d DECIMAL(5,2), f FLOAT, db DOUBLE);
INSERT INTO n (id, ti) VALUES (1, -128);
INSERT INTO n (id, ti) VALUES (2, 127);
INSERT INTO n (id, ti) VALUES (3, -129);
INSERT INTO n (id, ti) VALUES (4, 128);
INSERT INTO n (id, tu) VALUES (5, 256);
INSERT INTO n (id, tu) VALUES (6, -1);
INSERT INTO n (id, i) VALUES (7, 2147483648);
INSERT INTO n (id, i) VALUES (8, -2147483649);
INSERT INTO n (id, iu) VALUES (9, 4294967296);
INSERT INTO n (id, bi) VALUES (10, 9223372036854775808);
INSERT INTO n (id, bi) VALUES (11, -9223372036854775809);
INSERT INTO n (id, bu) VALUES (12, 18446744073709551616);
INSERT INTO n (id, bu) VALUES (13, 18446744073709551615);
INSERT INTO n (id, bu) VALUES (130, 18446744073709551614.6), (131, 12345678901234567891.4), (132, '12345678901234567891'), (133, 18446744073709551614.4);
UPDATE n SET bu = 12345678901234567893.5 WHERE id = 133;
SELECT id, bu FROM n WHERE id >= 130 AND id < 140 ORDER BY id;
INSERT INTO n (id, bu) VALUES (134, 18446744073709551615.5);
INSERT INTO n (id, bu) VALUES (135, -0.6);
INSERT INTO n (id, bi) VALUES (136, ' ');
INSERT INTO n (id, d) VALUES (14, 999.99);
INSERT INTO n (id, d) VALUES (15, 1000);
INSERT INTO n (id, d) VALUES (16, -999.995);
INSERT INTO n (id, d) VALUES (17, 999.994);
INSERT INTO n (id, f) VALUES (18, 3.5e38);
INSERT INTO n (id, db) VALUES (19, 1.7976931348623157e308);
INSERT INTO n (id, i) VALUES (20, 'abc');
INSERT INTO n (id, i) VALUES (21, '12abc');
INSERT INTO n (id, i) VALUES (22, '');
-- MariaDB notes 1265 for the trailing space; MySQL 8.0 accepts trailing
-- spaces in numbers silently.
-- @ignore-warnings
INSERT INTO n (id, i) VALUES (23, ' 42 ');
INSERT INTO n (id, i) VALUES (24, '0x10');
INSERT INTO n (id, i) VALUES (25, '1e3');
INSERT INTO n (id, d) VALUES (26, 'x1');
INSERT INTO n (id, db) VALUES (27, '1.5.5');
INSERT INTO n (id, i) VALUES (28, 1e3);
INSERT INTO n (id, i) VALUES (29, 2.5);
INSERT INTO n (id, i) VALUES (30, -2.5);
INSERT INTO n (id, i) VALUES (31, '2.5');
INSERT INTO n (id, iu) VALUES (32, '-0');
INSERT INTO n (id, i) VALUES (33, TRUE);
SELECT * FROM n ORDER BY id;
UPDATE n SET ti = ti + 1 WHERE id = 2;
UPDATE n SET ti = ti - 1 WHERE id = 1;
UPDATE n SET tu = 300 WHERE id = 5;
UPDATE n SET i = 'zz' WHERE id = 7;
UPDATE n SET bu = bu + 1 WHERE id = 13;
SELECT id, ti, tu, i, bu FROM n WHERE id IN (1, 2, 13) ORDER BY id;

-- Strings: too long in strict mode.
CREATE TABLE s (id INT PRIMARY KEY, c CHAR(3), v VARCHAR(3), b VARBINARY(3), t TINYTEXT);
INSERT INTO s VALUES (1, 'abc', 'abc', 'abc', 'abc');
INSERT INTO s (id, c) VALUES (2, 'abcd');
INSERT INTO s (id, v) VALUES (3, 'abcd');
INSERT INTO s (id, b) VALUES (4, 'abcd');
INSERT INTO s (id, v) VALUES (5, 'ab ');
INSERT INTO s (id, v) VALUES (6, 'abc ');
INSERT INTO s (id, v) VALUES (7, 'abc    ');
INSERT INTO s (id, c) VALUES (8, 'abc  ');
INSERT INTO s (id, v) VALUES (9, 'äöü');
INSERT INTO s (id, v) VALUES (10, 'äöüß');
INSERT INTO s (id, v) VALUES (11, 12345);
INSERT INTO s (id, v) VALUES (12, 123);
INSERT INTO s (id, t) VALUES (13, REPEAT('x', 256));
INSERT INTO s (id, t) VALUES (14, REPEAT('x', 255));
SELECT id, c, v, HEX(b), LENGTH(t) FROM s ORDER BY id;
UPDATE s SET v = 'toolong' WHERE id = 1;
UPDATE s SET v = CONCAT(v, 'x') WHERE id = 1;
SELECT id, v FROM s WHERE id = 1;

-- Dates: invalid values in strict mode.
CREATE TABLE dt (id INT PRIMARY KEY, d DATE, t DATETIME, ts TIMESTAMP NULL, tm TIME, y YEAR);
INSERT INTO dt (id, d) VALUES (1, '2023-02-29');
INSERT INTO dt (id, d) VALUES (2, '2024-02-30');
INSERT INTO dt (id, d) VALUES (3, '2024-13-01');
INSERT INTO dt (id, d) VALUES (4, '0000-00-00');
INSERT INTO dt (id, d) VALUES (5, '2024-00-10');
INSERT INTO dt (id, d) VALUES (6, 'not a date');
INSERT INTO dt (id, d) VALUES (7, '');
INSERT INTO dt (id, t) VALUES (8, '2024-01-01 24:00:00');
INSERT INTO dt (id, t) VALUES (9, '2024-01-01 23:60:00');
INSERT INTO dt (id, ts) VALUES (10, '2038-01-19 03:14:08');
INSERT INTO dt (id, ts) VALUES (11, '1970-01-01 00:00:00');
INSERT INTO dt (id, tm) VALUES (12, '25:00:00');
INSERT INTO dt (id, tm) VALUES (13, '12:61:00');
INSERT INTO dt (id, d) VALUES (14, '2024-02-29 10:11:12');
INSERT INTO dt (id, t) VALUES (15, '2024-02-29');
INSERT INTO dt (id, d) VALUES (16, 20240229);
INSERT INTO dt (id, d) VALUES (17, 20240230);
INSERT INTO dt (id, y) VALUES (18, 2156);
INSERT INTO dt (id, y) VALUES (19, '2024');
INSERT INTO dt (id, y) VALUES (20, 'abcd');
INSERT INTO dt (id, d) VALUES (22, '2024/03/04');
INSERT INTO dt (id, d) VALUES (23, '24-03-04');
INSERT INTO dt (id, tm) VALUES (24, '1 02:03:04');
SELECT * FROM dt ORDER BY id;
UPDATE dt SET d = '2024-02-31' WHERE id = 14;
SELECT id, d FROM dt WHERE id = 14;
UPDATE dt SET d = '2024-03-31' WHERE id = 14;
SELECT id, d FROM dt WHERE id = 14;
-- Fractional seconds into a column with fewer digits: MySQL 8.0 rounds
-- (11.2.6 Fractional Seconds in Time Values), MariaDB truncates.
CREATE TABLE frac (id INT PRIMARY KEY, t DATETIME, t2 DATETIME(2), tm TIME);
INSERT INTO frac VALUES (1, '2024-01-01 10:00:00.4', '2024-01-01 10:00:00.124', '10:00:00.4');
INSERT INTO frac VALUES (2, '2024-01-01 10:00:00.5', '2024-01-01 10:00:00.125', '10:00:00.5');
SELECT * FROM frac ORDER BY id;

-- Division by zero, NULL arithmetic.
SELECT 1 / 0, 1 DIV 0, 1 % 0, MOD(5, 0), 0 / 0;
SELECT 1.0 / 0, 1e0 / 0;
CREATE TABLE z (id INT PRIMARY KEY, v INT, d DECIMAL(5,2));
INSERT INTO z VALUES (1, 1 / 0, NULL);
INSERT INTO z VALUES (2, 5 DIV 0, NULL);
INSERT INTO z VALUES (3, 10, 10 / 0);
INSERT INTO z VALUES (4, 10, 10 % 0);
INSERT IGNORE INTO z VALUES (5, 1 / 0, 1 / 0);
SELECT * FROM z WHERE id = 5;
UPDATE z SET v = v / 0 WHERE id = 5;
UPDATE z SET v = 1 WHERE id = 5;
UPDATE z SET v = v / 0 WHERE id = 5;
SELECT id, v / 0, v DIV 0 FROM z WHERE id = 5;
SELECT NULL + 1, NULL * 0, NULL = NULL, NULL <=> NULL, NULL IS NULL, 1 <=> NULL;
SELECT NULL AND FALSE, NULL OR TRUE, NULL AND TRUE, NULL OR FALSE, NOT NULL;
SELECT COALESCE(NULL, NULL, 3), IFNULL(NULL, 'x'), NULLIF(1, 1), NULLIF(1, 2);
SELECT CONCAT('a', NULL), CONCAT_WS(',', 'a', NULL, 'b'), LENGTH(NULL);
SELECT SUM(v), COUNT(v), COUNT(*), AVG(v), MAX(v) FROM z WHERE v IS NULL;
SELECT SUM(v), COUNT(v), COUNT(*) FROM z WHERE id > 100;

-- NOT NULL columns.
CREATE TABLE nn (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(5) NOT NULL DEFAULT 'd');
INSERT INTO nn VALUES (1, NULL, 'x');
INSERT INTO nn (id, b) VALUES (2, 'x');
INSERT INTO nn (id, a) VALUES (3, 3);
INSERT INTO nn (id, a, b) VALUES (4, 4, NULL);
INSERT INTO nn VALUES (5, 5, 'y'), (6, NULL, 'z');
UPDATE nn SET a = NULL WHERE id = 3;
SELECT * FROM nn ORDER BY id;
INSERT IGNORE INTO nn VALUES (7, NULL, NULL);
SELECT * FROM nn ORDER BY id;

-- INSERT IGNORE.
CREATE TABLE ig (id INT PRIMARY KEY, u INT UNIQUE, v VARCHAR(3), t TINYINT);
INSERT INTO ig VALUES (1, 1, 'a', 1);
INSERT IGNORE INTO ig VALUES (1, 2, 'b', 2);
INSERT IGNORE INTO ig VALUES (2, 1, 'c', 3);
INSERT IGNORE INTO ig VALUES (3, 3, 'toolong', 4);
INSERT IGNORE INTO ig VALUES (4, 4, 'd', 1000);
INSERT IGNORE INTO ig VALUES (5, 5, 'e', 1), (5, 6, 'f', 1), (6, 5, 'g', 1), (7, 7, 'h', 1);
INSERT IGNORE INTO ig (id, t) VALUES (8, 'abc');
SELECT * FROM ig ORDER BY id;
UPDATE IGNORE ig SET u = 1 WHERE id = 3;
UPDATE IGNORE ig SET t = 500 WHERE id = 3;
SELECT * FROM ig ORDER BY id;

-- REPLACE.
CREATE TABLE rp (id INT PRIMARY KEY, u INT UNIQUE, v VARCHAR(10));
REPLACE INTO rp VALUES (1, 10, 'a');
REPLACE INTO rp VALUES (1, 10, 'b');
REPLACE INTO rp VALUES (2, 10, 'c');
REPLACE INTO rp VALUES (3, 30, 'd'), (4, 40, 'e');
REPLACE INTO rp VALUES (3, 40, 'f');
SELECT * FROM rp ORDER BY id;
REPLACE INTO rp SET id = 5, u = 50, v = 'g';
REPLACE INTO rp (id, v) VALUES (5, 'h');
SELECT * FROM rp ORDER BY id;
CREATE TABLE rpai (id INT AUTO_INCREMENT PRIMARY KEY, k VARCHAR(10) UNIQUE, n INT);
REPLACE INTO rpai (k, n) VALUES ('a', 1);
REPLACE INTO rpai (k, n) VALUES ('b', 1);
REPLACE INTO rpai (k, n) VALUES ('a', 2);
SELECT * FROM rpai ORDER BY id;

-- ON DUPLICATE KEY UPDATE, on the primary key and on a UNIQUE secondary key.
CREATE TABLE u (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(50), email VARCHAR(100), UNIQUE KEY (email));
INSERT INTO u (name, email) VALUES ('a', 'a@x');
INSERT INTO u (name, email) VALUES ('b', 'a@x') ON DUPLICATE KEY UPDATE name = 'c';
SELECT * FROM u;
SELECT COUNT(*) FROM u;
INSERT INTO u (name, email) VALUES ('d', 'd@x') ON DUPLICATE KEY UPDATE name = 'e';
SELECT name, email FROM u ORDER BY email;
INSERT INTO u (id, name, email) VALUES (1, 'f', 'f@x') ON DUPLICATE KEY UPDATE name = VALUES(name);
SELECT name, email FROM u ORDER BY email;
INSERT INTO u (id, name, email) VALUES (1, 'f', 'f@x') ON DUPLICATE KEY UPDATE name = VALUES(name);
INSERT INTO u (name, email) VALUES ('g', 'd@x') ON DUPLICATE KEY UPDATE name = CONCAT(name, VALUES(name)), email = 'dd@x';
SELECT name, email FROM u ORDER BY email;
INSERT INTO u (name, email) VALUES ('h', 'h@x'), ('i', 'a@x'), ('j', 'j@x') ON DUPLICATE KEY UPDATE name = VALUES(name);
SELECT name, email FROM u ORDER BY email;
INSERT INTO u (id, name, email) VALUES (2, 'k', 'h@x') ON DUPLICATE KEY UPDATE name = 'k';
SELECT name, email FROM u ORDER BY email;
INSERT INTO u (name, email) VALUES ('l', 'l@x') ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id);
SELECT LAST_INSERT_ID();
INSERT INTO u (name, email) VALUES ('m', 'l@x') ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), name = 'm';
SELECT LAST_INSERT_ID();
SELECT name, email FROM u ORDER BY email;
CREATE TABLE cnt (k VARCHAR(10) PRIMARY KEY, n INT NOT NULL DEFAULT 0);
INSERT INTO cnt (k, n) VALUES ('x', 1) ON DUPLICATE KEY UPDATE n = n + 1;
INSERT INTO cnt (k, n) VALUES ('x', 1) ON DUPLICATE KEY UPDATE n = n + 1;
INSERT INTO cnt (k, n) VALUES ('x', 1) ON DUPLICATE KEY UPDATE n = n + VALUES(n);
INSERT INTO cnt (k, n) VALUES ('x', 1), ('y', 1), ('x', 1) ON DUPLICATE KEY UPDATE n = n + 10;
SELECT * FROM cnt ORDER BY k;
INSERT INTO cnt (k) VALUES ('x') ON DUPLICATE KEY UPDATE n = NULL;
SELECT * FROM cnt ORDER BY k;
CREATE TABLE two (id INT PRIMARY KEY, a INT UNIQUE, b INT UNIQUE, v INT);
INSERT INTO two VALUES (1, 1, 1, 0), (2, 2, 2, 0);
INSERT INTO two VALUES (3, 1, 2, 0) ON DUPLICATE KEY UPDATE v = v + 1;
SELECT * FROM two ORDER BY id;
INSERT INTO two VALUES (4, 4, 4, 0) ON DUPLICATE KEY UPDATE a = 1;
INSERT INTO two VALUES (1, 5, 5, 0) ON DUPLICATE KEY UPDATE a = 2;
SELECT * FROM two ORDER BY id;

-- Multi-row inserts and INSERT ... SELECT.
CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO m VALUES (1, 'a'), (2, 'b'), (3, 'c');
INSERT INTO m VALUES (4, 'd'), (4, 'e');
INSERT INTO m VALUES (5, 'f'), (6, 'way too long');
SELECT * FROM m ORDER BY id;
INSERT INTO m SELECT id + 10, UPPER(v) FROM m;
INSERT INTO m (id, v) SELECT id + 100, v FROM m WHERE id < 3 ORDER BY id;
SELECT * FROM m ORDER BY id;
INSERT INTO m SELECT * FROM m WHERE id = 1;
INSERT INTO m SET id = 200, v = 'set';
INSERT INTO m VALUE (201, 'value');
INSERT INTO m (v, id) VALUES ('swap', 202);
INSERT INTO m (id) VALUES (203);
INSERT INTO m VALUES (204);
INSERT INTO m (id, v) VALUES (205);
SELECT * FROM m WHERE id >= 200 ORDER BY id;
UPDATE m SET v = 'upd' WHERE id > 100;
UPDATE m SET v = 'upd' WHERE id > 100;
UPDATE m SET v = NULL WHERE id = 203;
UPDATE m SET v = CONCAT(v, '!') ORDER BY id DESC LIMIT 2;
SELECT * FROM m WHERE id >= 100 ORDER BY id;
DELETE FROM m WHERE id > 200 ORDER BY id LIMIT 2;
DELETE FROM m WHERE v IS NULL;
DELETE FROM m WHERE id = 9999;
SELECT COUNT(*), MIN(id), MAX(id) FROM m;
UPDATE m SET id = id + 1000 WHERE id < 3;
SELECT id FROM m WHERE id > 1000 ORDER BY id;
UPDATE m SET id = 12 WHERE id = 11;

-- Multi-table UPDATE and DELETE.
CREATE TABLE ma (id INT PRIMARY KEY, v INT);
CREATE TABLE mb (id INT PRIMARY KEY, aid INT, w INT);
INSERT INTO ma VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO mb VALUES (1, 1, 100), (2, 1, 200), (3, 2, 300);
UPDATE ma JOIN mb ON mb.aid = ma.id SET ma.v = ma.v + 1 WHERE mb.w >= 200;
SELECT * FROM ma ORDER BY id;
UPDATE ma, mb SET ma.v = 0, mb.w = 0 WHERE ma.id = mb.aid AND ma.id = 2;
SELECT * FROM ma ORDER BY id;
SELECT * FROM mb ORDER BY id;
DELETE mb FROM mb JOIN ma ON ma.id = mb.aid WHERE ma.v = 11;
SELECT * FROM mb ORDER BY id;
DELETE ma, mb FROM ma JOIN mb ON ma.id = mb.aid;
SELECT * FROM ma ORDER BY id;
SELECT * FROM mb ORDER BY id;

-- Numeric strings and implicit conversions in comparisons.
CREATE TABLE cv (id INT PRIMARY KEY, s VARCHAR(10), i INT);
INSERT INTO cv VALUES (1, '10', 10), (2, '9', 9), (3, 'abc', 0), (4, '1e1', 100), (5, ' 5', 5);
SELECT id FROM cv WHERE s = 10 ORDER BY id;
SELECT id FROM cv WHERE s > 5 ORDER BY id;
SELECT id FROM cv WHERE i = '10' ORDER BY id;
SELECT id FROM cv WHERE i = '10abc' ORDER BY id;
SELECT id FROM cv ORDER BY s;
SELECT id FROM cv ORDER BY s + 0, id;
SELECT s + 0, s * 1 FROM cv WHERE id = 3;

-- Insert ids of REPLACE and ON DUPLICATE KEY UPDATE (backend SES-8): the
-- OK packet's id is the first row written's AUTO_INCREMENT value, else 0.
CREATE TABLE iid (id INT AUTO_INCREMENT PRIMARY KEY, v INT UNIQUE);
CREATE TABLE iidn (id INT PRIMARY KEY, v INT);
INSERT INTO iid (v) VALUES (1), (2);
INSERT INTO iidn VALUES (1, 1);
INSERT INTO iid VALUES (10, 3);
REPLACE INTO iid VALUES (20, 4);
REPLACE INTO iid (v) VALUES (5);
SELECT LAST_INSERT_ID();
REPLACE INTO iidn VALUES (1, 2);
INSERT INTO iidn VALUES (1, 1) ON DUPLICATE KEY UPDATE v = 9;
INSERT INTO iid (v) VALUES (1) ON DUPLICATE KEY UPDATE v = 1;
INSERT INTO iid (v) VALUES (1) ON DUPLICATE KEY UPDATE v = 11;
SELECT LAST_INSERT_ID();
INSERT INTO iid (v) VALUES (77) ON DUPLICATE KEY UPDATE v = 11;
INSERT INTO iid (id, v) VALUES (50, 78) ON DUPLICATE KEY UPDATE v = 11;
SELECT LAST_INSERT_ID();

-- INSERT ... SELECT from its own table reads it as it was (RULE-19).
CREATE TABLE hw (a INT);
INSERT INTO hw VALUES (1), (2);
INSERT INTO hw SELECT A.a FROM hw A, hw B;
SELECT a, COUNT(*) FROM hw GROUP BY a ORDER BY a;
INSERT INTO hw SELECT a + 10 FROM hw WHERE a IN (SELECT a FROM hw WHERE a < 2);
SELECT a, COUNT(*) FROM hw GROUP BY a ORDER BY a;
CREATE TABLE hws (id INT PRIMARY KEY, b INT);
INSERT INTO hws VALUES (1, 1);
INSERT INTO hws SELECT id + (SELECT MAX(id) FROM hws), b FROM hws;
INSERT INTO hws SELECT id + (SELECT MAX(id) FROM hws), b + 1 FROM hws;
SELECT * FROM hws ORDER BY id;

-- UPDATE and DELETE that read their own table see it as the statement began.
CREATE TABLE hw (id INT PRIMARY KEY, v INT);
INSERT INTO hw VALUES (1, 1), (2, 2), (3, 3), (4, 4);
UPDATE hw SET v = v + 10 WHERE v < (SELECT AVG(v) + 0 * hw.id FROM hw h2);
SELECT * FROM hw ORDER BY id;
UPDATE hw SET v = (SELECT MAX(v) FROM hw h2 WHERE h2.id <= hw.id) + 1;
SELECT * FROM hw ORDER BY id;
DELETE FROM hw WHERE v > (SELECT MIN(v) + 0 * hw.id FROM hw h2);
SELECT * FROM hw ORDER BY id;
INSERT INTO hw VALUES (5, 100), (6, 200), (7, 300);
UPDATE hw SET v = v * 2 WHERE id IN (SELECT id FROM (SELECT id FROM hw WHERE v >= 100) AS x);
SELECT * FROM hw ORDER BY id;

-- Outside strict mode, NULL into NOT NULL columns of multi-row inserts and updates.
CREATE TABLE nsn (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(5) NOT NULL, c DATE NOT NULL, d INT);
SET sql_mode = '';
INSERT INTO nsn (id, a, b, c, d) VALUES (1, NULL, NULL, NULL, NULL), (2, 1, 'x', '2001-01-01', 2);
INSERT INTO nsn (id, a, b, c) VALUES (3, NULL, 'y', '2001-01-01');
INSERT INTO nsn (id, a, b, c) SELECT 4, NULL, 'z', '2002-02-02';
UPDATE nsn SET a = NULL WHERE id = 2;
SELECT id, a, b, c, d FROM nsn ORDER BY id;
SET sql_mode = 'STRICT_TRANS_TABLES';
INSERT INTO nsn (id, a, b, c) VALUES (5, NULL, 'y', '2001-01-01'), (6, 1, 'q', '2001-01-01');
UPDATE nsn SET a = NULL WHERE id = 2;

-- Numbers as dates: YYYYMMDDhhmmss, YYMMDDhhmmss, YYYYMMDD, YYMMDD.
SET sql_mode = 'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
CREATE TABLE ndt (id INT PRIMARY KEY, a DATE, b DATETIME, c TIMESTAMP NULL);
INSERT INTO ndt VALUES (1, 20230102, 20230102030405, 20230102030405);
INSERT INTO ndt VALUES (2, '230102', '230102030405', 991231235959);
INSERT INTO ndt (id, a, b) SELECT 3, 19991231, 19991231235959;
UPDATE ndt SET a = 20240229 WHERE id = 3;
SELECT * FROM ndt ORDER BY id;
SELECT id FROM ndt WHERE a = 20230102 ORDER BY id;
SELECT id FROM ndt WHERE b > 20000101000000 ORDER BY id;
SELECT CAST(20001231235959 AS DATETIME), CAST('001231235959' AS DATETIME), CAST(20001231 AS DATE), CAST(991231 AS DATE);

-- UPDATE ... JOIN with two matches per target row: the row changes once,
-- by its first match, reading the tables as the statement found them.
CREATE TABLE uja (id INT PRIMARY KEY, v INT);
CREATE TABLE ujb (id INT PRIMARY KEY, aid INT, v INT);
INSERT INTO uja VALUES (1, 0), (2, 0);
INSERT INTO ujb VALUES (1, 1, 10), (2, 1, 20), (3, 2, 5), (4, 2, 7);
UPDATE uja JOIN ujb ON uja.id = ujb.aid SET uja.v = ujb.v;
SELECT * FROM uja ORDER BY id;
UPDATE uja JOIN ujb ON uja.id = ujb.aid SET uja.v = uja.v + ujb.v;
SELECT * FROM uja ORDER BY id;
UPDATE uja, ujb SET uja.v = 1 WHERE uja.id = ujb.aid AND ujb.v > 6;
SELECT * FROM uja ORDER BY id;
UPDATE uja LEFT JOIN ujb ON uja.id = ujb.aid AND ujb.v > 100 SET uja.v = COALESCE(ujb.v, -1);
SELECT * FROM uja ORDER BY id;

-- DECIMAL(M,D) values rounded with Note 1265 and clamped with 1264 (error
-- in strict mode, warning with IGNORE or outside strict mode); warnings
-- listed in the order raised.
CREATE TABLE dfit (d DECIMAL(5,2));
INSERT INTO dfit VALUES (12.345);
INSERT INTO dfit VALUES ('12.345'), (1.5e0), (-3.14159);
INSERT IGNORE INTO dfit VALUES (1000), (5), (-2000), (999.995);
INSERT INTO dfit VALUES (1000);
UPDATE dfit SET d = d * 1000;
SELECT CAST(1000 AS DECIMAL(5,2)), CAST(-1e10 AS DECIMAL(4,1)), CAST(12.345 AS DECIMAL(5,2)), CAST('7.125' AS DECIMAL(4,2));
SELECT CAST('1x' AS SIGNED), CAST('2y' AS SIGNED);
SET SESSION sql_mode = '';
INSERT INTO dfit VALUES (1000), (-99999);
UPDATE dfit SET d = d * 1000;
SELECT d FROM dfit ORDER BY d;
SET SESSION sql_mode = DEFAULT;

-- DEFAULT in ON DUPLICATE KEY UPDATE and as a misplaced value.
CREATE TABLE dfk (id INT PRIMARY KEY, v INT DEFAULT 7, w VARCHAR(5) DEFAULT 'x');
INSERT INTO dfk VALUES (1, 1, 'a');
INSERT INTO dfk VALUES (1, 2, 'b') ON DUPLICATE KEY UPDATE v = DEFAULT, w = VALUES(w);
SELECT id, v, w FROM dfk ORDER BY id;
SELECT id FROM dfk WHERE v = DEFAULT;
-- DECIMAL and floating-point values into integer columns: rounded, checked against the column type's range (RULE-46).
CREATE TABLE iu (id int primary key, a tinyint unsigned, b smallint unsigned, c int unsigned, d bigint unsigned, e mediumint unsigned);
insert into iu values (1, 300.5, 0, 0, 0, 0);
insert into iu values (2, 0, 70000.5, 0, 0, 0);
insert into iu values (3, 0, 0, 5000000000.5, 0, 0);
insert into iu values (4, 0, 0, 0, 18446744073709551616.5, 0);
insert into iu values (5, 0, 0, 0, 0, 16777216.5);
insert into iu values (6, 300e0, 0, 0, 0, 0);
insert into iu values (7, 0, 0, 0, 0, 0);
update iu set c = 5000000000.5 where id = 7;
update iu set a = 255.4 where id = 7;
insert ignore into iu values (8, 300.5, 70000.5, 5000000000.5, 18446744073709551616.5, 16777216.5);
select * from uu order by id;
CREATE TABLE isg (id int primary key, a tinyint, b smallint, c int, d bigint, e mediumint);
insert into isg values (1, 127.5, 0, 0, 0, 0);
insert into isg values (2, -128.5, 0, 0, 0, 0);
insert into isg values (3, 0, 0, 2147483647.4, 9223372036854775807.4, -8388608.4);
insert into isg values (4, 0, 0, 0, 9223372036854775807.5, 0);
insert into isg values (5, 1e3, 0, 0, 0, 0);
insert ignore into isg values (6, 127.5, -32768.5, 2147483648, -9223372036854775808.5, 8388607.5);
update isg set a = 126.6 where id = 3;
update isg set b = b + 40000.5 where id = 3;
select * from isg order by id;
-- Subqueries in single-table UPDATE and DELETE (RULE-63: correlated ones in WHERE are refused with 1235).
CREATE TABLE sq1 (id INT PRIMARY KEY, c2 INT, c3 INT);
INSERT INTO sq1 VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 3, 4), (5, 5, 5);
CREATE TABLE sq2 (id INT PRIMARY KEY, c2 INT, name VARCHAR(10));
INSERT INTO sq2 VALUES (1, 3, 'a'), (2, 5, 'b'), (3, 3, 'c');
UPDATE sq1 SET c3 = (SELECT MAX(sq2.id) FROM sq2 WHERE sq2.c2 = sq1.c2) WHERE id > 1;
SELECT * FROM sq1 ORDER BY id;
UPDATE sq1 SET c3 = c3 + 100 WHERE c3 < (SELECT AVG(c3) FROM sq1);
SELECT * FROM sq1 ORDER BY id;
UPDATE sq1 SET c3 = 0 WHERE EXISTS (SELECT 1 FROM sq2 WHERE sq2.c2 = sq1.c2);
DELETE FROM sq1 WHERE EXISTS (SELECT 1 FROM sq2 WHERE sq2.c2 = sq1.c2 AND sq2.name = 'c');
SELECT * FROM sq1 ORDER BY id;
DELETE FROM sq1 WHERE c2 IN (SELECT c2 FROM sq2 WHERE name = 'b');
SELECT * FROM sq1 ORDER BY id;
-- sql_safe_updates (rules RULE-68).
CREATE TABLE su (a INT AUTO_INCREMENT PRIMARY KEY, b CHAR(20), c INT, KEY(c));
INSERT INTO su VALUES (1, 'test', 1), (2, 'test2', 2), (3, 'x', 7);
SET SQL_SAFE_UPDATES = 1;
UPDATE su SET b = 'a' WHERE a = 1;
UPDATE su SET b = 'a';
UPDATE su SET b = 'a' WHERE b = 'test';
DELETE FROM su;
DELETE FROM su WHERE b = 'test';
DELETE FROM su WHERE a + 0 = 1;
UPDATE su SET b = 'a' LIMIT 1;
UPDATE su SET b = 'a' WHERE b = 'b' LIMIT 2;
DELETE FROM su WHERE b = 'test' LIMIT 1;
DELETE FROM su WHERE a + 0 = 1 LIMIT 2;
DELETE FROM su WHERE c > 5;
UPDATE su SET b = 'q' WHERE a IN (2, 3);
SELECT * FROM su ORDER BY a;
SET SQL_SAFE_UPDATES = 0;
DELETE FROM su;
SELECT COUNT(*) FROM su;
-- Correlated subqueries in single-table DELETE and UPDATE (server SRV-DMLJOIN).
CREATE TABLE cu1 (id INT PRIMARY KEY, total INT);
CREATE TABLE cu2 (id INT PRIMARY KEY, uid INT, amt INT);
INSERT INTO cu1 VALUES (1, 10), (2, 20), (3, 30), (4, 40), (5, 50);
INSERT INTO cu2 VALUES (1, 1, 5), (2, 1, 7), (3, 2, 9), (4, 4, 1);
UPDATE cu1 AS a SET a.total = a.total + 1 WHERE EXISTS (SELECT 1 FROM cu2 WHERE cu2.uid = a.id AND cu2.amt > 6);
SELECT * FROM cu1 ORDER BY id;
UPDATE cu1 SET total = (SELECT MAX(amt) FROM cu2 WHERE cu2.uid = cu1.id) WHERE EXISTS (SELECT 1 FROM cu2 WHERE cu2.uid = cu1.id);
SELECT * FROM cu1 ORDER BY id;
DELETE FROM cu1 WHERE total > (SELECT AVG(x.total) FROM cu1 AS x WHERE x.id <> cu1.id);
SELECT * FROM cu1 ORDER BY id;
DELETE FROM cu1 WHERE NOT EXISTS (SELECT 1 FROM cu2 WHERE cu2.uid = cu1.id) LIMIT 1;
DELETE FROM cu2 WHERE amt < (SELECT MIN(total) FROM cu1 WHERE cu1.id = cu2.uid);
SELECT * FROM cu2 ORDER BY id;
DELETE FROM cu1 WHERE id NOT IN (SELECT uid FROM cu2 WHERE cu2.amt >= cu1.total);
SELECT * FROM cu1 ORDER BY id;

-- NOT IN and NOT EXISTS in DELETE and UPDATE, with NULLs in the subquery's column and in the row's.
CREATE TABLE ni1 (id INT PRIMARY KEY, x INT);
CREATE TABLE ni2 (y INT);
INSERT INTO ni1 VALUES (1, 1), (2, 2), (3, NULL), (4, 4);
INSERT INTO ni2 VALUES (1), (NULL);
UPDATE ni1 SET x = x + 100 WHERE x NOT IN (SELECT y FROM ni2);
SELECT * FROM ni1 ORDER BY id;
UPDATE ni1 SET x = x + 1000 WHERE NOT EXISTS (SELECT 1 FROM ni2 WHERE ni2.y = ni1.x);
SELECT * FROM ni1 ORDER BY id;
DELETE FROM ni1 WHERE x NOT IN (SELECT y FROM ni2);
SELECT * FROM ni1 ORDER BY id;
DELETE FROM ni1 WHERE NOT EXISTS (SELECT 1 FROM ni2 WHERE ni2.y = ni1.x);
SELECT * FROM ni1 ORDER BY id;
