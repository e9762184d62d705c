package rules

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// NewWindowFunction gives window SUM and AVG (RULE-3) MySQL's answers:
// exact DECIMAL arithmetic over exact arguments, and NULL over a frame
// without a non-NULL value. go-mysql-server added in float64 (a DECIMAL
// sum lost cents), gave 0 for SUM over NULLs, and 0/0 = NaN for AVG, which
// the DECIMAL result type then failed to hold (a recovered panic).
func (r *retypedAggregation) NewWindowFunction() (sql.WindowFunction, error) {
	inner, err := r.Aggregation.NewWindowFunction()
	if err != nil {
		return nil, err
	}
	var arg sql.Expression
	avg := false
	switch x := r.Aggregation.(type) {
	case *aggregation.Sum:
		arg = x.Child
	case *aggregation.Avg:
		arg, avg = x.Child, true
	default:
		return inner, nil
	}
	w := &exactWindowSum{arg: arg, avg: avg, framer: inner.DefaultFramer(), inner: inner}
	if dt, ok := r.typ.(sql.DecimalType); ok {
		w.exact, w.scale = true, int32(dt.Scale())
	}
	return w, nil
}

// exactWindowSum is window SUM or AVG over prefix sums of a partition:
// decimal ones for a DECIMAL result, float64 ones for a DOUBLE result,
// and prefix counts of non-NULL values.
type exactWindowSum struct {
	arg    sql.Expression
	avg    bool
	exact  bool  // DECIMAL result
	scale  int32 // its scale (AVG rounds to it)
	framer sql.WindowFramer
	inner  sql.WindowFunction // disposed with this

	start int
	dsum  []decimal.Decimal // dsum[i]: rows start .. start+i-1
	fsum  []float64
	cnt   []int
}

func (w *exactWindowSum) Dispose() {
	if w.inner != nil {
		w.inner.Dispose()
	}
}

func (w *exactWindowSum) DefaultFramer() sql.WindowFramer { return w.framer }

func (w *exactWindowSum) StartPartition(ctx *sql.Context, interval sql.WindowInterval, buf sql.WindowBuffer) error {
	n := interval.End - interval.Start
	w.start = interval.Start
	w.cnt = make([]int, n+1)
	if w.exact {
		w.dsum, w.fsum = make([]decimal.Decimal, n+1), nil
	} else {
		w.fsum, w.dsum = make([]float64, n+1), nil
	}
	for i := 0; i < n; i++ {
		v, err := w.arg.Eval(ctx, buf[interval.Start+i])
		if err != nil {
			return err
		}
		w.cnt[i+1] = w.cnt[i]
		if w.exact {
			w.dsum[i+1] = w.dsum[i]
		} else {
			w.fsum[i+1] = w.fsum[i]
		}
		if v == nil {
			continue
		}
		w.cnt[i+1]++
		if w.exact {
			d, ok := decimalOf(v)
			if !ok {
				cv, _, err := types.InternalDecimalType.Convert(ctx, v)
				if err != nil {
					continue
				}
				d, _ = cv.(decimal.Decimal)
			}
			w.dsum[i+1] = w.dsum[i].Add(d)
		} else {
			f, _, err := types.Float64.Convert(ctx, v)
			if err != nil || f == nil {
				continue
			}
			w.fsum[i+1] = w.fsum[i] + f.(float64)
		}
	}
	return nil
}

func (w *exactWindowSum) Compute(ctx *sql.Context, interval sql.WindowInterval, buf sql.WindowBuffer) any {
	s, e := interval.Start-w.start, interval.End-w.start
	if s < 0 {
		s = 0
	}
	if e > len(w.cnt)-1 {
		e = len(w.cnt) - 1
	}
	if e <= s {
		return nil
	}
	n := w.cnt[e] - w.cnt[s]
	if n == 0 {
		return nil
	}
	if !w.exact {
		sum := w.fsum[e] - w.fsum[s]
		if w.avg {
			return sum / float64(n)
		}
		return sum
	}
	sum := w.dsum[e].Sub(w.dsum[s])
	if w.avg {
		return sum.DivRound(decimal.NewFromInt(int64(n)), w.scale)
	}
	return sum
}
