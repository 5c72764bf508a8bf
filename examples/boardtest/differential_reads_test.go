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
	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
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
	"github.com/rankgen/rankgen/examples/generated/weekly"
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
}

// moreReads compares the reads beyond Get, Rank, Top and Count with the model: GetMany,
// RankMany, Around, AroundFilled, PageFromEnd (Bottom), Percentile, PageOf, and on a board
// with a score field CompetitionRank, CompetitionRankTuple, DenseRank and the band reads
// (Between, CountBetween, AroundScore at a score prefix and at a whole entry).
func (d *diff) moreReads() {
	d.manyReads()
	d.windowReads()
	d.standingReads()
	if d.l.NumScore > 0 {
		d.rankReads()
		d.bandReads()
		d.aroundScoreReads()
	}
}

func (d *diff) manyReads() {
	ids := make([]string, 1+d.rng.IntN(5)) // ids may repeat
	for i := range ids {
		ids[i] = d.id()
	}
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
	ranks, err := d.b.RankMany(ids...)
	if w := d.m.RankMany(ids...); err != nil || !slices.Equal(ranks, w) {
		d.errorf("RankMany(%q) = %v, %v; the model says %v", ids, ranks, err, w)
	}
}

// compareRanked checks a window of ranked entries against the model's entries and first rank
// (rank 0: no entries).
func (d *diff) compareRanked(what string, got []boardmodel.Ranked, err error, first int64, want []layout.Entry, werr error) {
	d.t.Helper()
	d.compareErr(what, err, werr)
	if err != nil || werr != nil {
		return
	}
	if len(got) != len(want) {
		d.errorf("%s: %d entries; the model %d", what, len(got), len(want))
		return
	}
	for i, r := range got {
		if r.Rank != first+int64(i) {
			d.errorf("%s[%d].Rank = %d; the model's %d", what, i, r.Rank, first+int64(i))
		}
		d.compareEntry(fmt.Sprintf("%s[%d]", what, i), r.Entry, want[i])
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

func (d *diff) windowReads() {
	id, before, after := d.id(), int64(d.rng.IntN(5)-1), int64(d.rng.IntN(5)-1)
	got, err := d.b.Around(id, before, after)
	want, werr := d.m.Around(id, before, after)
	d.compareRanked(fmt.Sprintf("Around(%q, %d, %d)", id, before, after), got, err, d.firstRank(want), want, werr)
	got, err = d.b.AroundFilled(id, before, after)
	want, werr = d.m.AroundFilled(id, before, after)
	d.compareRanked(fmt.Sprintf("AroundFilled(%q, %d, %d)", id, before, after), got, err, d.firstRank(want), want, werr)
	offset, limit := int64(d.rng.IntN(len(d.m.Entries)+3)-1), int64(d.rng.IntN(6)-1)
	got, err = d.b.PageFromEnd(offset, limit)
	first, es, werr := d.m.PageFromEnd(offset, limit)
	d.compareRanked(fmt.Sprintf("PageFromEnd(%d, %d)", offset, limit), got, err, first, es, werr)
}

func (d *diff) standingReads() {
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

func (d *diff) rankReads() {
	id := d.id()
	for _, r := range []struct {
		name  string
		model func(string) (int64, error)
	}{{"CompetitionRank", d.m.Competition}, {"CompetitionRankTuple", d.m.CompetitionTuple}, {"DenseRank", d.m.Dense}} {
		if !d.b.V.MethodByName(r.name).IsValid() {
			continue // a ShardedBoard's per-shard read (shardedOnly)
		}
		got, err := d.b.Int(r.name, id)
		want, werr := r.model(id)
		d.compareErr(fmt.Sprintf("%s(%q)", r.name, id), err, werr)
		if err == nil && werr == nil && got != want {
			d.errorf("%s(%q) = %d; the model says %d", r.name, id, got, want)
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

func (d *diff) bandReads() {
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
	offset, limit := int64(d.rng.IntN(4)-1), int64(d.rng.IntN(len(d.m.Entries)+3)-1)
	what := fmt.Sprintf("Between(%s, %d, %d)", d.fmtBand(s), offset, limit)
	got, err := d.b.Between(s, offset, limit)
	first, want, werr := d.m.Band(s, offset, limit)
	d.compareRanked(what, got, err, first, want, werr)
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

func (d *diff) aroundScoreReads() {
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
