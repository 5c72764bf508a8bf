package layout_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// farTimes are time fields whose ranges reach years RFC 3339 cannot write (before 0000,
// after 9999, out to the end of int64 seconds), which Format still writes and Parse reads.
const farTimes = `package: far
id: {name: ID, type: string, max_bytes: 8}
fields:
  - {name: Late, type: time, unit: s, bits: 40, epoch: "0001-01-01T00:00:00Z", order: desc}
  - {name: Early, type: time, unit: ms, bits: 48, max: "0001-01-01T00:00:00Z", order: asc, in: member}
  - {name: Edge, type: time, unit: s, bits: 63, epoch: "1970-01-01T00:00:00Z", order: desc, in: member}
  - {name: Fine, type: time, unit: us, bits: 63, max: "1970-01-01T00:00:00Z", order: desc, in: member}
`

// parseLayouts are the layouts the Parse properties run on: the golden layouts, the example
// schemas (seasons among them), far-reaching times and random schemas.
func parseLayouts(t *testing.T, rng *rand.Rand) []*layout.Layout {
	var out []*layout.Layout
	for _, src := range goldenSchemas(t) {
		out = append(out, mustParse(t, string(src)))
	}
	examples, err := filepath.Glob("../../examples/schemas/*.yaml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example schemas: %v", err)
	}
	for _, file := range examples {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if l, err := layout.Parse(filepath.Base(file), src); err == nil { // some examples are refused on purpose
			out = append(out, l)
		}
	}
	out = append(out, mustParse(t, farTimes))
	for range 300 {
		out = append(out, mustParse(t, string(oracle.RandomSchema(rng, "p"))))
	}
	return out
}

// TestParseInvertsFormat: for every field (ranking and data) of many layouts, Parse of
// Format(key) gives key back, for keys across the range and at its edges; a time carrying a
// fraction of its unit is refused with a *RangeError naming the unit, never truncated; a key
// outside the range formats to text Parse refuses with ErrOutOfRange.
func TestParseInvertsFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 8))
	values, finer := 0, 0
	for _, l := range parseLayouts(t, rng) {
		for _, f := range append(append([]*layout.Field{}, l.Fields...), l.Data...) {
			if f.Kind == layout.String {
				continue
			}
			for i := range 60 {
				key := oracle.RandomKey(f, rng)
				if i < 2 {
					key = []uint64{f.Lo, f.Hi}[i]
				}
				text := f.Format(key)
				back, err := f.Parse(text)
				if err != nil || back != key {
					t.Fatalf("%s: %s field %s: Parse(%q) = %d, %v; want %d", l.File, f.Kind, f.Name, text, back, err, key)
				}
				values++
				if f.Kind != layout.Time {
					continue
				}
				extra := time.Duration(1 + rng.Int64N(int64(f.Unit.Duration())-1))
				if rng.IntN(3) == 0 {
					extra = time.Nanosecond
				}
				finerText := f.TimeOf(key).Add(extra).Format(time.RFC3339Nano)
				if f.Season {
					finerText = (f.OffsetOf(key) + extra).String()
				}
				_, err = f.Parse(finerText)
				var re *rankgenrt.RangeError
				if !errors.As(err, &re) || re.Unit == "" || !errors.Is(err, rankgenrt.ErrOutOfRange) {
					t.Fatalf("%s: field %s: Parse(%q), %v finer than %s: %v; want a RangeError naming the unit", l.File, f.Name, finerText, extra, f.Unit, err)
				}
				finer++
			}
			if f.Kind == layout.Enum || f.Kind == layout.Bool {
				continue // a key outside formats as no value's name at all
			}
			for _, key := range oracle.OutOfRange(f) {
				if _, err := f.Parse(f.Format(key)); !errors.Is(err, rankgenrt.ErrOutOfRange) {
					t.Errorf("%s: field %s: Parse(%q) of a key outside the range: %v; want ErrOutOfRange", l.File, f.Name, f.Format(key), err)
				}
			}
		}
	}
	t.Logf("%d values read back exactly, %d finer than their unit refused", values, finer)
}

// TestParseRefuses: text that is not exactly a value of the field is refused, whatever its
// likeness to one; the case first (a tenth of a second in a field of seconds).
func TestParseRefuses(t *testing.T) {
	l := mustParse(t, `package: p
id: {name: ID, type: string, max_bytes: 8}
fields:
  - {name: At, type: time, unit: s, bits: 32, epoch: "2026-01-01T00:00:00Z", order: asc}
  - {name: Ms, type: time, unit: ms, bits: 44, epoch: "2026-01-01T00:00:00Z", order: asc}
  - {name: N, type: uint, bits: 8, order: desc}
  - {name: I, type: int, min: -5, max: 5, order: desc}
  - {name: B, type: bool, order: desc}
  - {name: E, type: enum, values: [bronze, silver], order: desc}
`)
	field := map[string]*layout.Field{}
	for _, f := range l.Fields {
		field[f.Name] = f
	}
	want, err := field["At"].Parse("2026-03-01T00:00:00Z")
	if err != nil || field["At"].Format(want) != "2026-03-01T00:00:00Z" {
		t.Fatalf("Parse of a whole second: %d, %v", want, err)
	}
	for _, c := range []struct{ field, text, err string }{
		{"At", "2026-03-01T00:00:00.9Z", "At = 2026-03-01T00:00:00.9Z is not a whole number of seconds (the field's unit); truncate or round it first"},
		{"At", "2026-03-01T00:00:00.000000001Z", "At = 2026-03-01T00:00:00.000000001Z is not a whole number of seconds"},
		{"Ms", "2026-03-01T00:00:00.0001Z", "Ms = 2026-03-01T00:00:00.0001Z is not a whole number of milliseconds"},
		{"At", "2025-12-31T23:59:59Z", "At = 2025-12-31T23:59:59Z is out of range [2026-01-01T00:00:00Z, 2162-02-07T06:28:15Z]"},
		{"At", "2026-03-01", `At: want an RFC 3339 time from 2026-01-01T00:00:00Z to 2162-02-07T06:28:15Z, not "2026-03-01"`},
		{"At", "+2026-03-01T00:00:00Z", `not "+2026-03-01T00:00:00Z"`},
		{"At", "02026-03-01T00:00:00Z", `not "02026-03-01T00:00:00Z"`},
		{"N", "256", "N = 256 is out of range [0, 255]"},
		{"N", "1.0", `N: want a whole number from 0 to 255, not "1.0"`},
		{"N", " 1", `not " 1"`},
		{"N", "-0", `not "-0"`},
		{"I", "6", "I = 6 is out of range [-5, 5]"},
		{"B", "True", `B: want true or false, not "True"`},
		{"B", "1", `not "1"`},
		{"E", "gold", `E: want one of bronze, silver, not "gold"`},
		{"E", "\x1b[2J" + string(make([]byte, 100)), `not "\x1b[2J\x00\x00`},
	} {
		_, err := field[c.field].Parse(c.text)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s.Parse(%q) = %v; want an error with %q", c.field, c.text, err, c.err)
		}
	}
}
