package layout_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// yamlOddities are inputs that have tripped YAML-driven parsers: anchors and aliases (also in
// keys and lists), merge keys, explicit tags, huge and odd numbers, nested flow collections,
// documents and directives, and control bytes.
var yamlOddities = []string{
	"package: p\nid: &i {name: ID}\nx: *i\n",
	"package: p\nid: {name: ID}\nbase: &b {type: uint, bits: 8, order: desc}\nfields:\n  - {<<: *b, name: A}\n",
	"package: p\nid: {name: ID}\nfields:\n  - &f {name: A, type: uint, bits: 8, order: desc}\n  - *f\n",
	"package: p\nid: {name: ID}\nfields: &l [{name: A, type: uint, bits: 8, order: desc}]\nagain: *l\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: !!int uint, bits: !!str 8, order: !custom desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: uint, bits: 0x10, order: desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: uint, bits: 1e1, order: desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: uint, max: 999999999999999999999999999999999999, order: desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: int, min: -99999999999999999999999, max: .inf, order: desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: time, unit: s, epoch: 99999-01-01T00:00:00Z, bits: 8, order: desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: time, unit: us, epoch: 0001-01-01T00:00:00Z, bits: 64, order: desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: time, unit: us, max: 9999-12-31T23:59:59.999999Z, bits: 63, order: desc, in: member}\n",
	"package: p\nid: {name: ID, max_bytes: 99999999999999999999}\nfields:\n  - {name: A, type: uint, bits: 8, order: desc}\n",
	"package: p\nid: {name: ID}\ndecimal_places: 99999999999999999999\nscore: decimal\nfields:\n  - {name: A, type: uint, bits: 8, order: desc}\n",
	"a: &a [*a]\n",
	"a: &a\n  b: *a\n",
	"%YAML 1.1\n---\npackage: p\n",
	"--- !!map\npackage: p\n...\n",
	"? [complex, key]\n: value\n",
	"package: p\nid: {name: ID}\nfields: [[[[[[[[[[]]]]]]]]]]\n",
	"package: \"\\u0000\\uffff\"\n",
	"\xef\xbb\xbfpackage: p\n",
	"package: p\x00\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: enum, values: [&v a, *v], order: desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: enum, values: {a: 1}, order: desc}\n",
	"package: p\nid: {name: ID}\nfields:\n  - {name: A, type: uint, bits: 8, order: desc, update: [[add]]}\n",
	"l: &l [a, a, a, a, a, a, a, a, a]\nl2: &l2 [*l, *l, *l, *l, *l, *l, *l, *l, *l]\nl3: &l3 [*l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2, *l2]\nl4: [*l3, *l3, *l3, *l3, *l3, *l3, *l3, *l3, *l3]\n",
}

// FuzzParse: Parse never panics; refusals are Diagnostics, positioned at line ≥ 0, col ≥ 0,
// with a message; accepted layouts are self-consistent and round-trip their extreme entries.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"../../examples/schemas/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil {
				f.Add(src)
			}
		}
	}
	archives, _ := filepath.Glob("testdata/*/*.txtar")
	for _, file := range archives {
		if a, err := txtar.ParseFile(file); err == nil {
			for _, af := range a.Files {
				if af.Name == "schema.yaml" {
					f.Add(af.Data)
				}
			}
		}
	}
	for _, s := range yamlOddities {
		f.Add([]byte(s))
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20; i++ {
		f.Add(oracle.RandomSchema(rng, "p"))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := layout.Parse("f.yaml", src)
		if err != nil {
			var ds layout.Diagnostics
			if !errors.As(err, &ds) || len(ds) == 0 {
				t.Fatalf("error %T %v is not a non-empty Diagnostics", err, err)
			}
			for _, d := range ds {
				if d.Line < 0 || d.Col < 0 || d.Message == "" || d.File != "f.yaml" {
					t.Fatalf("bad diagnostic %+v", d)
				}
			}
			return
		}
		checkAccepted(t, l, src)
	})
}

// checkAccepted checks the invariants every accepted layout must hold.
func checkAccepted(t *testing.T, l *layout.Layout, src []byte) {
	limit := uint64(layout.MaxScore)
	if l.Score == layout.ScoreBits62 {
		limit = layout.MaxBits62
	}
	if l.ScoreRadix == 0 || l.ScoreRadix > l.ScoreLimit || l.ScoreLimit > limit || len(l.Fields) == 0 || len(l.Fingerprint) != 16 {
		t.Fatalf("inconsistent layout: ScoreRadix %d ScoreLimit %d fields %d fingerprint %q", l.ScoreRadix, l.ScoreLimit, len(l.Fields), l.Fingerprint)
	}
	again, err := layout.Parse("f.yaml", src)
	if err != nil || again.Canonical != l.Canonical || again.Table() != l.Table() {
		t.Fatalf("a second Parse differs: %v", err)
	}
	_ = l.Table()
	id := "x"
	if l.IDType == layout.IDUint64 {
		id = "18446744073709551615"
	}
	for _, pick := range []func(*layout.Field) uint64{
		func(f *layout.Field) uint64 { return f.Lo },
		func(f *layout.Field) uint64 { return f.Hi },
	} {
		e := layout.Entry{ID: id, Keys: make([]uint64, len(l.Fields))}
		for i, f := range l.Fields {
			e.Keys[i] = pick(f)
			_ = f.Format(e.Keys[i])
		}
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatalf("Encode(%v): %v", e, err)
		}
		back, err := l.Decode(score, member)
		if err != nil || !entryEqual(back, e) {
			t.Fatalf("Decode(Encode(%v)) = %v, %v", e, back, err)
		}
	}
}

// codecLayouts are the fixed layouts FuzzCodec drives: hex and decimal member fields with a
// multi-byte separator, signed and time fields, a decimal score with uint64 ids.
var codecLayouts = []string{`
package: a
id: {name: ID, max_bytes: 16}
separator: "::"
fields:
  - {name: Points, type: uint, bits: 40, order: desc}
  - {name: Tier, type: enum, values: [bronze, silver, gold], order: desc}
  - {name: Delta, type: int, bits: 13, order: asc}
  - {name: At, type: time, unit: ms, epoch: 2026-01-01T00:00:00Z, bits: 41, order: asc}
`, `
package: b
score: decimal
decimal_places: 10
id: {name: Car, type: uint64}
fields:
  - {name: Points, type: uint, max: 524287, order: desc}
  - {name: Paid, type: bool, digits: 1, order: desc, in: score}
  - {name: At, type: time, unit: s, max: 2029-01-01T00:00:00Z, digits: 9, order: asc, in: score}
  - {name: Rank, type: uint, min: 1, max: 1000, order: asc, in: member}
`, `
package: c
id: {name: ID}
separator: ""
fields:
  - {name: Name, type: uint, digits: 19, order: asc, in: member}
  - {name: Temp, type: int, digits: 4, max: 100, order: desc}
  - {name: Big, type: int, bits: 64, order: desc}
  - {name: Full, type: uint, bits: 64, order: asc}
`}

// FuzzCodec drives the interpreted codec of fixed layouts with arbitrary keys, ids, scores and
// members: Encode either refuses with ErrOutOfRange or round-trips through Decode; Decode either
// refuses with ErrBadScore/ErrBadMember or returns an entry that encodes back to its input.
func FuzzCodec(f *testing.F) {
	var layouts []*layout.Layout
	for _, src := range codecLayouts {
		l, err := layout.Parse("c.yaml", []byte(src))
		if err != nil {
			f.Fatal(err)
		}
		layouts = append(layouts, l)
	}
	f.Add(uint8(0), uint64(5), uint64(2), uint64(1<<63), uint64(1<<63|123456), "abc", 21.0, "0000000001::abc")
	f.Add(uint8(1), uint64(400), uint64(1), uint64(1<<63|1861891200), uint64(7), "42", 400.1290072179, "993:42")
	f.Add(uint8(2), uint64(0), uint64(1<<63), uint64(1<<63-1), uint64(math.MaxUint64), "z", 0.0, "0000000000000000000x")
	f.Add(uint8(0), uint64(math.MaxUint64), uint64(3), uint64(0), uint64(0), "", math.NaN(), "")
	f.Add(uint8(1), uint64(0), uint64(0), uint64(0), uint64(0), "01", math.Copysign(0, -1), "1000:01")
	f.Fuzz(func(t *testing.T, sel uint8, k0, k1, k2, k3 uint64, id string, score float64, member string) {
		l := layouts[int(sel)%len(layouts)]
		raw := []uint64{k0, k1, k2, k3}
		// As given (often out of range), and folded into range.
		for _, fold := range []bool{false, true} {
			e := layout.Entry{ID: id, Keys: make([]uint64, len(l.Fields))}
			for i, fd := range l.Fields {
				e.Keys[i] = raw[i]
				if fold && fd.Span() < math.MaxUint64 {
					e.Keys[i] = fd.Lo + raw[i]%(fd.Span()+1)
				}
			}
			s, m, err := l.Encode(e)
			if err != nil {
				if !errors.Is(err, rankgenrt.ErrOutOfRange) {
					t.Fatalf("Encode(%v) error %v is not ErrOutOfRange", e, err)
				}
				continue
			}
			back, err := l.Decode(s, m)
			if err != nil || !entryEqual(back, e) {
				t.Fatalf("Decode(Encode(%v)) = %v, %v", e, back, err)
			}
		}
		e, err := l.Decode(score, member)
		if err != nil {
			if !errors.Is(err, rankgenrt.ErrBadScore) && !errors.Is(err, rankgenrt.ErrBadMember) {
				t.Fatalf("Decode(%v, %q) error %v is neither ErrBadScore nor ErrBadMember", score, member, err)
			}
			return
		}
		s, m, err := l.Encode(e)
		if err != nil || s != score || m != member {
			t.Fatalf("Decode(%v, %q) accepted %v, which encodes to %v %q, %v", score, member, e, s, m, err)
		}
	})
}
