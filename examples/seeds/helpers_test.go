package seeds_test

import (
	"cmp"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
)

// load parses examples/schemas/<name>.yaml.
func load(t testing.TB, name string) *layout.Layout {
	t.Helper()
	path := filepath.Join("..", "schemas", name+".yaml")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.Parse(filepath.Base(path), src)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return l
}

// seedExamples are the examples of internal/testkit/exampleboards that reproduce a seed.
func seedExamples() []exampleboards.Example {
	var out []exampleboards.Example
	for _, ex := range exampleboards.All() {
		if ex.Seed() {
			out = append(out, ex)
		}
	}
	return out
}

// parseFile parses a schema kept in testdata (schemas that must be refused live there, not in
// examples/schemas, whose every file must generate).
func parseFile(t testing.TB, name string) (*layout.Layout, error) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return layout.Parse(name, src)
}

// sec is the key of a time field in seconds; msec in milliseconds.
func sec(unix int64) uint64  { return layout.IntKey(unix) }
func msec(unix int64) uint64 { return layout.IntKey(unix) }

func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// pair is what Redis stores for one entry.
type pair struct {
	Score  float64
	Member string
}

// revOrder sorts pairs as ZREVRANGE reads them: higher score first, equal scores by member
// bytes, larger first (docs/redis-facts.md R6).
func revOrder(ps []pair) []pair {
	ps = slices.Clone(ps)
	slices.SortStableFunc(ps, func(a, b pair) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.Member, a.Member)
	})
	return ps
}

// encodeAll encodes entries with the interpreted codec.
func encodeAll(t testing.TB, l *layout.Layout, es []layout.Entry) []pair {
	t.Helper()
	ps := make([]pair, len(es))
	for i, e := range es {
		s, m, err := l.Encode(e)
		if err != nil {
			t.Fatalf("Encode(%v): %v", e, err)
		}
		ps[i] = pair{s, m}
	}
	return ps
}

// checkRoundTrip decodes every pair back to its entry.
func checkRoundTrip(t testing.TB, l *layout.Layout, es []layout.Entry) {
	t.Helper()
	for _, e := range es {
		s, m, err := l.Encode(e)
		if err != nil {
			t.Fatalf("Encode(%v): %v", e, err)
		}
		got, err := l.Decode(s, m)
		if err != nil {
			t.Fatalf("Decode(%v, %q): %v", s, m, err)
		}
		if got.ID != e.ID || !slices.Equal(got.Keys, e.Keys) {
			t.Fatalf("Decode(Encode(%v)) = %v", e, got)
		}
	}
}

// sortedIDs sorts entries with l.Compare (the order Redis reads) and returns their ids.
func sortedIDs(l *layout.Layout, es []layout.Entry) []string {
	es = slices.Clone(es)
	slices.SortStableFunc(es, l.Compare)
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

func rng(t testing.TB) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("rand seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0x5eed))
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
