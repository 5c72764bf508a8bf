package layout_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestBits62Bound: every P < 2^62 is a non-negative finite double whose order is P's order
// (subnormals included), and round-trips; the patterns from 2^62 up, negatives, -0, NaN and
// the infinities are refused.
func TestBits62Bound(t *testing.T) {
	l := mustParse(t, "package: p\nscore: bits62\nid: {name: ID}\nfields:\n  - {name: A, type: uint, bits: 31, order: desc}\n  - {name: B, type: uint, bits: 31, order: desc}\n")
	if l.ScoreRadix != 1<<62 || l.HasPrefix() {
		t.Fatalf("radix %d, prefix %v", l.ScoreRadix, l.HasPrefix())
	}
	edges := []uint64{0, 1, 2, 1<<52 - 1, 1 << 52, 1<<52 + 1, 1<<53 - 1, 1 << 53, 0x3FF0000000000000, 1<<62 - 2, 1<<62 - 1}
	rng := rand.New(rand.NewPCG(62, 1))
	for i := 0; i < 10000; i++ {
		edges = append(edges, rng.Uint64()>>(2+rng.IntN(62)))
	}
	for i, p := range edges {
		s := l.ScoreOf(p)
		if got, err := l.POf(s); err != nil || got != p {
			t.Fatalf("POf(ScoreOf(%#x)) = %#x, %v", p, got, err)
		}
		if math.IsNaN(s) || math.IsInf(s, 0) || math.Signbit(s) {
			t.Fatalf("ScoreOf(%#x) = %v", p, s)
		}
		q := edges[(i*7919+1)%len(edges)]
		if (p < q) != (s < l.ScoreOf(q)) || (p == q) != (s == l.ScoreOf(q)) {
			t.Fatalf("patterns %#x, %#x order differently as doubles %v, %v", p, q, s, l.ScoreOf(q))
		}
	}
	for _, s := range []float64{2, math.Float64frombits(1 << 62), math.MaxFloat64, -1, math.Copysign(0, -1), -math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if p, err := l.POf(s); !errors.Is(err, rankgenrt.ErrBadScore) {
			t.Errorf("POf(%v) = %#x, %v; want ErrBadScore", s, p, err)
		}
	}
}

// TestBits62Schemas: the capacity rules of score: bits62, refusals with numbers, and the
// suggestion an integer layout gets when its member prefix would fit a bits62 score.
func TestBits62Schemas(t *testing.T) {
	const head = "package: p\nscore: bits62\nid: {name: ID}\nfields:\n"
	spill := mustParse(t, head+"  - {name: A, type: uint, bits: 40, order: desc}\n  - {name: B, type: uint, bits: 22, order: desc}\n  - {name: C, type: uint, bits: 1, order: desc}\n")
	if spill.NumScore != 2 || spill.ScoreRadix != 1<<62 {
		t.Errorf("62 bits then 1: %d score fields, radix %d", spill.NumScore, spill.ScoreRadix)
	}
	wide := mustParse(t, head+"  - {name: A, type: uint, bits: 8, order: desc}\n  - {name: B, type: uint, bits: 50, order: desc}\n")
	if wide.NumScore != 1 {
		t.Errorf("a 50-bit second field should spill into the member, got %d score fields", wide.NumScore)
	}
	refused := map[string][]string{
		head + "  - {name: A, type: uint, bits: 40, order: desc}\n  - {name: B, type: uint, bits: 23, order: desc, in: score}\n": {"needs 63.0 bits", "a bits62 score holds 62.0 bits"},
		head + "  - {name: A, type: uint, bits: 46, order: desc}\n":                                                              {`field "A" needs 46.0 bits`, "at most 45 bits per field"},
		head + "  - {name: A, type: uint, bits: 4, order: desc}\n  - {name: B, type: uint, bits: 50, order: desc, in: score}\n":  {`field "B" needs 50.0 bits`},
		"package: p\nscore: bits63\nid: {name: ID}\nfields:\n  - {name: A, type: uint, bits: 4, order: desc}\n":                  {`did you mean "bits62"?`},
	}
	for src, want := range refused {
		_, err := layout.Parse("s.yaml", []byte(src))
		if err == nil {
			t.Errorf("accepted:\n%s", src)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) || !strings.Contains(err.Error(), "s.yaml:") {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
	}
	integer := mustParse(t, "package: p\nid: {name: ID}\nfields:\n  - {name: A, type: uint, bits: 40, order: desc}\n  - {name: B, type: uint, bits: 20, order: desc}\n")
	if !strings.Contains(integer.SuggestBits62(), `fits "score: bits62"`) {
		t.Errorf("no bits62 suggestion for a 60-bit integer layout:\n%s", integer.Table())
	}
	if s := mustParse(t, "package: p\nid: {name: ID}\nfields:\n  - {name: A, type: uint, bits: 40, order: desc}\n  - {name: B, type: uint, bits: 23, order: desc}\n").SuggestBits62(); s != "" {
		t.Errorf("63 bits suggested bits62: %s", s)
	}
	bits := mustParse(t, head+"  - {name: A, type: uint, bits: 40, order: desc}\n  - {name: B, type: uint, bits: 20, order: desc}\n")
	if bits.Fingerprint == integer.Fingerprint || !strings.Contains(bits.Table(), "ZINCRBY") {
		t.Errorf("bits62 fingerprint %s (integer %s); table:\n%s", bits.Fingerprint, integer.Fingerprint, bits.Table())
	}
}
