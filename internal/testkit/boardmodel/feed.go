package boardmodel

import (
	"math/big"
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
)

// Feed applies one submission of e to a feed's boards (boards: their models, in the feed's
// order) as the feed's script documents it, all or nothing: the first board takes e by its
// rule; a best board keeps whichever of its entry and e ranks first, a set board takes e; an
// add board, when the first board took e, adds what the field gained there (e's value minus
// the entry it replaced, or minus the zero entry's) to its own entry (or the zero entry's),
// and takes e with that total; a gain of zero leaves it as it was. It reports per board whether
// it wrote; an add that overflows the field refuses the whole submission.
func Feed(f *layout.Feed, boards []*Model, e layout.Entry) ([]bool, error) {
	l := boards[0].Layout
	if err := boards[0].Check(e); err != nil {
		return nil, err
	}
	was, had := boards[0].Entries[e.ID]
	if !had {
		was = Zero(l)
	}
	next := make([][]uint64, len(boards))
	for i, b := range f.Boards {
		m := boards[i]
		switch b.Rule {
		case layout.FeedSet:
			next[i] = e.Keys
		case layout.FeedBest:
			if cur, ok := m.Entries[e.ID]; !ok || l.Compare(e, layout.Entry{ID: e.ID, Keys: cur}) < 0 {
				next[i] = e.Keys
			}
		case layout.FeedAdd:
			k := slices.Index(l.Fields, b.Field)
			gain := new(big.Int).Sub(Value(b.Field, e.Keys[k]), Value(b.Field, was[k]))
			if next[0] == nil || gain.Sign() == 0 {
				continue
			}
			base, ok := m.Entries[e.ID]
			if !ok {
				base = Zero(l)
			}
			d, err := m.next(base, ok, Update{Field: k, Op: layout.OpAdd, Delta: gain.Int64()})
			if err != nil {
				return nil, err
			}
			next[i] = slices.Clone(e.Keys)
			next[i][k] = d
		}
	}
	changed := make([]bool, len(boards))
	for i, keys := range next {
		if keys != nil {
			boards[i].Entries[e.ID] = slices.Clone(keys)
			boards[i].storeData(e)
			changed[i] = true
		}
	}
	return changed, nil
}
