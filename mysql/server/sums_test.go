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

// TestExactAverages (rules RULE-3, RULE-75): AVG over integers and
// DECIMALs through the int64 sum and past it (BIGINT totals beyond int64),
// NULLs not counted, the result at the argument's scale plus 4 rounded
// half away from zero, per group and over no rows (NULL).
func TestExactAverages(t *testing.T) {
	ts := startServer(t, t.TempDir())
	mustExec(t, ts.open(""), "CREATE DATABASE d")
	c := ts.open("d")
	mustExec(t, c, "CREATE TABLE s (id INT PRIMARY KEY, g INT NOT NULL, i INT, b BIGINT, d DECIMAL(12,2))")
	type acc struct {
		sum decimal.Decimal
		n   int64
	}
	sums := map[int]*[3]acc{}
	var vals []string
	for id := 0; id < 700; id++ {
		g := id % 4
		if sums[g] == nil {
			sums[g] = &[3]acc{}
		}
		s := sums[g]
		i := "NULL"
		if id%9 != 0 {
			v := int64(id%41) - 20
			i = fmt.Sprint(v)
			s[0].sum, s[0].n = s[0].sum.Add(decimal.NewFromInt(v)), s[0].n+1
		}
		b := int64(math.MaxInt64 - id*977)
		if id%3 == 1 {
			b = -b / 5
		}
		s[1].sum, s[1].n = s[1].sum.Add(decimal.NewFromInt(b)), s[1].n+1
		d := "NULL"
		if id%13 != 0 {
			v := decimal.New(int64(id*7919%200001)-100000, -2)
			d = v.StringFixed(2)
			s[2].sum, s[2].n = s[2].sum.Add(v), s[2].n+1
		}
		vals = append(vals, fmt.Sprintf("(%d, %d, %s, %d, %s)", id, g, i, b, d))
	}
	mustExec(t, c, "INSERT INTO s VALUES "+strings.Join(vals, ","))
	rows, err := c.Query("SELECT g, AVG(i), AVG(b), AVG(d) FROM s GROUP BY g ORDER BY g")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g int
		var ai, ab, ad string
		if err := rows.Scan(&g, &ai, &ab, &ad); err != nil {
			t.Fatal(err)
		}
		s := sums[g]
		want := []string{
			s[0].sum.DivRound(decimal.NewFromInt(s[0].n), 4).StringFixed(4),
			s[1].sum.DivRound(decimal.NewFromInt(s[1].n), 4).StringFixed(4),
			s[2].sum.DivRound(decimal.NewFromInt(s[2].n), 6).StringFixed(6),
		}
		if got := []string{ai, ab, ad}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("group %d: averages %v, want %v", g, got, want)
		}
	}
	rows.Close()
	var none *string
	if err := c.QueryRow("SELECT AVG(d) FROM s WHERE id < 0").Scan(&none); err != nil || none != nil {
		t.Errorf("AVG over no rows: %v, %v; want NULL", none, err)
	}
	if err := c.QueryRow("SELECT AVG(d) FROM s WHERE id = 0").Scan(&none); err != nil || none != nil {
		t.Errorf("AVG over one NULL: %v, %v; want NULL", none, err)
	}
}
