package catalog

import (
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
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

// RollupFields are the fields of l that a rollup can combine across seasons: the integer
// fields (uint and int) whose values, and the span of their range, stay below 2^53 in
// magnitude, so that the scripts compare them, and add them (in two exact parts), without
// rounding. RollupRefusal says why any other field is left out.
func RollupFields(l *layout.Layout) []*layout.Field {
	if l.Season == nil {
		return nil
	}
	var out []*layout.Field
	for _, f := range l.Fields {
		if RollupRefusal(f) == "" {
			out = append(out, f)
		}
	}
	return out
}

// RollupRefusal says why a rollup cannot combine f across seasons, or "" when it can.
func RollupRefusal(f *layout.Field) string {
	const exact = 1 << exactBits
	switch f.Kind {
	case layout.Time:
		return "a time: a sum of instants is no instant, and a season-anchored offset counts from its own season's start"
	case layout.Bool, layout.Enum:
		return "a " + f.Kind.String() + " holds no amount to add"
	case layout.Uint:
		if f.Hi >= exact {
			return "its values reach 2^53, past the integers a double holds exactly"
		}
	case layout.Int:
		if f.MinInt() <= -exact || f.MaxInt() >= exact || f.Span() >= exact {
			return "its values, or its range's span, reach 2^53 in magnitude, past the integers a double holds exactly"
		}
	}
	return ""
}

// RemoveEverywhere is the name of the script that removes ids from several boards of a
// periodic layout's family at once (SeasonScripts).
const RemoveEverywhere = rankgenrt.OpRemoveEverywhere

// RollupScript is the name of the rollup script (SeasonScripts).
const RollupScript = rankgenrt.OpRollup

// SeasonScripts are the scripts of a periodic layout that work across its seasons' boards
// rather than on one board: the rollup, when l has RollupFields, and the removal of ids from
// many boards in one call. They are not board operations (no Board method performs them, so
// Ops does not list them); the library registers them after those of Scripts.
func SeasonScripts(l *layout.Layout) []Op {
	if l.Season == nil {
		return nil
	}
	var out []Op
	if len(RollupFields(l)) > 0 {
		out = append(out, Op{Name: RollupScript, Template: "rollup", Methods: []string{"Rollup"},
			Args: Args{Head: []string{ArgField, ArgHow, ArgTTL, ArgListed}}, Reply: ReplyCount,
			Title: "rollup: one field summed, or its max or min, per id over several seasons' boards, into a cached board.",
			Usage: []string{
				"KEYS: the rollup board, its index or meta key and the list of cached rollups (a sorted set",
				"of lines scored by their expiry in ms), on a layout with data the rollup's data hash, then",
				"each season's board and its index or meta key (and its data hash), newest first. {field}: the",
				"field's 1-based index; {how}: sum, max or min; {ttl}: the cache's lifetime in ms; {listed}:",
				"the rollup's line in the list.",
				"An id's entry (and its data) is its entry of the newest season that holds it, with the field",
				"combined over every season that holds it; a season's board is read even without its index or",
				"meta key. A sum outside the field's range (RANKGEN_OVERFLOW), another layout's board, or a",
				"list key of another type (WRONGTYPE) refuses the call, which writes nothing. A rollup board",
				"that exists is kept as it is (the cache). Returns 1 when it built the rollup, 0 when it kept",
				"the cached one."}})
	}
	out = append(out, Op{Name: RemoveEverywhere, Template: "remove_everywhere", Batch: true, OnlyDeletes: true,
		Methods: []string{"RemoveEverywhere"}, Args: Args{Head: WriteArgs(), Each: []string{ArgID}}, Reply: ReplyRemovals,
		Title: "remove_everywhere: delete entries by id from several boards of the layout at once.",
		Usage: []string{expiryDoc, tokenDoc,
			"KEYS: the keys of each board in turn, as a Board's write scripts take them; the call's token",
			"is recorded with the first board. {each}: ids. Every board is checked before anything is",
			"removed: a refusal (another layout, a migration's fence) removes nothing anywhere.",
			"Returns, board after board, 1 per id the board held (an id given twice: 1 the first time)",
			"else 0."}})
	return out
}
