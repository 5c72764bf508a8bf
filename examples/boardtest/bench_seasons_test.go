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
