package boardtest

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

// BenchmarkShardedReadsPaired: the masters' CPU per Rank and per Top(100) of a seed002decimal
// ShardedBoard of 6 shards against a one-key Board holding the same 20,000 entries, on the
// private 3-master cluster. Rounds of 200 calls from one caller alternate between the two
// (which goes first alternates too), so both see the same machine load. cpu-ratio-<read> is
// the sharded read's CPU over the one-key read's (the targets: Rank ≤ 2×, Top(100) ≤ 1.5×).
//
//	go test -run '^$' -bench ShardedReadsPaired -benchtime 20x ./examples/boardtest
func BenchmarkShardedReadsPaired(b *testing.B) {
	const entries, shards, calls = 20_000, 6, 200
	c := redistest.StartCluster(b)
	sb, err := seed002decimal.NewShardedBoard(c, redistest.Key(b, "sharded"), shards)
	if err != nil {
		b.Fatal(err)
	}
	boards := [2]scaleOps{scaleBoard(seed002decimal.NewBoard(c, redistest.Key(b, "one"))), scaleSharded(sb)}
	for _, ops := range boards {
		if err := loadScale(ops, entries, rand.New(rand.NewPCG(7, 11))); err != nil {
			b.Fatal(err)
		}
	}
	reads := []struct {
		name string
		call func(ops scaleOps, rng *rand.Rand) error
	}{
		{"rank", func(ops scaleOps, rng *rand.Rand) error { return ops.rank(ctx, strconv.Itoa(rng.IntN(entries)*7)) }},
		{"top100", func(ops scaleOps, _ *rand.Rand) error { return ops.top100(ctx) }},
	}
	for _, read := range reads {
		b.Run(read.name, func(b *testing.B) {
			var cpu [2]float64
			rng := rand.New(rand.NewPCG(5, 5))
			for round := 0; b.Loop(); round++ {
				for k := range boards {
					side := (k + round) % 2
					m0, _ := shardClusterCPU(b, c)
					for range calls {
						if err := read.call(boards[side], rng); err != nil {
							b.Fatal(err)
						}
					}
					m1, _ := shardClusterCPU(b, c)
					cpu[side] += m1 - m0
				}
			}
			n := float64(b.N * calls)
			b.ReportMetric(cpu[0]*1e6/n, "one-key-us")
			b.ReportMetric(cpu[1]*1e6/n, "sharded-us")
			b.ReportMetric(cpu[1]/cpu[0], "cpu-ratio-"+read.name)
		})
	}
}
