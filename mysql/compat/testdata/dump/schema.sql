-- Schema and data for the dump round trip (TestDumpRoundTrip): every
-- common column type, ENUM/SET with quotes, defaults, generated columns,
-- named and unnamed foreign keys, a view, a trigger, a procedure and a
-- function.
CREATE TABLE parent (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  code VARCHAR(20) NOT NULL,
  UNIQUE KEY uk_code (code)
);
CREATE TABLE kinds (
  id INT PRIMARY KEY,
  ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT, bu BIGINT UNSIGNED,
  de DECIMAL(12,4), fl FLOAT, db DOUBLE,
  ch CHAR(5), vc VARCHAR(100) DEFAULT 'x''y', tx TEXT, bl BLOB, vb VARBINARY(16),
  d DATE, dt DATETIME(6), ts TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  tm TIME, yr YEAR,
  e ENUM('a','b''c','d') DEFAULT 'b''c', s SET('x','y''z','w') DEFAULT 'y''z',
  j JSON, bt BIT(8),
  n INT DEFAULT NULL, dflt INT DEFAULT (1 + 1),
  g INT AS (ti * 2) STORED, v INT AS (ti + 1) VIRTUAL,
  pid INT, pid2 INT,
  CONSTRAINT fk_parent FOREIGN KEY (pid) REFERENCES parent (id),
  FOREIGN KEY (pid2) REFERENCES parent (id),
  KEY k_vc (vc),
  CHECK (si < 60000)
);
CREATE TABLE audit (id INT AUTO_INCREMENT PRIMARY KEY, kind_id INT, note VARCHAR(50));
CREATE VIEW kind_names AS SELECT k.id, k.vc, p.code FROM kinds k LEFT JOIN parent p ON p.id = k.pid;
CREATE TRIGGER kinds_ai AFTER INSERT ON kinds FOR EACH ROW INSERT INTO audit (kind_id, note) VALUES (NEW.id, CONCAT('new ', NEW.vc));
DELIMITER //
CREATE PROCEDURE add_parent(IN c VARCHAR(20)) BEGIN INSERT INTO parent (code) VALUES (c); END//
CREATE FUNCTION kinds_of(p INT) RETURNS INT READS SQL DATA
BEGIN
  DECLARE n INT DEFAULT 0;
  IF p IS NULL THEN RETURN -1; END IF;
  SELECT COUNT(*) INTO n FROM kinds WHERE pid = p;
  RETURN n;
END//
DELIMITER ;
CALL add_parent('p1');
CALL add_parent('p''2');
INSERT INTO kinds (id, ti, si, mi, bi, bu, de, fl, db, ch, vc, tx, bl, vb, d, dt, ts, tm, yr, e, s, j, bt, n, pid, pid2) VALUES
  (1, -128, 65535 - 5536, -8388608, -9223372036854775808, 18446744073709551615, -12345678.1234, 1.5, -2.25e100,
   'ab', 'quote '' and \\ backslash', 'line1\nline2', X'00FF10', X'DEADBEEF', '2024-02-29', '2024-02-29 12:34:56.123456',
   '2024-03-01 00:00:01', '838:59:59', 2024, 'a', 'x,w', '{"k": [1, "two", null]}', b'10000001', NULL, 1, 2),
  (2, 127, 0, 8388607, 9223372036854775807, 0, 99999999.9999, -0.0, 0, '', 'üñíçødé ✓', '', X'', X'', '1000-01-01',
   '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07', '-838:59:59', 1901, 'd', '', 'null', b'0', 7, NULL, NULL),
  (3, 0, 1, 0, 0, 1, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2, 1);
INSERT INTO kinds (id, ti) VALUES (4, 5);
