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
	ReplyRankedData  Reply = "ranked_data"  // {positions, entries_data}
	ReplyPriorsData  Reply = "priors_data"  // per entry, 1 (changed) or 0, then its id's previous score, member and data
)

// dataDoc is the usage line a read whose reply carries data adds (DataInReply).
const dataDoc = "Data: each entry's data (its hash field in KEYS[5], '' where it has none) comes with it."

// entryDataDoc is the usage line of a write that takes each entry's data (DataArgument).
const entryDataDoc = "Each pair is followed by the entry's data (its encoded Data), stored when the entry is; each previous entry by its data."

// withData turns the operations of l into those of a board with data fields, as each one's
// row says (Op.Data).
func withData(l *layout.Layout, ops []Op) []Op {
	if !l.HasData() {
		return ops
	}
	for i := range ops {
		op := &ops[i]
		switch op.Data {
		case DataArgument:
			op.Args.Each = append(slices.Clip(op.Args.Each), ArgData)
			if r := op.Reply.WithData(); r != ReplyNone {
				op.Reply = r // the entries it replaced, with their data
			}
			op.Usage = append(slices.Clip(op.Usage), op.DataDoc)
		case DataInReply:
			op.Reply = op.Reply.WithData()
			op.Usage = append(slices.Clip(op.Usage), op.DataDoc)
		case DataScripted:
			f := op.DataForm
			op.Template, op.Args, op.Reply, op.Title, op.Usage = f.Template, f.Args, f.Reply, f.Title, f.Usage
		}
	}
	return ops
}
