package runtime

import (
	"bytes"
	"slices"
	"strconv"
	"time"
)

// Helpers for generated codecs. Each is small, allocation-free on success and layout-agnostic:
// everything that depends on a layout (weights, widths, ranges) is generated as constants.

// PutHex writes v into all of dst as zero-padded lower-case hex. The caller guarantees that v
// fits in len(dst) hex digits (generated code range-checks before).
func PutHex(dst []byte, v uint64) {
	const digits = "0123456789abcdef"
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = digits[v&0xf]
		v >>= 4
	}
}

// PutDec writes v into all of dst as zero-padded decimal. The caller guarantees that v fits in
// len(dst) decimal digits.
func PutDec(dst []byte, v uint64) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
}

// ParseHex reads fixed-width lower-case hex. It refuses anything else (signs, spaces, upper
// case, "0x"), since only the canonical text keeps member bytes in digit order, and values
// that overflow a uint64.
func ParseHex(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 16 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// ParseDec reads fixed-width decimal digits (leading zeros allowed, nothing else) and refuses
// values that overflow a uint64.
func ParseDec(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// ParseID reads a uint64 id in its canonical decimal form: no sign, no leading zero (except
// "0" itself), no overflow. Only the canonical form round-trips, so only it is accepted.
func ParseID(s string) (uint64, bool) {
	if len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	return ParseDec(s)
}

// CompareDecimal compares a and b as Redis compares members: by the bytes of their decimal
// forms (so 9 > 10), not numerically. It returns -1, 0 or +1.
func CompareDecimal(a, b uint64) int {
	var ba, bb [20]byte
	return bytes.Compare(strconv.AppendUint(ba[:0], a, 10), strconv.AppendUint(bb[:0], b, 10))
}

// CompareBool orders false before true. It returns -1, 0 or +1.
func CompareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// TimeFormat is how times appear in errors and in rankgen's JSON: RFC 3339 with up to
// microseconds, the finest unit a layout stores.
const TimeFormat = "2006-01-02T15:04:05.999999Z07:00"

// TimeRangeError builds a RangeError for a time outside a field's range; min and max are the
// range's ends, already formatted.
func TimeRangeError(field string, t time.Time, min, max string) error {
	return &RangeError{Field: field, Value: t.UTC().Format(TimeFormat), Min: min, Max: max}
}

// TimeUnitError builds a RangeError for a time finer than its field's unit (a whole second,
// millisecond or microsecond): it is refused, never truncated. The time is shown to the
// nanosecond, so that the part the unit cannot hold shows.
func TimeUnitError(field string, t time.Time, unit time.Duration) error {
	return &RangeError{Field: field, Value: t.UTC().Format(time.RFC3339Nano), Unit: unitWords(unit)}
}

// OffsetUnitError builds a RangeError for an offset from the season's start finer than its
// field's unit: it is refused, never truncated.
func OffsetUnitError(field string, d, unit time.Duration) error {
	return &RangeError{Field: field, Value: d.String(), Unit: unitWords(unit)}
}

// unitWords names a field's unit in words.
func unitWords(unit time.Duration) string {
	switch unit {
	case time.Millisecond:
		return "milliseconds"
	case time.Microsecond:
		return "microseconds"
	case time.Second:
		return "seconds"
	}
	return unit.String() + " units"
}

// AppendReversedUint appends the member text of a uint64 id whose ties rank ascending (id
// order: asc): the nines' complement of its 20-digit decimal, 10^20 − 1 − id, zero-padded, so
// that a larger text is a smaller id.
func AppendReversedUint(dst []byte, id uint64) []byte {
	var digits [20]byte
	for i := len(digits) - 1; i >= 0; i-- {
		digits[i] = '9' - byte(id%10)
		id /= 10
	}
	return append(dst, digits[:]...)
}

// ReversedUintOf inverts AppendReversedUint; ok is false for any text it never writes.
func ReversedUintOf(text string) (id uint64, ok bool) {
	if len(text) != 20 {
		return 0, false
	}
	var digits [20]byte
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' {
			return 0, false
		}
		digits[i] = '9' - text[i] + '0'
	}
	return ParseDec(string(digits[:]))
}

// AppendReversedID appends the member text of a string id whose ties rank ascending (id
// order: asc): each byte b as the two lower-case hex digits of 255 − b, then the end byte
// '~', above every hex digit. A larger text is a smaller id, and an id's text is larger than
// the text of every longer id it begins.
func AppendReversedID(dst []byte, id string) []byte {
	dst = slices.Grow(dst, 2*len(id)+1)
	for i := 0; i < len(id); i++ {
		dst = append(dst, hexLower[^id[i]>>4], hexLower[^id[i]&0xF])
	}
	return append(dst, '~')
}

// ReversedIDOf inverts AppendReversedID; ok is false for any text it never writes.
func ReversedIDOf(text string) (id string, ok bool) {
	n := len(text) - 1
	if n < 0 || n%2 != 0 || text[n] != '~' {
		return "", false
	}
	out := make([]byte, n/2)
	for i := range out {
		c, ok := ParseHex(text[2*i : 2*i+2])
		if !ok {
			return "", false
		}
		out[i] = ^byte(c)
	}
	return string(out), true
}

const hexLower = "0123456789abcdef"
