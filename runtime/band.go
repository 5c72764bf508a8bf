package runtime

import "context"

// Band is a band of a board's order: the entries whose leading score fields equal given
// values and whose next score field lies between two values, which are the scores of P in
// [lo, hi). A generated package builds them (<Field>Between), over its Entry, so that a band
// of one layout is no band of another's. The zero Band is empty; a value out of range is
// carried to the read that takes the band.
type Band[E any] struct {
	lo, hi uint64
	err    error // the first value out of range
	// previous is the same band in the layout this one replaces (its P), where that layout
	// has one exactly (BandWithPrevious): a board still in that layout reads it.
	previous *Band[E]
}

// bandErr is the band of a constructor that met a value out of range: every read of it
// returns err.
func bandErr[E any](err error) Band[E] { return Band[E]{err: err} }

// Err is the error of a band built from a value out of its field's range, or nil.
func (b Band[E]) Err() error { return b.err }

// BandWithPrevious is b carrying p, the same entries' band in the layout b's replaces (that
// layout's package builds it, from the bounds clamped to its field's range; its zero Band
// where it holds none of them): a board still in that layout reads p for b. A band without
// one is refused there (ErrNotInPreviousLayout), never read approximately.
func BandWithPrevious[E, P any](b Band[E], p Band[P]) Band[E] {
	b.previous = &Band[E]{lo: p.lo, hi: p.hi, err: p.err}
	return b
}

// inPrevious is b as a board in the layout b's replaces (fingerprint layout) reads it: its
// own error first, as in its own layout; an empty band is empty in every layout.
func (b Band[E]) inPrevious(layout string) (Band[E], error) {
	switch {
	case b.err != nil:
		return b, nil
	case b.lo >= b.hi:
		return Band[E]{}, nil
	case b.previous == nil:
		return b, NotInPreviousRead(layout, "the band", "the previous layout has no band of exactly its entries")
	}
	return *b.previous, nil
}

// ScorePrefix is the leading score fields fixed so far (a generated <Field>Prefix holds one):
// their scores are those of P in [p, end). The zero ScorePrefix fixes none.
type ScorePrefix struct {
	p, end uint64
	err    error // the first value out of range
	// previous is the same place in the layout this one replaces, where that layout has one
	// exactly (WithPrevious): AroundScore on a board still in that layout reads around it.
	previous *ScorePrefix
}

// prefixErr is the prefix of a constructor that met a value out of range.
func prefixErr(err error) ScorePrefix { return ScorePrefix{err: err} }

// Err is the first value out of range met building s, or nil.
func (s ScorePrefix) Err() error { return s.err }

// Fix narrows s to the next field's digit d, of the given weight. The narrower prefix has no
// place in the previous layout of its own (only a leading field's is known to have one).
func (s ScorePrefix) Fix(d, weight uint64) ScorePrefix {
	return ScorePrefix{p: s.p + d*weight, end: s.p + (d+1)*weight}
}

// WithPrevious is s carrying p, the same place in the layout s's replaces (PreviousLeadPlace).
func (s ScorePrefix) WithPrevious(p ScorePrefix) ScorePrefix {
	s.previous = &p
	return s
}

// PreviousPlace is Place in the layout s's replaces (fingerprint layout; scoreOfP: that
// layout's score of P): s's own error first, as in its own layout, and an error matching
// ErrNotInPreviousLayout where that layout has no such place exactly.
func (s ScorePrefix) PreviousPlace(layout string, scoreOfP func(uint64) float64) (float64, string, error) {
	if s.err != nil {
		return 0, "", s.err
	}
	if s.previous == nil {
		return 0, "", NotInPreviousRead(layout, "the place", "the previous layout has no place exactly before the same entries")
	}
	return s.previous.Place(scoreOfP)
}

// PreviousLeadPlace is the place before every entry whose leading score field is v, in the
// layout that field's layout replaces, where the same field ranges over [min, max] in the
// same order (ascending: less ranks first) and fix is that layout's <Field>Is: fix(v) within
// the range; past the end that ranks first, fix of that end (no entry ranks ahead of either);
// past the other end, the place after every entry.
func PreviousLeadPlace[To, From Integer](v From, min, max To, ascending bool, fix func(To) ScorePrefix) ScorePrefix {
	below, above := less(v, min), less(max, v)
	switch {
	case below && ascending:
		return fix(min)
	case above && !ascending:
		return fix(max)
	case below || above:
		return ScorePrefix{} // its place, the lowest score before any member, follows every entry
	}
	return fix(To(v))
}

// Place is where s lies in the board's order, as a read of the entries around it takes it: the
// score of the lowest entry ahead of it (scoreOfP: the layout's score of P), before any member.
func (s ScorePrefix) Place(scoreOfP func(uint64) float64) (float64, string, error) {
	return scoreOfP(s.end), "", s.err
}

// bandOf is the band of the next field's digits dlo…dhi, of the given weight, under s: empty
// when dlo > dhi.
func bandOf[E any](s ScorePrefix, dlo, dhi, weight uint64) Band[E] {
	if dlo > dhi {
		return Band[E]{}
	}
	return Band[E]{lo: s.p + dlo*weight, hi: s.p + (dhi+1)*weight}
}

// BandBetween is the band of the next score field's values lo…hi under s: digit is the
// field's digit of a value (the package's digitOf<Field>), weight its weight in P, ascending
// says the field ranks less first, so that its digits order against its values. It is empty
// when lo ranks after hi; the first value out of range, s's own included, is its error.
func BandBetween[E, V any](s ScorePrefix, digit func(V) (uint64, error), lo, hi V, weight uint64, ascending bool) Band[E] {
	if s.err != nil {
		return bandErr[E](s.err)
	}
	dlo, err := digit(lo)
	if err != nil {
		return bandErr[E](err)
	}
	dhi, err := digit(hi)
	if err != nil {
		return bandErr[E](err)
	}
	if ascending {
		dlo, dhi = dhi, dlo
	}
	return bandOf[E](s, dlo, dhi, weight)
}

// FixValue narrows s to the next score field's value v (digit and weight as BandBetween
// takes them); the first value out of range, s's own included, is its error.
func FixValue[V any](s ScorePrefix, digit func(V) (uint64, error), v V, weight uint64) ScorePrefix {
	if s.err != nil {
		return s
	}
	d, err := digit(v)
	if err != nil {
		return prefixErr(err)
	}
	return s.Fix(d, weight)
}

// ShardBetween is Between on sb's shards: every shard runs script, the band function, from 0
// to offset + limit in one pipelined round; the shards' counts ahead of the band add up to its
// first position, and their pages merge by the layout's order. O(shards × (log n + offset +
// limit)).
func ShardBetween[E any, I ID, R, W, X any](ctx context.Context, sb *ShardedBoard[E, I, R, W, X], script *Function, band Band[E], offset, limit int64) ([]R, error) {
	if band.err != nil {
		return nil, band.err
	}
	n, err := pageDepth(offset, limit)
	if n == 0 || err != nil || band.lo >= band.hi {
		return nil, err
	}
	ahead, parts, err := ShardWindows(ctx, sb, script, FormatScore(sb.dec.ScoreOfP(band.lo)), FormatScore(sb.dec.ScoreOfP(band.hi)), 0, n)
	if err != nil {
		return nil, err
	}
	merged := MergeSorted(parts, n, sb.dec.CompareRanked)
	return sb.dec.Renumber(merged[min(offset, int64(len(merged))):], Sum(ahead)+offset), nil
}
