package oracle

import (
	"math/rand/v2"
	"reflect"
	"time"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
)

// RandomData returns random data values for l's data fields: strings of up to max_bytes of
// random UTF-8 text (empty or full length about a third of the time; characters of one to four
// bytes, controls and NUL included), keys as RandomKey draws them.
func RandomData(l *layout.Layout, rng *rand.Rand) []layout.DataValue {
	vals := make([]layout.DataValue, len(l.Data))
	for i, f := range l.Data {
		if f.Kind != layout.String {
			vals[i].Key = RandomKey(f, rng)
			continue
		}
		n := rng.IntN(min(f.MaxBytes, 40) + 1)
		switch rng.IntN(6) {
		case 0:
			n = 0
		case 1:
			n = f.MaxBytes
		}
		vals[i].Text = randomText(n, rng)
	}
	return vals
}

// dataFromGenerated reads the Data field of a generated Entry (rv) as data values; the zero
// Data is nil, as the interpreted codec writes no data.
func dataFromGenerated(l *layout.Layout, rv reflect.Value) []layout.DataValue {
	dv := field(rv, layout.DataTypeName)
	if dv.IsZero() {
		return nil
	}
	vals := make([]layout.DataValue, len(l.Data))
	for i, f := range l.Data {
		fv := field(dv, f.Name)
		switch f.Kind {
		case layout.String:
			vals[i].Text = fv.String()
		case layout.Uint, layout.Enum:
			vals[i].Key = fv.Uint()
		case layout.Int:
			vals[i].Key = layout.IntKey(fv.Int())
		case layout.Bool:
			if fv.Bool() {
				vals[i].Key = 1
			}
		case layout.Time:
			n, _ := layout.TimeUnits(fv.Interface().(time.Time), f.Unit)
			vals[i].Key = layout.IntKey(n)
		}
	}
	return vals
}

// dataToGenerated stores data values into the Data field of a generated Entry (rv); nil
// leaves it zero.
func dataToGenerated(l *layout.Layout, vals []layout.DataValue, rv reflect.Value) {
	if vals == nil {
		return
	}
	dv := field(rv, layout.DataTypeName)
	for i, f := range l.Data {
		fv, v := field(dv, f.Name), vals[i]
		switch f.Kind {
		case layout.String:
			fv.SetString(v.Text)
		case layout.Uint, layout.Enum:
			fv.SetUint(v.Key)
		case layout.Int:
			fv.SetInt(layout.IntOf(v.Key))
		case layout.Bool:
			fv.SetBool(v.Key != 0)
		case layout.Time:
			fv.Set(reflect.ValueOf(f.TimeOf(v.Key)))
		}
	}
}

// randomText is n bytes of random UTF-8 text: characters of every encoded width that fits.
func randomText(n int, rng *rand.Rand) string {
	// The code points of each encoded width: 1 to 4 bytes.
	widths := [][2]rune{{0, 0x7f}, {0x80, 0x7ff}, {0x800, 0xffff}, {0x10000, utf8.MaxRune}}
	b := make([]byte, 0, n)
	for len(b) < n {
		w := widths[rng.IntN(min(n-len(b), 4))]
		r := w[0] + rune(rng.Int32N(w[1]-w[0]+1))
		if !utf8.ValidRune(r) { // a surrogate half
			continue
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}
