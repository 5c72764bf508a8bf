package boardtest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkShardedTopData measures Top(100) on the laps board, whose entries carry data, on the
// private 3-master cluster: a ShardedBoard of 6 shards (each shard's page script reads its
// first 100 with their data, one pipeline, merged by the client) beside a one-key Board of the
// same entries (one page script); and, as the baseline, the same on the seed002decimal board (a decimal
// score, as racing's), without data (ZREVRANGE per shard). Client time per call, for docs/sharded.md.
//
//	go test -run '^$' -bench ShardedTopData -count 3 -benchtime 500x ./examples/boardtest
func BenchmarkShardedTopData(b *testing.B) {
	c := redistest.StartCluster(b)
	sharded, err := laps.NewShardedBoard(c, "bench-laps", 6)
	if err != nil {
		b.Fatal(err)
	}
	one := laps.NewBoard(c, "bench-laps-one")
	l := parse(b, "laps.yaml")
	rng := rand.New(rand.NewPCG(5, 6))
	for start := 0; start < benchEntries; start += batchSize {
		es := make([]laps.Entry, batchSize)
		for i := range es {
			e := oracle.RandomEntry(l, rng)
			e.ID = fmt.Sprintf("driver-%05d", start+i)
			e.Data = oracle.RandomData(l, rng)
			oracle.ToGenerated(l, e, &es[i])
		}
		if _, err := sharded.SetMany(ctx, es); err != nil {
			b.Fatal(err)
		}
		if _, err := one.SetMany(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
	rs, rone := loadDecimalPair(b, c)
	for _, bc := range []struct {
		name string
		top  func() (int, error)
	}{
		{"data=yes/board=one", func() (int, error) { top, err := one.Top(ctx, 100); return len(top), err }},
		{"data=yes/board=sharded6", func() (int, error) { top, err := sharded.Top(ctx, 100); return len(top), err }},
		{"data=no/board=one", func() (int, error) { top, err := rone.Top(ctx, 100); return len(top), err }},
		{"data=no/board=sharded6", func() (int, error) { top, err := rs.Top(ctx, 100); return len(top), err }},
	} {
		b.Run("op=Top100/"+bc.name, func(b *testing.B) {
			for b.Loop() {
				if n, err := bc.top(); err != nil || n != 100 {
					b.Fatalf("Top(100): %d entries, %v", n, err)
				}
			}
		})
	}
}

// loadDecimalPair loads the seed002decimal board (no data) sharded over 6 shards and under one
// key, for the baseline of BenchmarkShardedTopData.
func loadDecimalPair(b *testing.B, c redis.UniversalClient) (*seed002decimal.ShardedBoard, *seed002decimal.Board) {
	sharded, err := seed002decimal.NewShardedBoard(c, "bench-decimal", 6)
	if err != nil {
		b.Fatal(err)
	}
	one := seed002decimal.NewBoard(c, "bench-decimal-one")
	for start := 0; start < benchEntries; start += batchSize {
		es := make([]seed002decimal.Entry, batchSize)
		for i := range es {
			n := start + i
			es[i] = seed002decimal.Entry{Player: strconv.Itoa(n), Points: uint32(n % 70), ReachedAt: reachedAt(n * 7919 % 100000)}
		}
		if _, err := sharded.SetMany(ctx, es); err != nil {
			b.Fatal(err)
		}
		if _, err := one.SetMany(ctx, es); err != nil {
			b.Fatal(err)
		}
	}
	return sharded, one
}
