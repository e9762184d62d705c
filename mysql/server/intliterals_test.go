package server

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
)

// rules RULE-91: an integer column compared with a number outside its
// type's range finds the rows exact arithmetic finds, through an index
// (go-mysql-server wrapped the number when it built the range: `u > -1`
// on an indexed INT UNSIGNED found nothing) and without one, as text and
// as server-side prepared statements (the fast path), in SELECT, UPDATE
// and DELETE.
func TestOutOfRangeIntegerLiterals(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	text := ts.open("d")
	prep := ts.openWith("d", "interpolateParams=false")
	cols := []struct {
		name, typ string
		vals      []string
	}{
		{"u", "INT UNSIGNED", []string{"0", "1", "7", "4294967295"}},
		{"t", "TINYINT", []string{"-128", "-1", "0", "127"}},
		{"b", "BIGINT UNSIGNED", []string{"0", "2", "9223372036854775808", "18446744073709551615"}},
		{"m", "MEDIUMINT", []string{"-8388608", "0", "5", "8388607"}},
	}
	var defs, keys []string
	for _, c := range cols {
		defs = append(defs, c.name+" "+c.typ)
		keys = append(keys, fmt.Sprintf("KEY %s (%s)", c.name, c.name))
	}
	for _, tbl := range []string{"ix", "noix"} {
		ddl := "CREATE TABLE " + tbl + " (id INT PRIMARY KEY, " + strings.Join(defs, ", ")
		if tbl == "ix" {
			ddl += ", " + strings.Join(keys, ", ")
		}
		mustExec(t, text, ddl+")")
		for i := 0; i < 5; i++ { // row 5 is all NULL
			vals := []string{fmt.Sprint(i + 1)}
			for _, c := range cols {
				v := "NULL"
				if i < len(c.vals) {
					v = c.vals[i]
				}
				vals = append(vals, v)
			}
			mustExec(t, text, "INSERT INTO "+tbl+" VALUES ("+strings.Join(vals, ",")+")")
		}
	}
	num := func(s string) *big.Int { n, _ := new(big.Int).SetString(s, 10); return n }
	ops := map[string]func(c int) bool{
		"=": func(c int) bool { return c == 0 }, "<": func(c int) bool { return c < 0 }, "<=": func(c int) bool { return c <= 0 },
		">": func(c int) bool { return c > 0 }, ">=": func(c int) bool { return c >= 0 },
	}
	probes := []string{"-1", "-129", "-9223372036854775809", "4294967296", "128", "18446744073709551616", "-8388609", "8388608"}
	checked := 0
	for _, c := range cols {
		for _, p := range probes {
			for op, holds := range ops {
				var want []string
				for i, v := range c.vals {
					if holds(num(v).Cmp(num(p))) {
						want = append(want, fmt.Sprint(i+1))
					}
				}
				for _, tbl := range []string{"ix", "noix"} {
					q := fmt.Sprintf("SELECT id FROM %s WHERE %s %s %s ORDER BY id", tbl, c.name, op, p)
					if got := queryStrings(t, text, q); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s: %v, want %v", q, got, want)
					}
					qp := fmt.Sprintf("SELECT id FROM %s WHERE %s %s ? ORDER BY id", tbl, c.name, op)
					rows, err := prep.Query(qp, p)
					if err != nil {
						t.Fatalf("%s [%s]: %v", qp, p, err)
					}
					var got []string
					for rows.Next() {
						var id string
						rows.Scan(&id)
						got = append(got, id)
					}
					rows.Close()
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s [%s] prepared: %v, want %v", qp, p, got, want)
					}
					checked++
				}
			}
			// IN and BETWEEN with the probe, and <=> never matching.
			var in, same []string
			for i, v := range c.vals {
				if num(v).Cmp(num(p)) == 0 {
					same = append(same, fmt.Sprint(i+1))
				}
				if v == c.vals[1] || num(v).Cmp(num(p)) == 0 {
					in = append(in, fmt.Sprint(i+1))
				}
			}
			q := fmt.Sprintf("SELECT id FROM ix WHERE %s IN (%s, %s) ORDER BY id", c.name, p, c.vals[1])
			if got := queryStrings(t, text, q); fmt.Sprint(got) != fmt.Sprint(in) {
				t.Errorf("%s: %v, want %v", q, got, in)
			}
			q = fmt.Sprintf("SELECT id FROM ix WHERE %s <=> %s", c.name, p)
			if got := queryStrings(t, text, q); fmt.Sprint(got) != fmt.Sprint(same) {
				t.Errorf("%s: %v, want %v", q, got, same)
			}
		}
		q := fmt.Sprintf("SELECT id FROM ix WHERE %s BETWEEN -99999999999999999999 AND 99999999999999999999 ORDER BY id", c.name)
		if got := queryStrings(t, text, q); fmt.Sprint(got) != "[1 2 3 4]" {
			t.Errorf("%s: %v", q, got)
		}
		q = fmt.Sprintf("SELECT id, %s > -1, %s <=> -1, %s IN (-1) FROM ix WHERE id = 5", c.name, c.name, c.name)
		if got := queryStrings(t, text, q); fmt.Sprint(got) != "[5|NULL|0|NULL]" {
			t.Errorf("%s: %v", q, got)
		}
	}
	if checked < 200 {
		t.Fatalf("only %d comparisons", checked)
	}
	// UPDATE and DELETE find the same rows (in this order: the DELETE
	// removes a row the UPDATE changes).
	for _, c := range []struct {
		q    string
		want int64
	}{
		{"UPDATE ix SET t = 5 WHERE u > -1 AND u < 5", 2},
		{"DELETE FROM ix WHERE b >= -5 AND b < 1", 1},
		{"DELETE FROM ix WHERE m < -8388609 OR m = -1", 0},
	} {
		q, want := c.q, c.want
		res, err := text.Exec(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n, _ := res.RowsAffected(); n != want {
			t.Errorf("%s: %d rows, want %d", q, n, want)
		}
	}
}
