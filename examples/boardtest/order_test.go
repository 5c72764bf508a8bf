package boardtest

import (
	"math"
	"slices"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestRedisOrderIsCompare stores 10,000 random entries of every example (periodic ones too: their
// codec needs no season; ties on every field common, ids with NUL, separator and bytes ≥ 0x80)
// and reads the board back with ZRANGE … REV:
// the pairs come back bit for bit, the generated Decode/Encode round-trips each of them, and
// Redis's order is exactly the order of the generated Compare and of the interpreted one. On the
// single server and on the cluster (2,000 entries there unless -cluster.full).
func TestRedisOrderIsCompare(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { redisOrderIsCompare(t, tg.Client, tg.Size(10000, 2000)) })
}

func redisOrderIsCompare(t *testing.T, c redis.UniversalClient, n int) {
	for _, ex := range withPeriodic() {
		t.Run(ex.name, func(t *testing.T) {
			l := parse(t, ex.schema)
			rng := newRand(t, 1)
			entries := randomEntries(rng, l, n)
			zs := make([]redis.Z, len(entries))
			for i, e := range entries {
				score, member, err := l.Encode(e)
				if err != nil {
					t.Fatalf("interpreted Encode(%q %v): %v", e.ID, e.Keys, err)
				}
				zs[i] = redis.Z{Score: score, Member: member}
			}
			k := redistest.Key(t, "board")
			if err := c.ZAdd(ctx, k, zs...).Err(); err != nil {
				t.Fatal(err)
			}
			got, err := c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: k, Start: 0, Stop: -1, Rev: true}).Result()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(entries) {
				t.Fatalf("%d members; want %d", len(got), len(entries))
			}
			redisOrder := make([]pair, len(got))
			for i, z := range got {
				redisOrder[i] = pair{z.Score, z.Member.(string)}
				s, m, err := ex.codec.roundTrip(z.Score, z.Member.(string))
				if err != nil || math.Float64bits(s) != math.Float64bits(z.Score) || m != z.Member {
					t.Fatalf("generated Decode/Encode of (%v, %q) = (%v, %q), %v", z.Score, z.Member, s, m, err)
				}
			}

			generated := slices.Clone(redisOrder)
			rng.Shuffle(len(generated), func(i, j int) { generated[i], generated[j] = generated[j], generated[i] })
			if err := ex.codec.sortPairs(generated); err != nil {
				t.Fatal(err)
			}
			slices.SortStableFunc(entries, l.Compare)
			for i := range redisOrder {
				if generated[i] != redisOrder[i] {
					t.Fatalf("rank %d: Redis has (%v, %q), the generated Compare puts (%v, %q) there",
						i+1, redisOrder[i].Score, redisOrder[i].Member, generated[i].Score, generated[i].Member)
				}
				score, member, _ := l.Encode(entries[i])
				if (pair{score, member}) != redisOrder[i] {
					t.Fatalf("rank %d: Redis has (%v, %q), the interpreted Compare puts (%v, %q) there",
						i+1, redisOrder[i].Score, redisOrder[i].Member, score, member)
				}
			}
		})
	}
}
