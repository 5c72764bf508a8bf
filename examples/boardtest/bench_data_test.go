package boardtest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// BenchmarkDataPaired measures reads of the laps board, whose entries carry data (a name, a
// car), against what a team pays today with the data in a hash beside the board: the page, then
// an HMGET of its ids (two round trips); and against the page alone (no data at all).
//
//	go test -run '^$' -bench DataPaired -count 6 -benchtime 60x ./examples/boardtest
func BenchmarkDataPaired(b *testing.B) {
	c := benchClient(b)
	key := "{bench-data}"
	board := laps.NewBoard(c, key)
	l := parse(b, "laps.yaml")
	rng := rand.New(rand.NewPCG(3, 4))
	ids := make([]string, 0, benchEntries)
	for start := 0; start < benchEntries; start += batchSize {
		es := make([]laps.Entry, batchSize)
		for i := range es {
			e := oracle.RandomEntry(l, rng)
			e.ID = fmt.Sprintf("driver-%05d", start+i)
			e.Data = oracle.RandomData(l, rng)
			oracle.ToGenerated(l, e, &es[i])
			ids = append(ids, e.ID)
		}
		if _, err := board.SetMany(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
	dataKey := rankgenrt.DataKey(board.Key())
	const n = 100
	pageThenData := func(c *redis.Client, _ int) error {
		zs, err := c.ZRevRangeWithScores(ctx, key, 0, n-1).Result()
		if err != nil {
			return err
		}
		fields := make([]string, len(zs))
		for i, z := range zs {
			fields[i] = z.Member.(string)
		}
		return c.HMGet(ctx, dataKey, fields...).Err()
	}
	top := func(_ *redis.Client, _ int) error { _, err := board.Top(ctx, n); return err }
	runPaired(b, "op=Top100/base=zrevrange+hmget", c, pageThenData, top)
	runPaired(b, "op=Top100/base=zrevrange", c, func(c *redis.Client, _ int) error {
		return c.ZRevRangeWithScores(ctx, key, 0, n-1).Err()
	}, top)
	runPaired(b, "op=Get/base=zscore+hget", c, func(c *redis.Client, i int) error {
		if err := c.ZScore(ctx, key, ids[i%len(ids)]).Err(); err != nil {
			return err
		}
		return c.HGet(ctx, dataKey, ids[i%len(ids)]).Err()
	}, func(_ *redis.Client, i int) error { _, err := board.Get(ctx, ids[i%len(ids)]); return err })
}
