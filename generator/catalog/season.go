package catalog

import (
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
)

// A periodic board holds one season. Its scripts guard the season themselves, atomically with
// the write, whatever the caller checked: field updates and change lists take the season's
// bounds (UpdateArgsOf) to measure and check stamps and season-anchored values, and on a layout
// with a season-anchored field set and best take them too, to refuse an entry whose offset lies
// at or past the season's end. A layout without a season: block has exactly the operations it
// would have without this file.

// SeasonFields are the season-anchored fields of l (epoch: season), in field order.
func SeasonFields(l *layout.Layout) []*layout.Field {
	var out []*layout.Field
	for _, f := range l.Fields {
		if f.Season {
			out = append(out, f)
		}
	}
	return out
}

// EntriesTakeSeason reports whether the set and best scripts of l take the season's bounds:
// l is periodic and has a season-anchored field.
func EntriesTakeSeason(l *layout.Layout) bool {
	return l.Season != nil && len(SeasonFields(l)) > 0
}

var seasonEntriesDoc = []string{"{season_from}, {season_until}: the board's season in Unix microseconds. An entry whose",
	"season-anchored offset lies at or past the season's end refuses the call, which writes nothing."}

// withSeason gives the operations of l that take them (SeasonEntries: set and best) the
// season's bounds, after the write arguments, when EntriesTakeSeason. Those that stamp
// (SeasonStamps) have them from UpdateArgsOf.
func withSeason(l *layout.Layout, ops []Op) []Op {
	if !EntriesTakeSeason(l) {
		return ops
	}
	for i := range ops {
		op := &ops[i]
		if op.Season == SeasonEntries {
			op.Args.Head = append(slices.Clip(op.Args.Head), ArgFrom, ArgUntil)
			op.Usage = slices.Insert(slices.Clone(op.Usage), 2, seasonEntriesDoc...) // after the write arguments' lines
		}
	}
	return ops
}
