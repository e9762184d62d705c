package server

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestExactSums (rules RULE-3, RULE-75): SUM over integers and DECIMALs is
// exact through the int64 fast path and past it: BIGINT values whose
// total overflows int64, negative and NULL values, DECIMAL scale kept,
// SUM(DISTINCT), per group and over no rows (NULL).
func TestExactSums(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	mustExec(t, c, "CREATE TABLE s (id INT PRIMARY KEY, g INT NOT NULL, i INT, b BIGINT, d DECIMAL(12,2), u BIGINT UNSIGNED)")
	var vals []string
	sumI, sumB, sumU := map[int]*big.Int{}, map[int]*big.Int{}, map[int]*big.Int{}
	sumD := map[int]decimal.Decimal{}
	distinctI := map[int]map[int64]bool{}
	for id := 0; id < 600; id++ {
		g := id % 3
		if sumI[g] == nil {
			sumI[g], sumB[g], sumU[g], sumD[g], distinctI[g] = new(big.Int), new(big.Int), new(big.Int), decimal.Zero, map[int64]bool{}
		}
		i := fmt.Sprint(int64(id%37) - 18)
		if id%11 == 0 {
			i = "NULL"
		} else {
			v := int64(id%37) - 18
			sumI[g].Add(sumI[g], big.NewInt(v))
			distinctI[g][v] = true
		}
		b := int64(math.MaxInt64 - id*1000)
		if id%2 == 1 {
			b = -b / 3
		}
		sumB[g].Add(sumB[g], big.NewInt(b))
		d := decimal.New(int64(id*7919%200000)-100000, -2)
		sumD[g] = sumD[g].Add(d)
		u := uint64(math.MaxUint64 - uint64(id))
		sumU[g].Add(sumU[g], new(big.Int).SetUint64(u))
		vals = append(vals, fmt.Sprintf("(%d, %d, %s, %d, %s, %d)", id, g, i, b, d.StringFixed(2), u))
	}
	mustExec(t, c, "INSERT INTO s VALUES "+strings.Join(vals, ","))
	rows, err := c.Query("SELECT g, SUM(i), SUM(b), SUM(d), SUM(u), SUM(DISTINCT i) FROM s GROUP BY g ORDER BY g")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g int
		var si, sb, sd, su, sdi string
		if err := rows.Scan(&g, &si, &sb, &sd, &su, &sdi); err != nil {
			t.Fatal(err)
		}
		dsum := int64(0)
		for v := range distinctI[g] {
			dsum += v
		}
		want := []string{sumI[g].String(), sumB[g].String(), sumD[g].StringFixed(2), sumU[g].String(), fmt.Sprint(dsum)}
		if got := []string{si, sb, sd, su, sdi}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("group %d: sums %v, want %v", g, got, want)
		}
	}
	rows.Close()
	var none *string
	if err := c.QueryRow("SELECT SUM(d) FROM s WHERE id < 0").Scan(&none); err != nil || none != nil {
		t.Errorf("SUM over no rows: %v, %v; want NULL", none, err)
	}
}
