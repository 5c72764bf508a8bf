package boardtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// BenchmarkPaired measures the ratios of docs/performance.md directly, robust to a busy machine: each
// round runs 20 calls of the baseline and 20 of the generated operation, alternating which goes
// first, so that both sides see the same load. It reports
//
//	ratio-wall  baseline time / generated time (≥ 1: the generated operation is as fast)
//	ratio-cpu   baseline CPU / generated CPU, server and client together (the throughput ratio
//	            when the machine is CPU-bound)
//	ratio-srv   the same, the server's CPU alone (the throughput ratio when the server is the
//	            bottleneck); ratio-cli the client's alone
//	gen-us      generated wall time per call
//
// Run it with: go test -run '^$' -bench Paired -count 6 ./examples/boardtest
func BenchmarkPaired(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		f := l.Field(updateTarget[l.Package])

		zb := board("zincrby")
		zincrby := func(c *redis.Client, i int) error {
			return c.ZIncrBy(ctx, zb.key, float64(delta(i))*float64(f.Weight), zb.members[i%benchEntries]).Err()
		}
		minimal := minimalScript(b, c, l, board("lua"))
		gu := genFor(b, l.Package, c, board("generated"))
		runPaired(b, "op=Update/base=minimal-lua", c, func(c *redis.Client, i int) error { return minimal(c, i, delta(i)).Err() },
			func(_ *redis.Client, i int) error { return gu.update(i, delta(i)) })
		// The exactly-once floor (bench_floor_test.go): what exactly-once costs a minimal
		// script, and the generated update beside a minimal script that has it too.
		runPaired(b, "op=MinimalOnce/base=minimal-lua", c, func(c *redis.Client, i int) error { return minimal(c, i, delta(i)).Err() },
			minimalOnce(b, c, l, board("lua-once-floor")))
		runPaired(b, "op=Update/base=minimal-lua-once", c, minimalOnce(b, c, l, board("lua-once")),
			func(_ *redis.Client, i int) error { return gu.update(i, delta(i)) })
		runPaired(b, "op=Update/base=zincrby", c, zincrby,
			func(_ *redis.Client, i int) error { return gu.update(i, delta(i)) })

		zbb := board("zincrby-batch")
		lbb := minimalScript(b, c, l, board("lua-batch"))
		gb := genFor(b, l.Package, c, board("generated-batch"))
		many := func(_ *redis.Client, i int) error { return gb.many(i*batchSize, batchSize, batchDelta(i)) }
		runPaired(b, "op=Batch/base=zincrby-pipeline", c, zincrbyPipeline(zbb, f), many)
		runPaired(b, "op=Batch/base=minimal-lua-pipeline", c, func(c *redis.Client, i int) error {
			pipe := c.Pipeline()
			for j := range batchSize {
				lbb(pipe, i*batchSize+j, batchDelta(i))
			}
			_, err := pipe.Exec(ctx)
			return err
		}, many)

		if mb := minimalBatch(b, c, l, board("lua-one-call")); mb != nil {
			runPaired(b, "op=Batch/base=minimal-lua-batch", c, mb, many)
			mbo := minimalBatchOnce(b, c, l, board("lua-one-call-once"))
			runPaired(b, "op=Batch/base=minimal-lua-batch-once", c, mbo, many)
			runPaired(b, "op=MinimalBatchOnce/base=minimal-lua-batch", c, mb, mbo)
			// The floor: how far the minimal batch itself is from pipelined ZINCRBY.
			runPaired(b, "op=MinimalBatch/base=zincrby-pipeline", c, zincrbyPipeline(zbb, f), mb)
		}

		bz := board("best-zadd")
		g := genFor(b, l.Package, c, board("best-generated"))
		runPaired(b, "op=Best/base=zadd", c, func(c *redis.Client, i int) error {
			return c.ZAdd(ctx, bz.key, g.bestZ[i%len(g.bestZ)]).Err()
		}, func(_ *redis.Client, i int) error { return g.best(i) })
		bgt := board("best-zadd-gt")
		runPaired(b, "op=Best/base=zadd-gt", c, func(c *redis.Client, i int) error {
			return c.ZAddArgs(ctx, bgt.key, redis.ZAddArgs{GT: true, Ch: true, Members: []redis.Z{g.bestZ[i%len(g.bestZ)]}}).Err()
		}, func(_ *redis.Client, i int) error { return g.best(i) })

		// The floor for Best: a minimal hand-written keep-best script (ZSCORE, compare,
		// ZADD), on the layouts whose member is the bare id (a member prefix would need the
		// index too, which no minimal script keeps).
		if !l.HasPrefix() {
			if err := minimalKeepBest.Load(ctx, c).Err(); err != nil {
				b.Fatal(err)
			}
			bk := board("best-keep-lua")
			runPaired(b, "op=Best/base=minimal-lua", c, func(c *redis.Client, i int) error {
				z := g.bestZ[i%len(g.bestZ)]
				return minimalKeepBest.EvalSha(ctx, c, []string{bk.key}, z.Member, rankgenrt.FormatScore(z.Score)).Err()
			}, func(_ *redis.Client, i int) error { return g.best(i) })
			keepOnce := minimalKeepBestOnce(b, c, board("best-keep-lua-once"), g.bestZ)
			runPaired(b, "op=Best/base=minimal-lua-once", c, keepOnce, func(_ *redis.Client, i int) error { return g.best(i) })
			runPaired(b, "op=MinimalBestOnce/base=minimal-lua", c, func(c *redis.Client, i int) error {
				z := g.bestZ[i%len(g.bestZ)]
				return minimalKeepBest.EvalSha(ctx, c, []string{bk.key}, z.Member, rankgenrt.FormatScore(z.Score)).Err()
			}, keepOnce)
			// How near ZADD GT any exactly-once script can come: the floor of the issue's
			// Best-against-ZADD-GT target.
			bgt2 := board("best-zadd-gt-floor")
			runPaired(b, "op=MinimalBestOnce/base=zadd-gt", c, func(c *redis.Client, i int) error {
				return c.ZAddArgs(ctx, bgt2.key, redis.ZAddArgs{GT: true, Ch: true, Members: []redis.Z{g.bestZ[i%len(g.bestZ)]}}).Err()
			}, minimalKeepBestOnce(b, c, board("best-keep-lua-once-gt"), g.bestZ))
		}

		// What a write returns costs its script a read of the entry before (Set: ZMSCORE) and
		// a longer reply; by hand, "did Best improve, and by how much" was a Get before the Best.
		sz, sg := board("set-zadd"), genFor(b, l.Package, c, board("set-generated"))
		runPaired(b, "op=Set/base=zadd", c, func(c *redis.Client, i int) error {
			return c.ZAdd(ctx, sz.key, sg.bestZ[i%len(sg.bestZ)]).Err()
		}, func(_ *redis.Client, i int) error { return sg.set(i) })
		gb2 := genFor(b, l.Package, c, board("best-get"))
		runPaired(b, "op=Best/base=get-then-best", c, func(_ *redis.Client, i int) error {
			if err := gb2.get(i); err != nil {
				return err
			}
			return gb2.best(i)
		}, func(_ *redis.Client, i int) error { return gb2.best(i) })

		rb := board("read")
		gr := genFor(b, l.Package, c, rb)
		runPaired(b, "op=Top100/base=zrange", c, func(c *redis.Client, i int) error {
			return c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: rb.key, Start: 0, Stop: 99, Rev: true}).Err()
		}, func(_ *redis.Client, i int) error {
			n, err := gr.top(100)
			if err == nil && n != 100 {
				err = fmt.Errorf("Top(100) returned %d entries", n)
			}
			return err
		})
		runPaired(b, "op=Rank/base=zrevrank", c, func(c *redis.Client, i int) error {
			return c.ZRevRank(ctx, rb.key, rb.members[i%benchEntries]).Err()
		}, func(_ *redis.Client, i int) error { return gr.rank(i) })
	})
}

// runPaired alternates rounds of the baseline and the generated operation; see BenchmarkPaired.
func runPaired(b *testing.B, name string, c *redis.Client, base, gen op) {
	const perRound = 20
	b.Run(name, func(b *testing.B) {
		var wall [2]time.Duration
		var cpu, srv [2]float64
		sides := [2]op{base, gen}
		i := 0
		for round := 0; b.Loop(); round++ {
			for k := range 2 {
				side := (k + round) % 2 // alternate which side goes first
				srv0, cli0, t0 := serverCPU(b, c), clientCPU(), time.Now()
				for j := range perRound {
					if err := sides[side](c, i+j); err != nil {
						b.Fatal(err)
					}
				}
				wall[side] += time.Since(t0)
				s := serverCPU(b, c) - srv0
				srv[side] += s
				cpu[side] += s + clientCPU() - cli0
			}
			i += perRound
		}
		calls := float64(b.N * perRound)
		b.ReportMetric(float64(wall[0])/float64(wall[1]), "ratio-wall")
		b.ReportMetric(cpu[0]/cpu[1], "ratio-cpu")
		b.ReportMetric(srv[0]/srv[1], "ratio-srv")
		b.ReportMetric((cpu[0]-srv[0])/(cpu[1]-srv[1]), "ratio-cli")
		b.ReportMetric(float64(wall[1].Microseconds())/calls, "gen-us")
	})
}

// BenchmarkPairedDedup measures what exactly-once writes cost, paired as in BenchmarkPaired:
// each write with dedup off (the baseline) against the default window (recording its token),
// for a single update, a batch of 100, and Best; and Best, with dedup on and off, against plain
// ZADD (off: the cost of its script alone).
//
//	go test -run '^$' -bench PairedDedup -count 6 -benchtime 60x ./examples/boardtest
func BenchmarkPairedDedup(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		off := genForDedup(b, l.Package, c, board("dedup-off"), 0)
		on := genFor(b, l.Package, c, board("dedup-on"))
		runPaired(b, "op=Update/base=dedup-off", c, func(_ *redis.Client, i int) error { return off.update(i, delta(i)) },
			func(_ *redis.Client, i int) error { return on.update(i, delta(i)) })
		runPaired(b, "op=Batch/base=dedup-off", c, func(_ *redis.Client, i int) error { return off.many(i*batchSize, batchSize, batchDelta(i)) },
			func(_ *redis.Client, i int) error { return on.many(i*batchSize, batchSize, batchDelta(i)) })
		runPaired(b, "op=Best/base=dedup-off", c, func(_ *redis.Client, i int) error { return off.best(i) },
			func(_ *redis.Client, i int) error { return on.best(i) })
		bz := board("best-zadd")
		zadd := func(c *redis.Client, i int) error { return c.ZAdd(ctx, bz.key, off.bestZ[i%len(off.bestZ)]).Err() }
		runPaired(b, "op=Best/base=zadd", c, zadd, func(_ *redis.Client, i int) error { return on.best(i) })
		runPaired(b, "op=BestDedupOff/base=zadd", c, zadd, func(_ *redis.Client, i int) error { return off.best(i) })
	})
}

// minimalKeepBest keeps the better of the stored and the given score of a member, as Best does
// on a layout whose member is the bare id: ZSCORE, compare, ZADD. It checks nothing else.
var minimalKeepBest = redis.NewScript(minimalKeepBestLua)

// minimalKeepBestLua is minimalKeepBest's Lua.
const minimalKeepBestLua = `
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
`
