package luaemit

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

const seasonHead = "package: p\nid: {name: ID}\nseason: {every: week, starts: monday 00:00, zone: UTC, keep: 1}\n"

// TestSeasonGuardsWhereNeeded: the whole-entry writes' scripts (set, best, insert) take the season and check entries only
// on a periodic layout with a season-anchored field; a field update (through its table's apply
// function, in the head) checks the value of a season-anchored field it updates, and no other.
func TestSeasonGuardsWhereNeeded(t *testing.T) {
	for _, tc := range []struct {
		fields string
		guard  map[string]bool // script name → checks offsets (offset_closed)
	}{
		{"  - {name: At, type: time, unit: s, epoch: season, bits: 20, order: asc, update: [min]}\n  - {name: Points, type: uint, bits: 20, order: desc, update: [add]}\n",
			map[string]bool{"set": true, "best": true, "insert": true, "min_at": true, "min_at_many": true, "changes": true, "add_points": false, "add_points_many": false}},
		{"  - {name: Points, type: uint, bits: 20, order: desc, update: [add]}\n",
			map[string]bool{"set": false, "best": false, "insert": false, "add_points": false, "changes": false}},
	} {
		l, err := layout.Parse("p.yaml", []byte(seasonHead+"fields:\n"+tc.fields))
		if err != nil {
			t.Fatal(err)
		}
		lib, err := Render(l)
		if err != nil {
			t.Fatal(err)
		}
		entries := map[string]bool{} // the whole-entry writes: set, best, insert
		for _, op := range catalog.Ops(l) {
			entries[op.Name] = op.Season == catalog.SeasonEntries
		}
		seen := 0
		for _, s := range lib.Functions {
			want, ok := tc.guard[s.Op]
			if !ok {
				continue
			}
			seen++
			if got := checksOffsets(lib.Source, s.Body); got != want {
				t.Errorf("%q: script %s checks offsets: %v; want %v", tc.fields, s.Op, got, want)
			}
			if takes := strings.Contains(s.Body, "season_from"); entries[s.Op] && takes != want {
				t.Errorf("%q: script %s takes the season: %v; want %v", tc.fields, s.Op, takes, want)
			}
		}
		if seen != len(tc.guard) {
			t.Errorf("%q: %d of the scripts %v rendered", tc.fields, seen, tc.guard)
		}
	}
}

// checksOffsets reports whether a function's body checks season-anchored offsets itself, or
// through the apply function of an update's table it names (F.<update>, whose apply function
// the library's head defines as F.apply_<update>).
func checksOffsets(src, body string) bool {
	if strings.Contains(body, "offset_closed") {
		return true
	}
	for _, m := range regexp.MustCompile(`\bF\.(\w+)`).FindAllStringSubmatch(body, -1) {
		at := strings.Index(src, "function F.apply_"+m[1]+"(")
		if at < 0 {
			continue
		}
		fn, _, _ := strings.Cut(src[at:], "\nend\n")
		if strings.Contains(fn, "offset_closed") {
			return true
		}
	}
	return false
}
