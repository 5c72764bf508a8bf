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
	// (written with Best, Max<Field>, Min<Field>). A field the mapping defaults is not the
	// old entry's to claim: the old entry takes KEY2's place only when it ranks first on the
	// fields it has (see Plan.rival), so that KEY's copy of a dual write, which carries the
	// default, never beats KEY2's copy, which carries the real value.
	MergeBest Merge = "best"
	// MergeNew keeps KEY2's entry: right for boards written with whole-entry Set (or
	// Set<Field>), where KEY2 holds the latest write and a value may go down.
	MergeNew Merge = "new"
	// mergeSame accepts an id KEY2 holds only when its entry is the one the copy writes (a
	// resumed copy): the rule for boards with add updates, whose totals cannot be merged, and
	// for best where a defaulted field ranks ahead of one the old layout has (unmergeable).
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
// down), the better entry when entries only get better, unless a defaulted field ranks ahead
// of a field the old layout has, where the better entry cannot be told (unmergeable) and ids
// KEY2 holds are taken only as they are.
func mergeRule(p *Plan, o Options) Merge {
	switch {
	case o.ToKey == "":
		return ""
	case addField(p) != "":
		return mergeSame
	case o.Merge == MergeNew, o.Merge == "" && setField(p.New) != "":
		return MergeNew
	case p.defaultAhead() >= 0:
		return mergeSame
	}
	return MergeBest
}

// unmergeable says why ids both boards hold cannot be merged under mergeSame, and what to do.
func (m *migration) unmergeable() (why, fix string) {
	if f := addField(m.p); f != "" {
		return fmt.Sprintf("field %s takes add updates: an id written on both boards has part of its adds on each, which no rule can merge", f),
			fmt.Sprintf("stop the writers, delete %s and rerun (dual writing does not suit boards with add)", m.k.dest)
	}
	d := m.p.defaultAhead()
	def, next := m.p.New.Fields[d].Name, m.p.New.Fields[m.p.mappedAfter(d)].Name
	return fmt.Sprintf("field %s, given by -default, ranks ahead of field %s, which the old schema has: an entry of %s may be the copy of a dual write that %s holds with its real %s, or an earlier entry with a better %s, and nothing tells which", def, next, m.k.src, m.k.dest, def, next),
		fmt.Sprintf("stop the dual writes, delete %s and migrate %s in place while its writers write (they are fenced meanwhile, none lost), or give %s a place after every field of the old schema", m.k.dest, m.k.src, def)
}
