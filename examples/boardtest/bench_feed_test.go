package boardtest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/ladders"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// BenchmarkPairedFeed measures the ladders feed (one script over the day's, the all-time, the
// region's and the week's boards), paired as BenchmarkPaired pairs its sides, against what a
// user writes by hand: the generated Board calls (Get the day's entry, Best, AddScore of the
// gain, Best on the region's and the week's boards: five round trips, not atomic), and plain
// sorted sets of the score alone (ZSCORE, ZADD GT CH, ZINCRBY, two ZADD GT: five commands,
// neither atomic nor exact on ties). Player i%500 submits a score above every earlier one, so
// every submission writes all four boards.
//
//	go test -run '^$' -bench PairedFeed -count 6 ./examples/boardtest
func BenchmarkPairedFeed(b *testing.B) {
	c := benchClient(b)
	submitted := 0 // across both sides and every -count: each run scores more than the last
	run := func(i int) ladders.Entry {
		submitted++
		return feedRun(fmt.Sprint("player-", i%500), uint32(100+submitted), i%60, ladders.Region(i%3))
	}
	keys := func(name string) ladders.SubmitKeys {
		return ladders.SubmitKeys{Game: redistest.Key(b, name), Day: "d", Week: "w"}
	}
	feed := ladders.NewSubmitFeed(c, keys("feed"))
	generated := ladders.NewSubmitFeed(c, keys("generated")) // for its BoardKeys
	byBoards := func(_ *redis.Client, i int) error {
		e := run(i)
		bk := generated.BoardKeys(e)
		day := ladders.NewBoard(c, bk[0])
		old, err := day.Get(ctx, e.PlayerID)
		if err != nil && !errors.Is(err, rankgenrt.ErrNotFound) {
			return err
		}
		if kept, err := day.Best(ctx, e); err != nil || !kept.Changed {
			return err
		}
		if _, err := ladders.NewBoard(c, bk[1]).AddScore(ctx, e.PlayerID, int64(e.Score)-int64(old.Score)); err != nil {
			return err
		}
		if _, err := ladders.NewBoard(c, bk[2]).Best(ctx, e); err != nil {
			return err
		}
		_, err = ladders.NewBoard(c, bk[3]).Best(ctx, e)
		return err
	}
	plain := keys("plain")
	bySets := func(c *redis.Client, i int) error {
		e := run(i)
		tag := "{" + plain.Game + "}:"
		score := float64(e.Score)
		old, err := c.ZScore(ctx, tag+"daily", e.PlayerID).Result()
		if err != nil && err != redis.Nil {
			return err
		}
		changed, err := c.ZAddArgs(ctx, tag+"daily", redis.ZAddArgs{GT: true, Ch: true, Members: []redis.Z{{Score: score, Member: e.PlayerID}}}).Result()
		if err != nil || changed == 0 {
			return err
		}
		if err := c.ZIncrBy(ctx, tag+"alltime", score-old, e.PlayerID).Err(); err != nil {
			return err
		}
		if err := c.ZAddGT(ctx, tag+"region:"+e.Data.Region.String(), redis.Z{Score: score, Member: e.PlayerID}).Err(); err != nil {
			return err
		}
		return c.ZAddGT(ctx, tag+"week", redis.Z{Score: score, Member: e.PlayerID}).Err()
	}
	fed := func(_ *redis.Client, i int) error {
		_, err := feed.Submit(ctx, run(i))
		return err
	}
	runPaired(b, "op=Feed/base=generated-calls", c, byBoards, fed)
	runPaired(b, "op=Feed/base=plain-sorted-sets", c, bySets, fed)
}
