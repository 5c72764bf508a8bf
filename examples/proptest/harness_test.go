package proptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002binary"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/seed002keysort"
	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/examples/generated/seed004shift"
	"github.com/rankgen/rankgen/generator/layout"
)

// codec is one generated package's codec, seen through its exported functions. E is the
// package's Entry type.
type codec[E any] struct {
	schema      string // file name in examples/schemas
	fingerprint string
	encode      func(E) (float64, string, error)
	decode      func(float64, string) (E, error)
	compare     func(a, b E) int
}

// example is a codec with its type erased, so that one table lists every example.
type example struct {
	name   string
	schema string
	run    func(t *testing.T, n int)
	fuzz   func(t *testing.T, score float64, member string)
}

func exampleOf[E any](name string, c codec[E]) example {
	return example{
		name:   name,
		schema: c.schema,
		run:    func(t *testing.T, n int) { checkCodec(t, loadLayout(t, c.schema), c, n) },
		fuzz: func(t *testing.T, score float64, member string) {
			fuzzDecode(t, loadLayout(t, c.schema), c, score, member)
		},
	}
}

var examples = []example{
	exampleOf("arena", codec[arena.Entry]{"arena.yaml", arena.Fingerprint, arena.Entry.Encode, arena.Decode, arena.Compare}),
	exampleOf("racing", codec[racing.Entry]{"racing.yaml", racing.Fingerprint, racing.Entry.Encode, racing.Decode, racing.Compare}),
	exampleOf("season", codec[season.Entry]{"season.yaml", season.Fingerprint, season.Entry.Encode, season.Decode, season.Compare}),
	exampleOf("seed000member", codec[seed000member.Entry]{"seed000_member.yaml", seed000member.Fingerprint, seed000member.Entry.Encode, seed000member.Decode, seed000member.Compare}),
	exampleOf("seed001zranking", codec[seed001zranking.Entry]{"seed001_zranking.yaml", seed001zranking.Fingerprint, seed001zranking.Entry.Encode, seed001zranking.Decode, seed001zranking.Compare}),
	exampleOf("seed002binary", codec[seed002binary.Entry]{"seed002_binary.yaml", seed002binary.Fingerprint, seed002binary.Entry.Encode, seed002binary.Decode, seed002binary.Compare}),
	exampleOf("seed002decimal", codec[seed002decimal.Entry]{"seed002_decimal.yaml", seed002decimal.Fingerprint, seed002decimal.Entry.Encode, seed002decimal.Decode, seed002decimal.Compare}),
	exampleOf("seed002keysort", codec[seed002keysort.Entry]{"seed002_keysort.yaml", seed002keysort.Fingerprint, seed002keysort.Entry.Encode, seed002keysort.Decode, seed002keysort.Compare}),
	exampleOf("seed003scaling", codec[seed003scaling.Entry]{"seed003_scaling.yaml", seed003scaling.Fingerprint, seed003scaling.Entry.Encode, seed003scaling.Decode, seed003scaling.Compare}),
	exampleOf("seed004shift", codec[seed004shift.Entry]{"seed004_shift.yaml", seed004shift.Fingerprint, seed004shift.Entry.Encode, seed004shift.Decode, seed004shift.Compare}),
}

var layouts = map[string]*layout.Layout{}

func loadLayout(t testing.TB, schema string) *layout.Layout {
	t.Helper()
	if l, ok := layouts[schema]; ok {
		return l
	}
	src, err := os.ReadFile(filepath.Join("..", "schemas", schema))
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.Parse(schema, src)
	if err != nil {
		t.Fatal(err)
	}
	layouts[schema] = l
	return l
}

// TestEveryExampleListed fails when examples/generated gains a package this test does not
// cover.
func TestEveryExampleListed(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("..", "generated"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, ex := range examples {
		listed[ex.name] = true
	}
	for _, d := range dirs {
		if d.IsDir() && !listed[d.Name()] {
			t.Errorf("examples/generated/%s is not in the examples table of examples/proptest", d.Name())
		}
	}
}
