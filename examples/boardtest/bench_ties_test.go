package boardtest

import (
	"math"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/quiz"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkPairedTies measures ties by id ascending (quiz: id order: asc) against what a user
// would write by hand for the same order: ZADD of the score with the id complemented by hand
// (the 20 digits of MaxUint64 − id, so that a descending read meets smaller ids first), and
// ZREVRANGE WITHSCORES of the top ten with the ids read back. Paired as BenchmarkPaired:
// ratio-wall and ratio-cpu are the hand-written time over the generated one.
//
// Run it with: go test -run '^$' -bench PairedTies -count 6 ./examples/boardtest
func BenchmarkPairedTies(b *testing.B) {
	c := benchClient(b)
	hand, gen := redistest.Key(b, "ties-hand"), quiz.NewBoard(c, redistest.Key(b, "ties-generated"))
	entry := func(i int) quiz.Entry { // ten ids per score: ties everywhere
		return quiz.Entry{PlayerID: uint64(i), Correct: uint8(i / 10 % 256), Millis: 1000}
	}
	handMember := func(id uint64) string {
		s := strconv.FormatUint(math.MaxUint64-id, 10)
		return "00000000000000000000"[len(s):] + s
	}
	handSet := func(c *redis.Client, i int) error {
		e := entry(i)
		score := float64(uint64(e.Correct)<<24 | uint64(16777215-e.Millis))
		return c.ZAdd(ctx, hand, redis.Z{Score: score, Member: handMember(e.PlayerID)}).Err()
	}
	runPaired(b, "op=Set/base=zadd-complemented", c, handSet,
		func(_ *redis.Client, i int) error { _, err := gen.Set(ctx, entry(i)); return err })

	handTop := func(c *redis.Client, _ int) error {
		zs, err := c.ZRevRangeWithScores(ctx, hand, 0, 9).Result()
		top := make([]quiz.Entry, 0, len(zs))
		for _, z := range zs {
			n, perr := strconv.ParseUint(z.Member.(string), 10, 64)
			if perr != nil {
				return perr
			}
			p := uint64(z.Score)
			top = append(top, quiz.Entry{PlayerID: math.MaxUint64 - n, Correct: uint8(p >> 24), Millis: uint32(16777215 - p&16777215)})
		}
		_ = top
		return err
	}
	runPaired(b, "op=Top10/base=zrevrange-complemented", c, handTop,
		func(_ *redis.Client, _ int) error { _, err := gen.Top(ctx, 10); return err })
}
