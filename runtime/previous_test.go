package runtime

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvertInt: a value converts where the target type holds it, and is refused where not,
// across signedness and widths.
func TestConvertInt(t *testing.T) {
	if v, ok := ConvertInt[uint32, uint64](math.MaxUint32); !ok || v != math.MaxUint32 {
		t.Errorf("MaxUint32 to uint32: %d, %v", v, ok)
	}
	if _, ok := ConvertInt[uint32, uint64](math.MaxUint32 + 1); ok {
		t.Error("2^32 converted to uint32")
	}
	if _, ok := ConvertInt[uint8, int64](-1); ok {
		t.Error("-1 converted to uint8")
	}
	if _, ok := ConvertInt[int64, uint64](math.MaxUint64); ok {
		t.Error("MaxUint64 converted to int64")
	}
	if v, ok := ConvertInt[int8, int64](-128); !ok || v != -128 {
		t.Errorf("-128 to int8: %d, %v", v, ok)
	}
}

// TestClampRange: on random bounds, the clamped range holds exactly the values of [lo, hi]
// that lie in [min, max].
func TestClampRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		lo, hi := int64(rng.IntN(60))-20, int64(rng.IntN(60))-20
		min, max := int32(rng.IntN(40))-10, int32(rng.IntN(40))-10
		plo, phi, ok := ClampRange(lo, hi, min, max)
		for v := int64(-30); v <= 50; v++ {
			in := lo <= v && v <= hi && int64(min) <= v && v <= int64(max)
			got := ok && int64(plo) <= v && v <= int64(phi)
			if in != got {
				t.Fatalf("[%d, %d] within [%d, %d]: %d, %d, %v; %d is in: %v", lo, hi, min, max, plo, phi, ok, v, in)
			}
		}
	}
	if lo, hi, ok := ClampRange(uint64(0), uint64(math.MaxUint64), uint32(0), uint32(1<<30-1)); !ok || lo != 0 || hi != 1<<30-1 {
		t.Errorf("the whole uint64 range within 30 bits: %d, %d, %v", lo, hi, ok)
	}
}

// TestHeldKeysBounded: what keys hold is remembered per key, and for at most heldKeys keys.
func TestHeldKeysBounded(t *testing.T) {
	a := heldOf("a", "p", "n")
	if heldOf("a", "p", "n") != a || heldOf("a", "p", "other") == a {
		t.Fatal("a key's state is not shared by its boards, or is shared with another pair of layouts")
	}
	for i := range heldKeys + 1 {
		heldOf(fmt.Sprint("k", i), "p", "n")
	}
	held.Lock()
	n := len(held.keys)
	held.Unlock()
	if n > heldKeys {
		t.Fatalf("%d keys remembered; want at most %d", n, heldKeys)
	}
}

// TestPreviousLayoutError: the error says what the previous layout cannot hold and matches
// ErrNotInPreviousLayout, ErrRetry, and a range error it wraps.
func TestPreviousLayoutError(t *testing.T) {
	err := NotInPrevious("fp", UintRangeError("Points", 1<<31, 0, 1<<30-1))
	if !errors.Is(err, ErrNotInPreviousLayout) || !errors.Is(err, ErrRetry) || !errors.Is(err, ErrOutOfRange) {
		t.Errorf("%v does not match ErrNotInPreviousLayout, ErrRetry and ErrOutOfRange", err)
	}
	if NotInPrevious("fp", err) != err || NotInPrevious("fp", nil) != nil {
		t.Error("NotInPrevious wraps twice, or wraps nil")
	}
	err = NotInPreviousValue("fp", "Class", "rally", "the previous layout lacks Class")
	if !errors.Is(err, ErrNotInPreviousLayout) || errors.Is(err, ErrOutOfRange) || err.Error() == "" {
		t.Errorf("%v", err)
	}
}
