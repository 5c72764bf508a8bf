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

// TestConversions: a client converting entries between a layout and its previous one scales a
// time's units, turns numbers into bools (0 or 1) and back, and takes the rest as they are;
// where a time counts from the season's start in one layout and from the Unix epoch in the
// other (TimesAlike false), it does not convert at all.
func TestConversions(t *testing.T) {
	const head = "id: {name: ID, type: string, max_bytes: 8}\nseason: {every: day, starts: \"00:00\", zone: UTC, keep: 1}\nfields:\n"
	old := "package: old\n" + head + "  - {name: At, type: time, unit: s, epoch: season, bits: 17, order: asc}\n  - {name: Paid, type: uint, bits: 1, order: desc}\n"
	for _, c := range []struct {
		name, fields string
		at, paid     layout.Conversion
		alike        bool
	}{
		{"milliseconds from the season's start, a bool", "  - {name: At, type: time, unit: ms, epoch: season, bits: 27, order: asc}\n  - {name: Paid, type: bool, order: desc}\n",
			layout.Conversion{How: layout.Scale, N: 1000, D: 1}, layout.Conversion{How: layout.ToBool, N: 1, D: 1}, true},
		{"seconds from the Unix epoch", "  - {name: At, type: time, unit: s, epoch: 2020-01-01T00:00:00Z, bits: 32, order: asc}\n  - {name: Paid, type: uint, bits: 2, order: desc}\n",
			layout.Conversion{How: layout.Same, N: 1, D: 1}, layout.Conversion{How: layout.Same, N: 1, D: 1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := mustParse(t, "package: next\n"+head+c.fields+"previous:\n  schema: old.yaml\n")
			if err := layout.LoadPrevious(l, "next.yaml", func(string) ([]byte, error) { return []byte(old), nil }); err != nil {
				t.Fatal(err)
			}
			o := l.Previous.Layout
			if got := layout.ConversionOf(o.Fields[0], l.Fields[0]); got != c.at {
				t.Errorf("At: %+v, want %+v", got, c.at)
			}
			if got := layout.ConversionOf(o.Fields[1], l.Fields[1]); got != c.paid {
				t.Errorf("Paid: %+v, want %+v", got, c.paid)
			}
			if back := layout.ConversionOf(l.Fields[1], o.Fields[1]); c.paid.How == layout.ToBool && back.How != layout.FromBool {
				t.Errorf("Paid back: %+v, want FromBool", back)
			}
			if got := l.Previous.TimesAlike(l); got != c.alike {
				t.Errorf("TimesAlike: %v, want %v", got, c.alike)
			}
		})
	}
}
