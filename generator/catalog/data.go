package catalog

import (
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
)

// Entry data (layout.Data) rides with the entries: Set and Best take each entry's data as a
// third argument beside its score and member, and every read that returns entries returns
// their data in the same reply, so reads that are one Redis command on other boards (Get of a
// bare id, Top and Page, the leading field's range) run a script on a board with data. Field
// updates leave data as it is; a change list may replace it (ChangesArgs: the data last per
// id). A layout without data fields has exactly the operations it would have without this
// file.

// The reply shapes of reads on a board with data fields.
const (
	ReplyWindowData  Reply = "window_data"  // {position of the first entry, {member, score, ...}, {data, ...}}
	ReplyEntryData   Reply = "entry_data"   // {score, member, data}, or nil when the id has no entry
	ReplyEntriesData Reply = "entries_data" // per id, score, member and data ('' each when absent)
)

const dataDoc = "Data: each entry's data (its hash field in KEYS[5], '' where it has none) comes with it."

// withData turns the operations of l into those of a board with data fields.
func withData(l *layout.Layout, ops []Op) []Op {
	if !l.HasData() {
		return ops
	}
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case Set, Best:
			op.Args.Each = append(slices.Clip(op.Args.Each), ArgData)
			op.Usage = append(slices.Clip(op.Usage), "Each pair is followed by the entry's data (its encoded Data), stored when the entry is.")
		case Get:
			op.Template, op.Args, op.Reply = "get", Args{Head: []string{ArgID}}, ReplyEntryData
			op.Title = "get: an entry's score, member and data by id."
			op.Usage = []string{"{id}: the id. Returns {score, member, data}, or nil when the id has no entry."}
		case Page:
			op.Template, op.Args, op.Reply = "page", Args{Head: []string{ArgOffset, ArgLimit}}, ReplyWindowData
			op.Title = "page: entries by position, best first, with their data."
			op.Usage = []string{"{offset}: the 0-based position of the first entry; {limit}: the page size.",
				"Returns {offset, {member, score, ...}, {data, ...}}."}
		case Range:
			op.Template, op.Args, op.Reply = "range", Args{Head: []string{ArgLo, ArgHi, ArgOffset, ArgLimit}}, ReplyWindowData
			op.Title = "range: the entries whose scores lie between {lo} and {hi}, best first, with their data."
			op.Usage = []string{"{lo}, {hi}: score bounds as ZRANGE BYSCORE takes them; {offset}, {limit}: as its LIMIT.",
				"Returns {0, {member, score, ...}, {data, ...}}."}
		case Around, After, Bottom, Band, AroundScore:
			op.Reply = ReplyWindowData
			op.Usage = append(slices.Clip(op.Usage), dataDoc)
		case GetMany:
			op.Reply = ReplyEntriesData
			op.Usage = append(slices.Clip(op.Usage), "With data: score, member and data per id, all '' when the id has no entry.")
		}
	}
	return ops
}
