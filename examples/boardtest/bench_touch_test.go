package boardtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkPairedTouch measures Touch against the least a hand-made board sends to restamp an
// entry it already knows: one ZADD XX of the entry's score with the client's clock in its
// stamp (no fingerprint, token, season or read of the stored entry), paired as in
// BenchmarkPaired, on arena; and TouchMany of 100 ids against one ZADD XX of 100 entries. Both
// are also paired with the field update that a play adding points sends (AddPoints,
// AddPointsMany), which stamps the same way.
//
//	go test -run '^$' -bench PairedTouch -count 6 ./examples/boardtest
func BenchmarkPairedTouch(b *testing.B) {
	c := redistest.Client(b)
	const players, batch = 1000, 100
	board := arena.NewBoard(c, redistest.Key(b, "{touch}"))
	base := redistest.Key(b, "{zadd-xx}")
	entries := make([]arena.Entry, players)
	ids := make([]string, players)
	for i := range entries {
		ids[i] = fmt.Sprintf("p%04d", i)
		entries[i] = arena.Entry{PlayerID: ids[i], Points: uint32(i % 50), ReachedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	}
	if _, err := board.SetMany(ctx, entries); err != nil {
		b.Fatal(err)
	}
	// restamped is the score, member pair of each of n entries from i on, stamped now.
	restamped := func(i, n int) []redis.Z {
		now := time.Now().Truncate(time.Second)
		zs := make([]redis.Z, n)
		for k := range zs {
			e := entries[(i+k)%players]
			e.ReachedAt = now
			score, member, err := e.Encode()
			if err != nil {
				b.Fatal(err)
			}
			zs[k] = redis.Z{Score: score, Member: member}
		}
		return zs
	}
	if err := c.ZAdd(ctx, base, restamped(0, players)...).Err(); err != nil {
		b.Fatal(err)
	}
	runPaired(b, "op=Touch/base=zadd-xx", c, func(c *redis.Client, i int) error {
		return c.ZAddXX(ctx, base, restamped(i, 1)...).Err()
	}, func(_ *redis.Client, i int) error {
		_, err := board.Touch(ctx, ids[i%players])
		return err
	})
	runPaired(b, "op=Touch/base=add-points", c, func(_ *redis.Client, i int) error {
		_, err := board.AddPoints(ctx, ids[i%players], 1)
		return err
	}, func(_ *redis.Client, i int) error {
		_, err := board.Touch(ctx, ids[i%players])
		return err
	})
	runPaired(b, "op=TouchMany/base=add-points-many", c, func(_ *redis.Client, i int) error {
		at, ups := i*batch%players, make([]arena.Update[int64], batch)
		for k := range ups {
			ups[k] = arena.Update[int64]{PlayerID: ids[at+k], Value: 1}
		}
		_, err := board.AddPointsMany(ctx, ups)
		return err
	}, func(_ *redis.Client, i int) error {
		at := i * batch % players
		_, err := board.TouchMany(ctx, ids[at:at+batch])
		return err
	})
	runPaired(b, "op=TouchMany/base=zadd-xx", c, func(c *redis.Client, i int) error {
		return c.ZAddXX(ctx, base, restamped(i*batch, batch)...).Err()
	}, func(_ *redis.Client, i int) error {
		at := i * batch % players
		_, err := board.TouchMany(ctx, ids[at:at+batch])
		return err
	})
}
