package luaemit

import (
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// The season guards of a periodic layout's write scripts: a stamp whose clock reads outside the
// board's season, and a season-anchored offset at or past its end (an entry's in set and best,
// an update's value in the field updates and change lists), are refused by the script itself,
// atomically with the write, before anything is written.

// seasonOffset sets in g, the accessors of the season-anchored field f, what its offset check
// needs: the unit and the range in units (offsets from 0; an asc field's digit is Max - offset).
func seasonOffset(g *field, f *layout.Field) {
	g.Season = true
	g.Div = map[layout.Unit]string{layout.Second: "1000000", layout.Milli: "1000", layout.Micro: "1"}[f.Unit]
	g.UnitName = f.Unit.String()
	g.MinUnits, g.MaxUnits = "0", num(uint64(f.MaxInt()))
}

// seasonGuards sets in d which season guards the script of op makes on layout l: set and best
// check every entry's season-anchored offsets, a field update or change list the values of the
// season-anchored fields it updates; scripts that stamp read the bounds for their stamps. The
// offsets lie below 2^53 units (the schema's check), so the scripts compare them exactly.
func seasonGuards(l *layout.Layout, op catalog.Op, d *data) {
	if l.Season == nil {
		return
	}
	var checked []*field
	switch op.Season {
	case catalog.SeasonEntries:
		if catalog.EntriesTakeSeason(l) {
			for _, f := range catalog.SeasonFields(l) {
				g := newField(l, f)
				d.SeasonFields = append(d.SeasonFields, g)
				d.SeasonInScore = d.SeasonInScore || g.InScore
			}
			checked = d.SeasonFields
		}
	case catalog.SeasonStamps: // a field update's field, or each of a change list's
		if d.Target != nil {
			checked = append(checked, d.Target)
		}
		for _, c := range d.Changes {
			checked = append(checked, c.Target)
		}
	}
	for _, g := range checked {
		if g.Season {
			d.SeasonOffsets = true
		}
	}
	d.SeasonBounds = d.SeasonOffsets || len(d.Stamps) > 0
}
