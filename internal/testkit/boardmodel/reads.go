package boardmodel

import (
	"cmp"
	"math"
	"reflect"
	"slices"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// HasCase reports whether the model has the method that says what the operation's generated
// methods (catalog.Op.Methods) do: the one its catalogue row names (catalog.Op.Model). The
// board tests compare the two.
func HasCase(op catalog.Op) bool {
	_, ok := reflect.TypeFor[*Model]().MethodByName(op.Model)
	return op.Model != "" && ok
}

// Get is the entry of id, or ErrNotFound.
func (m *Model) Get(id string) (layout.Entry, error) {
	keys, ok := m.Entries[id]
	if !ok {
		return layout.Entry{}, rankgenrt.ErrNotFound
	}
	return layout.Entry{ID: id, Keys: keys, Data: m.dataOf(id)}, nil
}

// OffsetError is a board's error for a read at a negative offset.
func OffsetError(offset int64) error {
	return rankgenrt.IntRangeError("offset", offset, 0, math.MaxInt64)
}

// Page is up to limit entries from the 0-based position offset, best first (Top(n) is
// Page(0, n)); none for a limit below 1. offset is at least 0: a board refuses a negative one
// (OffsetError).
func (m *Model) Page(offset, limit int64) []layout.Entry {
	all := m.Sorted()
	if offset < 0 || limit <= 0 || offset >= int64(len(all)) {
		return nil
	}
	return all[offset:min(int64(len(all)), offset+min(limit, int64(len(all))))]
}

// Count is the number of entries.
func (m *Model) Count() int64 { return int64(len(m.Entries)) }

// Around is the entry of id with up to before entries ahead of it and after entries behind
// it (negative counts as 0), or ErrNotFound.
func (m *Model) Around(id string, before, after int64) ([]layout.Entry, error) {
	r, err := m.Rank(id)
	if err != nil {
		return nil, err
	}
	pos := r - 1
	all := m.Sorted()
	return all[max(0, pos-max(before, 0)):min(int64(len(all)), pos+max(after, 0)+1)], nil
}

// After is up to limit entries that rank after the cursor (score, member) as the sorted set
// orders pairs (score, then member bytes, both descending), best first; member "" is the top.
func (m *Model) After(score float64, member string, limit int64) ([]layout.Entry, error) {
	ps, err := m.Pairs()
	if err != nil {
		return nil, err
	}
	var out []layout.Entry
	for _, p := range ps {
		if int64(len(out)) >= limit {
			break
		}
		if member == "" || p.Score < score || p.Score == score && p.Member < member {
			out = append(out, p.Entry)
		}
	}
	return out, nil
}

// Range is, best first, the entries whose leading field's key lies in [lo, hi] (none when lo >
// hi), skipping offset of them and returning at most limit; bounds outside the field's range
// are ErrOutOfRange, and so is a negative offset (OffsetError).
func (m *Model) Range(lo, hi uint64, offset, limit int64) ([]layout.Entry, error) {
	lead := m.Layout.Fields[0]
	if err := lead.Check(lo); err != nil {
		return nil, err
	}
	if err := lead.Check(hi); err != nil {
		return nil, err
	}
	if offset < 0 {
		return nil, OffsetError(offset)
	}
	var band []layout.Entry
	for _, e := range m.Sorted() {
		if e.Keys[0] >= lo && e.Keys[0] <= hi {
			band = append(band, e)
		}
	}
	if limit <= 0 || offset >= int64(len(band)) {
		return nil, nil
	}
	return band[offset:min(int64(len(band)), offset+min(limit, int64(len(band))))], nil
}

// Competition is 1 + the number of entries whose leading field ranks before the entry of id
// ("1224" ranking), or ErrNotFound.
func (m *Model) Competition(id string) (int64, error) {
	keys, ok := m.Entries[id]
	if !ok {
		return 0, rankgenrt.ErrNotFound
	}
	lead := m.Layout.Fields[0]
	var ahead int64
	for _, other := range m.Entries {
		if lead.Digit(other[0]) > lead.Digit(keys[0]) {
			ahead++
		}
	}
	return ahead + 1, nil
}

// AroundFilled is Around with the window kept whole at the ends: what the top cuts from before
// is taken after, what the end cuts from after is taken before.
func (m *Model) AroundFilled(id string, before, after int64) ([]layout.Entry, error) {
	r, err := m.Rank(id)
	if err != nil {
		return nil, err
	}
	all := m.Sorted()
	n, pos := int64(len(all)), r-1
	before, after = max(before, 0), max(after, 0)
	start, stop := max(0, pos-before), pos+after // stop inclusive
	if start == 0 {
		stop = before + after
	} else if stop > n-1 {
		start = max(0, n-1-before-after)
	}
	return all[start:min(n, stop+1)], nil
}

// GetMany is the entry of each id, and whether it has one.
func (m *Model) GetMany(ids ...string) ([]layout.Entry, []bool) {
	es, found := make([]layout.Entry, len(ids)), make([]bool, len(ids))
	for i, id := range ids {
		if keys, ok := m.Entries[id]; ok {
			es[i], found[i] = layout.Entry{ID: id, Keys: keys, Data: m.dataOf(id)}, true
		}
	}
	return es, found
}

// RankMany is the 1-based rank of each id, 0 for an id without an entry.
func (m *Model) RankMany(ids ...string) []int64 {
	out := make([]int64, len(ids))
	for i, id := range ids {
		out[i], _ = m.Rank(id)
	}
	return out
}

// RankedMany is the entry and 1-based rank of each id that has an entry, best first, each id
// once.
func (m *Model) RankedMany(ids ...string) []Ranked {
	var out []Ranked
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if r, _ := m.Rank(id); r > 0 {
			out = append(out, Ranked{Rank: r, Entry: layout.Entry{ID: id, Keys: m.Entries[id], Data: m.dataOf(id)}})
		}
	}
	slices.SortFunc(out, func(a, b Ranked) int { return cmp.Compare(a.Rank, b.Rank) })
	return out
}

// PageFromEnd is up to limit entries ending offset entries before the end, best first
// (Bottom(n) is PageFromEnd(0, n)), with the 1-based rank of the first; none for a limit
// below 1, OffsetError for a negative offset.
func (m *Model) PageFromEnd(offset, limit int64) (first int64, es []layout.Entry, err error) {
	if offset < 0 {
		return 0, nil, OffsetError(offset)
	}
	all := m.Sorted()
	n := int64(len(all))
	if limit <= 0 || offset >= n {
		return 0, nil, nil
	}
	stop := n - offset // exclusive
	start := max(0, stop-limit)
	return start + 1, all[start:stop], nil
}

// Standing is the 1-based rank of id and the number of entries, or ErrNotFound. Percentile is
// 100·(count − rank)/count; PageOf(size) is (rank − 1)/size + 1.
func (m *Model) Standing(id string) (rank, count int64, err error) {
	rank, err = m.Rank(id)
	return rank, m.Count(), err
}

// CompetitionTuple is 1 + the number of entries whose score fields, taken together, rank
// before those of the entry of id (member fields do not count), or ErrNotFound.
func (m *Model) CompetitionTuple(id string) (int64, error) {
	keys, ok := m.Entries[id]
	if !ok {
		return 0, rankgenrt.ErrNotFound
	}
	var ahead int64
	for _, other := range m.Entries {
		for i, f := range m.Layout.Fields[:m.Layout.NumScore] {
			if d, e := f.Digit(other[i]), f.Digit(keys[i]); d != e {
				if d > e {
					ahead++
				}
				break
			}
		}
	}
	return ahead + 1, nil
}

// Dense is 1 + the number of distinct leading-field values that rank before the entry of id
// ("1223" ranking), or ErrNotFound.
func (m *Model) Dense(id string) (int64, error) {
	keys, ok := m.Entries[id]
	if !ok {
		return 0, rankgenrt.ErrNotFound
	}
	lead := m.Layout.Fields[0]
	ahead := map[uint64]bool{}
	for _, other := range m.Entries {
		if d := lead.Digit(other[0]); d > lead.Digit(keys[0]) {
			ahead[d] = true
		}
	}
	return int64(len(ahead)) + 1, nil
}

// CountRange is the number of entries whose leading field's key lies in [lo, hi] (0 when lo >
// hi); bounds outside the field's range are ErrOutOfRange.
func (m *Model) CountRange(lo, hi uint64) (int64, error) {
	band, err := m.Range(lo, hi, 0, int64(len(m.Entries))+1)
	return int64(len(band)), err
}
