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

// TestPreviousLeadPlace: on random ranges, orders and values, the place PreviousLeadPlace
// gives in the previous layout has ahead of it exactly the previous layout's values that rank
// before v, as the place before every entry of v has in the new one.
func TestPreviousLeadPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		min, max := int32(rng.IntN(40))-10, int32(rng.IntN(40))-10
		if min > max {
			min, max = max, min
		}
		ascending := rng.IntN(2) == 0
		digit := func(x int32) uint64 { // larger digit ranks first, as the layouts' digits do
			if ascending {
				return uint64(max - x)
			}
			return uint64(x - min)
		}
		fix := func(x int32) ScorePrefix { return ScorePrefix{p: digit(x), end: digit(x) + 1} }
		v := int64(rng.IntN(80)) - 30
		place := PreviousLeadPlace(v, min, max, ascending, fix)
		for w := min; w <= max; w++ {
			ahead := int64(w) > v
			if ascending {
				ahead = int64(w) < v
			}
			if got := digit(w) >= place.end; got != ahead {
				t.Fatalf("v %d in [%d, %d] (ascending %v): %d ahead of the place: %v, want %v", v, min, max, ascending, w, got, ahead)
			}
		}
	}
}

// TestBandInPrevious: a band reads its form in the previous layout there; its own error and
// emptiness come first, and a band without a previous form is refused as a read
// (ErrNotInPreviousLayout), which teaches route nothing of what the key holds.
func TestBandInPrevious(t *testing.T) {
	type entry struct{}
	band := Band[entry]{lo: 10, hi: 20}
	if _, err := band.inPrevious("fp"); !errors.Is(err, ErrNotInPreviousLayout) || !readRefused(err) || err.Error() == "" {
		t.Errorf("a band without a previous form: %v", err)
	}
	with := BandWithPrevious(band, Band[struct{ old bool }]{lo: 3, hi: 5})
	if got, err := with.inPrevious("fp"); err != nil || got.lo != 3 || got.hi != 5 {
		t.Errorf("a band with a previous form [3, 5): %+v, %v", got, err)
	}
	if got, err := BandWithPrevious(band, Band[entry]{}).inPrevious("fp"); err != nil || got.lo < got.hi {
		t.Errorf("a band whose previous form is empty: %+v, %v", got, err)
	}
	if got, err := (Band[entry]{}).inPrevious("fp"); err != nil || got.lo < got.hi {
		t.Errorf("the zero band: %+v, %v", got, err)
	}
	bad := bandErr[entry](UintRangeError("Points", 1<<41, 0, 1<<40-1))
	if got, err := bad.inPrevious("fp"); err != nil || !errors.Is(got.Err(), ErrOutOfRange) {
		t.Errorf("a band out of range: %+v, %v", got, err)
	}
	if readRefused(NotInPreviousValue("fp", "Class", "rally", "no Class")) {
		t.Error("a refused write counts as a refused read")
	}
}

// TestPrefixPreviousPlace: a prefix's place in the previous layout is its previous form's; its
// own error comes first, and a prefix without one is refused as a read.
func TestPrefixPreviousPlace(t *testing.T) {
	score := func(p uint64) float64 { return float64(p) }
	s := ScorePrefix{p: 40, end: 41}
	if _, _, err := s.PreviousPlace("fp", score); !errors.Is(err, ErrNotInPreviousLayout) || !readRefused(err) {
		t.Errorf("a prefix without a previous form: %v", err)
	}
	if got, _, err := s.WithPrevious(ScorePrefix{p: 4, end: 5}).PreviousPlace("fp", score); err != nil || got != 5 {
		t.Errorf("a prefix with a previous form: %v, %v", got, err)
	}
	if _, _, err := s.WithPrevious(ScorePrefix{}).Fix(1, 1).PreviousPlace("fp", score); !errors.Is(err, ErrNotInPreviousLayout) {
		t.Errorf("a narrower prefix kept its parent's previous form: %v", err)
	}
	if _, _, err := prefixErr(UintRangeError("Points", 1<<41, 0, 1<<40-1)).PreviousPlace("fp", score); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("a prefix out of range: %v", err)
	}
}
