package boardmodel

import (
	"fmt"
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Rollup is the model of a Seasons.Rollup: the board whose entries are, for each id of the
// seasons' models (newest first), its entry and its data of the newest season that holds it,
// with field replaced by the exact sum, the largest or the smallest of its values (signed for
// an int field) over the seasons that hold it. A sum outside the field's range is refused with
// ErrOverflow, as the script refuses it.
func Rollup(seasons []*Model, field int, op rankgenrt.RollupOp) (*Model, error) {
	out := New(seasons[0].Layout)
	out.Season = seasons[0].Season
	f := out.Layout.Fields[field]
	// Every value of a rollup field lies below 2^53 in magnitude: an int64 adds a season's worth
	// of them exactly.
	value := func(key uint64) int64 {
		if f.Signed() {
			return layout.IntOf(key)
		}
		return int64(key)
	}
	lo, hi := value(f.Lo), value(f.Hi)
	combined := map[string]int64{}
	for _, s := range seasons {
		for id, keys := range s.Entries {
			v := value(keys[field])
			switch _, seen := out.Entries[id]; {
			case !seen:
				out.Entries[id] = slices.Clone(keys)
				if d, ok := s.Data[id]; ok {
					out.Data[id] = slices.Clone(d)
				}
				combined[id] = v
			case op == rankgenrt.RollupSum:
				combined[id] += v
			case op == rankgenrt.RollupMax:
				combined[id] = max(combined[id], v)
			case op == rankgenrt.RollupMin:
				combined[id] = min(combined[id], v)
			}
		}
	}
	for id, v := range combined {
		if v < lo || v > hi {
			return nil, fmt.Errorf("%w: %s of %s: %d outside %d..%d", rankgenrt.ErrOverflow, f.Name, id, v, lo, hi)
		}
		key := uint64(v)
		if f.Signed() {
			key = layout.IntKey(v)
		}
		out.Entries[id][field] = key
	}
	return out, nil
}

// RemoveEverywhere is the model of Seasons.RemoveEverywhere: it removes ids from every model
// of groups (a group: one board's model, or the models of a sharded board's shards) and
// returns, per id, how many groups held it (an id given twice counts the first time).
func RemoveEverywhere(groups [][]*Model, ids []string) []int {
	held := make([]int, len(ids))
	for _, g := range groups {
		for i, id := range ids {
			in := 0
			for _, m := range g {
				if n, _ := m.Remove(id); n > 0 {
					in = 1
				}
			}
			held[i] += in
		}
	}
	return held
}
