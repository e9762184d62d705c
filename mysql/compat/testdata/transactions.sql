-- Transactions on one session: BEGIN / COMMIT / ROLLBACK, savepoints,
-- autocommit=0 flows, implicit commits.

CREATE TABLE acct (id INT PRIMARY KEY, owner VARCHAR(10), bal DECIMAL(10,2) NOT NULL);
INSERT INTO acct VALUES (1, 'ann', 100.00), (2, 'bob', 50.00), (3, 'cy', 0.00);

-- ROLLBACK of a DELETE without WHERE.
BEGIN;
DELETE FROM acct;
SELECT COUNT(*) FROM acct;
ROLLBACK;
SELECT * FROM acct ORDER BY id;

-- COMMIT.
START TRANSACTION;
UPDATE acct SET bal = bal - 10 WHERE id = 1;
UPDATE acct SET bal = bal + 10 WHERE id = 2;
COMMIT;
SELECT * FROM acct ORDER BY id;

-- ROLLBACK of inserts, updates and deletes together.
BEGIN;
INSERT INTO acct VALUES (4, 'dee', 5.00);
UPDATE acct SET owner = 'ANN' WHERE id = 1;
DELETE FROM acct WHERE id = 3;
SELECT * FROM acct ORDER BY id;
ROLLBACK;
SELECT * FROM acct ORDER BY id;

-- Savepoints.
BEGIN;
INSERT INTO acct VALUES (10, 's1', 1);
SAVEPOINT a;
INSERT INTO acct VALUES (11, 's2', 2);
SAVEPOINT b;
INSERT INTO acct VALUES (12, 's3', 3);
SELECT id FROM acct WHERE id >= 10 ORDER BY id;
ROLLBACK TO SAVEPOINT b;
SELECT id FROM acct WHERE id >= 10 ORDER BY id;
ROLLBACK TO a;
SELECT id FROM acct WHERE id >= 10 ORDER BY id;
INSERT INTO acct VALUES (13, 's4', 4);
COMMIT;
SELECT id FROM acct WHERE id >= 10 ORDER BY id;

-- RELEASE SAVEPOINT after DELETE.
BEGIN;
SAVEPOINT before_delete;
DELETE FROM acct WHERE id >= 10;
RELEASE SAVEPOINT before_delete;
SELECT COUNT(*) FROM acct WHERE id >= 10;
ROLLBACK TO SAVEPOINT before_delete;
ROLLBACK;
SELECT id FROM acct WHERE id >= 10 ORDER BY id;

BEGIN;
SAVEPOINT sp;
DELETE FROM acct WHERE id >= 10;
ROLLBACK TO SAVEPOINT sp;
SELECT id FROM acct WHERE id >= 10 ORDER BY id;
RELEASE SAVEPOINT sp;
COMMIT;
SELECT id FROM acct WHERE id >= 10 ORDER BY id;

-- Savepoint reuse and unknown savepoints.
BEGIN;
SAVEPOINT x;
UPDATE acct SET bal = 1 WHERE id = 1;
SAVEPOINT x;
UPDATE acct SET bal = 2 WHERE id = 1;
ROLLBACK TO SAVEPOINT x;
SELECT bal FROM acct WHERE id = 1;
ROLLBACK TO SAVEPOINT nope;
RELEASE SAVEPOINT nope;
ROLLBACK;
SELECT bal FROM acct WHERE id = 1;

-- autocommit = 0.
SET autocommit = 0;
SELECT @@autocommit;
INSERT INTO acct VALUES (20, 'ac0', 20);
ROLLBACK;
SELECT COUNT(*) FROM acct WHERE id = 20;
INSERT INTO acct VALUES (21, 'ac0', 21);
COMMIT;
SELECT COUNT(*) FROM acct WHERE id = 21;
DELETE FROM acct WHERE id = 21;
ROLLBACK;
SELECT COUNT(*) FROM acct WHERE id = 21;
UPDATE acct SET bal = 0 WHERE id = 21;
SET autocommit = 1;
SELECT bal FROM acct WHERE id = 21;
ROLLBACK;
SELECT bal FROM acct WHERE id = 21;
SELECT @@autocommit;

-- autocommit=0 then DDL commits implicitly.
SET autocommit = 0;
INSERT INTO acct VALUES (22, 'ddl', 22);
CREATE TABLE implicit_commit (id INT PRIMARY KEY);
ROLLBACK;
SELECT COUNT(*) FROM acct WHERE id = 22;
SET autocommit = 1;

-- BEGIN inside a transaction commits the first one.
BEGIN;
INSERT INTO acct VALUES (23, 'b1', 23);
BEGIN;
ROLLBACK;
SELECT COUNT(*) FROM acct WHERE id = 23;

-- Errors inside a transaction do not roll it back.
BEGIN;
INSERT INTO acct VALUES (24, 'e1', 24);
INSERT INTO acct VALUES (24, 'dup', 0);
INSERT INTO acct VALUES (25, 'e2', NULL);
UPDATE acct SET bal = bal + 1 WHERE id = 24;
COMMIT;
SELECT * FROM acct WHERE id IN (24, 25) ORDER BY id;

-- A failing multi-row statement is undone as a whole (InnoDB statement
-- rollback).
INSERT INTO acct VALUES (30, 'm1', 1), (31, 'm2', 2), (1, 'dup', 3);
SELECT COUNT(*) FROM acct WHERE id IN (30, 31);
BEGIN;
INSERT INTO acct VALUES (32, 'm3', 1), (33, 'm4', NULL);
SELECT COUNT(*) FROM acct WHERE id IN (32, 33);
COMMIT;
UPDATE acct SET bal = bal + 1000000000 WHERE id IN (1, 2);
UPDATE acct SET id = id + 1 WHERE id IN (1, 2);
SELECT id, bal FROM acct WHERE id <= 3 ORDER BY id;

-- START TRANSACTION variants; transaction state variables.
START TRANSACTION READ ONLY;
SELECT COUNT(*) FROM acct;
INSERT INTO acct VALUES (40, 'ro', 1);
COMMIT;
START TRANSACTION READ WRITE;
INSERT INTO acct VALUES (41, 'rw', 1);
COMMIT;
START TRANSACTION WITH CONSISTENT SNAPSHOT;
SELECT COUNT(*) FROM acct WHERE id = 41;
COMMIT;
COMMIT;
ROLLBACK;
-- (@@transaction_isolation is MySQL 8.0's name, @@tx_isolation MariaDB
-- 10.11's: neither is comparable.)
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
BEGIN;
SELECT COUNT(*) FROM acct WHERE id = 41;
COMMIT;
SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- COMMIT AND CHAIN / ROLLBACK AND NO CHAIN.
BEGIN;
INSERT INTO acct VALUES (50, 'c1', 1);
COMMIT AND CHAIN;
INSERT INTO acct VALUES (51, 'c2', 1);
ROLLBACK;
SELECT id FROM acct WHERE id IN (50, 51) ORDER BY id;

-- Locking reads in a transaction.
BEGIN;
SELECT bal FROM acct WHERE id = 2 FOR UPDATE;
UPDATE acct SET bal = bal + 1 WHERE id = 2;
SELECT bal FROM acct WHERE id = 2 LOCK IN SHARE MODE;
SELECT bal FROM acct WHERE id = 2 FOR SHARE;
COMMIT;
SELECT bal FROM acct WHERE id = 2;

-- Transactions over several tables and TRUNCATE.
CREATE TABLE log (id INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(20));
BEGIN;
INSERT INTO log (msg) VALUES ('one'), ('two');
UPDATE acct SET bal = bal - 1 WHERE id = 2;
ROLLBACK;
SELECT COUNT(*) FROM log;
SELECT bal FROM acct WHERE id = 2;
INSERT INTO log (msg) VALUES ('three');
SELECT id, msg FROM log ORDER BY id;
TRUNCATE TABLE log;
INSERT INTO log (msg) VALUES ('four');
SELECT id, msg FROM log ORDER BY id;
BEGIN;
DELETE FROM log;
INSERT INTO log (msg) VALUES ('five');
COMMIT;
SELECT id, msg FROM log ORDER BY id;

-- Auto-increment values consumed by a rolled-back transaction stay used.
BEGIN;
INSERT INTO log (msg) VALUES ('six');
ROLLBACK;
INSERT INTO log (msg) VALUES ('seven');
SELECT id, msg FROM log ORDER BY id;

-- User variables survive transactions; LAST_INSERT_ID() per session.
SET @v = 1;
BEGIN;
SET @v = @v + 1;
ROLLBACK;
SELECT @v;
SELECT LAST_INSERT_ID();
INSERT INTO log (id, msg) VALUES (100, 'explicit');
SELECT LAST_INSERT_ID();
INSERT INTO log (msg) VALUES ('after');
SELECT LAST_INSERT_ID();
SELECT LAST_INSERT_ID(5);
SELECT LAST_INSERT_ID();
