package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// TestRollupFields: a rollup combines the uint and int fields whose values and span stay below
// 2^53 in magnitude, on a layout with data too, and says why it leaves each other field out;
// every periodic layout has remove_everywhere, with the write arguments first.
func TestRollupFields(t *testing.T) {
	src := `package: fam
id: {name: ID}
season: {every: day, starts: "00:00", zone: UTC, keep: 6}
fields:
  - {name: Cents, type: int, min: -1000000, max: 1000000, order: desc}
  - {name: Edge, type: int, min: -4503599627370496, max: 4503599627370495, order: asc, in: member}
  - {name: Wide, type: int, min: -4503599627370497, max: 4503599627370495, order: asc, in: member}
  - {name: Count, type: uint, bits: 20, order: desc}
  - {name: Huge, type: uint, bits: 54, order: desc, in: member}
  - {name: Vip, type: bool, order: desc}
  - {name: At, type: time, unit: s, epoch: season, bits: 17, order: asc}
data:
  - {name: Note, type: string, max_bytes: 8}
`
	l, err := layout.Parse("fam.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range RollupFields(l) {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "Cents Edge Count" {
		t.Errorf("RollupFields = %s; want Cents Edge Count", got)
	}
	for _, f := range l.Fields {
		why := RollupRefusal(f)
		if left := !strings.Contains(" Cents Edge Count ", " "+f.Name+" "); left != (why != "") {
			t.Errorf("%s: RollupRefusal = %q", f.Name, why)
		}
	}
	ops := SeasonScripts(l)
	if len(ops) != 2 || ops[0].Name != RollupScript || ops[1].Name != RemoveEverywhere || !slices.Equal(ops[1].Args.Head, WriteArgs()) {
		t.Errorf("SeasonScripts = %+v; want the rollup and remove_everywhere, which takes the write arguments", ops)
	}
}
