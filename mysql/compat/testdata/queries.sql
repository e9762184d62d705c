-- Queries: joins, subqueries, set operations, grouping, ordering, limits,
-- derived tables, window functions, CTEs, views.

CREATE TABLE dept (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, budget DECIMAL(10,2));
CREATE TABLE emp (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, dept_id INT, salary INT, boss INT, hired DATE, KEY (dept_id));
CREATE TABLE proj (id INT PRIMARY KEY, emp_id INT, title VARCHAR(20), hours INT);
INSERT INTO dept VALUES (1, 'eng', 1000.00), (2, 'ops', 500.00), (3, 'hr', NULL), (4, 'empty', 0);
INSERT INTO emp VALUES
  (1, 'ann', 1, 300, NULL, '2020-01-01'),
  (2, 'bob', 1, 200, 1, '2021-02-01'),
  (3, 'cy', 2, 150, 1, '2021-03-01'),
  (4, 'dee', 2, 150, 3, '2022-04-01'),
  (5, 'eve', NULL, 100, 1, '2023-05-01'),
  (6, 'fay', 3, NULL, 1, NULL),
  (7, 'gus', 1, 250, 2, '2020-06-15');
INSERT INTO proj VALUES (1, 1, 'alpha', 10), (2, 1, 'beta', 5), (3, 2, 'alpha', 7), (4, 3, 'gamma', NULL), (5, 99, 'orphan', 1);

-- Joins.
SELECT e.name, d.name FROM emp e JOIN dept d ON d.id = e.dept_id ORDER BY e.id;
SELECT e.name, d.name FROM emp e INNER JOIN dept d ON d.id = e.dept_id AND d.budget > 600 ORDER BY e.id;
SELECT e.name, d.name FROM emp e LEFT JOIN dept d ON d.id = e.dept_id ORDER BY e.id;
SELECT e.name, d.name FROM emp e RIGHT JOIN dept d ON d.id = e.dept_id ORDER BY d.id, e.id;
SELECT d.name, COUNT(e.id) FROM dept d LEFT JOIN emp e ON e.dept_id = d.id GROUP BY d.id, d.name ORDER BY d.id;
SELECT e.name, d.name FROM emp e LEFT JOIN dept d ON d.id = e.dept_id WHERE d.id IS NULL ORDER BY e.id;
SELECT e.name, b.name AS boss FROM emp e LEFT JOIN emp b ON b.id = e.boss ORDER BY e.id;
SELECT e.name, p.title FROM emp e JOIN proj p ON p.emp_id = e.id JOIN dept d ON d.id = e.dept_id WHERE d.name = 'eng' ORDER BY e.id, p.id;
SELECT e.name, p.title, d.name FROM emp e LEFT JOIN proj p ON p.emp_id = e.id LEFT JOIN dept d ON d.id = e.dept_id ORDER BY e.id, p.id;
SELECT COUNT(*) FROM emp CROSS JOIN dept;
-- @sorted
SELECT e.name, d.name FROM emp e CROSS JOIN dept d WHERE e.id <= 2 AND d.id <= 2;
SELECT e.name, d.name FROM emp e, dept d WHERE e.dept_id = d.id AND d.id = 2 ORDER BY e.id;
SELECT e.id, d.id FROM emp e JOIN dept d ON e.dept_id < d.id WHERE e.id <= 2 ORDER BY e.id, d.id;
SELECT name FROM emp JOIN dept USING (name) ORDER BY name;
SELECT * FROM emp NATURAL JOIN dept ORDER BY id;
SELECT e.name FROM emp e STRAIGHT_JOIN dept d ON d.id = e.dept_id WHERE d.id = 1 ORDER BY e.name;
SELECT a.name, b.name FROM emp a JOIN emp b ON a.salary = b.salary AND a.id < b.id ORDER BY a.id;
SELECT p.title, e.name FROM proj p LEFT JOIN emp e ON e.id = p.emp_id ORDER BY p.id;
SELECT d.name, e.name FROM dept d LEFT JOIN emp e ON e.dept_id = d.id AND e.salary > 200 ORDER BY d.id, e.id;
SELECT d.name, SUM(p.hours) FROM dept d JOIN emp e ON e.dept_id = d.id JOIN proj p ON p.emp_id = e.id GROUP BY d.name ORDER BY d.name;

-- Subqueries.
SELECT name FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE budget > 400) ORDER BY id;
SELECT name FROM emp WHERE dept_id NOT IN (SELECT id FROM dept WHERE budget > 400) ORDER BY id;
SELECT name FROM emp WHERE dept_id NOT IN (SELECT id FROM dept WHERE budget IS NULL OR budget > 400) ORDER BY id;
SELECT name FROM emp WHERE id NOT IN (SELECT boss FROM emp) ORDER BY id;
SELECT name FROM emp WHERE id NOT IN (SELECT boss FROM emp WHERE boss IS NOT NULL) ORDER BY id;
SELECT name FROM emp e WHERE EXISTS (SELECT 1 FROM proj p WHERE p.emp_id = e.id) ORDER BY id;
SELECT name FROM emp e WHERE NOT EXISTS (SELECT 1 FROM proj p WHERE p.emp_id = e.id) ORDER BY id;
SELECT name FROM emp WHERE salary > ALL (SELECT salary FROM emp WHERE dept_id = 2) ORDER BY id;
SELECT name FROM emp WHERE salary > ANY (SELECT salary FROM emp WHERE dept_id = 2) ORDER BY id;
SELECT name FROM emp WHERE salary = SOME (SELECT salary FROM emp WHERE dept_id = 2) ORDER BY id;
SELECT name FROM emp WHERE salary > ALL (SELECT salary FROM emp WHERE dept_id = 99) ORDER BY id;
SELECT name FROM emp WHERE salary < ALL (SELECT salary FROM emp) ORDER BY id;
-- Quantified comparisons: three-valued results over empty sets and NULLs.
CREATE TABLE qa (a INT);
INSERT INTO qa VALUES (1), (2), (3), (NULL);
CREATE TABLE qb (b INT);
INSERT INTO qb VALUES (1), (2);
SELECT a, a >= ALL (SELECT b FROM qb), a > ANY (SELECT b FROM qb), a <> ALL (SELECT b FROM qb), a = SOME (SELECT b FROM qb), a != ANY (SELECT b FROM qb) FROM qa ORDER BY a;
SELECT a, a > ALL (SELECT b FROM qb WHERE b > 5), a > ANY (SELECT b FROM qb WHERE b > 5), NULL > ALL (SELECT b FROM qb WHERE b > 5) FROM qa ORDER BY a;
SELECT a, NOT (a = ALL (SELECT b FROM qb)), NOT (a <> ALL (SELECT b FROM qb)) FROM qa ORDER BY a;
INSERT INTO qb VALUES (NULL);
SELECT a, a >= ALL (SELECT b FROM qb), a > ANY (SELECT b FROM qb), a < ALL (SELECT b FROM qb), a <= SOME (SELECT b FROM qb) FROM qa ORDER BY a;
SELECT a FROM qa WHERE a >= ALL (SELECT q2.a FROM qa q2 WHERE q2.a IS NOT NULL AND q2.a <= qa.a) ORDER BY a;
SELECT a FROM qa WHERE a < ALL ( SELECT b /* ) */ FROM qb WHERE b > 1 AND ')' = ')') ORDER BY a;
SELECT 'x' < ALL (SELECT 'y'), 2 > ANY (SELECT '1'), 1.5 > ALL (SELECT 1);
SELECT SUM(ALL a), COUNT(ALL a), MAX(ALL a) FROM qa;
SELECT 1 > ALL (SELECT 1, 2);
SELECT name, (SELECT name FROM dept d WHERE d.id = e.dept_id) AS dname FROM emp e ORDER BY id;
SELECT name, (SELECT COUNT(*) FROM proj p WHERE p.emp_id = e.id) AS n FROM emp e ORDER BY id;
SELECT name FROM emp WHERE salary = (SELECT MAX(salary) FROM emp);
SELECT name FROM emp WHERE salary = (SELECT salary FROM emp WHERE id = 99);
SELECT name FROM emp WHERE salary = (SELECT salary FROM emp);
SELECT name FROM emp e WHERE salary > (SELECT AVG(salary) FROM emp e2 WHERE e2.dept_id = e.dept_id) ORDER BY id;
SELECT (SELECT 1), (SELECT NULL) IS NULL, (SELECT COUNT(*) FROM emp);
SELECT name FROM emp WHERE (dept_id, salary) IN (SELECT dept_id, MAX(salary) FROM emp GROUP BY dept_id) ORDER BY id;
SELECT name FROM emp WHERE (dept_id, salary) = (1, 200);
SELECT id FROM dept WHERE id IN (1, 3, 5, NULL) ORDER BY id;
SELECT id FROM dept WHERE id NOT IN (1, 3) ORDER BY id;
SELECT id FROM dept WHERE id NOT IN (1, NULL) ORDER BY id;
SELECT 1 IN (SELECT NULL), 1 NOT IN (SELECT NULL), EXISTS (SELECT NULL), NOT EXISTS (SELECT * FROM dept WHERE id = 9);
SELECT name, (dept_id, salary) IN (SELECT dept_id, MAX(salary) FROM emp e2 GROUP BY dept_id) AS x, (dept_id, salary) IN (SELECT dept_id, salary FROM emp e3) AS y, salary IN (SELECT MAX(salary) FROM emp GROUP BY dept_id) AS z, salary NOT IN (SELECT MAX(salary) FROM emp GROUP BY dept_id) AS nz FROM emp ORDER BY id;
SELECT NULL IN (SELECT 1), 1 IN (SELECT 2 UNION SELECT NULL), (1, 2) IN (SELECT 1, NULL), (1, NULL) IN (SELECT 1, 2), (1, NULL) IN (SELECT 2, 2), NULL IN (SELECT 1 FROM dept WHERE id = 9);
SELECT name FROM emp WHERE (dept_id, salary) NOT IN (SELECT dept_id, salary FROM emp e2 WHERE e2.id <> emp.id) ORDER BY id;
SELECT id FROM dept WHERE (id, budget) IN (SELECT dept_id, MAX(salary) * 2 FROM emp GROUP BY dept_id) ORDER BY id;

-- UNION, UNION ALL, primary-key lookups.
SELECT name FROM emp WHERE id = 1 UNION SELECT name FROM emp WHERE id = 2 ORDER BY name;
SELECT name FROM emp WHERE id = 1 UNION SELECT name FROM emp WHERE id = 1;
SELECT name FROM emp WHERE id = 1 UNION ALL SELECT name FROM emp WHERE id = 1;
SELECT id, name FROM emp WHERE id = 3 UNION SELECT id, name FROM dept WHERE id = 3 UNION SELECT id, name FROM emp WHERE id = 99 ORDER BY id, name;
SELECT id FROM emp WHERE id < 3 UNION ALL SELECT id FROM dept WHERE id < 3 ORDER BY id DESC;
SELECT id FROM emp UNION SELECT id FROM dept ORDER BY id LIMIT 3;
(SELECT id FROM emp ORDER BY id DESC LIMIT 2) UNION (SELECT id FROM dept ORDER BY id LIMIT 1) ORDER BY id;
SELECT 1 AS a, 'x' AS b UNION SELECT 2, 'y' UNION SELECT 1, 'x' ORDER BY a;
SELECT 1 UNION SELECT 'a' ORDER BY 1;
SELECT 1.5 AS v UNION SELECT 2 ORDER BY v;
SELECT NULL AS v UNION SELECT 1 ORDER BY v;
SELECT id FROM emp UNION SELECT id, name FROM dept;
SELECT name FROM emp WHERE id = 1 UNION DISTINCT SELECT name FROM emp WHERE id = 2 ORDER BY name;
SELECT COUNT(*) FROM (SELECT id FROM emp UNION ALL SELECT id FROM dept) u;
SELECT * FROM (SELECT id, 'e' AS src FROM emp WHERE id = 2 UNION ALL SELECT id, 'd' FROM dept WHERE id = 2) u ORDER BY src;
SELECT id FROM emp WHERE id IN (1, 2) INTERSECT SELECT id FROM dept ORDER BY id;
SELECT id FROM emp EXCEPT SELECT id FROM dept ORDER BY id;

-- GROUP BY, HAVING, aggregates.
SELECT dept_id, COUNT(*), SUM(salary), MIN(salary), MAX(salary) FROM emp GROUP BY dept_id ORDER BY dept_id;
SELECT dept_id, COUNT(*) AS n FROM emp GROUP BY dept_id HAVING n > 1 ORDER BY dept_id;
SELECT dept_id, COUNT(*) FROM emp GROUP BY dept_id HAVING COUNT(*) > 1 AND MAX(salary) > 200 ORDER BY dept_id;
SELECT dept_id, AVG(salary) FROM emp GROUP BY dept_id ORDER BY AVG(salary) DESC, dept_id;
SELECT dept_id, name FROM emp GROUP BY dept_id;
SELECT dept_id, MAX(name) FROM emp GROUP BY dept_id ORDER BY dept_id;
SELECT name, COUNT(*) FROM emp GROUP BY name HAVING COUNT(*) > 1;
SELECT YEAR(hired) AS y, COUNT(*) FROM emp GROUP BY y ORDER BY y;
SELECT salary, COUNT(*) FROM emp GROUP BY salary ORDER BY salary;
SELECT salary DIV 100 AS band, COUNT(*) FROM emp GROUP BY band ORDER BY band;
SELECT COUNT(*) FROM emp HAVING COUNT(*) > 100;
SELECT dept_id, COUNT(DISTINCT salary) FROM emp GROUP BY dept_id ORDER BY dept_id;
SELECT dept_id, SUM(salary) FROM emp GROUP BY dept_id WITH ROLLUP;
SELECT dept_id, boss, SUM(salary), COUNT(*) FROM emp GROUP BY dept_id, boss WITH ROLLUP;
SELECT YEAR(hired) AS y, MONTH(hired) AS m, COUNT(*), MAX(name) FROM emp GROUP BY YEAR(hired), MONTH(hired) WITH ROLLUP;
SELECT COALESCE(d.name, 'total') AS dept, COUNT(e.id), AVG(e.salary) FROM emp e JOIN dept d ON d.id = e.dept_id GROUP BY d.name WITH ROLLUP;
SELECT dept_id, SUM(salary) AS s FROM emp GROUP BY dept_id WITH ROLLUP HAVING s > 200;
SELECT dept_id, SUM(salary) FROM emp WHERE id > 100 GROUP BY dept_id WITH ROLLUP;
SELECT DISTINCT dept_id FROM emp ORDER BY dept_id;
SELECT DISTINCT salary, dept_id FROM emp ORDER BY salary, dept_id;
SELECT COUNT(DISTINCT dept_id) FROM emp;
SELECT dept_id, GROUP_CONCAT(name ORDER BY name) FROM emp GROUP BY dept_id ORDER BY dept_id;
SELECT e.dept_id, d.name, COUNT(*) FROM emp e JOIN dept d ON d.id = e.dept_id GROUP BY e.dept_id ORDER BY e.dept_id;
SELECT id, name FROM dept GROUP BY id ORDER BY id;

-- ORDER BY and LIMIT.
SELECT name, salary FROM emp ORDER BY salary, name;
SELECT name, salary FROM emp ORDER BY salary DESC, name;
SELECT name, salary FROM emp ORDER BY salary IS NULL, salary, name;
SELECT name FROM emp ORDER BY dept_id, name;
SELECT name FROM emp ORDER BY dept_id DESC, name;
SELECT name FROM emp ORDER BY 1;
SELECT name, salary AS s FROM emp ORDER BY s DESC, name LIMIT 3;
SELECT name FROM emp ORDER BY id LIMIT 2 OFFSET 3;
SELECT name FROM emp ORDER BY id LIMIT 3, 2;
SELECT name FROM emp ORDER BY id LIMIT 0;
SELECT name FROM emp ORDER BY id LIMIT 100 OFFSET 6;
SELECT name FROM emp ORDER BY id LIMIT 18446744073709551615 OFFSET 1;
SELECT name FROM emp ORDER BY id LIMIT 5, 18446744073709551615;
SELECT name FROM emp ORDER BY id LIMIT 18446744073709551616;
SELECT name FROM emp ORDER BY id LIMIT -1;
SELECT name FROM emp ORDER BY LENGTH(name) DESC, name;
SELECT name FROM emp ORDER BY CASE WHEN dept_id IS NULL THEN 0 ELSE 1 END, id;
SELECT name FROM emp ORDER BY FIELD(name, 'cy', 'ann'), id;
SELECT name FROM emp ORDER BY 2;
SELECT name FROM emp ORDER BY nope;
SELECT id FROM emp WHERE id > 2 ORDER BY id DESC LIMIT 2;
SELECT MAX(id) FROM emp WHERE id < 5;
SELECT name FROM emp WHERE id BETWEEN 2 AND 4 ORDER BY id;
SELECT name FROM emp WHERE id = 3 OR id = 5 ORDER BY id;
SELECT name FROM emp WHERE id IN (5, 3, 1) ORDER BY id DESC;
SELECT name FROM emp WHERE id > 4 AND id < 100 ORDER BY id;
SELECT name FROM emp WHERE id >= 6 OR dept_id = 2 ORDER BY id;
SELECT name FROM emp WHERE name LIKE 'a%' OR name LIKE '%y' ORDER BY id;
SELECT name FROM emp WHERE dept_id = 1 AND salary >= 250 ORDER BY id;
SELECT name FROM emp WHERE dept_id IS NULL;
SELECT name FROM emp WHERE salary IS NOT NULL AND hired IS NULL;

-- Derived tables.
SELECT t.dept_id, t.total FROM (SELECT dept_id, SUM(salary) AS total FROM emp GROUP BY dept_id) AS t WHERE t.total > 200 ORDER BY t.dept_id;
CREATE TABLE dsum (id INT PRIMARY KEY, d DECIMAL(20,2));
INSERT INTO dsum VALUES (1, 100000000000000.00), (2, 99.99);
SELECT t.s + 0, t.a * 2 FROM (SELECT SUM(d) AS s, AVG(d) AS a FROM dsum) AS t;
WITH c AS (SELECT SUM(d) AS s FROM dsum) SELECT s + 0 FROM c;
SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM proj GROUP BY emp_id) x;
SELECT x.a + x.b FROM (SELECT 1 AS a, 2 AS b) x;
SELECT * FROM (SELECT id, name FROM emp WHERE id < 3) AS e JOIN (SELECT id, name FROM dept) AS d ON d.id = e.id ORDER BY e.id;
SELECT * FROM (SELECT * FROM emp ORDER BY salary DESC LIMIT 2) top ORDER BY id;
SELECT avg_sal FROM (SELECT AVG(salary) AS avg_sal FROM emp) a;
SELECT * FROM (SELECT 1) AS t;
SELECT * FROM (SELECT 1 AS a UNION ALL SELECT 2) AS t ORDER BY a;
SELECT * FROM (SELECT id FROM emp);
SELECT e.name, t.cnt FROM emp e JOIN (SELECT emp_id, COUNT(*) AS cnt FROM proj GROUP BY emp_id) t ON t.emp_id = e.id ORDER BY e.id;

-- Window functions.
SELECT name, salary, ROW_NUMBER() OVER (ORDER BY salary DESC, id) AS rn FROM emp ORDER BY rn;
SELECT name, dept_id, RANK() OVER (PARTITION BY dept_id ORDER BY salary DESC) AS r FROM emp WHERE dept_id IS NOT NULL ORDER BY dept_id, r, name;
SELECT name, salary, DENSE_RANK() OVER (ORDER BY salary DESC) AS dr FROM emp WHERE salary IS NOT NULL ORDER BY dr, name;
SELECT name, SUM(salary) OVER (ORDER BY id) AS running FROM emp ORDER BY id;
SELECT name, SUM(salary) OVER (PARTITION BY dept_id) AS dept_total FROM emp ORDER BY id;
SELECT name, AVG(salary) OVER (PARTITION BY dept_id) AS dept_avg FROM emp WHERE dept_id = 1 ORDER BY id;
SELECT name, COUNT(*) OVER () AS total FROM emp ORDER BY id;
SELECT name, LAG(name) OVER (ORDER BY id) AS prev, LEAD(name, 2) OVER (ORDER BY id) AS next2 FROM emp ORDER BY id;
SELECT name, LAG(salary, 1) OVER (ORDER BY id) FROM emp ORDER BY id;
SELECT name, FIRST_VALUE(name) OVER (PARTITION BY dept_id ORDER BY id) AS f FROM emp ORDER BY id;
SELECT name, LAST_VALUE(name) OVER (PARTITION BY dept_id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS l FROM emp ORDER BY id;
SELECT name, NTILE(3) OVER (ORDER BY id) AS t FROM emp ORDER BY id;
SELECT name, SUM(salary) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS s FROM emp ORDER BY id;
SELECT name, PERCENT_RANK() OVER (ORDER BY id) AS pr FROM emp ORDER BY id;
SELECT name, CUME_DIST() OVER (ORDER BY id) AS cd FROM emp ORDER BY id;
SELECT name, NTH_VALUE(name, 2) OVER (ORDER BY id) AS n2 FROM emp ORDER BY id;
SELECT dept_id, name FROM (SELECT dept_id, name, ROW_NUMBER() OVER (PARTITION BY dept_id ORDER BY salary DESC, id) AS rn FROM emp) t WHERE rn = 1 ORDER BY dept_id;
SELECT name, MAX(salary) OVER w, MIN(salary) OVER w FROM emp WINDOW w AS (PARTITION BY dept_id) ORDER BY id;

-- Common table expressions.
WITH t AS (SELECT id, name FROM emp WHERE dept_id = 1) SELECT name FROM t ORDER BY id;
WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT x, y FROM a, b;
WITH RECURSIVE seq (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 10) SELECT SUM(n), COUNT(*) FROM seq;
WITH RECURSIVE chain AS (SELECT id, name, boss, 0 AS depth FROM emp WHERE boss IS NULL UNION ALL SELECT e.id, e.name, e.boss, c.depth + 1 FROM emp e JOIN chain c ON e.boss = c.id) SELECT name, depth FROM chain ORDER BY depth, id;
WITH RECURSIVE fib (n, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT n + 1, b, a + b FROM fib WHERE n < 20) SELECT n, a FROM fib WHERE n IN (1, 10, 20) ORDER BY n;
WITH d AS (SELECT dept_id, COUNT(*) AS n FROM emp GROUP BY dept_id) SELECT dept.name, d.n FROM dept JOIN d ON d.dept_id = dept.id ORDER BY dept.id;
WITH t (a, b) AS (SELECT 1, 2) SELECT a + b FROM t;
WITH t AS (SELECT 1 AS x) SELECT * FROM t AS t1 JOIN t AS t2 ON t1.x = t2.x;
WITH RECURSIVE dates (d) AS (SELECT DATE '2024-02-27' UNION ALL SELECT d + INTERVAL 1 DAY FROM dates WHERE d < '2024-03-02') SELECT d FROM dates ORDER BY d;

-- Views.
CREATE VIEW v_emp AS SELECT e.id, e.name, d.name AS dept FROM emp e LEFT JOIN dept d ON d.id = e.dept_id;
SELECT * FROM v_emp ORDER BY id;
SELECT dept, COUNT(*) FROM v_emp GROUP BY dept ORDER BY dept;
CREATE VIEW v_sal (who, pay) AS SELECT name, salary FROM emp WHERE salary > 150;
SELECT * FROM v_sal ORDER BY who;
UPDATE emp SET salary = 160 WHERE id = 3;
SELECT * FROM v_sal ORDER BY who;
CREATE OR REPLACE VIEW v_sal AS SELECT name AS who FROM emp WHERE id = 1;
SELECT * FROM v_sal;
SELECT TABLE_NAME FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
DROP VIEW v_sal;
SELECT * FROM v_sal;
DROP VIEW IF EXISTS v_sal;
CREATE VIEW v_emp AS SELECT 1;

-- Expressions in select lists and WHERE.
SELECT id, name, salary * 12 AS yearly FROM emp WHERE salary * 12 > 2000 ORDER BY id;
SELECT id FROM emp WHERE salary + 0 = 150 ORDER BY id;
SELECT id, IF(salary > 200, 'high', 'low') FROM emp ORDER BY id;
SELECT id, CASE WHEN salary IS NULL THEN 'none' WHEN salary >= 250 THEN 'top' ELSE 'rest' END FROM emp ORDER BY id;
SELECT id, COALESCE(salary, -1), IFNULL(boss, 0) FROM emp ORDER BY id;
SELECT UPPER(name), LENGTH(name) FROM emp WHERE id < 3 ORDER BY id;
SELECT name FROM emp WHERE hired > '2021-01-01' ORDER BY hired;
SELECT name FROM emp WHERE hired BETWEEN '2021-01-01' AND '2021-12-31' ORDER BY hired;
SELECT name, DATEDIFF('2024-01-01', hired) FROM emp WHERE hired IS NOT NULL ORDER BY id;
SELECT e.*, d.budget FROM emp e JOIN dept d ON d.id = e.dept_id WHERE e.id = 1;
SELECT emp.* FROM emp WHERE id = 2;
SELECT COUNT(*), SUM(hours), AVG(hours) FROM proj;
SELECT title, SUM(hours) FROM proj GROUP BY title ORDER BY title;
SELECT * FROM proj WHERE hours IS NULL;
SELECT * FROM proj WHERE hours > NULL;
SELECT 1 FROM DUAL;
SELECT 1 FROM dept WHERE 1 = 0;
SELECT * FROM dept WHERE id = '1';
SELECT * FROM dept WHERE id = '1abc';
SELECT * FROM dept WHERE id = 1.0;
SELECT * FROM dept WHERE id = 1.5;
SELECT * FROM dept WHERE name = 'eng ';
SELECT * FROM dept WHERE name = 'ENG';
SELECT * FROM dept WHERE budget = 1000;
SELECT * FROM dept WHERE budget = '1000.00';
SELECT SQL_CALC_FOUND_ROWS id FROM emp ORDER BY id LIMIT 2;
SELECT FOUND_ROWS();
SELECT SQL_CALC_FOUND_ROWS id FROM emp ORDER BY id LIMIT 2, 1;
SELECT FOUND_ROWS();
SELECT SQL_CALC_FOUND_ROWS id FROM emp LIMIT 20, 1;
SELECT FOUND_ROWS();
SELECT id FROM emp ORDER BY id LIMIT 2, 1;
SELECT FOUND_ROWS();
SELECT id FROM emp ORDER BY id LIMIT 5, 10;
SELECT FOUND_ROWS();
SELECT id FROM emp LIMIT 20, 1;
SELECT FOUND_ROWS();
SELECT id FROM emp ORDER BY name DESC LIMIT 2, 2;
SELECT FOUND_ROWS();
SELECT SQL_CALC_FOUND_ROWS e.id FROM emp e LEFT JOIN dept d ON d.id = e.dept_id LIMIT 3, 2;
SELECT FOUND_ROWS();
SELECT COUNT(*) FROM emp WHERE name IN ('ann', 'bob', 'zed');
SELECT name FROM emp WHERE name > 'c' ORDER BY name;
SELECT MIN(name), MAX(name) FROM emp;
SELECT id FROM emp WHERE boss = (SELECT id FROM emp WHERE name = 'ann') ORDER BY id;
SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME;
SELECT COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'emp' ORDER BY ORDINAL_POSITION;
SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE, SEQ_IN_INDEX FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'emp' ORDER BY INDEX_NAME, SEQ_IN_INDEX;
SHOW TABLES;
-- (Only types without a display width: MariaDB prints int(11).)
CREATE TABLE descr (code VARCHAR(10) PRIMARY KEY, amount DECIMAL(8,2) NOT NULL DEFAULT 0.00, d DATE, note TEXT, KEY (d));
SHOW COLUMNS FROM descr;
DESCRIBE descr;
SHOW FULL TABLES;

-- Assignment to user variables inside expressions (@v := expr).
CREATE TABLE asg (id INT PRIMARY KEY, v INT);
INSERT INTO asg VALUES (1, 10), (2, 20), (3, 30);
SET @n := 0;
SELECT @n := @n + 1 AS rn, id FROM asg ORDER BY id;
SELECT @n;
SELECT id, @s:=v*2, @s FROM asg ORDER BY id;
SELECT @x := 5, @y:=(SELECT MAX(v) FROM asg), @x + @y;
SELECT COUNT(*) FROM asg WHERE (@a := v) > 15;
SELECT @a;
SELECT @b := 1 AND 0, @b;
SELECT CASE WHEN id = 1 THEN @c := 'one' ELSE @c := 'other' END AS c FROM asg ORDER BY id;
SELECT @c, @`c`;

-- INSERT ... SELECT ... ON DUPLICATE KEY UPDATE with VALUES(col).
CREATE TABLE odks (id INT PRIMARY KEY, v INT);
CREATE TABLE odkd (id INT PRIMARY KEY, v INT, n INT DEFAULT 0);
INSERT INTO odks VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO odkd (id, v) VALUES (1, 1);
INSERT INTO odkd (id, v) SELECT id, v FROM odks WHERE id < 3 ON DUPLICATE KEY UPDATE v = VALUES(v) + odkd.v, n = n + 1;
SELECT * FROM odkd ORDER BY id;
INSERT INTO odkd SELECT id, v * 2, 7 FROM odks ON DUPLICATE KEY UPDATE v = VALUES(v), n = VALUES(n) + n;
SELECT * FROM odkd ORDER BY id;
INSERT INTO odkd (v, id) SELECT SUM(v), 1 FROM odks ON DUPLICATE KEY UPDATE v = VALUES(v);
SELECT * FROM odkd ORDER BY id;

-- JSON_VALUE: SQL NULL for JSON null and non-scalars, strings unquoted.
SELECT JSON_VALUE('{"a":null}', '$.a') IS NULL, JSON_VALUE('{"a":"abc"}', '$.a'), JSON_VALUE('{"a":"null"}', '$.a'), JSON_VALUE('{"a":1.5}', '$.a'), JSON_VALUE('{"a":[1]}', '$.a') IS NULL, JSON_VALUE('[1, null]', '$[1]') IS NULL;

-- SQL PREPARE: the statement text gets the same rewrites as a query.
PREPARE pq1 FROM 'SELECT a FROM qa WHERE a = SOME (SELECT b FROM qb) ORDER BY a';
EXECUTE pq1;
DEALLOCATE PREPARE pq1;
DEALLOCATE PREPARE pq1;

-- CREATE TRIGGER / PROCEDURE IF NOT EXISTS; a second trigger of the same name.
CREATE TABLE trg (a INT);
CREATE TRIGGER trg_bi BEFORE INSERT ON trg FOR EACH ROW SET @trg = 1;
CREATE TRIGGER trg_bi BEFORE INSERT ON trg FOR EACH ROW SET @trg = 2;
CREATE TRIGGER IF NOT EXISTS trg_bi BEFORE INSERT ON trg FOR EACH ROW SET @trg = 3;
CREATE PROCEDURE IF NOT EXISTS prc() SELECT 1;
CREATE PROCEDURE IF NOT EXISTS prc() SELECT 2;
CALL prc();
INSERT INTO trg VALUES (1);
SELECT @trg;

-- IN / NOT IN / EXISTS over a subquery whose WHERE is always false.
SELECT MIN(id) FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE 1 = 0);
SELECT id FROM emp WHERE dept_id IN (SELECT id FROM dept WHERE 'x' = 'y') ORDER BY id;
SELECT id FROM emp WHERE id NOT IN (SELECT id FROM dept WHERE 'x' = 'y') ORDER BY id;
SELECT id FROM emp WHERE EXISTS (SELECT id FROM dept WHERE 'x' = 'y') ORDER BY id;

-- LIMIT 0 and sql_select_limit = 0 over aggregations.
SELECT SUM(salary) FROM emp LIMIT 0;
SELECT id FROM emp ORDER BY id LIMIT 0;
SET SESSION sql_select_limit = 0;
SELECT SUM(salary), dept_id FROM emp GROUP BY dept_id HAVING dept_id IN (SELECT id FROM dept);
SET SESSION sql_select_limit = DEFAULT;
SELECT (SELECT id FROM emp LIMIT 0);
