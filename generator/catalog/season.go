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

// Arguments of the rollup script.
const (
	ArgField  = "field"  // rollup: the 1-based index of the field it combines
	ArgHow    = "how"    // rollup: sum, max or min
	ArgTTL    = "ttl"    // rollup: the cached board's lifetime in milliseconds
	ArgListed = "listed" // rollup: the rollup's line in the list of a Seasons' cached rollups
)

// exactBits is the width below which Lua's doubles hold every integer exactly.
const exactBits = 53

// RollupFields are the fields of l that a rollup can combine across seasons: unsigned integer
// fields whose largest value stays below 2^53, so the scripts add them exactly in doubles. A
// layout with entry data has none: a rollup board would have to choose whose data it keeps.
func RollupFields(l *layout.Layout) []*layout.Field {
	if l.Season == nil || len(l.Data) > 0 {
		return nil
	}
	var out []*layout.Field
	for _, f := range l.Fields {
		if f.Kind == layout.Uint && f.Hi < 1<<exactBits {
			out = append(out, f)
		}
	}
	return out
}

// SeasonScripts are the scripts of a periodic layout that work across its seasons' boards
// rather than on one board: the rollup, when l has RollupFields. They are not board
// operations (no Board method performs them, so Ops does not list them); the library
// registers them after those of Scripts.
func SeasonScripts(l *layout.Layout) []Op {
	if len(RollupFields(l)) == 0 {
		return nil
	}
	return []Op{{Name: "rollup", Template: "rollup", Methods: []string{"Rollup"},
		Args: Args{Head: []string{ArgField, ArgHow, ArgTTL, ArgListed}}, Reply: ReplyCount,
		Title: "rollup: one field summed, or its max or min, per id over several seasons' boards, into a cached board.",
		Usage: []string{
			"KEYS: the rollup board, its index or meta key and the list of cached rollups (a sorted set",
			"of lines scored by their expiry in ms), then each season's board and its index or meta key,",
			"newest first. {field}: the field's 1-based index; {how}: sum, max or min; {ttl}: the cache's",
			"lifetime in ms; {listed}: the rollup's line in the list.",
			"An id's entry is its entry of the newest season that holds it, with the field combined over",
			"every season that holds it; a sum past the field's range refuses the call (RANKGEN_OVERFLOW),",
			"which writes nothing. A rollup board that exists is kept as it is (the cache). Returns 1",
			"when it built the rollup, 0 when it kept the cached one."}}}
}
