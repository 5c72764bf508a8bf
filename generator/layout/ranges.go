package layout

import (
	"fmt"
	"math"
	"math/big"
	"time"
	"unicode"
)

func (v *validator) enumValues(raw *rawField, f *Field, label string) bool {
	if len(raw.Values) == 0 {
		at := raw.ValuesPos
		if !at.Set {
			at = scalar{Line: raw.Line, Col: raw.Col, Set: true}
		}
		v.errAt(at, "%s: an enum needs values, lowest first: values: [bronze, silver, gold]", label)
		return false
	}
	seen := map[string]int{}
	ok := true
	for _, s := range raw.Values {
		if !s.Set {
			ok = false
			continue
		}
		if v.tooLong(s, label+": enum value") {
			ok = false
			continue
		}
		if !isWord(s.Value) {
			v.errAt(s, "%s: enum value %q must be a word of letters, digits and _ (it becomes a Go constant)", label, s.Value)
			ok = false
			continue
		}
		if line, dup := seen[s.Value]; dup {
			v.errAt(s, "%s: enum value %q is listed twice (first at line %d); values must be unique", label, s.Value, line)
			ok = false
			continue
		}
		seen[s.Value] = s.Line
		f.Values = append(f.Values, s.Value)
	}
	return ok
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) && r < 128 || unicode.IsDigit(r) && r < 128 && i >= 0) {
			return false
		}
	}
	return true
}

var (
	bigMaxU64 = new(big.Int).SetUint64(math.MaxUint64)
	bigMinI64 = big.NewInt(math.MinInt64)
	bigMaxI64 = big.NewInt(math.MaxInt64)
)

func (v *validator) numRange(raw *rawField, f *Field, label string, radix *big.Int) (lo, hi *big.Int, ok bool) {
	floor, ceil := big.NewInt(0), bigMaxU64
	if f.Kind == Int {
		floor, ceil = bigMinI64, bigMaxI64
	}
	parse := func(s scalar, key string) *big.Int {
		n, good := new(big.Int).SetString(s.Value, 10)
		if !good || n.Cmp(floor) < 0 || n.Cmp(ceil) > 0 {
			v.errAt(s, "%s: %s must be a whole number from %s to %s, not %q", label, key, floor, ceil, s.Value)
			return nil
		}
		return n
	}
	if raw.Min.Set {
		if lo = parse(raw.Min, "min"); lo == nil {
			return nil, nil, false
		}
	}
	if raw.Max.Set {
		if hi = parse(raw.Max, "max"); hi == nil {
			return nil, nil, false
		}
	}
	if radix == nil && (hi == nil || lo == nil && f.Kind == Int) {
		need := "bits: n, digits: n, or max: N (the range is then 0 … N)"
		if f.Kind == Int {
			need = "bits: n (a two's-complement range), digits: n with min: or max:, or both min: and max:"
		}
		v.errorf(raw.Line, raw.Col, "%s needs a width: add %s", label, need)
		return nil, nil, false
	}
	last := func() *big.Int { return new(big.Int).Sub(radix, big.NewInt(1)) }
	switch {
	case lo != nil && hi != nil:
	case lo != nil:
		hi = new(big.Int).Add(lo, last())
	case hi != nil && f.Kind == Uint:
		lo = big.NewInt(0)
	case hi != nil:
		lo = new(big.Int).Sub(hi, last())
	case f.Kind == Uint:
		lo = big.NewInt(0)
		hi = last()
	case f.RadixKind == RadixBits:
		half := new(big.Int).Rsh(radix, 1)
		lo, hi = new(big.Int).Neg(half), new(big.Int).Sub(half, big.NewInt(1))
	default:
		v.errorf(raw.Line, raw.Col, "%s: an int with digits needs min or max to place its range (e.g. min: -500)", label)
		return nil, nil, false
	}
	if hi.Cmp(ceil) > 0 { // the radix runs past the type: the range stops at the type's edge
		hi = new(big.Int).Set(ceil)
	}
	if lo.Cmp(floor) < 0 {
		lo = new(big.Int).Set(floor)
	}
	return lo, hi, true
}

func (v *validator) timeRange(raw *rawField, f *Field, label string, radix *big.Int) (lo, hi *big.Int, ok bool) {
	switch raw.Unit.Value {
	case "s":
		f.Unit = Second
	case "ms":
		f.Unit = Milli
	case "us", "µs":
		f.Unit = Micro
	case "":
		v.errorf(raw.Line, raw.Col, "%s has no unit; add \"unit:\" with s, ms or us", label)
		return nil, nil, false
	default:
		v.errAt(raw.Unit, "%s: unit must be s, ms or us, not %q", label, raw.Unit.Value)
		return nil, nil, false
	}
	if raw.Epoch.Value == "season" {
		return v.seasonRange(raw, f, label, radix)
	}
	if raw.Epoch.Set && raw.Min.Set {
		v.errAt(raw.Min, "%s: epoch and min are the same anchor (the start of the range); keep one", label)
		return nil, nil, false
	}
	start := raw.Min
	if raw.Epoch.Set {
		start = raw.Epoch
	}
	instant := func(s scalar, key string) *big.Int {
		t, err := time.Parse(time.RFC3339Nano, s.Value)
		if err != nil {
			v.errAt(s, "%s: %s must be an RFC 3339 time like 2026-01-01T00:00:00Z, not %q%s", label, key, s.Value, rfc3339Hint(s.Value))
			return nil
		}
		n, good := TimeUnits(t, f.Unit)
		if !good {
			v.errAt(s, "%s: %s %s is too far from 1970 to count in %s", label, key, s.Value, f.Unit)
			return nil
		}
		if !t.Truncate(f.Unit.Duration()).Equal(t) {
			v.errAt(s, "%s: %s %s is finer than the unit %s; round it to whole %s", label, key, s.Value, f.Unit, unitWords[f.Unit])
			return nil
		}
		return big.NewInt(n)
	}
	if start.Set {
		if lo = instant(start, map[bool]string{true: "epoch", false: "min"}[raw.Epoch.Set]); lo == nil {
			return nil, nil, false
		}
	}
	if raw.Max.Set {
		if hi = instant(raw.Max, "max"); hi == nil {
			return nil, nil, false
		}
	}
	switch {
	case lo == nil && hi == nil:
		v.errorf(raw.Line, raw.Col, "%s has no anchor; add epoch: (where the range starts, e.g. 2026-01-01T00:00:00Z) or max: (where it ends)", label)
		return nil, nil, false
	case radix == nil && (lo == nil || hi == nil):
		v.errorf(raw.Line, raw.Col, "%s needs a width: give bits: n or digits: n, or both ends of the range (epoch and max)", label)
		return nil, nil, false
	case lo == nil:
		lo = new(big.Int).Sub(hi, new(big.Int).Sub(radix, big.NewInt(1)))
	case hi == nil:
		hi = new(big.Int).Add(lo, new(big.Int).Sub(radix, big.NewInt(1)))
	}
	if lo.Cmp(bigMinI64) < 0 || hi.Cmp(bigMaxI64) > 0 {
		v.errorf(raw.Line, raw.Col, "%s: the range runs beyond what int64 %s since 1970 can count; narrow the width", label, f.Unit)
		return nil, nil, false
	}
	return lo, hi, true
}

var unitWords = map[Unit]string{Second: "seconds", Milli: "milliseconds", Micro: "microseconds"}

// rfc3339Hint suggests the RFC 3339 form of a date or a "date time" written without T and zone.
func rfc3339Hint(s string) string {
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return fmt.Sprintf(" (did you mean %s? RFC 3339 needs a date, a time and a zone)", t.Format(time.RFC3339))
		}
	}
	return ""
}
