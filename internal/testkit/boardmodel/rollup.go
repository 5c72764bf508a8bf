package boardmodel

import (
	"fmt"
	"slices"

	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Rollup is the model of a Seasons.Rollup: the board whose entries are, for each id of the
// seasons' models (newest first), its entry of the newest season that holds it with field
// replaced by the sum, the largest or the smallest of its keys (the field's values: a rollup
// combines unsigned fields) over the seasons that hold it. A sum past the field's range is
// refused with ErrOverflow, as the script refuses it.
func Rollup(seasons []*Model, field int, op rankgenrt.RollupOp) (*Model, error) {
	out := New(seasons[0].Layout)
	out.Season = seasons[0].Season
	f := out.Layout.Fields[field]
	sums := map[string]uint64{}
	for _, s := range seasons {
		for id, keys := range s.Entries {
			v := keys[field]
			switch _, seen := out.Entries[id]; {
			case !seen:
				out.Entries[id] = slices.Clone(keys)
				sums[id] = v
				continue
			case op == rankgenrt.RollupSum:
				if v > f.Hi-sums[id] {
					return nil, fmt.Errorf("%w: %s of %s past %d", rankgenrt.ErrOverflow, f.Name, id, f.Hi)
				}
				sums[id] += v
			case op == rankgenrt.RollupMax:
				sums[id] = max(sums[id], v)
			case op == rankgenrt.RollupMin:
				sums[id] = min(sums[id], v)
			}
		}
	}
	for id, v := range sums {
		out.Entries[id][field] = v
	}
	return out, nil
}
