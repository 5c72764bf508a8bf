package catalog

import "github.com/rankgen/rankgen/generator/layout"

// FieldUpdate is one field update a change list can hold: AddPoints, MinLapMs, …
type FieldUpdate struct {
	Field  *layout.Field
	Update layout.Op
}

// Name is the update's script name, which is also its argument's name in the changes script:
// "add_points".
func (u FieldUpdate) Name() string { return UpdateName(u.Update, u.Field) }

// Method is the update's method name, which is also its change constructor's: "AddPoints".
func (u FieldUpdate) Method() string { return UpdateMethod(u.Update, u.Field) }

// FieldUpdates lists every update the fields of l declare, in field and declaration order:
// the changes a change list can hold, and the order the changes script applies them in.
func FieldUpdates(l *layout.Layout) []FieldUpdate {
	var out []FieldUpdate
	for _, f := range l.Fields {
		for _, u := range f.Updates {
			out = append(out, FieldUpdate{Field: f, Update: u})
		}
	}
	return out
}

// ChangesArgs is the argument layout of the changes script: the head of a field update's
// (write arguments, the client's clock, a periodic layout's season bounds), then per id the id
// and one argument per field update (FieldUpdates order, named by the update), "" for an
// update the id's change list lacks; on a layout with data fields, last the id's new data
// (its encoded Data), "" to leave the data as it is.
func ChangesArgs(l *layout.Layout) Args {
	each := []string{ArgID}
	for _, u := range FieldUpdates(l) {
		each = append(each, u.Name())
	}
	if l.HasData() {
		each = append(each, ArgData)
	}
	return Args{Head: UpdateArgsOf(l).Head, Each: each}
}

// changes is the change-list operation of a layout whose fields declare updates: Update
// applies several field updates to one id in one write, UpdateMany does so for many ids. One
// script serves both (a batch of one); none when no field declares an update.
func changes(l *layout.Layout) []Op {
	if len(FieldUpdates(l)) == 0 {
		return nil
	}
	reply := "P, member, the prior P and member ('' for none), or error text and ''s"
	usage := []string{expiryDoc, tokenDoc,
		"{clock}: the client's clock in Unix microseconds (client stamps); {each}: per id, the id,",
		"then the argument of each field update (as the field's own update script takes it), '' for none.",
		"An id without an entry starts from the zero entry, and its first min or max takes the given value.",
		"An id's updates are all applied or, when one fails, none. Returns, per id, " + reply + "."}
	if l.HasData() {
		usage = append(usage, "Last per id its new data (encoded Data), '' for none: stored when the id's list succeeds,",
			"even when no field moves.")
	}
	return []Op{{Name: "changes", Kind: Changes, Go: GoChangeList, Template: "changes", Body: BodyChangeList, Batch: true,
		Methods: []string{"Update", "UpdateMany"}, Args: ChangesArgs(l), Reply: ReplyItems, Model: "Changes",
		Sharding: ShardMerged, Data: DataWithEntries, Season: SeasonStamps, // its Args carry the data (ChangesArgs)
		Title: "changes: apply a list of field updates to each id, all or none per id, with one stamp.",
		Usage: usage}}
}

// Stamped are the fields of l stamped with the time of a write (stamp: server or client), in
// field order.
func Stamped(l *layout.Layout) []*layout.Field {
	var out []*layout.Field
	for _, f := range l.Fields {
		if f.Stamp != layout.StampNone {
			out = append(out, f)
		}
	}
	return out
}

// touch is the touch of a layout with a stamped field: Touch sets the stamped fields of one
// id's entry to now and leaves the others as they are (a play that scores nothing still counts
// as the latest), TouchMany those of many ids; an id without an entry gets the zero entry,
// stamped, as a field update that creates it. It takes a field update's head (the clock, a
// periodic layout's season) and one id per item.
func touch(l *layout.Layout) []Op {
	if len(Stamped(l)) == 0 {
		return nil
	}
	return []Op{{Name: "touch", Kind: Touch, Go: GoTouch, Template: "touch", Body: BodyStamps, Batch: true,
		Methods: []string{"Touch", "TouchMany"}, Args: Args{Head: UpdateArgsOf(l).Head, Each: []string{ArgID}}, Reply: ReplyItems, Model: "Touch",
		Sharding: ShardMerged, Data: DataWithEntries, Season: SeasonStamps,
		Title: "touch: set the stamped fields of each id's entry to now, the other fields as they are.",
		Usage: []string{expiryDoc, tokenDoc,
			"{clock}: the client's clock in Unix microseconds (client stamps); {each}: ids. An id without an",
			"entry gets the zero entry, stamped. Returns, per id, P, member, the prior P and member ('' for",
			"none), or error text and ''s (a clock outside a stamped field's range or the season)."}}}
}
