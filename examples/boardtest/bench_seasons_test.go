package boardtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkHistoryPaired measures Seasons.History over the last 4 weeks, paired as in
// BenchmarkPaired, against two baselines on the same boards (10,000 players a week):
//
//	base=zscore-zrevrank-pipeline  ZSCORE and ZREVRANK of the id on each week's key, all in one
//	                               pipeline: what a hand-written reader sends (it decodes nothing
//	                               and checks no layout)
//	base=board-get-rank            the generated Get and Rank of each week's board, one after the
//	                               other: 8 round trips
//
//	go test -run '^$' -bench HistoryPaired -count 3 ./examples/boardtest
func BenchmarkHistoryPaired(b *testing.B) {
	const players = 10_000
	c := redistest.Client(b)
	now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
	ss := weekly.NewSeasons(c, "{"+redistest.Key(b, "hist")+"}:weekly", weekly.WithClock(func() time.Time { return now }))
	weeks := ss.Recent(5)[1:]
	ids := make([]string, players)
	for i := range ids {
		ids[i] = fmt.Sprintf("player-%05d", i)
	}
	for w, s := range weeks {
		board := ss.Board(s)
		es := make([]weekly.Entry, 0, 1000)
		for i, id := range ids {
			es = append(es, weekly.Entry{PlayerID: id, Points: uint32((i*7919 + w*104729) % 5000), ReachedAt: time.Duration(i) * time.Second})
			if len(es) == cap(es) {
				if _, err := board.SetMany(ctx, es); err != nil {
					b.Fatal(err)
				}
				es = es[:0]
			}
		}
	}
	if err := ss.Board(weeks[0]).Load(ctx); err != nil {
		b.Fatal(err)
	}
	history := func(_ *redis.Client, i int) error {
		r, err := ss.History(ctx, ids[i%players], weeks...)
		if err == nil && (len(r) != len(weeks) || r[0].Err != nil) {
			err = fmt.Errorf("History = %+v", r)
		}
		return err
	}
	runPaired(b, "op=History4/base=zscore-zrevrank-pipeline", c, func(c *redis.Client, i int) error {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, s := range weeks {
				key := ss.Board(s).Key()
				p.ZScore(ctx, key, ids[i%players])
				p.ZRevRank(ctx, key, ids[i%players])
			}
			return nil
		})
		return err
	}, history)
	runPaired(b, "op=History4/base=board-get-rank", c, func(_ *redis.Client, i int) error {
		for _, s := range weeks {
			board := ss.Board(s)
			if _, err := board.Get(ctx, ids[i%players]); err != nil {
				return err
			}
			if _, err := board.Rank(ctx, ids[i%players]); err != nil {
				return err
			}
		}
		return nil
	}, history)
}

// BenchmarkRollupPaired measures Seasons.Rollup (the sum of Points over the last 5 weeks, 10,000
// players a week, each week holding about 4 in 5 of them) followed by Top(100), paired as in
// BenchmarkPaired, against what a hand-written leaderboard does over the same 5 weeks of plain,
// unpacked scores (the points alone: packed scores cannot be summed so):
//
//	op=RollupBuild/base=zunionstore    ZUNIONSTORE of the 5 plain sets, then ZREVRANGE 0 99
//	                                   WITHSCORES; the rollup is rebuilt every call (its cache
//	                                   key deleted first: one more round trip)
//	op=RollupCached/base=zunionstore   the same baseline against a Rollup served from its cache
//
//	go test -run '^$' -bench RollupPaired -count 3 -benchtime 20x ./examples/boardtest
func BenchmarkRollupPaired(b *testing.B) {
	const players, weeks = 10_000, 5
	c := redistest.Client(b)
	now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
	base := "{" + redistest.Key(b, "rollup") + "}:weekly"
	ss := weekly.NewSeasons(c, base, weekly.WithClock(func() time.Time { return now }))
	plain := make([]string, weeks)
	for w, s := range ss.Recent(weeks) {
		plain[w] = fmt.Sprintf("%s:plain:%d", base, s.ID)
		board := ss.Board(s)
		es := make([]weekly.Entry, 0, 1000)
		zs := make([]redis.Z, 0, 1000)
		for i := range players {
			if (i+w)%5 == 0 {
				continue
			}
			id, points := fmt.Sprintf("player-%05d", i), uint32((i*7919+w*104729)%5000)
			es = append(es, weekly.Entry{PlayerID: id, Points: points, ReachedAt: time.Duration(i) * time.Second})
			zs = append(zs, redis.Z{Member: id, Score: float64(points)})
			if len(es) == cap(es) {
				if _, err := board.SetMany(ctx, es); err != nil {
					b.Fatal(err)
				}
				if err := c.ZAdd(ctx, plain[w], zs...).Err(); err != nil {
					b.Fatal(err)
				}
				es, zs = es[:0], zs[:0]
			}
		}
	}
	spec := weekly.RollupSpec{Field: weekly.RollupPoints, Op: weekly.RollupSum, Last: weeks, TTL: time.Hour}
	first, err := ss.Rollup(ctx, spec)
	if err != nil {
		b.Fatal(err)
	}
	cacheKey := first.Keys()[1]
	union := func(c *redis.Client, _ int) error {
		dest := base + ":plain:union"
		if err := c.ZUnionStore(ctx, dest, &redis.ZStore{Keys: plain, Aggregate: "SUM"}).Err(); err != nil {
			return err
		}
		return c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: dest, Start: 0, Stop: 99, Rev: true}).Err()
	}
	rollupTop := func(rebuild bool) op {
		return func(c *redis.Client, _ int) error {
			if rebuild {
				if err := c.Del(ctx, cacheKey).Err(); err != nil {
					return err
				}
			}
			r, err := ss.Rollup(ctx, spec)
			if err != nil {
				return err
			}
			top, err := r.Top(ctx, 100)
			if err == nil && len(top) != 100 {
				err = fmt.Errorf("Top(100) returned %d entries", len(top))
			}
			return err
		}
	}
	runPaired(b, "op=RollupBuild/base=zunionstore", c, union, rollupTop(true))
	runPaired(b, "op=RollupCached/base=zunionstore", c, union, rollupTop(false))
}

// BenchmarkRemoveEverywherePaired measures Seasons.RemoveEverywhere of one id (the current
// week, the 4 kept and the next: 6 boards of 2,000 players), paired as in BenchmarkPaired,
// against the hand-written removal from the same 6 weeks of plain scores: ZREM on each key, all
// in one pipeline (one round trip, no count per board, no layout checked).
//
//	go test -run '^$' -bench RemoveEverywherePaired -count 3 -benchtime 20x ./examples/boardtest
func BenchmarkRemoveEverywherePaired(b *testing.B) {
	const players = 2_000
	c := redistest.Client(b)
	now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
	base := "{" + redistest.Key(b, "everywhere") + "}:weekly"
	ss := weekly.NewSeasons(c, base, weekly.WithClock(func() time.Time { return now }))
	var plain []string
	for _, s := range append(ss.Recent(5), ss.Next(ss.Current())) {
		key := fmt.Sprintf("%s:plain:%d", base, s.ID)
		plain = append(plain, key)
		es := make([]weekly.Entry, players)
		zs := make([]redis.Z, players)
		for i := range es {
			id := fmt.Sprintf("player-%05d", i)
			es[i], zs[i] = weekly.Entry{PlayerID: id, Points: uint32(i)}, redis.Z{Member: id, Score: float64(i)}
		}
		if _, err := ss.Board(s).SetMany(ctx, es); err != nil {
			b.Fatal(err)
		}
		if err := c.ZAdd(ctx, key, zs...).Err(); err != nil {
			b.Fatal(err)
		}
	}
	runPaired(b, "op=RemoveEverywhere/base=zrem-pipeline", c, func(c *redis.Client, i int) error {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, key := range plain {
				p.ZRem(ctx, key, fmt.Sprintf("player-%05d", i%players))
			}
			return nil
		})
		return err
	}, func(_ *redis.Client, i int) error {
		_, err := ss.RemoveEverywhere(ctx, []string{fmt.Sprintf("player-%05d", i%players)})
		return err
	})
}
