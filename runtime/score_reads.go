package runtime

import "context"

// The library functions every layout with score fields has beside BoardFunctions', by
// operation name (the catalogue names its rows with these constants).
const (
	OpBand        = "band"
	OpCompetition = "competition"
	OpDense       = "dense"
	OpAroundScore = "around_score"
)

// ScoreReads is what a generated Board holds beside Board on a layout with score fields: the
// reads of a band of the score's leading fields (a Band, which the package's <Field>Between
// builds) and the competition and dense ranks, the same on every such layout but for its
// types. A generated Board embeds it, so these are the generated Board's methods too.
type ScoreReads[E any, I ID, R, W, X any] struct {
	core                     *Core
	dec                      *Decoding[E, I, R, W, X]
	band, competition, dense *Function
	// Where the layout replaces another (NewScoreReadsReplacing): board, whose key's layout
	// decides which view reads (route), the reads of its view in the previous layout, and
	// which ranks that view answers exactly.
	board    *Board[E, I, R, W, X]
	previous *ScoreReads[E, I, R, W, X]
	routes   ScoreRoutes
}

// ScoreRoutes says which ranks a board still in the layout a layout replaces answers exactly
// as a board in that layout would (the generator decides, from the two layouts); the others
// are refused there with ErrNotInPreviousLayout until the board is migrated.
type ScoreRoutes struct {
	// Lead: the previous layout's leading score field is the one this layout's comes from,
	// an integer in the same order (CompetitionRank, DenseRank).
	Lead bool
	// Tuple: every score field is, one to one and in order, of the same order and kind
	// (CompetitionRankTuple).
	Tuple bool
}

// NewScoreReads returns the score reads of the board whose machinery is core.
func NewScoreReads[E any, I ID, R, W, X any](core *Core, dec *Decoding[E, I, R, W, X]) *ScoreReads[E, I, R, W, X] {
	lib := core.spec.Library
	return &ScoreReads[E, I, R, W, X]{core: core, dec: dec,
		band: lib.Function(OpBand), competition: lib.Function(OpCompetition), dense: lib.Function(OpDense)}
}

// NewScoreReadsReplacing returns the score reads of b, a board of a layout that replaces
// another (NewBoardReplacing): each read runs on the view of the layout b's key holds, as b's
// methods do; on the previous layout's, a band's form in that layout (BandWithPrevious) and
// the ranks routes names, and the others are refused (ErrNotInPreviousLayout).
func NewScoreReadsReplacing[E any, I ID, R, W, X any](b *Board[E, I, R, W, X], routes ScoreRoutes) *ScoreReads[E, I, R, W, X] {
	s := NewScoreReads(b.core, b.dec)
	if b.previous != nil {
		s.board, s.previous, s.routes = b, NewScoreReads(b.previous.core, b.previous.dec), routes
	}
	return s
}

// routeScores runs current, a read on s's own layout, or previous on the reads of the view in
// the layout it replaces, as s's key holds one or the other (Route).
func routeScores[E any, I ID, R, W, X, T any](s *ScoreReads[E, I, R, W, X], current func() (T, error), previous func(p *ScoreReads[E, I, R, W, X]) (T, error)) (T, error) {
	if s.board == nil {
		return current()
	}
	return Route(s.board, current, func() (T, error) { return previous(s.previous) })
}

// refused is the error of read, a rank the previous layout's view cannot answer exactly.
func (s *ScoreReads[E, I, R, W, X]) refused(read, why string) error {
	return NotInPreviousRead(s.core.spec.Fingerprint, read, why)
}

// Between returns, best first with their ranks, up to limit entries of the band, skipping
// offset of them: Between(ctx, <Lead>Between(lo, hi), 0, 10) is the best ten whose leading
// field lies in [lo, hi]. The band is a band of scores: one script counts the entries ahead of
// it (ZCOUNT) and reads the page (ZRANGE … BYSCORE REV LIMIT), O(log n + offset + limit). A
// band built from a value out of range is an error matching ErrOutOfRange, as is a negative
// offset. On a board still in the layout this one replaces, the band's form in that layout is
// read, and a band without one is refused (ErrNotInPreviousLayout).
func (s *ScoreReads[E, I, R, W, X]) Between(ctx context.Context, band Band[E], offset, limit int64) ([]R, error) {
	return routeScores(s, func() ([]R, error) {
		return s.dec.Between(ctx, s.core, s.band, band, offset, limit)
	}, func(p *ScoreReads[E, I, R, W, X]) ([]R, error) {
		pb, err := band.inPrevious(p.core.spec.Fingerprint)
		if err != nil {
			return nil, err
		}
		return p.Between(ctx, pb, offset, limit)
	})
}

// CountBetween returns the number of entries in the band, with one ZCOUNT in O(log n). A band
// built from a value out of range is an error matching ErrOutOfRange. On a board still in the
// layout this one replaces, as Between.
func (s *ScoreReads[E, I, R, W, X]) CountBetween(ctx context.Context, band Band[E]) (int64, error) {
	return routeScores(s, func() (int64, error) {
		return s.dec.CountBetween(ctx, s.core, band)
	}, func(p *ScoreReads[E, I, R, W, X]) (int64, error) {
		pb, err := band.inPrevious(p.core.spec.Fingerprint)
		if err != nil {
			return 0, err
		}
		return p.CountBetween(ctx, pb)
	})
}

// CompetitionRank returns 1 + the number of entries with a better leading score field than the
// entry of id ("1224" ranking: equal values share a rank), counted with ZCOUNT in O(log n), or
// an error matching ErrNotFound. On a board still in the layout this one replaces, that
// layout's rank where ScoreRoutes.Lead says it is the same, else ErrNotInPreviousLayout.
func (s *ScoreReads[E, I, R, W, X]) CompetitionRank(ctx context.Context, id I) (int64, error) {
	return routeScores(s, func() (int64, error) {
		return s.dec.Position(ctx, s.core, s.competition, id, 1)
	}, func(p *ScoreReads[E, I, R, W, X]) (int64, error) {
		if !s.routes.Lead {
			return 0, p.refused("CompetitionRank", "its leading score field is not this layout's, in the same order")
		}
		return p.CompetitionRank(ctx, id)
	})
}

// CompetitionRankTuple is CompetitionRank on the whole score: 1 + the number of entries whose
// score fields rank before the entry of id; entries equal on the score fields share a rank
// (fields in the member do not count). Or an error matching ErrNotFound. On a board still in
// the layout this one replaces, as CompetitionRank, where ScoreRoutes.Tuple says.
func (s *ScoreReads[E, I, R, W, X]) CompetitionRankTuple(ctx context.Context, id I) (int64, error) {
	return routeScores(s, func() (int64, error) {
		return s.dec.Position(ctx, s.core, s.competition, id, s.core.spec.ScoreFields)
	}, func(p *ScoreReads[E, I, R, W, X]) (int64, error) {
		if !s.routes.Tuple {
			return 0, p.refused("CompetitionRankTuple", "its score fields are not this layout's, one to one, in the same order")
		}
		return p.CompetitionRankTuple(ctx, id)
	})
}

// DenseRank returns 1 + the number of distinct leading score field values ahead of the entry
// of id ("1223" ranking: equal values share a rank and the next value takes the next rank), or
// an error matching ErrNotFound. The script steps once per distinct value ahead, O(log n) each.
// On a board still in the layout this one replaces, as CompetitionRank.
func (s *ScoreReads[E, I, R, W, X]) DenseRank(ctx context.Context, id I) (int64, error) {
	return routeScores(s, func() (int64, error) {
		return s.dec.Position(ctx, s.core, s.dense, id)
	}, func(p *ScoreReads[E, I, R, W, X]) (int64, error) {
		if !s.routes.Lead {
			return 0, p.refused("DenseRank", "its leading score field is not this layout's, in the same order")
		}
		return p.DenseRank(ctx, id)
	})
}

// ShardedScoreReads is ScoreReads on a ShardedBoard, which a generated ShardedBoard embeds on a
// layout with score fields: the shards' answers merged or added up, so that ranks and counts
// are those of one Board holding the same entries. DenseRank is not merged (the distinct values
// ahead are a union across shards, not a sum): read it from the shards.
type ShardedScoreReads[E any, I ID, R, W, X any] struct {
	sb          *ShardedBoard[E, I, R, W, X]
	shards      []*ScoreReads[E, I, R, W, X]
	band, place *Function
	// previous is the shards' reads in the layout theirs replaces, where they have one, and
	// that layout's around_score function: the reads run there on shards that still hold it
	// (shardedRoute).
	previous      *ScoreReads[E, I, R, W, X]
	previousPlace *Function
}

// NewShardedScoreReads returns the score reads of sb, whose shards' score reads are shards, in
// shard order.
func NewShardedScoreReads[E any, I ID, R, W, X any](sb *ShardedBoard[E, I, R, W, X], shards []*ScoreReads[E, I, R, W, X]) *ShardedScoreReads[E, I, R, W, X] {
	lib := shards[0].core.spec.Library
	s := &ShardedScoreReads[E, I, R, W, X]{sb: sb, shards: shards, band: lib.Function(OpBand), place: lib.Function(OpAroundScore)}
	if p := sb.previous; p != nil {
		s.previous = NewScoreReads(p.shards[0].core, p.dec)
		s.previousPlace = p.shards[0].core.spec.Library.Function(OpAroundScore)
	}
	return s
}

// Between returns, best first with their ranks, up to limit entries of the band, skipping
// offset of them, as ScoreReads.Between does. Every shard runs the band script in one
// pipelined round: it counts its entries ahead of the band (their sum is the band's first
// position) and reads its first offset + limit entries of the band, which merge by the
// layout's order. The cost grows with offset: O(shards × (log n + offset + limit)).
//
// On shards still in the layout theirs replaces, the band's form in that layout is read, as
// ScoreReads.Between reads it.
func (s *ShardedScoreReads[E, I, R, W, X]) Between(ctx context.Context, band Band[E], offset, limit int64) ([]R, error) {
	return shardedRoute(s.sb, func(sb *ShardedBoard[E, I, R, W, X]) ([]R, error) {
		if sb == s.sb {
			return ShardBetween(ctx, sb, s.band, band, offset, limit)
		}
		pb, err := band.inPrevious(s.previous.core.spec.Fingerprint)
		if err != nil {
			return nil, err
		}
		return ShardBetween(ctx, sb, s.previous.band, pb, offset, limit)
	})
}

// CountBetween returns the number of entries in the band: CountBetween on every shard (one
// ZCOUNT each, O(log n)), all at once, added up.
func (s *ShardedScoreReads[E, I, R, W, X]) CountBetween(ctx context.Context, band Band[E]) (int64, error) {
	return SumShards(ctx, len(s.shards), func(ctx context.Context, i int) (int64, error) {
		return s.shards[i].CountBetween(ctx, band)
	})
}

// CompetitionRank returns 1 + the number of entries of all shards with a better leading score
// field than the entry of id, as ScoreReads.CompetitionRank does, or an error matching
// ErrNotFound: the entry from its shard, then every shard's count of the entries ahead of the
// place before its value (one script each), pipelined, added up. On shards still in the
// layout theirs replaces, at that place's form there (the generated previousTiedPlace), or
// ErrNotInPreviousLayout where it has none.
func (s *ShardedScoreReads[E, I, R, W, X]) CompetitionRank(ctx context.Context, id I) (int64, error) {
	return s.competition(ctx, id, 1)
}

// CompetitionRankTuple is CompetitionRank on the whole score, as ScoreReads.CompetitionRankTuple
// is: 1 + the number of entries of all shards whose score fields rank before the entry of id.
func (s *ShardedScoreReads[E, I, R, W, X]) CompetitionRankTuple(ctx context.Context, id I) (int64, error) {
	return s.competition(ctx, id, s.shards[0].core.spec.ScoreFields)
}

// competition counts, on every shard, the entries ahead of the place before every entry equal
// to the entry of id on its first tied score fields (Decoding.TiedPlace), and adds 1. On shards
// still in the layout theirs replaces, the place is that layout's (the view's TiedPlace, which
// refuses a tie it has no exact place of).
func (s *ShardedScoreReads[E, I, R, W, X]) competition(ctx context.Context, id I, tied int) (int64, error) {
	return shardedRoute(s.sb, func(sb *ShardedBoard[E, I, R, W, X]) (int64, error) {
		script := s.place
		if sb != s.sb {
			script = s.previousPlace
		}
		if sb.dec.TiedPlace == nil {
			return 0, s.previous.refused("a ShardedBoard's competition rank", "the place of its tie is not known in that layout")
		}
		e, err := sb.Get(ctx, id)
		if err != nil {
			return 0, err
		}
		score, member, err := sb.dec.TiedPlace(e, tied)
		if err != nil {
			return 0, err
		}
		pos, _, _, err := ShardPlace(ctx, sb, script, score, member, 0, 0)
		if err != nil {
			return 0, err
		}
		return pos + 1, nil
	})
}

// ShardAroundScore is AroundScore on the ShardedBoard whose score reads are s: every shard
// runs the around_score function at the place in one pipelined round; of the window, a shard
// holds at most its last before entries ahead of the place and its first after from it, which
// is what it reads; the merge by the layout's order holds the window, and the shards'
// positions of the place add up to its position. place is the place in the board's layout;
// previousPlace, where the layout replaces another, the same place in that one (or why it has
// none), read on shards that still hold that layout (nil: the layout replaces none).
func ShardAroundScore[E any, I ID, R, W, X any](ctx context.Context, s *ShardedScoreReads[E, I, R, W, X], place, previousPlace func() (float64, string, error), before, after int64) ([]R, error) {
	return shardedRoute(s.sb, func(sb *ShardedBoard[E, I, R, W, X]) ([]R, error) {
		script, at := s.place, place
		if sb != s.sb {
			if previousPlace == nil {
				return nil, s.previous.refused("AroundScore", "no place in that layout was given")
			}
			script, at = s.previousPlace, previousPlace
		}
		score, member, err := at()
		if err != nil {
			return nil, err
		}
		before, after = max(before, 0), max(after, 0)
		pos, ahead, merged, err := ShardPlace(ctx, sb, script, score, member, before, after)
		if err != nil {
			return nil, err
		}
		take := int(min(before, pos)) // entries ahead of the place in the window
		hi := ahead + int(min(after, int64(len(merged)-ahead)))
		return sb.dec.Renumber(merged[ahead-take:hi], pos-int64(take)), nil
	})
}
