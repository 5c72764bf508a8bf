package boardmodel

import (
	"github.com/rankgen/rankgen/generator/layout"
)

// BandSpec is a band of the model: the entries whose first len(Eq) score fields have the keys Eq and whose
// next score field's key lies in [Lo, Hi] (value order; empty when Lo > Hi).
type BandSpec struct {
	Eq     []uint64
	Lo, Hi uint64
}

// check reports the first key out of its field's range, in the order a band is built: the
// fixed fields, then lo, then hi.
func (m *Model) check(s BandSpec) error {
	for i, k := range s.Eq {
		if err := m.Layout.Fields[i].Check(k); err != nil {
			return err
		}
	}
	next := m.Layout.Fields[len(s.Eq)]
	if err := next.Check(s.Lo); err != nil {
		return err
	}
	return next.Check(s.Hi)
}

func (s BandSpec) contains(keys []uint64) bool {
	for i, k := range s.Eq {
		if keys[i] != k {
			return false
		}
	}
	k := keys[len(s.Eq)]
	return k >= s.Lo && k <= s.Hi
}

// Band is, best first, up to limit entries of the band, skipping offset of them, with the
// 1-based rank of the first (Between); none for a limit below 1, OffsetError for a negative
// offset. A key out of its field's range is ErrOutOfRange.
func (m *Model) Band(s BandSpec, offset, limit int64) (first int64, es []layout.Entry, err error) {
	if err := m.check(s); err != nil {
		return 0, nil, err
	}
	if offset < 0 {
		return 0, nil, OffsetError(offset)
	}
	all := m.Sorted()
	ahead := int64(-1)
	var band []layout.Entry
	for i, e := range all {
		if s.contains(e.Keys) {
			if ahead < 0 {
				ahead = int64(i)
			}
			band = append(band, e)
		}
	}
	if limit <= 0 || offset >= int64(len(band)) {
		return 0, nil, nil
	}
	return ahead + offset + 1, band[offset:min(int64(len(band)), offset+min(limit, int64(len(band))))], nil
}

// CountBand is the number of entries in the band (CountBetween).
func (m *Model) CountBand(s BandSpec) (int64, error) {
	_, es, err := m.Band(s, 0, int64(len(m.Entries))+1)
	return int64(len(es)), err
}

// AroundScore is the entries around the place before every entry whose first len(prefix)
// score fields have those keys: up to before entries that rank ahead of it and up to after
// entries from it on, with the 1-based rank of the first. A key out of range is ErrOutOfRange.
func (m *Model) AroundScore(prefix []uint64, before, after int64) (first int64, es []layout.Entry, err error) {
	for i, k := range prefix {
		if err := m.Layout.Fields[i].Check(k); err != nil {
			return 0, nil, err
		}
	}
	all := m.Sorted()
	var pos int64
	for _, e := range all {
		if m.prefixAhead(e.Keys, prefix) {
			pos++
		}
	}
	return m.window(all, pos, before, after)
}

// prefixAhead reports whether keys rank before every entry with the given leading keys.
func (m *Model) prefixAhead(keys, prefix []uint64) bool {
	for i, k := range prefix {
		f := m.Layout.Fields[i]
		if d, e := f.Digit(keys[i]), f.Digit(k); d != e {
			return d > e
		}
	}
	return false
}

// AroundEntry is the entries around where e would rank (itself included when it is stored as
// given): up to before entries that rank ahead of it and up to after from it on, with the
// 1-based rank of the first. An entry Encode refuses is its error.
func (m *Model) AroundEntry(e layout.Entry, before, after int64) (first int64, es []layout.Entry, err error) {
	score, member, err := m.Layout.Encode(e)
	if err != nil {
		return 0, nil, err
	}
	ps, err := m.Pairs()
	if err != nil {
		return 0, nil, err
	}
	var pos int64
	all := make([]layout.Entry, len(ps))
	for i, p := range ps {
		all[i] = p.Entry
		if p.Score > score || p.Score == score && p.Member > member {
			pos++
		}
	}
	return m.window(all, pos, before, after)
}

// window is all[pos−before : pos+after], clipped to the board, with the 1-based rank of the first.
func (m *Model) window(all []layout.Entry, pos, before, after int64) (int64, []layout.Entry, error) {
	start := max(0, pos-max(before, 0))
	stop := min(int64(len(all)), pos+max(after, 0))
	if stop <= start {
		return 0, nil, nil
	}
	return start + 1, all[start:stop], nil
}
