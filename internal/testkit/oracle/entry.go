package oracle

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
)

// This file bridges the interpreted codec's layout.Entry (an id and one key per field, see
// layout.Field.Lo) and any generated Entry struct, whose fields are named as in the schema and
// typed by layout.Field.GoType. Property tests use it to feed the same entry to both codecs.

// FromGenerated converts a generated Entry (a struct or a pointer to one) to a layout.Entry.
// A time that no int64 count of the field's unit can hold becomes a key outside the field's
// range (so that the interpreted codec refuses it as generated code does). It panics when v
// does not have the layout's fields: that is a bug in the test, not data.
func FromGenerated(l *layout.Layout, v any) layout.Entry {
	rv := reflect.Indirect(reflect.ValueOf(v))
	e := layout.Entry{Keys: make([]uint64, len(l.Fields))}
	id := field(rv, l.IDName)
	switch id.Kind() {
	case reflect.String:
		e.ID = id.String()
	case reflect.Uint64:
		e.ID = strconv.FormatUint(id.Uint(), 10)
	default:
		panic(fmt.Sprintf("oracle: id %s has type %s", l.IDName, id.Type()))
	}
	for i, f := range l.Fields {
		fv := field(rv, f.Name)
		switch f.Kind {
		case layout.Uint, layout.Enum:
			e.Keys[i] = fv.Uint()
		case layout.Int:
			e.Keys[i] = layout.IntKey(fv.Int())
		case layout.Bool:
			if fv.Bool() {
				e.Keys[i] = 1
			}
		case layout.Time:
			if d, ok := fv.Interface().(time.Duration); ok { // epoch: season: an offset, floored to the unit
				e.Keys[i] = layout.IntKey(int64(d / f.Unit.Duration()))
				if d < 0 && d%f.Unit.Duration() != 0 {
					e.Keys[i]--
				}
				continue
			}
			t := fv.Interface().(time.Time)
			n, ok := layout.TimeUnits(t, f.Unit)
			switch {
			case ok:
				e.Keys[i] = layout.IntKey(n)
			case f.Lo > 0: // beyond int64 units: below any range that does not start at MinInt64
				e.Keys[i] = 0
			default:
				e.Keys[i] = math.MaxUint64
			}
		}
	}
	if l.HasData() {
		e.Data = dataFromGenerated(l, rv)
	}
	return e
}

// ToGenerated stores e into the generated Entry that ptr points to. Keys are converted to the
// Go field types without checks (an out-of-range key stays out of range where the Go type can
// hold it, and is truncated otherwise; see Representable).
func ToGenerated(l *layout.Layout, e layout.Entry, ptr any) {
	rv := reflect.ValueOf(ptr).Elem()
	id := field(rv, l.IDName)
	switch id.Kind() {
	case reflect.String:
		id.SetString(e.ID)
	case reflect.Uint64:
		n, err := strconv.ParseUint(e.ID, 10, 64)
		if err != nil {
			panic(fmt.Sprintf("oracle: id %q is not a uint64", e.ID))
		}
		id.SetUint(n)
	}
	for i, f := range l.Fields {
		fv := field(rv, f.Name)
		k := e.Keys[i]
		switch f.Kind {
		case layout.Uint, layout.Enum:
			fv.SetUint(k)
		case layout.Int:
			fv.SetInt(layout.IntOf(k))
		case layout.Bool:
			fv.SetBool(k != 0)
		case layout.Time:
			if f.Season {
				fv.Set(reflect.ValueOf(f.OffsetOf(k)))
				continue
			}
			fv.Set(reflect.ValueOf(f.TimeOf(k)))
		}
	}
	if l.HasData() {
		dataToGenerated(l, e.Data, rv)
	}
}

func field(rv reflect.Value, name string) reflect.Value {
	fv := rv.FieldByName(name)
	if !fv.IsValid() {
		panic(fmt.Sprintf("oracle: %s has no field %s", rv.Type(), name))
	}
	return fv
}

// Representable reports whether the generated Go type of field f holds key exactly: the
// interval of keys ToGenerated can store without truncation.
func Representable(f *layout.Field, key uint64) bool {
	lo, hi := goTypeKeys(f)
	return key >= lo && key <= hi
}

// goTypeKeys is the interval of keys the field's Go type holds.
func goTypeKeys(f *layout.Field) (lo, hi uint64) {
	switch f.Kind {
	case layout.Bool:
		return 0, 1
	case layout.Enum:
		if len(f.Values) <= 1<<8 {
			return 0, math.MaxUint8
		}
		if len(f.Values) <= 1<<16 {
			return 0, math.MaxUint16
		}
		return 0, math.MaxUint32
	case layout.Time:
		if f.Season { // a time.Duration of whole units
			k := int64(f.Unit.Duration())
			return layout.IntKey(math.MinInt64 / k), layout.IntKey(math.MaxInt64 / k)
		}
		// Every int64 count of units is a time.Time; TimeUnits refuses the last few.
		k := map[layout.Unit]int64{layout.Second: 1, layout.Milli: 1000, layout.Micro: 1000000}[f.Unit]
		return layout.IntKey(math.MinInt64/k*k + 2*k), layout.IntKey(math.MaxInt64/k*k - 2*k)
	case layout.Int:
		switch f.GoType {
		case "int8":
			return layout.IntKey(math.MinInt8), layout.IntKey(math.MaxInt8)
		case "int16":
			return layout.IntKey(math.MinInt16), layout.IntKey(math.MaxInt16)
		case "int32":
			return layout.IntKey(math.MinInt32), layout.IntKey(math.MaxInt32)
		}
		return 0, math.MaxUint64
	}
	switch f.GoType {
	case "uint8":
		return 0, math.MaxUint8
	case "uint16":
		return 0, math.MaxUint16
	case "uint32":
		return 0, math.MaxUint32
	}
	return 0, math.MaxUint64
}

// OutOfRange returns keys of field f just outside its range (and some far outside) that its
// Go type still holds: the values both codecs must refuse with ErrOutOfRange. It is empty when
// the Go type holds nothing else (a bool, a uint8 field of 0…255).
func OutOfRange(f *layout.Field) []uint64 {
	lo, hi := goTypeKeys(f)
	var out []uint64
	if f.Lo > lo {
		out = append(out, f.Lo-1, lo, lo+(f.Lo-lo)/2)
	}
	if f.Hi < hi {
		out = append(out, f.Hi+1, hi, f.Hi+(hi-f.Hi)/2+1)
	}
	return out
}

// RandomEntry returns an entry of l with every key in range and a valid id. Keys favour the
// edges of their range (Lo, Hi, Lo+1, Hi−1); string ids mix printable bytes, bytes ≥ 0x80, NUL,
// the separator's bytes and digits, at lengths from 1 to MaxBytes; uint64 ids favour values
// whose decimal order differs from their numeric order (9 and 10, powers of ten, MaxUint64).
func RandomEntry(l *layout.Layout, rng *rand.Rand) layout.Entry {
	e := layout.Entry{ID: RandomID(l, rng), Keys: make([]uint64, len(l.Fields))}
	for i, f := range l.Fields {
		e.Keys[i] = RandomKey(f, rng)
	}
	return e
}

// RandomKey returns a key in [f.Lo, f.Hi], at an edge about a third of the time.
func RandomKey(f *layout.Field, rng *rand.Rand) uint64 {
	span := f.Span()
	if rng.IntN(3) == 0 {
		switch rng.IntN(4) {
		case 0:
			return f.Lo
		case 1:
			return f.Hi
		case 2:
			return f.Lo + min(1, span)
		default:
			return f.Hi - min(1, span)
		}
	}
	if span == math.MaxUint64 {
		return rng.Uint64()
	}
	if rng.IntN(4) == 0 && span > 1<<16 {
		// A small distance from either edge: ties in the high digits, differences low.
		d := rng.Uint64N(1 << 16)
		if rng.IntN(2) == 0 {
			return f.Lo + d
		}
		return f.Hi - d
	}
	return f.Lo + rng.Uint64N(span+1)
}

// RandomID returns a valid id of l.
func RandomID(l *layout.Layout, rng *rand.Rand) string {
	if l.IDType == layout.IDUint64 {
		var n uint64
		switch rng.IntN(6) {
		case 0:
			n = rng.Uint64N(200) // 9 vs 10, 99 vs 100
		case 1:
			p := uint64(1)
			for range rng.IntN(20) {
				p *= 10
			}
			n = p - uint64(rng.IntN(2))
		case 2:
			n = math.MaxUint64 - rng.Uint64N(3)
		default:
			n = rng.Uint64() >> rng.IntN(64)
		}
		return strconv.FormatUint(n, 10)
	}
	maxLen := min(l.MaxBytes, 96)
	var n int
	switch rng.IntN(8) {
	case 0:
		n = 1
	case 1:
		n = maxLen
	default:
		n = 1 + rng.IntN(min(maxLen, 12))
	}
	if rng.IntN(200) == 0 {
		n = l.MaxBytes // the longest id, however long
		if n > 1<<16 {
			n = 1 << 16
		}
	}
	alphabet := []byte("abcAZ09:|-_ \x00\x7f\x80\xc3\xa9\xff")
	alphabet = append(alphabet, l.Separator...)
	b := make([]byte, n)
	for i := range b {
		if rng.IntN(4) == 0 {
			b[i] = byte(rng.IntN(256))
		} else {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
	}
	return string(b)
}

// Damage returns a (score, member) near a valid one that the layout may or may not have
// written: off-by-one and non-finite scores, bytes changed, cut or added in the member.
func Damage(rng *rand.Rand, l *layout.Layout, score float64, member string) (float64, string) {
	if rng.IntN(3) != 0 {
		scores := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), -score, score + 1, score - 1,
			math.Nextafter(score, math.Inf(1)), math.Nextafter(score, math.Inf(-1)), score * 10, score / 10, score + 0.5,
			l.ScoreOf(l.ScoreRadix), l.ScoreOf(l.ScoreRadix - 1), 1 << 53, math.MaxFloat64, math.Float64frombits(rng.Uint64()),
			float64(rng.Uint64N(l.ScoreRadix)), l.ScoreOf(rng.Uint64N(l.ScoreRadix))}
		score = scores[rng.IntN(len(scores))]
	}
	if rng.IntN(3) != 0 {
		b := []byte(member)
		switch rng.IntN(8) {
		case 0:
			b = b[:rng.IntN(len(b)+1)]
		case 1:
			if len(b) > 0 {
				b[rng.IntN(len(b))] = "AFagz :|-+0 9\x00\xff"[rng.IntN(15)]
			}
		case 2:
			if len(b) > 0 {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
		case 3:
			b = append(b, "0x:"[rng.IntN(3)])
		case 4:
			b = append([]byte{"0+-"[rng.IntN(3)]}, b...)
		case 5:
			b = b[:min(len(b), l.PrefixLen)]
		case 6:
			b = append(b[:min(len(b), l.PrefixLen)], []string{"0", "01", "18446744073709551616", "18446744073709551615", "99999999999999999999", strings.Repeat("y", l.MaxBytes+1)}[rng.IntN(6)]...)
		default:
			b = append(b, b...)
		}
		member = string(b)
	}
	return score, member
}
