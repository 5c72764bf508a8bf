package boardtest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkShardedTopData measures Top(100) on the laps board, whose entries carry data, on the
// private 3-master cluster: a ShardedBoard of 6 shards (each shard's page script reads its
// first 100 with their data, one pipeline, merged by the client) beside a one-key Board of the
// same entries (one page script); and, as the baseline, the same on the racing board, without
// data (ZREVRANGE per shard). Client time per call, for docs/sharded.md.
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
	rs, rone := loadRacingPair(b, c)
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

// loadRacingPair loads the racing board (no data) sharded over 6 shards and under one key,
// for the baseline of BenchmarkShardedTopData.
func loadRacingPair(b *testing.B, c redis.UniversalClient) (*racing.ShardedBoard, *racing.Board) {
	sharded, err := racing.NewShardedBoard(c, "bench-racing", 6)
	if err != nil {
		b.Fatal(err)
	}
	one := racing.NewBoard(c, "bench-racing-one")
	for start := 0; start < benchEntries; start += batchSize {
		es := make([]racing.Entry, batchSize)
		for i := range es {
			n := start + i
			es[i] = racing.Entry{Car: uint64(n), Laps: uint16(n % 70), RaceTime: uint32(n * 7919 % 100000)}
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
