package pytest

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// vectorEntries is how many random entries each layout's vectors hold.
const vectorEntries = 200

// TestVectors: random entries of every example, encoded by Go (the interpreted codec, which the
// generated Go package is checked against here too), are decoded by Python and encoded back bit
// for bit; Python's compare orders them as Go does; damaged pairs and data are refused, or
// read, as Go refuses or reads them; values out of range are refused.
func TestVectors(t *testing.T) {
	needPython(t)
	for _, ex := range append(exampleboards.All(), exampleboards.Periodic()...) {
		t.Run(ex.Name, func(t *testing.T) {
			t.Parallel()
			l := ex.Layout(t)
			checkVectors(t, l, &ex, rand.New(rand.NewPCG(1, uint64(len(ex.Name)))))
		})
	}
	// Random schemas reach what the examples do not: ids in ascending order, member fields in
	// hex, wide bits62 digits, more decimal places.
	for i := range 6 {
		t.Run(fmt.Sprintf("random%d", i), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(7, uint64(i)))
			src := oracle.RandomSchema(rng, fmt.Sprintf("r%d", i))
			if i%3 == 2 {
				src = oracle.RandomBits62Schema(rng, fmt.Sprintf("r%d", i))
			}
			l, err := layout.Parse(fmt.Sprintf("r%d.yaml", i), src)
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			checkVectors(t, l, nil, rng)
		})
	}
}

func checkVectors(t *testing.T, l *layout.Layout, ex *exampleboards.Example, rng *rand.Rand) {
	dir, name := module(t, l)
	vec := map[string]any{"id_uint": l.IDType == layout.IDUint64, "num_fields": len(l.Fields), "num_data": len(l.Data)}
	entries := make([]layout.Entry, vectorEntries)
	var cases []map[string]any
	for i := range entries {
		e := oracle.RandomEntry(l, rng)
		if i%7 == 1 && i > 0 { // a tie on every field: the ids decide
			e.Keys = slices.Clone(entries[i-1].Keys)
		}
		if l.HasData() && rng.IntN(4) > 0 {
			e.Data = oracle.RandomData(l, rng)
		}
		entries[i] = e
		c := entryCase(t, l, e)
		if ex != nil {
			sameAsGenerated(t, l, ex, e, c)
		}
		cases = append(cases, c)
	}
	vec["entries"] = cases

	var compares [][3]int
	for i := range entries {
		for _, j := range []int{i, (i + 1) % len(entries), rng.IntN(len(entries))} {
			compares = append(compares, [3]int{i, j, sign(l.Compare(entries[i], entries[j]))})
		}
	}
	vec["compare"] = compares
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, l.Compare)
	var order []string
	for _, e := range sorted {
		s, m, _ := l.Encode(e)
		order = append(order, scoreHex(s)+hex.EncodeToString([]byte(m)))
	}
	vec["sorted"] = order

	vec["damaged"] = damagedCases(t, l, entries, rng)
	vec["damaged_data"] = damagedData(t, l, entries, rng)
	vec["refused"] = refusedCases(l, entries, rng)
	vec["times"] = timeCases(l, entries)

	out := runPython(t, "vectors.py", dir, name, writeJSON(t, vec))
	if !strings.HasPrefix(string(out), "ok ") {
		t.Fatalf("vectors.py: %s", out)
	}
	t.Logf("%s: %s", l.File, strings.TrimSpace(string(out)))
}

// entryCase is one entry's vector: Go's score bits, member and data, and its values.
func entryCase(t *testing.T, l *layout.Layout, e layout.Entry) map[string]any {
	t.Helper()
	score, member, err := l.Encode(e)
	if err != nil {
		t.Fatalf("encode %v: %v", e, err)
	}
	c := map[string]any{"score": scoreHex(score), "score_text": rankgenrt.FormatScore(score), "member": hex.EncodeToString([]byte(member)), "id": pyID(l, e.ID), "values": values(l, e)}
	if e.Data != nil {
		stored, err := l.EncodeData(e.Data)
		if err != nil {
			t.Fatalf("encode data %v: %v", e.Data, err)
		}
		c["data"], c["stored_data"] = pyData(l, e.Data), hex.EncodeToString([]byte(stored))
	}
	return c
}

func values(l *layout.Layout, e layout.Entry) []any {
	out := make([]any, len(l.Fields))
	for i, f := range l.Fields {
		out[i] = pyValue(f, e.Keys[i])
	}
	return out
}

// sameAsGenerated checks that the example's generated Go package encodes e as the interpreted
// codec does: the vectors stand for the Go package itself.
func sameAsGenerated(t *testing.T, l *layout.Layout, ex *exampleboards.Example, e layout.Entry, c map[string]any) {
	t.Helper()
	ptr := reflect.New(ex.Codec.Entry())
	oracle.ToGenerated(l, e, ptr.Interface())
	score, member, err := ex.Codec.Encode(ptr.Elem().Interface())
	if err != nil || scoreHex(score) != c["score"] || hex.EncodeToString([]byte(member)) != c["member"] {
		t.Fatalf("%s: the generated Encode of %v gives (%v, %q, %v), the layout's %v", ex.Name, e, score, member, err, c)
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// damagedCases are pairs near the entries' that the layout may or may not have written, with
// what Go's Decode says of each.
func damagedCases(t *testing.T, l *layout.Layout, entries []layout.Entry, rng *rand.Rand) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range entries {
		score, member, _ := l.Encode(e)
		for range 3 {
			s, m := oracle.Damage(rng, l, score, member)
			d, err := l.Decode(s, m)
			c := map[string]any{"score": scoreHex(s), "member": hex.EncodeToString([]byte(m)), "result": errorCode(err)}
			if err == nil {
				c["id"], c["values"] = pyID(l, d.ID), values(l, d)
			}
			out = append(out, c)
		}
	}
	return out
}

// damagedData is stored data cut, changed or extended, with what Go's DecodeData says of it.
func damagedData(t *testing.T, l *layout.Layout, entries []layout.Entry, rng *rand.Rand) []map[string]any {
	t.Helper()
	if !l.HasData() {
		return nil
	}
	var out []map[string]any
	for _, e := range entries {
		vals := e.Data
		if vals == nil {
			vals = l.ZeroData()
		}
		good, err := l.EncodeData(vals)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range [][]byte{
			[]byte(good[:rng.IntN(len(good)+1)]),
			flip(rng, []byte(good)),
			[]byte(good + "3:abc"),
			[]byte(good + "1:"),
			[]byte(strings.Replace(good, ":", "0:", 1)),
			{},
		} {
			d, err := l.DecodeData(string(b))
			c := map[string]any{"stored": hex.EncodeToString(b), "result": errorCode(err)}
			if err == nil {
				c["data"] = pyData(l, d)
			}
			out = append(out, c)
		}
	}
	return out
}

func flip(rng *rand.Rand, b []byte) []byte {
	if len(b) > 0 {
		const bytes = "0123456789:-+ab\xff"
		b[rng.IntN(len(b))] = bytes[rng.IntN(len(bytes))]
	}
	return b
}

// refusedCases are entries with one value out of its range (or an id too long or empty), which
// Go's Encode refuses.
func refusedCases(l *layout.Layout, entries []layout.Entry, rng *rand.Rand) []map[string]any {
	var out []map[string]any
	add := func(e layout.Entry, why string) {
		if _, _, err := l.Encode(e); err == nil {
			panic("refusedCases: Go encodes " + why)
		}
		out = append(out, map[string]any{"id": pyID(l, e.ID), "values": values(l, e), "why": why})
	}
	for i, f := range l.Fields {
		if f.Kind == layout.Bool || f.Kind == layout.Enum {
			continue // no value of the Python type lies outside
		}
		for _, key := range oracle.OutOfRange(f) {
			e := entries[rng.IntN(len(entries))]
			e.Keys = slices.Clone(e.Keys)
			e.Keys[i] = key
			add(e, f.Name+" out of range")
		}
	}
	if l.IDType == layout.IDString && l.MaxBytes < 1<<12 {
		e := entries[0]
		e.ID = strings.Repeat("x", l.MaxBytes+1)
		add(e, "id too long")
		e.ID = ""
		add(e, "empty id")
	}
	return out
}

// timeCases are the values of the entries' time fields (and data fields) counted from the Unix
// epoch, within datetime's years, with their unit and the instant as Go writes it.
func timeCases(l *layout.Layout, entries []layout.Entry) [][3]any {
	var out [][3]any
	add := func(f *layout.Field, key uint64) {
		if f.Kind != layout.Time || f.Season {
			return
		}
		if at := f.TimeOf(key); at.Year() >= 1000 && at.Year() <= 9999 {
			out = append(out, [3]any{f.Unit.String(), layout.IntOf(key), at.Format("2006-01-02T15:04:05.999999Z07:00")})
		}
	}
	for _, e := range entries {
		for i, f := range l.Fields {
			add(f, e.Keys[i])
		}
		for i, f := range l.Data {
			if e.Data != nil {
				add(f, e.Data[i].Key)
			}
		}
	}
	return out
}
