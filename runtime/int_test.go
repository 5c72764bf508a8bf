package runtime

import (
	"errors"
	"testing"
)

func TestInt(t *testing.T) {
	if n, err := Int(int64(41), nil); n != 41 || err != nil {
		t.Fatalf("Int(41) = %d, %v", n, err)
	}
	boom := errors.New("boom")
	if _, err := Int(int64(1), boom); err != boom {
		t.Fatalf("Int passes err through: got %v", err)
	}
	for _, v := range []any{nil, "3", 3.0, []any{int64(3)}} {
		if n, err := Int(v, nil); err == nil {
			t.Errorf("Int(%#v) = %d, nil; want an error, not a silent value", v, n)
		}
	}
}
