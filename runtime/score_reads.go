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
}

// NewScoreReads returns the score reads of the board whose machinery is core.
func NewScoreReads[E any, I ID, R, W, X any](core *Core, dec *Decoding[E, I, R, W, X]) *ScoreReads[E, I, R, W, X] {
	lib := core.spec.Library
	return &ScoreReads[E, I, R, W, X]{core: core, dec: dec,
		band: lib.Function(OpBand), competition: lib.Function(OpCompetition), dense: lib.Function(OpDense)}
}

// Between returns, best first with their ranks, up to limit entries of the band, skipping
// offset of them: Between(ctx, <Lead>Between(lo, hi), 0, 10) is the best ten whose leading
// field lies in [lo, hi]. The band is a band of scores: one script counts the entries ahead of
// it (ZCOUNT) and reads the page (ZRANGE … BYSCORE REV LIMIT), O(log n + offset + limit). A
// band built from a value out of range is an error matching ErrOutOfRange, as is a negative
// offset.
func (s *ScoreReads[E, I, R, W, X]) Between(ctx context.Context, band Band[E], offset, limit int64) ([]R, error) {
	return s.dec.Between(ctx, s.core, s.band, band, offset, limit)
}

// CountBetween returns the number of entries in the band, with one ZCOUNT in O(log n). A band
// built from a value out of range is an error matching ErrOutOfRange.
func (s *ScoreReads[E, I, R, W, X]) CountBetween(ctx context.Context, band Band[E]) (int64, error) {
	return s.dec.CountBetween(ctx, s.core, band)
}

// CompetitionRank returns 1 + the number of entries with a better leading score field than the
// entry of id ("1224" ranking: equal values share a rank), counted with ZCOUNT in O(log n), or
// an error matching ErrNotFound.
func (s *ScoreReads[E, I, R, W, X]) CompetitionRank(ctx context.Context, id I) (int64, error) {
	return s.dec.Position(ctx, s.core, s.competition, id, 1)
}

// CompetitionRankTuple is CompetitionRank on the whole score: 1 + the number of entries whose
// score fields rank before the entry of id; entries equal on the score fields share a rank
// (fields in the member do not count). Or an error matching ErrNotFound.
func (s *ScoreReads[E, I, R, W, X]) CompetitionRankTuple(ctx context.Context, id I) (int64, error) {
	return s.dec.Position(ctx, s.core, s.competition, id, s.core.spec.ScoreFields)
}

// DenseRank returns 1 + the number of distinct leading score field values ahead of the entry
// of id ("1223" ranking: equal values share a rank and the next value takes the next rank), or
// an error matching ErrNotFound. The script steps once per distinct value ahead, O(log n) each.
func (s *ScoreReads[E, I, R, W, X]) DenseRank(ctx context.Context, id I) (int64, error) {
	return s.dec.Position(ctx, s.core, s.dense, id)
}

// ShardedScoreReads is ScoreReads on a ShardedBoard, which a generated ShardedBoard embeds on a
// layout with score fields: the shards' answers merged or added up, so that ranks and counts
// are those of one Board holding the same entries. DenseRank is not merged (the distinct values
// ahead are a union across shards, not a sum): read it from the shards.
type ShardedScoreReads[E any, I ID, R, W, X any] struct {
	sb          *ShardedBoard[E, I, R, W, X]
	shards      []*ScoreReads[E, I, R, W, X]
	band, place *Function
}

// NewShardedScoreReads returns the score reads of sb, whose shards' score reads are shards, in
// shard order.
func NewShardedScoreReads[E any, I ID, R, W, X any](sb *ShardedBoard[E, I, R, W, X], shards []*ScoreReads[E, I, R, W, X]) *ShardedScoreReads[E, I, R, W, X] {
	lib := shards[0].core.spec.Library
	return &ShardedScoreReads[E, I, R, W, X]{sb: sb, shards: shards, band: lib.Function(OpBand), place: lib.Function(OpAroundScore)}
}

// Between returns, best first with their ranks, up to limit entries of the band, skipping
// offset of them, as ScoreReads.Between does. Every shard runs the band script in one
// pipelined round: it counts its entries ahead of the band (their sum is the band's first
// position) and reads its first offset + limit entries of the band, which merge by the
// layout's order. The cost grows with offset: O(shards × (log n + offset + limit)).
func (s *ShardedScoreReads[E, I, R, W, X]) Between(ctx context.Context, band Band[E], offset, limit int64) ([]R, error) {
	return ShardBetween(ctx, s.sb, s.band, band, offset, limit)
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
// place before its value (one script each), pipelined, added up.
func (s *ShardedScoreReads[E, I, R, W, X]) CompetitionRank(ctx context.Context, id I) (int64, error) {
	return s.competition(ctx, id, 1)
}

// CompetitionRankTuple is CompetitionRank on the whole score, as ScoreReads.CompetitionRankTuple
// is: 1 + the number of entries of all shards whose score fields rank before the entry of id.
func (s *ShardedScoreReads[E, I, R, W, X]) CompetitionRankTuple(ctx context.Context, id I) (int64, error) {
	return s.competition(ctx, id, s.shards[0].core.spec.ScoreFields)
}

// competition counts, on every shard, the entries ahead of the place before every entry equal
// to the entry of id on its first tied score fields (Decoding.TiedPlace), and adds 1.
func (s *ShardedScoreReads[E, I, R, W, X]) competition(ctx context.Context, id I, tied int) (int64, error) {
	e, err := s.sb.Get(ctx, id)
	if err != nil {
		return 0, err
	}
	score, member, err := s.sb.dec.TiedPlace(e, tied)
	if err != nil {
		return 0, err
	}
	pos, _, _, err := ShardPlace(ctx, s.sb, s.place, score, member, 0, 0)
	if err != nil {
		return 0, err
	}
	return pos + 1, nil
}
