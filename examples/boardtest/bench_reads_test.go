package boardtest

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/redis/go-redis/v9"
)

// readOps is the generated side of BenchmarkReadsPaired for one example; i indexes the
// benchmark board's ids.
type readOps struct {
	getMany    func(i, n int) error // GetMany over ids i … i+n−1
	rankMany   func(i, n int) error // RankMany over ids i … i+n−1
	bottom     func(n int64) error  // Bottom(n)
	around     func(i int) error    // AroundFilled(id_i, 5, 5)
	percentile func(i int) error    // Percentile(id_i)
	tuple      func(i int) error    // CompetitionRankTuple(id_i)
	dense      func(i int) error    // DenseRank(id_i)
	countAll   func() error         // Count<Lead>Between over the leading field's whole range

	top          func(n int64) error // Top(n)
	rank         func(i int) error   // Rank(id_i)
	aroundPlain  func(i int) error   // Around(id_i, 5, 5)
	between      func() error        // Between(<Lead>Between(lo, hi), 0, 10): the band of bandLo…bandHi
	countBetween func() error        // CountBetween of the same band
	aroundScore  func(i int) error   // AroundScore(<Lead>Is(lead of entry i), 5, 5)
	// The plain commands' arguments: the band's scores [bandMin, bandMax], and the place of
	// AroundScore for entry i (the lowest score of the entries ahead of its lead value).
	bandMin, bandMax float64
	placeOf          func(i int) float64
}

// readsFor adapts the generated Board of racing (bare ids) or season (member prefix, index).
func readsFor(b *testing.B, name string, c *redis.Client, bb *benchBoard) readOps {
	ids := bb.ids
	at := func(i int) string { return ids[i%len(ids)] }
	check := func(n, want int, err error) error {
		if err == nil && n != want {
			err = fmt.Errorf("%d results, want %d", n, want)
		}
		return err
	}
	switch name {
	case "racing":
		board := racing.NewBoard(c, bb.key)
		lead := func(i int) uint16 { return uint16(bb.entries[i%len(bb.entries)].Keys[0]) }
		car := func(i int) uint64 { n, _ := strconv.ParseUint(at(i), 10, 64); return n }
		cars := func(i, n int) []uint64 {
			out := make([]uint64, n)
			for j := range out {
				out[j] = car(i + j)
			}
			return out
		}
		return readOps{
			getMany:    func(i, n int) error { r, err := board.GetMany(ctx, cars(i, n)...); return check(len(r), n, err) },
			rankMany:   func(i, n int) error { r, err := board.RankMany(ctx, cars(i, n)...); return check(len(r), n, err) },
			bottom:     func(n int64) error { r, err := board.Bottom(ctx, n); return check(len(r), int(n), err) },
			around:     func(i int) error { r, err := board.AroundFilled(ctx, car(i), 5, 5); return check(len(r), 11, err) },
			percentile: func(i int) error { _, err := board.Percentile(ctx, car(i)); return err },
			tuple:      func(i int) error { _, err := board.CompetitionRankTuple(ctx, car(i)); return err },
			dense:      func(i int) error { _, err := board.DenseRank(ctx, car(i)); return err },
			countAll:   func() error { return countAll(board.CountLapsBetween(ctx, 0, 999)) },

			top:         func(n int64) error { r, err := board.Top(ctx, n); return check(len(r), int(n), err) },
			rank:        func(i int) error { _, err := board.Rank(ctx, car(i)); return err },
			aroundPlain: func(i int) error { _, err := board.Around(ctx, car(i), 5, 5); return err },
			between: func() error {
				r, err := board.Between(ctx, racing.LapsBetween(400, 420), 0, 10)
				return check(len(r), 10, err)
			},
			countBetween: func() error { _, err := board.CountBetween(ctx, racing.LapsBetween(400, 420)); return err },
			aroundScore: func(i int) error {
				r, err := board.AroundScore(ctx, racing.LapsIs(lead(i)), 5, 5)
				return check(min(len(r), 5), 5, err) // fewer than 10 at the top
			},
			bandMin: score(racing.Entry{Car: 1, Laps: 400, RaceTime: 999999999}.Encode()),
			bandMax: score(racing.Entry{Car: 1, Laps: 420}.Encode()),
			placeOf: func(i int) float64 {
				return score(racing.Entry{Car: 1, Laps: lead(i) + 1, RaceTime: 999999999}.Encode())
			},
		}
	case "season":
		board := season.NewBoard(c, bb.key)
		lead := func(i int) uint64 { return bb.entries[i%len(bb.entries)].Keys[0] }
		const bandLo, bandHi = 1<<39 - 600, 1<<39 - 400 // the entries' Points lie in 2^39 − 1000 … 2^39
		reached := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		span := func(i, n int) []string {
			out := make([]string, n)
			for j := range out {
				out[j] = at(i + j)
			}
			return out
		}
		return readOps{
			getMany:    func(i, n int) error { r, err := board.GetMany(ctx, span(i, n)...); return check(len(r), n, err) },
			rankMany:   func(i, n int) error { r, err := board.RankMany(ctx, span(i, n)...); return check(len(r), n, err) },
			bottom:     func(n int64) error { r, err := board.Bottom(ctx, n); return check(len(r), int(n), err) },
			around:     func(i int) error { r, err := board.AroundFilled(ctx, at(i), 5, 5); return check(len(r), 11, err) },
			percentile: func(i int) error { _, err := board.Percentile(ctx, at(i)); return err },
			tuple:      func(i int) error { _, err := board.CompetitionRankTuple(ctx, at(i)); return err },
			dense:      func(i int) error { _, err := board.DenseRank(ctx, at(i)); return err },
			countAll:   func() error { return countAll(board.CountPointsBetween(ctx, 0, 1<<40-1)) },

			top:         func(n int64) error { r, err := board.Top(ctx, n); return check(len(r), int(n), err) },
			rank:        func(i int) error { _, err := board.Rank(ctx, at(i)); return err },
			aroundPlain: func(i int) error { _, err := board.Around(ctx, at(i), 5, 5); return err },
			between: func() error {
				r, err := board.Between(ctx, season.PointsBetween(bandLo, bandHi), 0, 10)
				return check(len(r), 10, err)
			},
			countBetween: func() error { _, err := board.CountBetween(ctx, season.PointsBetween(bandLo, bandHi)); return err },
			aroundScore: func(i int) error {
				r, err := board.AroundScore(ctx, season.PointsIs(lead(i)), 5, 5)
				return check(min(len(r), 5), 5, err) // fewer than 10 at the top
			},
			bandMin: score(season.Entry{UserID: "u", Points: bandLo, ReachedAt: reached}.Encode()),
			bandMax: score(season.Entry{UserID: "u", Points: bandHi, Tier: season.TierPlatinum, ReachedAt: reached}.Encode()),
			placeOf: func(i int) float64 {
				return score(season.Entry{UserID: "u", Points: lead(i) + 1, ReachedAt: reached}.Encode())
			},
		}
	}
	b.Fatalf("no read adapter for %s", name)
	return readOps{}
}

// BenchmarkReadsPaired measures the reads of issue 10 beside the plain Redis commands they
// replace, in alternating rounds as BenchmarkPaired does (ratio-wall, ratio-cpu: baseline /
// generated; ≥ 1 means the generated read is as fast). The baselines read known members and
// decode nothing; the generated reads check the layout fingerprint, look ids up through the
// index where the layout has one, and return typed entries.
//
//	go test -run '^$' -bench ReadsPaired -count 3 -benchtime 60x ./examples/boardtest
func BenchmarkReadsPaired(b *testing.B) {
	c := benchClient(b)
	for _, name := range []string{"racing", "season"} {
		ex := exampleNamed(name)
		b.Run("ex="+name, func(b *testing.B) {
			bb := newBenchBoard(b, c, ex.schema, "{bench-reads-"+name+"}")
			g := readsFor(b, name, c, bb)
			const n = 100
			runPaired(b, "op=GetMany100/base=zmscore", c, func(c *redis.Client, i int) error {
				return c.ZMScore(ctx, bb.key, membersAt(bb, i*n, n)...).Err()
			}, func(_ *redis.Client, i int) error { return g.getMany(i*n, n) })
			runPaired(b, "op=RankMany100/base=zrevrank-pipeline", c, func(c *redis.Client, i int) error {
				pipe := c.Pipeline()
				for _, m := range membersAt(bb, i*n, n) {
					pipe.ZRevRank(ctx, bb.key, m)
				}
				_, err := pipe.Exec(ctx)
				return err
			}, func(_ *redis.Client, i int) error { return g.rankMany(i*n, n) })
			runPaired(b, "op=Bottom100/base=zrange", c, func(c *redis.Client, i int) error {
				return c.ZRangeWithScores(ctx, bb.key, 0, n-1).Err()
			}, func(_ *redis.Client, i int) error { return g.bottom(n) })
			runPaired(b, "op=AroundFilled5/base=zrevrank+zrevrange", c, func(c *redis.Client, i int) error {
				r, err := c.ZRevRank(ctx, bb.key, bb.members[i%benchEntries]).Result()
				if err != nil {
					return err
				}
				return c.ZRevRangeWithScores(ctx, bb.key, max(0, r-5), r+5).Err()
			}, func(_ *redis.Client, i int) error { return g.around(i) })
			runPaired(b, "op=Percentile/base=zrevrank+zcard-pipeline", c, func(c *redis.Client, i int) error {
				pipe := c.Pipeline()
				pipe.ZRevRank(ctx, bb.key, bb.members[i%benchEntries])
				pipe.ZCard(ctx, bb.key)
				_, err := pipe.Exec(ctx)
				return err
			}, func(_ *redis.Client, i int) error { return g.percentile(i) })
			// A hand-written "1224" rank: the entry's score, then ZCOUNT of the higher ones.
			above := func(c *redis.Client, i int) error {
				s, err := c.ZScore(ctx, bb.key, bb.members[i%benchEntries]).Result()
				if err != nil {
					return err
				}
				return c.ZCount(ctx, bb.key, "("+strconv.FormatFloat(s, 'f', -1, 64), "+inf").Err()
			}
			runPaired(b, "op=CompetitionRankTuple/base=zscore+zcount", c, above, func(_ *redis.Client, i int) error { return g.tuple(i) })
			runPaired(b, "op=DenseRank/base=zscore+zcount", c, above, func(_ *redis.Client, i int) error { return g.dense(i) })
			runPaired(b, "op=CountBetween/base=zcount", c, func(c *redis.Client, i int) error {
				return c.ZCount(ctx, bb.key, "-inf", "+inf").Err()
			}, func(_ *redis.Client, i int) error { return g.countAll() })
			benchMoreReads(b, c, bb, g)
		})
	}
}

// score is the score of an Encode that cannot fail (the benchmarks' own entries).
func score(s float64, _ string, err error) float64 {
	if err != nil {
		panic(err)
	}
	return s
}

// benchMoreReads pairs Top, Rank, Around and the band reads with the commands they replace, and
// DenseRank with a hand-written Lua dense rank.
func benchMoreReads(b *testing.B, c *redis.Client, bb *benchBoard, g readOps) {
	const n = 100
	runPaired(b, "op=Top100/base=zrevrange", c, func(c *redis.Client, i int) error {
		return c.ZRevRangeWithScores(ctx, bb.key, 0, n-1).Err()
	}, func(_ *redis.Client, i int) error { return g.top(n) })
	runPaired(b, "op=Rank/base=zrevrank", c, func(c *redis.Client, i int) error {
		return c.ZRevRank(ctx, bb.key, bb.members[i%benchEntries]).Err()
	}, func(_ *redis.Client, i int) error { return g.rank(i) })
	runPaired(b, "op=GetMany100/base=zscore-pipeline", c, func(c *redis.Client, i int) error {
		pipe := c.Pipeline()
		for _, m := range membersAt(bb, i*n, n) {
			pipe.ZScore(ctx, bb.key, m)
		}
		_, err := pipe.Exec(ctx)
		return err
	}, func(_ *redis.Client, i int) error { return g.getMany(i*n, n) })
	runPaired(b, "op=Around5/base=zrevrank+zrevrange", c, func(c *redis.Client, i int) error {
		r, err := c.ZRevRank(ctx, bb.key, bb.members[i%benchEntries]).Result()
		if err != nil {
			return err
		}
		return c.ZRevRangeWithScores(ctx, bb.key, max(0, r-5), r+5).Err()
	}, func(_ *redis.Client, i int) error { return g.aroundPlain(i) })
	lo, hi := strconv.FormatFloat(g.bandMin, 'g', -1, 64), strconv.FormatFloat(g.bandMax, 'g', -1, 64)
	runPaired(b, "op=Between10/base=zrevrangebyscore", c, func(c *redis.Client, i int) error {
		return c.ZRevRangeByScoreWithScores(ctx, bb.key, &redis.ZRangeBy{Min: lo, Max: hi, Count: 10}).Err()
	}, func(_ *redis.Client, i int) error { return g.between() })
	runPaired(b, "op=CountBetweenBand/base=zcount", c, func(c *redis.Client, i int) error {
		return c.ZCount(ctx, bb.key, lo, hi).Err()
	}, func(_ *redis.Client, i int) error { return g.countBetween() })
	runPaired(b, "op=AroundScore5/base=zcount+zrevrange", c, func(c *redis.Client, i int) error {
		pos, err := c.ZCount(ctx, bb.key, strconv.FormatFloat(g.placeOf(i), 'g', -1, 64), "+inf").Result()
		if err != nil {
			return err
		}
		return c.ZRevRangeWithScores(ctx, bb.key, max(0, pos-5), pos+4).Err()
	}, func(_ *redis.Client, i int) error { return g.aroundScore(i) })
	dense := handDense(bb.l.Fields[0].Weight)
	if err := dense.Load(ctx, c).Err(); err != nil {
		b.Fatal(err)
	}
	runPaired(b, "op=DenseRank/base=hand-written-lua", c, func(c *redis.Client, i int) error {
		return dense.Run(ctx, c, []string{bb.key}, bb.members[i%benchEntries]).Err()
	}, func(_ *redis.Client, i int) error { return g.dense(i) })
}

// handDense is a hand-written "1223" rank on the leading field, whose weight is w: the member's
// score, then one ZRANGE … BYSCORE LIMIT 0 1 per distinct leading value ahead, as the generated
// script walks, without the fingerprint check, the index or the score's validation.
func handDense(w uint64) *redis.Script {
	return redis.NewScript(fmt.Sprintf(`local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
local rank, band = 1, (math.floor(tonumber(s) / %[1]d) + 1) * %[1]d
while true do
  local next = redis.call('ZRANGE', KEYS[1], string.format('%%d', band), '+inf', 'BYSCORE', 'LIMIT', '0', '1', 'WITHSCORES')
  if #next == 0 then
    return rank
  end
  rank = rank + 1
  band = (math.floor(tonumber(next[2]) / %[1]d) + 1) * %[1]d
end`, w))
}

// countAll checks that a count over the whole range saw every benchmark entry.
func countAll(n int64, err error) error {
	if err == nil && n != benchEntries {
		err = fmt.Errorf("counted %d entries, want %d", n, benchEntries)
	}
	return err
}

// membersAt is the members of the benchmark board's ids i … i+n−1 (modulo their number).
func membersAt(bb *benchBoard, i, n int) []string {
	out := make([]string, n)
	for j := range out {
		out[j] = bb.members[(i+j)%len(bb.members)]
	}
	return out
}
