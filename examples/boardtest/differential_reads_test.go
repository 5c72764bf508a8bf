package boardtest

import (
	"fmt"
	"slices"

	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b01"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b02"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b03"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b04"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r01"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r02"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r12"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r27"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r32"
	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/boardtest/internal/season/daily"
	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/examples/generated/game"
	"github.com/rankgen/rankgen/examples/generated/ladders"
	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/pits"
	"github.com/rankgen/rankgen/examples/generated/quiz"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002binary"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/seed002keysort"
	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/examples/generated/seed004shift"
	"github.com/rankgen/rankgen/examples/generated/tournament"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// bandRoots are each board's constructors of its leading score field, <Lead>Between and
// <Lead>Is, where the band reads start (package functions are out of reflection's reach). A
// board with a score field that is missing here fails TestDifferential.
var bandRoots = map[string][2]any{
	"arena":           {arena.PointsBetween, arena.PointsIs},
	"duel":            {duel.PointsBetween, duel.PointsIs},
	"duelint":         {duelint.PointsBetween, duelint.PointsIs},
	"ladders":         {ladders.ScoreBetween, ladders.ScoreIs},
	"laps":            {laps.BestLapBetween, laps.BestLapIs},
	"pits":            {pits.StopMsBetween, pits.StopMsIs},
	"quiz":            {quiz.CorrectBetween, quiz.CorrectIs},
	"racing":          {racing.LapsBetween, racing.LapsIs},
	"season":          {season.PointsBetween, season.PointsIs},
	"seed000member":   {seed000member.PrimaryBetween, seed000member.PrimaryIs},
	"seed001zranking": {seed001zranking.ValueBetween, seed001zranking.ValueIs},
	"seed002binary":   {seed002binary.PointsBetween, seed002binary.PointsIs},
	"seed002decimal":  {seed002decimal.PointsBetween, seed002decimal.PointsIs},
	"seed002keysort":  {seed002keysort.PointsBetween, seed002keysort.PointsIs},
	"seed003scaling":  {seed003scaling.RawBetween, seed003scaling.RawIs},
	"seed004shift":    {seed004shift.PointsBetween, seed004shift.PointsIs},
	"weekly":          {weekly.PointsBetween, weekly.PointsIs},
	"tournament":      {tournament.BestLapBetween, tournament.BestLapIs},
	"r01":             {r01.LevelBetween, r01.LevelIs},
	"r02":             {r02.JoinedAtBetween, r02.JoinedAtIs},
	"r12":             {r12.WinsBetween, r12.WinsIs},
	"r27":             {r27.SeasonBetween, r27.SeasonIs},
	"r32":             {r32.PriorityBetween, r32.PriorityIs},
	"b01":             {b01.RaceTimeBetween, b01.RaceTimeIs},
	"b02":             {b02.BonusBetween, b02.BonusIs},
	"b03":             {b03.LapsBetween, b03.LapsIs},
	"b04":             {b04.TierBetween, b04.TierIs},
	"blitz":           {blitz.PointsBetween, blitz.PointsIs},
	"daily":           {daily.ProfitBetween, daily.ProfitIs},
	"game_track":      {game.TrackBestLapBetween, game.TrackBestLapIs},
	"game_alltime":    {game.AlltimeLapsBetween, game.AlltimeLapsIs},
	"game_weekly":     {game.WeeklyBestLapBetween, game.WeeklyBestLapIs},
	"game_daily":      {game.DailyLapsBetween, game.DailyLapsIs},
}

func (d *diff) driveGet(catalog.Op) {
	id := d.id()
	got, err := d.b.Get(id)
	want, werr := d.m.Get(id)
	d.compareErr(fmt.Sprintf("Get(%q)", id), err, werr)
	if err == nil && werr == nil {
		d.compareEntry(fmt.Sprintf("Get(%q)", id), got, want)
	}
}

func (d *diff) driveRank(catalog.Op) {
	id := d.id()
	rank, err := d.b.Rank(id)
	wrank, werr := d.m.Rank(id)
	d.compareErr(fmt.Sprintf("Rank(%q)", id), err, werr)
	if rank != wrank && werr == nil {
		d.errorf("Rank(%q) = %d; the model says %d", id, rank, wrank)
	}
}

// drivePage compares Top and Page (a negative offset included: ErrOutOfRange).
func (d *diff) drivePage(catalog.Op) {
	n := int64(d.rng.IntN(len(d.m.Entries) + 3))
	top, err := d.b.Top(n)
	want := d.m.Page(0, n)
	d.compareRanked(fmt.Sprintf("Top(%d)", n), top, err, min(1, int64(len(want))), want, nil)
	offset, limit := int64(d.rng.IntN(len(d.m.Entries)+3)-1), int64(d.rng.IntN(6)-1)
	got, err := d.b.Page(offset, limit)
	var werr error
	if offset < 0 {
		werr = boardmodel.OffsetError(offset)
	}
	want = d.m.Page(offset, limit)
	d.compareRanked(fmt.Sprintf("Page(%d, %d)", offset, limit), got, err, d.firstRank(want), want, werr)
}

func (d *diff) driveCount(catalog.Op) {
	if cnt, err := d.b.Count(); err != nil || cnt != int64(len(d.m.Entries)) {
		d.errorf("Count = %d, %v; the model has %d", cnt, err, len(d.m.Entries))
	}
}

// driveAfter compares a keyset page after a cursor: the top, or a stored pair.
func (d *diff) driveAfter(catalog.Op) {
	ps, err := d.m.Pairs()
	if err != nil {
		d.errorf("%v", err)
		return
	}
	score, member := 0.0, ""
	if len(ps) > 0 && d.rng.IntN(4) > 0 {
		p := ps[d.rng.IntN(len(ps))]
		score, member = p.Score, p.Member
	}
	limit := int64(1 + d.rng.IntN(6))
	got, err := d.b.After(score, member, limit)
	want, werr := d.m.After(score, member, limit)
	d.compareRanked(fmt.Sprintf("After(%v, %q, %d)", score, member, limit), got, err, d.firstRank(want), want, werr)
}

// leadBounds returns bounds of the leading field in its range, near stored values, in either order.
func (d *diff) leadBounds() (lo, hi uint64) {
	f := d.l.Fields[0]
	near := func() uint64 {
		k := d.nearKey(f, d.scoreKeys()[0])
		return min(max(k, f.Lo), f.Hi)
	}
	lo, hi = near(), near()
	if lo > hi && d.rng.IntN(4) > 0 {
		lo, hi = hi, lo
	}
	return lo, hi
}

func (d *diff) driveRange(op catalog.Op) {
	lo, hi := d.leadBounds()
	offset, limit := int64(d.rng.IntN(4)-1), int64(d.rng.IntN(len(d.m.Entries)+3)-1)
	what := fmt.Sprintf("%s(%s, %s, %d, %d)", op.Methods[0], d.l.Fields[0].Format(lo), d.l.Fields[0].Format(hi), offset, limit)
	got, err := d.b.Range(lo, hi, offset, limit)
	want, werr := d.m.Range(lo, hi, offset, limit)
	d.compareEntries(what, got, err, want, werr)
}

func (d *diff) driveCountRange(op catalog.Op) {
	lo, hi := d.leadBounds()
	what := fmt.Sprintf("%s(%s, %s)", op.Methods[0], d.l.Fields[0].Format(lo), d.l.Fields[0].Format(hi))
	got, err := d.b.CountRange(lo, hi)
	want, werr := d.m.CountRange(lo, hi)
	d.compareErr(what, err, werr)
	if err == nil && werr == nil && got != want {
		d.errorf("%s = %d; the model says %d", what, got, want)
	}
}

// manyIDs returns 1 to 5 pool ids, which may repeat.
func (d *diff) manyIDs() []string {
	ids := make([]string, 1+d.rng.IntN(5))
	for i := range ids {
		ids[i] = d.id()
	}
	return ids
}

func (d *diff) driveGetMany(catalog.Op) {
	ids := d.manyIDs()
	res, err := d.b.GetMany(ids...)
	if err != nil {
		d.errorf("GetMany(%q): %v", ids, err)
		return
	}
	want, found := d.m.GetMany(ids...)
	for i := range ids {
		var werr error
		if !found[i] {
			werr = rankgenrt.ErrNotFound
		}
		what := fmt.Sprintf("GetMany(%q)[%d]", ids, i)
		d.compareErr(what, res[i].Err, werr)
		if found[i] && res[i].Err == nil {
			d.compareEntry(what, res[i].Entry, want[i])
		}
	}
}

func (d *diff) driveRankMany(catalog.Op) {
	ids := d.manyIDs()
	ranks, err := d.b.RankMany(ids...)
	if w := d.m.RankMany(ids...); err != nil || !slices.Equal(ranks, w) {
		d.errorf("RankMany(%q) = %v, %v; the model says %v", ids, ranks, err, w)
	}
}

func (d *diff) driveRankedMany(catalog.Op) {
	ids := d.manyIDs()
	got, err := d.b.RankedMany(ids...)
	want := d.m.RankedMany(ids...)
	if err != nil || len(got) != len(want) {
		d.errorf("RankedMany(%q) = %d entries, %v; the model has %d", ids, len(got), err, len(want))
		return
	}
	for i, r := range got {
		what := fmt.Sprintf("RankedMany(%q)[%d]", ids, i)
		if r.Rank != want[i].Rank {
			d.errorf("%s.Rank = %d; the model's %d", what, r.Rank, want[i].Rank)
		}
		d.compareEntry(what, r.Entry, want[i].Entry)
	}
}

// compareRanked checks a window of ranked entries against the model's entries and first rank
// (rank 0: no entries).
func (d *diff) compareRanked(what string, got []boardmodel.Ranked, err error, first int64, want []layout.Entry, werr error) {
	d.t.Helper()
	es := make([]layout.Entry, len(got))
	for i, r := range got {
		if r.Rank != first+int64(i) {
			d.errorf("%s[%d].Rank = %d; the model's %d", what, i, r.Rank, first+int64(i))
		}
		es[i] = r.Entry
	}
	d.compareEntries(what, es, err, want, werr)
}

// compareEntries checks entries, in order, and the error against the model's.
func (d *diff) compareEntries(what string, got []layout.Entry, err error, want []layout.Entry, werr error) {
	d.t.Helper()
	d.compareErr(what, err, werr)
	if err != nil || werr != nil {
		return
	}
	if len(got) != len(want) {
		d.errorf("%s: %d entries; the model %d", what, len(got), len(want))
		return
	}
	for i := range got {
		d.compareEntry(fmt.Sprintf("%s[%d]", what, i), got[i], want[i])
	}
}

// firstRank is the model's 1-based rank of the first of es (0 when there are none).
func (d *diff) firstRank(es []layout.Entry) int64 {
	if len(es) == 0 {
		return 0
	}
	r, _ := d.m.Rank(es[0].ID)
	return r
}

func (d *diff) driveAround(catalog.Op) {
	id, before, after := d.id(), int64(d.rng.IntN(5)-1), int64(d.rng.IntN(5)-1)
	got, err := d.b.Around(id, before, after)
	want, werr := d.m.Around(id, before, after)
	d.compareRanked(fmt.Sprintf("Around(%q, %d, %d)", id, before, after), got, err, d.firstRank(want), want, werr)
	got, err = d.b.AroundFilled(id, before, after)
	want, werr = d.m.AroundFilled(id, before, after)
	d.compareRanked(fmt.Sprintf("AroundFilled(%q, %d, %d)", id, before, after), got, err, d.firstRank(want), want, werr)
}

func (d *diff) driveBottom(catalog.Op) {
	offset, limit := int64(d.rng.IntN(len(d.m.Entries)+3)-1), int64(d.rng.IntN(6)-1)
	got, err := d.b.PageFromEnd(offset, limit)
	first, es, werr := d.m.PageFromEnd(offset, limit)
	d.compareRanked(fmt.Sprintf("PageFromEnd(%d, %d)", offset, limit), got, err, first, es, werr)
}

func (d *diff) driveStanding(catalog.Op) {
	id := d.id()
	rank, count, werr := d.m.Standing(id)
	pct, err := d.b.Percentile(id)
	d.compareErr(fmt.Sprintf("Percentile(%q)", id), err, werr)
	if want := 100 * float64(count-rank) / float64(count); werr == nil && err == nil && pct != want {
		d.errorf("Percentile(%q) = %v; the model says %v", id, pct, want)
	}
	size := int64(d.rng.IntN(6))
	page, err := d.b.PageOf(id, size)
	if size < 1 {
		d.compareErr(fmt.Sprintf("PageOf(%q, %d)", id, size), err, rankgenrt.ErrOutOfRange)
		return
	}
	d.compareErr(fmt.Sprintf("PageOf(%q, %d)", id, size), err, werr)
	if want := (rank-1)/size + 1; werr == nil && err == nil && page != want {
		d.errorf("PageOf(%q, %d) = %d; the model says %d", id, size, page, want)
	}
}

func (d *diff) driveCompetition(op catalog.Op) {
	d.rankReads(op, d.m.Competition, d.m.CompetitionTuple)
}

func (d *diff) driveDense(op catalog.Op) { d.rankReads(op, d.m.Dense) }

// rankReads compares op's methods, reads by id of a rank, with the model's methods, in order.
func (d *diff) rankReads(op catalog.Op, model ...func(string) (int64, error)) {
	id := d.id()
	for i, name := range op.Methods {
		got, err := d.b.Int(name, id)
		want, werr := model[i](id)
		d.compareErr(fmt.Sprintf("%s(%q)", name, id), err, werr)
		if err == nil && werr == nil && got != want {
			d.errorf("%s(%q) = %d; the model says %d", name, id, got, want)
		}
	}
}

// scoreKeys returns the score fields' keys of a stored entry (so that bands and places hit
// entries), or random ones.
func (d *diff) scoreKeys() []uint64 {
	if keys, ok := d.m.Entries[d.id()]; ok && d.rng.IntN(4) > 0 {
		return slices.Clone(keys[:d.l.NumScore])
	}
	keys := make([]uint64, d.l.NumScore)
	for i := range keys {
		keys[i] = oracle.RandomKey(d.l.Fields[i], d.rng)
	}
	return keys
}

// nearKey returns a key of f near k (often k itself), at an edge, random, or out of range.
func (d *diff) nearKey(f *layout.Field, k uint64) uint64 {
	switch d.rng.IntN(8) {
	case 0:
		return oracle.RandomKey(f, d.rng)
	case 1:
		if bad := oracle.OutOfRange(f); len(bad) > 0 {
			return bad[d.rng.IntN(len(bad))]
		}
	case 2:
		if k > f.Lo {
			return k - 1
		}
	case 3:
		if k < f.Hi {
			return k + 1
		}
	case 4:
		return []uint64{f.Lo, f.Hi}[d.rng.IntN(2)]
	}
	return k
}

// band returns a random band: keys of a stored entry or random ones, the fields before the
// band's equal to them (now and then not), its bounds near them, out of range or reversed.
func (d *diff) band() boardmodel.BandSpec {
	keys := d.scoreKeys()
	k := d.rng.IntN(d.l.NumScore) // fields fixed before the band's field
	f := d.l.Fields[k]
	s := boardmodel.BandSpec{Eq: keys[:k], Lo: d.nearKey(f, keys[k]), Hi: d.nearKey(f, keys[k])}
	if d.rng.IntN(12) == 0 && k > 0 {
		s.Eq = slices.Clone(s.Eq)
		s.Eq[0] = d.nearKey(d.l.Fields[0], s.Eq[0])
	}
	if s.Lo > s.Hi && d.rng.IntN(4) > 0 {
		s.Lo, s.Hi = s.Hi, s.Lo
	}
	return s
}

func (d *diff) driveBand(catalog.Op) {
	s := d.band()
	offset, limit := int64(d.rng.IntN(4)-1), int64(d.rng.IntN(len(d.m.Entries)+3)-1)
	what := fmt.Sprintf("Between(%s, %d, %d)", d.fmtBand(s), offset, limit)
	got, err := d.b.Between(s, offset, limit)
	first, want, werr := d.m.Band(s, offset, limit)
	d.compareRanked(what, got, err, first, want, werr)
}

func (d *diff) driveCountBand(catalog.Op) {
	s := d.band()
	n, err := d.b.CountBetween(s)
	wn, werr := d.m.CountBand(s)
	d.compareErr("CountBetween("+d.fmtBand(s)+")", err, werr)
	if err == nil && werr == nil && n != wn {
		d.errorf("CountBetween(%s) = %d; the model says %d", d.fmtBand(s), n, wn)
	}
}

func (d *diff) fmtBand(s boardmodel.BandSpec) string {
	out := ""
	for i, k := range s.Eq {
		out += fmt.Sprintf("%s=%s ", d.l.Fields[i].Name, d.l.Fields[i].Format(k))
	}
	f := d.l.Fields[len(s.Eq)]
	return out + fmt.Sprintf("%s in [%s, %s]", f.Name, f.Format(s.Lo), f.Format(s.Hi))
}

func (d *diff) driveAroundScore(catalog.Op) {
	before, after := int64(d.rng.IntN(5)-1), int64(d.rng.IntN(5)-1)
	keys := d.scoreKeys()[:1+d.rng.IntN(d.l.NumScore)]
	if d.rng.IntN(6) == 0 {
		i := d.rng.IntN(len(keys))
		keys[i] = d.nearKey(d.l.Fields[i], keys[i])
	}
	got, err := d.b.AroundScore(keys, before, after)
	first, want, werr := d.m.AroundScore(keys, before, after)
	d.compareRanked(fmt.Sprintf("AroundScore(%v, %d, %d)", keys, before, after), got, err, first, want, werr)
	e := d.entry() // a pool id with random keys, near its stored ones, or out of range
	if keys, ok := d.m.Entries[e.ID]; ok && d.rng.IntN(3) == 0 {
		e.Keys = slices.Clone(keys) // the stored entry itself
	}
	got, err = d.b.AroundEntry(e, before, after)
	first, want, werr = d.m.AroundEntry(e, before, after)
	d.compareRanked(fmt.Sprintf("AroundScore(%s, %d, %d)", d.fmt(e), before, after), got, err, first, want, werr)
}
