package oracle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// TestRandomSchemaParses checks that every random schema is valid, and that together they
// cover what RandomSchema promises.
func TestRandomSchemaParses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]int{}
	for i := 0; i < 1000; i++ {
		src := RandomSchema(rng, "board")
		l, err := layout.Parse("board.yaml", src)
		if err != nil {
			t.Fatalf("schema %d does not parse:\n%s\n%s", i, err, src)
		}
		if l.Package != "board" {
			t.Fatalf("schema %d: package %q", i, l.Package)
		}
		seen["score "+l.Score.String()]++
		seen["id "+l.IDType.String()]++
		seen["id "+l.IDType.String()+" order "+l.IDOrder.String()]++
		if l.HasMemberFields() {
			seen["member prefix"]++
			if l.Separator != ":" {
				seen["custom separator in member"]++
			}
		}
		if l.NumScore == 0 {
			seen["member only"]++
		}
		for _, f := range l.Fields {
			seen["kind "+f.Kind.String()]++
			seen["order "+f.Order.String()]++
			seen[fmt.Sprintf("radix kind %d place %s", f.RadixKind, f.Place)]++
			if f.Place == layout.InMember {
				seen["member "+f.Kind.String()]++
			}
			if len(f.Updates) > 0 {
				seen["updates"]++
			}
			if f.Stamp != layout.StampNone {
				seen["stamp"]++
			}
			if f.Overflow == layout.OverflowSaturate {
				seen["saturate"]++
			}
			if f.RadixKind == layout.RadixBits && f.Width == 64 {
				seen["bits 64"]++
			}
		}
	}
	want := []string{
		"score integer", "score decimal", "id string", "id uint64", "member prefix",
		"id string order desc", "id string order asc", "id uint64 order desc", "id uint64 order asc",
		"custom separator in member", "member only",
		"kind uint", "kind int", "kind bool", "kind enum", "kind time", "order asc", "order desc",
		"radix kind 0 place score", "radix kind 1 place score", "radix kind 2 place score",
		"radix kind 0 place member", "radix kind 1 place member", "radix kind 2 place member",
		"member uint", "member int", "member bool", "member enum", "member time",
		"updates", "stamp", "saturate", "bits 64",
	}
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("1000 random schemas never had %q", w)
		}
	}
	t.Logf("coverage: %v", seen)
}

// TestRandomSchemaDeterministic checks that the same rng state gives the same text.
func TestRandomSchemaDeterministic(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		a := RandomSchema(rand.New(rand.NewPCG(seed, 7)), "p")
		b := RandomSchema(rand.New(rand.NewPCG(seed, 7)), "p")
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: two runs differ:\n%s\n---\n%s", seed, a, b)
		}
	}
}
