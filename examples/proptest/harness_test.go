package proptest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

// codec is one generated package's codec, seen through its exported functions. E is the
// package's Entry type, or any holding it.
type codec[E any] struct {
	schema      string // file name in examples/schemas
	fingerprint string
	encode      func(E) (float64, string, error)
	decode      func(float64, string) (E, error)
	compare     func(a, b E) int
	toGenerated func(*layout.Layout, layout.Entry) E // the generated Entry of an interpreted one
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

// examples are every example of internal/testkit/exampleboards, periodic ones included (their codec
// needs no season), their entries travelling as any.
var examples = func() []example {
	var out []example
	for _, ex := range append(exampleboards.All(), exampleboards.Periodic()...) {
		out = append(out, exampleOf(ex.Name, codec[any]{
			ex.Schema, ex.Fingerprint, ex.Codec.Encode, ex.Codec.Decode, ex.Codec.Compare,
			func(l *layout.Layout, e layout.Entry) any {
				p := reflect.New(ex.Codec.Entry())
				oracle.ToGenerated(l, e, p.Interface())
				return p.Elem().Interface()
			},
		}))
	}
	return out
}()

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
	for _, ex := range append(exampleboards.All(), exampleboards.Periodic()...) {
		listed[ex.Dir()] = true
	}
	for _, d := range dirs {
		if d.IsDir() && !listed[d.Name()] {
			t.Errorf("examples/generated/%s is not in the examples table of examples/proptest", d.Name())
		}
	}
}
