package page

import (
	"errors"
	"testing"
)

func TestSealVerify(t *testing.T) {
	p := make([]byte, Size)
	if err := Verify(p, 9); err != nil {
		t.Fatalf("a never-written page must verify: %v", err)
	}
	SetID(p, 9)
	SetLSN(p, 1234)
	SetType(p, TypeBTree)
	p[5000] = 7
	Seal(p)
	if err := Verify(p, 9); err != nil {
		t.Fatal(err)
	}
	var ce *CorruptError
	if err := Verify(p, 10); !errors.As(err, &ce) || ce.ID != 10 {
		t.Fatalf("page read at the wrong place: %v", err)
	}
	for _, off := range []int{0, 4, 100, 5000, Size - 1} {
		q := append([]byte(nil), p...)
		q[off] ^= 1
		if err := Verify(q, 9); !errors.As(err, &ce) {
			t.Fatalf("flipped bit at %d not caught", off)
		}
	}
	if LSNOf(p) != 1234 || IDOf(p) != 9 || TypeOf(p) != TypeBTree {
		t.Fatal("header fields")
	}
}
