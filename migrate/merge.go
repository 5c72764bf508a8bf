package migrate

import (
	"fmt"
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
)

// Merge says what a copy built at Options.ToKey does with an id that KEY2 already holds —
// written there by new-layout code during a dual-write window — when the source holds it too.
type Merge string

const (
	// MergeBest keeps whichever of the two entries ranks first under the new layout's order,
	// as Best does (its data with it): right for boards whose entries only get better
	// (written with Best, Max<Field>, Min<Field>).
	MergeBest Merge = "best"
	// MergeNew keeps KEY2's entry: right for boards written with whole-entry Set (or
	// Set<Field>), where KEY2 holds the latest write and a value may go down.
	MergeNew Merge = "new"
	// mergeSame accepts an id KEY2 holds only when its entry is the one the copy writes (a
	// resumed copy): the rule for boards with add updates, whose totals cannot be merged.
	mergeSame Merge = "same"
)

// ParseMerge reads a -merge value: "best" or "new".
func ParseMerge(s string) (Merge, error) {
	switch m := Merge(s); m {
	case MergeBest, MergeNew:
		return m, nil
	}
	return "", fmt.Errorf("-merge must be best (keep the entry that ranks first, as Best does) or new (keep KEY2's entry, as a later Set would), not %q", s)
}

// addField is the first field, of either layout, that offers add updates ("" when none): a
// relative update of an id KEY2 did not hold yet started from zero there, so neither side
// holds its total.
func addField(p *Plan) string {
	for _, l := range []*layout.Layout{p.New, p.Old} {
		for _, f := range l.Fields {
			if slices.Contains(f.Updates, layout.OpAdd) {
				return f.Name
			}
		}
	}
	return ""
}

// setField is the first field of the new layout that offers set updates ("" when none).
func setField(l *layout.Layout) string {
	for _, f := range l.Fields {
		if slices.Contains(f.Updates, layout.OpSet) {
			return f.Name
		}
	}
	return ""
}

// mergeRule is the rule a copy at KEY2 follows: none is needed in place; a board with an add
// field can only take ids KEY2 holds as they are; else the rule asked for, or by default the
// one the new layout's updates imply: KEY2's entry when a field offers set (values may go
// down), the better entry when entries only get better.
func mergeRule(p *Plan, o Options) Merge {
	switch {
	case o.ToKey == "":
		return ""
	case addField(p) != "":
		return mergeSame
	case o.Merge != "":
		return o.Merge
	case setField(p.New) != "":
		return MergeNew
	}
	return MergeBest
}
