-- A rental-store sample schema in the style of MySQL's Sakila (written
-- here, not copied): what sample databases and tutorials load first.
-- Lookup tables, YEAR/ENUM/SET/DECIMAL columns, TIMESTAMP defaults,
-- foreign keys with RESTRICT/CASCADE, a FULLTEXT index kept by triggers,
-- views with joins and GROUP_CONCAT, stored functions, and the report
-- queries such a schema is used for, and Sakila's address table with its
-- GEOMETRY column and SPATIAL KEY.

CREATE TABLE language (language_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT, name CHAR(20) NOT NULL, last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (language_id));
CREATE TABLE category (category_id TINYINT UNSIGNED NOT NULL AUTO_INCREMENT, name VARCHAR(25) NOT NULL, last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (category_id));
CREATE TABLE actor (actor_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, first_name VARCHAR(45) NOT NULL, last_name VARCHAR(45) NOT NULL, last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (actor_id), KEY idx_actor_last_name (last_name));
CREATE TABLE film (
  film_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT,
  title VARCHAR(128) NOT NULL,
  description TEXT DEFAULT NULL,
  release_year YEAR DEFAULT NULL,
  language_id TINYINT UNSIGNED NOT NULL,
  rental_duration TINYINT UNSIGNED NOT NULL DEFAULT 3,
  rental_rate DECIMAL(4,2) NOT NULL DEFAULT 4.99,
  length SMALLINT UNSIGNED DEFAULT NULL,
  replacement_cost DECIMAL(5,2) NOT NULL DEFAULT 19.99,
  rating ENUM('G','PG','PG-13','R','NC-17') DEFAULT 'G',
  special_features SET('Trailers','Commentaries','Deleted Scenes','Behind the Scenes') DEFAULT NULL,
  last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (film_id),
  KEY idx_title (title),
  KEY idx_fk_language_id (language_id),
  CONSTRAINT fk_film_language FOREIGN KEY (language_id) REFERENCES language (language_id) ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE TABLE film_actor (actor_id SMALLINT UNSIGNED NOT NULL, film_id SMALLINT UNSIGNED NOT NULL, last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (actor_id, film_id), KEY idx_fk_film_id (film_id), CONSTRAINT fk_film_actor_actor FOREIGN KEY (actor_id) REFERENCES actor (actor_id) ON DELETE RESTRICT ON UPDATE CASCADE, CONSTRAINT fk_film_actor_film FOREIGN KEY (film_id) REFERENCES film (film_id) ON DELETE RESTRICT ON UPDATE CASCADE);
CREATE TABLE film_category (film_id SMALLINT UNSIGNED NOT NULL, category_id TINYINT UNSIGNED NOT NULL, last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (film_id, category_id), CONSTRAINT fk_film_category_film FOREIGN KEY (film_id) REFERENCES film (film_id) ON DELETE RESTRICT ON UPDATE CASCADE, CONSTRAINT fk_film_category_category FOREIGN KEY (category_id) REFERENCES category (category_id) ON DELETE RESTRICT ON UPDATE CASCADE);
CREATE TABLE film_text (film_id SMALLINT NOT NULL, title VARCHAR(255) NOT NULL, description TEXT, PRIMARY KEY (film_id), FULLTEXT KEY idx_title_description (title, description));
CREATE TABLE inventory (inventory_id MEDIUMINT UNSIGNED NOT NULL AUTO_INCREMENT, film_id SMALLINT UNSIGNED NOT NULL, store_id TINYINT UNSIGNED NOT NULL, last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (inventory_id), KEY idx_store_id_film_id (store_id, film_id), CONSTRAINT fk_inventory_film FOREIGN KEY (film_id) REFERENCES film (film_id) ON DELETE RESTRICT ON UPDATE CASCADE);
CREATE TABLE customer (customer_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, store_id TINYINT UNSIGNED NOT NULL, first_name VARCHAR(45) NOT NULL, last_name VARCHAR(45) NOT NULL, email VARCHAR(50) DEFAULT NULL, active BOOLEAN NOT NULL DEFAULT TRUE, create_date DATETIME NOT NULL, PRIMARY KEY (customer_id), KEY idx_last_name (last_name));
CREATE TABLE rental (rental_id INT NOT NULL AUTO_INCREMENT, rental_date DATETIME NOT NULL, inventory_id MEDIUMINT UNSIGNED NOT NULL, customer_id SMALLINT UNSIGNED NOT NULL, return_date DATETIME DEFAULT NULL, PRIMARY KEY (rental_id), UNIQUE KEY (rental_date, inventory_id, customer_id), CONSTRAINT fk_rental_inventory FOREIGN KEY (inventory_id) REFERENCES inventory (inventory_id) ON DELETE RESTRICT ON UPDATE CASCADE, CONSTRAINT fk_rental_customer FOREIGN KEY (customer_id) REFERENCES customer (customer_id) ON DELETE RESTRICT ON UPDATE CASCADE);
CREATE TABLE payment (payment_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, customer_id SMALLINT UNSIGNED NOT NULL, rental_id INT DEFAULT NULL, amount DECIMAL(5,2) NOT NULL, payment_date DATETIME NOT NULL, PRIMARY KEY (payment_id), CONSTRAINT fk_payment_rental FOREIGN KEY (rental_id) REFERENCES rental (rental_id) ON DELETE SET NULL ON UPDATE CASCADE, CONSTRAINT fk_payment_customer FOREIGN KEY (customer_id) REFERENCES customer (customer_id) ON DELETE RESTRICT ON UPDATE CASCADE);

CREATE TRIGGER ins_film AFTER INSERT ON film FOR EACH ROW INSERT INTO film_text (film_id, title, description) VALUES (new.film_id, new.title, new.description);
CREATE TRIGGER upd_film AFTER UPDATE ON film FOR EACH ROW UPDATE film_text SET title = new.title, description = new.description, film_id = new.film_id WHERE film_id = old.film_id;
CREATE TRIGGER del_film AFTER DELETE ON film FOR EACH ROW DELETE FROM film_text WHERE film_id = old.film_id;

INSERT INTO language (name, last_update) VALUES ('English', '2006-02-15 05:02:19'), ('Italian', '2006-02-15 05:02:19'), ('Japanese', '2006-02-15 05:02:19');
INSERT INTO category (name, last_update) VALUES ('Action', '2006-02-15 04:46:27'), ('Animation', '2006-02-15 04:46:27'), ('Comedy', '2006-02-15 04:46:27'), ('Drama', '2006-02-15 04:46:27');
INSERT INTO actor (first_name, last_name, last_update) VALUES ('PENELOPE', 'GUINESS', '2006-02-15 04:34:33'), ('NICK', 'WAHLBERG', '2006-02-15 04:34:33'), ('ED', 'CHASE', '2006-02-15 04:34:33'), ('JENNIFER', 'DAVIS', '2006-02-15 04:34:33'), ('JOHNNY', 'LOLLOBRIGIDA', '2006-02-15 04:34:33');
INSERT INTO film (title, description, release_year, language_id, rental_duration, rental_rate, length, replacement_cost, rating, special_features, last_update) VALUES ('ACADEMY DINOSAUR', 'A Epic Drama of a Feminist And a Mad Scientist who must Battle a Teacher in The Canadian Rockies', 2006, 1, 6, 0.99, 86, 20.99, 'PG', 'Deleted Scenes,Behind the Scenes', '2006-02-15 05:03:42'), ('ACE GOLDFINGER', 'A Astounding Epistle of a Database Administrator And a Explorer who must Find a Car in Ancient China', 2006, 1, 3, 4.99, 48, 12.99, 'G', 'Trailers,Deleted Scenes', '2006-02-15 05:03:42'), ('ADAPTATION HOLES', 'A Astounding Reflection of a Lumberjack And a Car who must Sink a Lumberjack in A Baloon Factory', 2006, 1, 7, 2.99, 50, 18.99, 'NC-17', 'Trailers,Deleted Scenes', '2006-02-15 05:03:42'), ('AFFAIR PREJUDICE', 'A Fanciful Documentary of a Frisbee And a Lumberjack who must Chase a Monkey in A Shark Tank', 2006, 2, 5, 2.99, 117, 26.99, 'G', 'Commentaries,Behind the Scenes', '2006-02-15 05:03:42'), ('AGENT TRUMAN', 'A Intrepid Panorama of a Robot And a Boy who must Escape a Sumo Wrestler in Ancient China', 2006, 3, 3, 2.99, 169, 17.99, 'PG', 'Deleted Scenes', '2006-02-15 05:03:42');
INSERT INTO film_actor (actor_id, film_id, last_update) VALUES (1, 1, '2006-02-15 05:05:03'), (1, 2, '2006-02-15 05:05:03'), (2, 1, '2006-02-15 05:05:03'), (3, 3, '2006-02-15 05:05:03'), (4, 4, '2006-02-15 05:05:03'), (4, 5, '2006-02-15 05:05:03'), (5, 5, '2006-02-15 05:05:03');
INSERT INTO film_category (film_id, category_id, last_update) VALUES (1, 4, '2006-02-15 05:07:09'), (2, 1, '2006-02-15 05:07:09'), (3, 2, '2006-02-15 05:07:09'), (4, 2, '2006-02-15 05:07:09'), (5, 3, '2006-02-15 05:07:09');
INSERT INTO inventory (film_id, store_id, last_update) VALUES (1, 1, '2006-02-15 05:09:17'), (1, 2, '2006-02-15 05:09:17'), (2, 2, '2006-02-15 05:09:17'), (3, 1, '2006-02-15 05:09:17'), (4, 1, '2006-02-15 05:09:17'), (5, 2, '2006-02-15 05:09:17');
INSERT INTO customer (store_id, first_name, last_name, email, active, create_date) VALUES (1, 'MARY', 'SMITH', 'MARY.SMITH@sakilacustomer.org', 1, '2006-02-14 22:04:36'), (1, 'PATRICIA', 'JOHNSON', 'PATRICIA.JOHNSON@sakilacustomer.org', 1, '2006-02-14 22:04:36'), (2, 'LINDA', 'WILLIAMS', NULL, 0, '2006-02-14 22:04:36');
INSERT INTO rental (rental_date, inventory_id, customer_id, return_date) VALUES ('2005-05-24 22:53:30', 1, 1, '2005-05-26 22:04:30'), ('2005-05-24 22:54:33', 3, 2, '2005-05-28 19:40:33'), ('2005-05-24 23:03:39', 4, 1, NULL), ('2005-05-25 00:00:40', 6, 3, '2005-05-28 00:22:40'), ('2005-05-25 00:02:21', 2, 2, NULL);
INSERT INTO payment (customer_id, rental_id, amount, payment_date) VALUES (1, 1, 2.99, '2005-05-25 11:30:37'), (2, 2, 0.99, '2005-05-28 10:35:23'), (1, 3, 5.99, '2005-06-15 00:54:12'), (3, 4, 0.99, '2005-06-15 18:02:53'), (2, 5, 9.99, '2005-06-15 21:08:46');

CREATE VIEW actor_info AS SELECT a.actor_id, a.first_name, a.last_name, GROUP_CONCAT(DISTINCT c.name ORDER BY c.name SEPARATOR '; ') AS film_info FROM actor a LEFT JOIN film_actor fa ON a.actor_id = fa.actor_id LEFT JOIN film_category fc ON fa.film_id = fc.film_id LEFT JOIN category c ON fc.category_id = c.category_id GROUP BY a.actor_id, a.first_name, a.last_name;
CREATE VIEW film_list AS SELECT film.film_id AS FID, film.title AS title, category.name AS category, film.rental_rate AS price, film.length AS length, film.rating AS rating, GROUP_CONCAT(CONCAT(actor.first_name, ' ', actor.last_name) SEPARATOR ', ') AS actors FROM category LEFT JOIN film_category ON category.category_id = film_category.category_id LEFT JOIN film ON film_category.film_id = film.film_id JOIN film_actor ON film.film_id = film_actor.film_id JOIN actor ON film_actor.actor_id = actor.actor_id GROUP BY film.film_id, category.name;
CREATE VIEW sales_by_category AS SELECT c.name AS category, SUM(p.amount) AS total_sales FROM payment p JOIN rental r ON p.rental_id = r.rental_id JOIN inventory i ON r.inventory_id = i.inventory_id JOIN film f ON i.film_id = f.film_id JOIN film_category fc ON f.film_id = fc.film_id JOIN category c ON fc.category_id = c.category_id GROUP BY c.name ORDER BY total_sales DESC;

CREATE FUNCTION inventory_in_stock(p_inventory_id INT) RETURNS BOOLEAN READS SQL DATA RETURN NOT EXISTS (SELECT 1 FROM rental WHERE inventory_id = p_inventory_id AND return_date IS NULL);
CREATE FUNCTION customer_total(p_customer_id INT) RETURNS DECIMAL(7,2) READS SQL DATA RETURN (SELECT COALESCE(SUM(amount), 0) FROM payment WHERE customer_id = p_customer_id);

SELECT * FROM actor_info ORDER BY actor_id;
SELECT FID, title, category, price, length, rating, actors FROM film_list ORDER BY FID;
-- @sorted
SELECT * FROM sales_by_category;
SELECT inventory_id, inventory_in_stock(inventory_id) FROM inventory ORDER BY inventory_id;
SELECT customer_id, first_name, customer_total(customer_id) FROM customer ORDER BY customer_id;
SELECT film_id, title FROM film_text WHERE MATCH (title, description) AGAINST ('lumberjack') ORDER BY film_id;
SELECT film_id FROM film_text WHERE MATCH (title, description) AGAINST ('ancient china') ORDER BY film_id;
UPDATE film SET description = 'A Quiet Story of a Robot in Space' WHERE film_id = 5;
SELECT film_id FROM film_text WHERE MATCH (title, description) AGAINST ('china robot') ORDER BY film_id;
SELECT rating, COUNT(*), AVG(rental_rate), SUM(replacement_cost) FROM film GROUP BY rating ORDER BY rating;
SELECT f.title, l.name AS language FROM film f JOIN language l USING (language_id) WHERE FIND_IN_SET('Trailers', f.special_features) ORDER BY f.title;
SELECT c.first_name, c.last_name, COUNT(r.rental_id) AS rentals, SUM(p.amount) AS paid FROM customer c LEFT JOIN rental r ON r.customer_id = c.customer_id LEFT JOIN payment p ON p.rental_id = r.rental_id GROUP BY c.customer_id, c.first_name, c.last_name HAVING rentals > 1 ORDER BY paid DESC;
SELECT title, release_year, rental_duration * rental_rate AS cost FROM film WHERE rating IN ('PG', 'G') AND length BETWEEN 45 AND 120 ORDER BY cost DESC, title;
SELECT r.rental_id, DATEDIFF(r.return_date, r.rental_date) AS days FROM rental r ORDER BY r.rental_id;
DELETE FROM language WHERE language_id = 1;
UPDATE language SET language_id = 9 WHERE language_id = 3;
SELECT film_id, language_id FROM film ORDER BY film_id;
DELETE FROM rental WHERE rental_id = 5;
SELECT payment_id, rental_id FROM payment ORDER BY payment_id;
DELETE FROM film WHERE film_id = 5;
DELETE FROM film_actor WHERE film_id = 5;
DELETE FROM film_category WHERE film_id = 5;
DELETE FROM inventory WHERE film_id = 5;
DELETE FROM film WHERE film_id = 5;
SELECT COUNT(*) FROM film_text;

CREATE TABLE address (address_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, address VARCHAR(50) NOT NULL, district VARCHAR(20) NOT NULL, location GEOMETRY NOT NULL, last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (address_id), SPATIAL KEY idx_location (location));
INSERT INTO address (address, district, location, last_update) VALUES ('47 MySakila Drive', 'Alberta', ST_GeomFromText('POINT(-112.8185647 49.6999986)'), '2014-09-25 22:30:27'), ('28 MySQL Boulevard', 'QLD', ST_GeomFromText('POINT(153.1408538 -27.6333361)'), '2014-09-25 22:30:09');
SELECT address_id, address, ST_AsText(location), ST_X(location), ST_Y(location), HEX(location) FROM address ORDER BY address_id;
SELECT address_id FROM address WHERE ST_X(location) > 0;
SELECT INDEX_NAME, INDEX_TYPE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'address' ORDER BY INDEX_NAME;
