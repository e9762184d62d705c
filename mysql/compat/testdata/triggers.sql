-- Triggers across repeated INSERTs of one session, with the changes that
-- must reach a trigger already fired (rules RULE-85 keeps what INSERTs
-- fire): ALTER of the tables the body and NEW read, CREATE INDEX, DROP and
-- CREATE TRIGGER, RENAME, a BEFORE trigger, a BEGIN ... END body, an
-- INSERT into a table without triggers in a database with some.

CREATE TABLE tco (id INT PRIMARY KEY, cust INT NOT NULL, amount INT NOT NULL);
CREATE TABLE tcs (cust INT PRIMARY KEY, n INT NOT NULL, spent INT NOT NULL);
CREATE TABLE tcplain (id INT PRIMARY KEY, v INT);
INSERT INTO tcs VALUES (1, 0, 0), (2, 0, 0), (3, 0, 0);
CREATE TRIGGER tco_ai AFTER INSERT ON tco FOR EACH ROW UPDATE tcs SET n = n + 1, spent = spent + NEW.amount WHERE cust = NEW.cust;
INSERT INTO tco VALUES (1, 1, 10);
INSERT INTO tco VALUES (2, 2, 20);
INSERT INTO tco VALUES (3, 1, 30);
INSERT INTO tcplain VALUES (1, 1);
INSERT INTO tcplain VALUES (2, 2);
SELECT * FROM tcs ORDER BY cust;

-- A column added before the ones the body reads and writes.
ALTER TABLE tcs ADD COLUMN note VARCHAR(10) DEFAULT 'x' FIRST;
INSERT INTO tco VALUES (4, 3, 40);
INSERT INTO tco VALUES (5, 3, 50);
SELECT * FROM tcs ORDER BY cust;

-- A column added to the trigger's own table (NEW's columns move).
ALTER TABLE tco ADD COLUMN pre INT DEFAULT 7 FIRST;
INSERT INTO tco (id, cust, amount) VALUES (6, 2, 60);
INSERT INTO tco VALUES (1, 7, 2, 70);
SELECT * FROM tcs ORDER BY cust;
SELECT * FROM tco ORDER BY id;

-- An index on what the body looks up, then dropped.
CREATE INDEX tcs_spent ON tcs (spent);
INSERT INTO tco VALUES (1, 8, 1, 80);
DROP INDEX tcs_spent ON tcs;
INSERT INTO tco VALUES (1, 9, 1, 90);
SELECT * FROM tcs ORDER BY cust;

-- The trigger replaced, then a BEFORE trigger beside it.
DROP TRIGGER tco_ai;
INSERT INTO tco VALUES (1, 10, 1, 100);
SELECT * FROM tcs ORDER BY cust;
CREATE TRIGGER tco_ai2 AFTER INSERT ON tco FOR EACH ROW UPDATE tcs SET n = n + 10 WHERE cust = NEW.cust;
CREATE TRIGGER tco_bi BEFORE INSERT ON tco FOR EACH ROW SET NEW.amount = NEW.amount * 2;
INSERT INTO tco VALUES (1, 11, 2, 5);
INSERT INTO tco VALUES (1, 12, 3, 6);
SELECT * FROM tcs ORDER BY cust;
SELECT * FROM tco WHERE id > 10 ORDER BY id;

-- A BEGIN ... END body with a local variable, fired several times.
DROP TRIGGER tco_ai2;
CREATE TRIGGER tco_ai3 AFTER INSERT ON tco FOR EACH ROW BEGIN DECLARE d INT DEFAULT 0; SET d = NEW.amount + 1; UPDATE tcs SET spent = spent + d WHERE cust = NEW.cust; END;
INSERT INTO tco VALUES (1, 13, 1, 1);
INSERT INTO tco VALUES (1, 14, 1, 2);
INSERT INTO tco VALUES (1, 15, 2, 3), (1, 16, 2, 4);
SELECT * FROM tcs ORDER BY cust;

-- The body's table renamed away and back.
RENAME TABLE tcs TO tcs_old;
CREATE TABLE tcs (cust INT PRIMARY KEY, n INT NOT NULL DEFAULT 0, spent INT NOT NULL DEFAULT 0);
INSERT INTO tcs (cust) VALUES (1);
INSERT INTO tco VALUES (1, 17, 1, 1);
SELECT * FROM tcs ORDER BY cust;
DROP TABLE tcs;
RENAME TABLE tcs_old TO tcs;
INSERT INTO tco VALUES (1, 18, 1, 1);
SELECT * FROM tcs ORDER BY cust;
INSERT INTO tcplain VALUES (3, 3);
SELECT COUNT(*), SUM(amount) FROM tco;
SELECT * FROM tcplain ORDER BY id;

-- UPDATE and DELETE triggers, repeated, with a change between.
CREATE TABLE tcl (id INT PRIMARY KEY, what VARCHAR(20), old_amount INT, new_amount INT);
CREATE TRIGGER tco_au AFTER UPDATE ON tco FOR EACH ROW INSERT INTO tcl (id, what, old_amount, new_amount) VALUES (NEW.id * 100 + NEW.amount, 'update', OLD.amount, NEW.amount);
CREATE TRIGGER tco_bu BEFORE UPDATE ON tco FOR EACH ROW SET NEW.amount = NEW.amount + 1;
CREATE TRIGGER tco_ad AFTER DELETE ON tco FOR EACH ROW INSERT INTO tcl (id, what, old_amount, new_amount) VALUES (OLD.id * 100 + 99, 'delete', OLD.amount, NULL);
UPDATE tco SET amount = 1000 WHERE id = 1;
UPDATE tco SET amount = 2000 WHERE id = 2;
UPDATE tco SET amount = amount + 5 WHERE id IN (3, 4);
DELETE FROM tco WHERE id = 5;
DELETE FROM tco WHERE id = 6;
SELECT * FROM tcl ORDER BY id;
ALTER TABLE tcl ADD COLUMN at INT DEFAULT 0 AFTER id;
ALTER TABLE tco ADD COLUMN post INT DEFAULT 9;
UPDATE tco SET amount = 3000 WHERE id = 7;
UPDATE tco SET amount = 4000 WHERE id = 8;
DELETE FROM tco WHERE id = 9;
DELETE FROM tco WHERE id = 10;
DROP TRIGGER tco_bu;
UPDATE tco SET amount = 5000 WHERE id = 11;
UPDATE tco SET amount = 6000 WHERE id = 12;
SELECT * FROM tcl ORDER BY id;
SELECT * FROM tco ORDER BY id;
UPDATE tcplain SET v = v + 1;
DELETE FROM tcplain WHERE id = 1;
SELECT * FROM tcplain ORDER BY id;
