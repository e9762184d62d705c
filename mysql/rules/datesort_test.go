package rules

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// RULE-77: the DATE sort key type orders every pair of values as the DATE
// type does (strings in canonical and other spellings, invalid days,
// times), and takes the string shortcut only for canonical days.
func TestDateSortKeysCompareAsDate(t *testing.T) {
	ctx := context.Background()
	kt := dateKeyType{types.Date.(sql.DatetimeType)}
	rng := rand.New(rand.NewSource(8))
	value := func() any {
		y, m, d := 1990+rng.Intn(40), 1+rng.Intn(12), 1+rng.Intn(31)
		switch rng.Intn(8) {
		case 0:
			return time.Date(y, time.Month(m), min(d, 28), rng.Intn(24), 0, 0, 0, time.UTC)
		case 1:
			return fmt.Sprintf("%04d-%d-%d", y, m, d) // not zero-padded
		case 2:
			return fmt.Sprintf("%04d-%02d-%02d 10:11:12", y, m, d)
		case 3:
			return []string{"0000-00-00", "0999-12-31", "2024-02-30", "2023-02-29", "2024-02-29", "9999-12-31", "1000-01-01"}[rng.Intn(7)]
		}
		return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
	}
	shortcuts := 0
	for i := 0; i < 20000; i++ {
		a, b := value(), value()
		want, werr := types.Date.Compare(ctx, a, b)
		got, gerr := kt.Compare(ctx, a, b)
		as, aok := a.(string)
		bs, bok := b.(string)
		short := aok && bok && canonicalDate(as) && canonicalDate(bs)
		if short {
			shortcuts++
			if werr != nil {
				t.Fatalf("%q, %q: shortcut taken where the DATE type fails: %v", as, bs, werr)
			}
		}
		if (werr != nil) != (gerr != nil) || werr == nil && got != want {
			t.Fatalf("compare(%v, %v) = %d %v, DATE type %d %v", a, b, got, gerr, want, werr)
		}
	}
	if shortcuts == 0 {
		t.Fatal("no pair took the string shortcut")
	}
	for s, want := range map[string]bool{"2024-02-29": true, "2023-02-29": false, "2024-04-31": false, "0999-01-01": false,
		"2024-1-01": false, "2024-01-01 ": false, "2024/01/01": false, "9999-12-31": true} {
		if canonicalDate(s) != want {
			t.Errorf("canonicalDate(%q) = %v", s, !want)
		}
	}
}
