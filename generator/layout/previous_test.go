package layout_test

import (
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// TestScoreRoutes: a layout ranks by all its score fields on a board in its previous layout
// only where the score fields correspond one to one, in order, of the same orders and integer
// or enum kinds (an enum's values in the same order); LeadRoutes needs only the leading one.
func TestScoreRoutes(t *testing.T) {
	const old = `package: old
id: {name: ID, type: string, max_bytes: 8}
fields:
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Tier, type: enum, values: [bronze, gold], order: desc}
`
	for _, c := range []struct {
		name, fields, mapping string
		lead, tuple           bool
	}{
		{"the same fields, wider", `
  - {name: Points, type: uint, bits: 30, order: desc}
  - {name: Tier, type: enum, values: [bronze, gold], order: desc}`, "", true, true},
		{"an enum value added between", `
  - {name: Points, type: int, bits: 30, order: desc}
  - {name: Tier, type: enum, values: [bronze, silver, gold], order: desc}`, "", true, true},
		{"an enum's values reordered", `
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Tier, type: enum, values: [gold, bronze], order: desc}`, "", true, false},
		{"a field's order turned", `
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Tier, type: enum, values: [bronze, gold], order: asc}`, "", true, false},
		{"a score field added", `
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Tier, type: enum, values: [bronze, gold], order: desc}
  - {name: Laps, type: uint, bits: 8, order: desc}`, "  default: {Laps: 0}\n", true, false},
		{"a score field dropped", `
  - {name: Points, type: uint, bits: 20, order: desc}`, "  drop: [Tier]\n", true, false},
		{"a score field renamed", `
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Rank, type: enum, values: [bronze, gold], order: desc}`, "  rename: {Tier: Rank}\n", true, true},
		{"the leading field's order turned", `
  - {name: Points, type: uint, bits: 20, order: asc}
  - {name: Tier, type: enum, values: [bronze, gold], order: desc}`, "", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := mustParse(t, "package: next\nid: {name: ID, type: string, max_bytes: 8}\nfields:"+c.fields+"\nprevious:\n  schema: old.yaml\n"+c.mapping)
			if err := layout.LoadPrevious(l, "next.yaml", func(string) ([]byte, error) { return []byte(old), nil }); err != nil {
				t.Fatal(err)
			}
			if _, lead := l.Previous.LeadRoutes(l); lead != c.lead {
				t.Errorf("LeadRoutes: %v, want %v", lead, c.lead)
			}
			if tuple := l.Previous.ScoreRoutes(l); tuple != c.tuple {
				t.Errorf("ScoreRoutes: %v, want %v", tuple, c.tuple)
			}
		})
	}
}
