package server

import (
	"strings"
	"testing"
)

// Spatial columns (backend CODEC-11) and SPATIAL indexes (FT-5) through a
// driver: values stored in MySQL's internal form read back as written
// (the same bytes MariaDB stores: HEX checked against MariaDB 10.11), spatial functions over them, a
// SPATIAL KEY declared as Sakila's address table declares it, NOT NULL
// enforced for it (1252), ALTER TABLE, a restart and a dump round trip.
func TestSpatialColumns(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	mustExec(t, c, "CREATE TABLE addr (id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, address VARCHAR(50) NOT NULL, "+
		"location GEOMETRY NOT NULL /*!80003 SRID 0 */, area POLYGON, PRIMARY KEY (id), SPATIAL KEY idx_location (location))")
	mustExec(t, c, "INSERT INTO addr (address, location, area) VALUES ('47 MySakila Drive', ST_GeomFromText('POINT(-112.8185647 49.6999986)'), "+
		"ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))')), ('28 MySQL Boulevard', POINT(1, 2), NULL)")
	check := func(when string) {
		t.Helper()
		wantRows(t, c, "SELECT id, ST_AsText(location), ST_X(location), ST_AsText(area), HEX(location) FROM addr ORDER BY id",
			"1|POINT(-112.8185647 49.6999986)|-112.8185647|POLYGON((0 0,10 0,10 10,0 10,0 0))|0000000001010000003E0A325D63345CC0761FDB8D99D94840",
			"2|POINT(1 2)|1|NULL|000000000101000000000000000000F03F0000000000000040")
		if create := queryStrings(t, c, "SHOW CREATE TABLE addr")[0]; !strings.Contains(create, "SPATIAL KEY `idx_location` (`location`)") {
			t.Fatalf("%s: SHOW CREATE TABLE: %s", when, create)
		}
	}
	check("after INSERT")
	wantRows(t, c, "SELECT id FROM addr WHERE ST_Distance(location, POINT(0, 0)) < 5", "2")
	mustExec(t, c, "UPDATE addr SET location = POINT(7, 8) WHERE id = 2")
	wantRows(t, c, "SELECT ST_AsText(location) FROM addr WHERE id = 2", "POINT(7 8)")
	mustExec(t, c, "UPDATE addr SET location = POINT(1, 2) WHERE id = 2")
	wantErrCode(t, c, 1252, "CREATE TABLE sp (g GEOMETRY, SPATIAL KEY (g))")
	wantErrCode(t, c, 1687, "CREATE TABLE sp (g INT NOT NULL, SPATIAL KEY (g))")
	mustExec(t, c, "ALTER TABLE addr ADD COLUMN city VARCHAR(10) FIRST")
	check("after ALTER TABLE")

	ts.stop()
	ts = startServer(t, dir)
	c = ts.open("d")
	check("after a restart")

	ts.dumpAndRestore("d")
	c = ts.open("d")
	check("after a dump and restore")
}
