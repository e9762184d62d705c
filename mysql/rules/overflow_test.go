package rules

import (
	"math"
	"math/big"
	"testing"
)

func TestSmallArithAgreesWithBig(t *testing.T) {
	vals := []int64{0, 1, -1, 2, -2, 1 << 31, -(1 << 31), 1<<31 - 1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 62, -(1 << 62), 12345678901}
	for _, op := range []string{"+", "-", "*"} {
		for _, x := range vals {
			for _, y := range vals {
				r, ok := smallArith(op, x, y)
				if !ok {
					continue
				}
				want := big.NewInt(x)
				switch op {
				case "+":
					want.Add(want, big.NewInt(y))
				case "-":
					want.Sub(want, big.NewInt(y))
				default:
					want.Mul(want, big.NewInt(y))
				}
				if !want.IsInt64() || want.Int64() != r {
					t.Errorf("%d %s %d: small says %d, exact %s", x, op, y, r, want)
				}
			}
		}
	}
}
