-- @exact-types
-- Result column types of plain table columns, compared exactly (no
-- integer or string merging): the wire type clients decode by.

CREATE TABLE ty (
  id INT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  d DECIMAL(10,2), f FLOAT, db DOUBLE,
  c CHAR(3), vc VARCHAR(10), tt TINYTEXT, t TEXT, mt MEDIUMTEXT, lt LONGTEXT,
  bn BINARY(3), vb VARBINARY(10), tb TINYBLOB, b BLOB, mb MEDIUMBLOB, lb LONGBLOB,
  dt DATE, tm TIME, dtm DATETIME, ts TIMESTAMP NULL, y YEAR,
  e ENUM('a', 'b'), st SET('a', 'b'), j JSON, bt BIT(8), bo BOOL
);
INSERT INTO ty (id) VALUES (1);
INSERT INTO ty VALUES (2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1.25, 1.5, 2.5, 'c', 'vc', 'tt', 't', 'mt', 'lt', 'bn', 'vb', 'tb', 'b', 'mb', 'lb', '2024-01-02', '03:04:05', '2024-01-02 03:04:05', '2024-01-02 03:04:05', 2024, 'a', 'a,b', '[1]', b'101', TRUE);
SELECT id, ti, tiu, si, siu, mi, miu, i, iu, bi, biu FROM ty ORDER BY id;
SELECT id, d, f, db FROM ty ORDER BY id;
SELECT id, c, vc, tt, t, mt, lt FROM ty ORDER BY id;
SELECT id, bn, vb, tb, b, mb, lb FROM ty ORDER BY id;
SELECT id, dt, tm, dtm, ts, y FROM ty ORDER BY id;
SELECT id, e, st, j, bo FROM ty ORDER BY id;
SELECT bt FROM ty WHERE id = 2;
SELECT * FROM ty WHERE id = 2;
CREATE TABLE tyk (a INT NOT NULL, b VARCHAR(5) NOT NULL, c INT, PRIMARY KEY (a, b), UNIQUE KEY uc (c));
INSERT INTO tyk VALUES (1, 'x', NULL), (1, 'y', 5);
SELECT * FROM tyk ORDER BY a, b;
-- TIME from a date-and-time string: its time of day (RULE-59).
CREATE TABLE tclock (id INT PRIMARY KEY, t TIME);
INSERT INTO tclock VALUES (1, '2020-01-01 03:25:45'), (2, '0001-01-01 13:25:45'), (3, '2021-02-03T04:05:06');
UPDATE tclock SET t = '1999-12-31 23:59:59' WHERE id = 3;
SELECT id, t FROM tclock ORDER BY id;
SELECT id FROM tclock WHERE t = '03:25:45';
SELECT CAST('2020-01-01 03:25:45' AS TIME), CAST('1000-01-01 03:25:45' AS TIME), CAST('2020-01-01 03:25' AS TIME), CAST('03:25' AS TIME);
INSERT INTO tclock VALUES (4, '10:11:12.7');
SELECT id, t FROM tclock WHERE id = 4;
SELECT id FROM tclock WHERE t = '10:11:13' OR t = '10:11:12';
SELECT CAST('0000-00-00 00:00:00' AS TIME), CAST('0000-00-00' AS TIME), CAST('0000-00-00 10:11:12' AS TIME);
-- A TIME column compared with a string holding a date and a time: its time of day (rules RULE-59).
CREATE TABLE tcmp (id INT PRIMARY KEY, t TIME NOT NULL, KEY (t));
INSERT INTO tcmp VALUES (1, '01:01:01'), (2, '03:03:03');
SELECT t FROM tcmp WHERE t < '2005-11-13 7:41:31' ORDER BY t;
SELECT id FROM tcmp WHERE t = '2001-01-01 1:1:1';
SELECT id FROM tcmp WHERE t > '2005-11-13 00:00:01' AND t <> '2005-11-13 03:03:03' ORDER BY id;
SELECT t FROM tcmp WHERE t BETWEEN '2005-11-13 00:00:00' AND '2005-11-13 02:00:00';
CREATE TABLE tcmps (s VARCHAR(30));
INSERT INTO tcmps VALUES ('2005-11-13 02:00:00'), ('04:00:00');
SELECT tcmp.t, tcmps.s FROM tcmp JOIN tcmps ON tcmp.t < tcmps.s ORDER BY 1, 2;

-- DATE and DATETIME columns against string literals through their indexes: exact values of the
-- column's type, a time of day against a DATE, fractions beyond a DATETIME's digits, invalid text.
CREATE TABLE dtr (id INT PRIMARY KEY, d DATE, dt DATETIME, dt3 DATETIME(3), KEY (d), KEY (dt), KEY (dt3));
INSERT INTO dtr VALUES (1, '2024-01-01', '2024-01-01 00:00:00', '2024-01-01 00:00:00.000'), (2, '2024-01-02', '2024-01-01 12:00:00', '2024-01-01 12:00:00.500'), (3, '2024-01-03', '2024-01-02 00:00:01', '2024-01-02 00:00:00.999'), (4, NULL, NULL, NULL);
SELECT id FROM dtr WHERE d >= '2024-01-02' ORDER BY id;
SELECT id FROM dtr WHERE d > '2024-01-02 00:00:00' ORDER BY id;
SELECT id FROM dtr WHERE d >= '2024-01-01 12:00:00' ORDER BY id;
SELECT id FROM dtr WHERE d = '2024-01-02 00:00:01' ORDER BY id;
SELECT id FROM dtr WHERE dt >= '2024-01-01 12:00:00' ORDER BY id;
SELECT id FROM dtr WHERE dt < '2024-01-01 12:00:00.5' ORDER BY id;
SELECT id FROM dtr WHERE dt <= '2024-01-02' ORDER BY id;
SELECT id FROM dtr WHERE dt3 > '2024-01-01 12:00:00.5' ORDER BY id;
SELECT id FROM dtr WHERE dt3 >= '2024-01-01 12:00:00.4999' ORDER BY id;
SELECT id FROM dtr WHERE dt3 = '2024-01-02 00:00:00.999' ORDER BY id;
SELECT id FROM dtr WHERE '2024-01-01 12:00:00' <= dt ORDER BY id;
SELECT id FROM dtr WHERE dt > 'garbage' ORDER BY id;
-- Numbers that read as dates against indexed DATE and DATETIME columns (RULE-91, RULE-31).
CREATE TABLE dnum (id INT PRIMARY KEY, d DATE, dt DATETIME, KEY (d), KEY (dt));
INSERT INTO dnum VALUES (1, '2025-01-01', '2025-01-01 10:00:00'), (2, '2024-06-30', '2024-06-30 00:00:00'), (3, NULL, NULL);
SELECT id FROM dnum WHERE d = 20250101;
SELECT id FROM dnum WHERE dt >= 20250101 ORDER BY id;
SELECT id FROM dnum WHERE d BETWEEN 20240101 AND 20241231 ORDER BY id;
SELECT id FROM dnum WHERE dt < 20250101103000 ORDER BY id;
SELECT id FROM dnum WHERE d IN (20250101, 20240630) ORDER BY id;
SELECT id FROM dnum WHERE d = '20250101';
SELECT id FROM dnum WHERE 250101 = d;
