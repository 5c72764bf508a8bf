package boardtest

// Benchmarks of the example boards beside what a hand-written leaderboard would do: ZINCRBY and
// ZADD issued directly, and a minimal hand-written Lua script doing the same work as a generated
// update (ZSCORE + digit arithmetic + range check + ZADD). They run only with -bench:
//
//	go test -run '^$' -bench . -count 6 ./examples/boardtest | tee bench.txt
//	benchstat -col /impl bench.txt
//
// Sub-benchmark names carry ex= (example), mode= (seq: one caller, round-trip bound; par: 32
// callers, server bound) and impl= keys, so that benchstat -col /impl prints the ratios.

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/redistest"
	"github.com/redis/go-redis/v9"
)

const (
	benchEntries = 10000 // entries on every benchmark board
	batchSize    = 100   // entries per batch / pipeline
)

// benchBoard is a board of benchEntries random entries written with the interpreted codec.
type benchBoard struct {
	l       *layout.Layout
	key     string
	index   string // the id → member index, for layouts with a member prefix
	ids     []string
	entries []layout.Entry
}

func newBenchBoard(b *testing.B, c *redis.Client, schema, key, index string) *benchBoard {
	b.Helper()
	l := parse(b, schema)
	rng := rand.New(rand.NewPCG(1, 2))
	bb := &benchBoard{l: l, key: key, index: index, entries: randomEntries(rng, l, benchEntries)}
	pipe := c.Pipeline()
	for _, e := range bb.entries {
		// Start every field near the middle of its range: updates alternate +1 and −1 (delta),
		// so they stay in range however long the benchmark runs.
		for i, f := range l.Fields {
			span := f.Span()
			d := rng.Uint64N(span/2 + 1)
			if span >= 8 {
				d = span/2 - rng.Uint64N(min(span/4, 1000)+1)
			}
			e.Keys[i] = f.Key(d)
		}
		score, member, err := l.Encode(e)
		if err != nil {
			b.Fatal(err)
		}
		pipe.ZAdd(ctx, key, redis.Z{Score: score, Member: member})
		if l.HasPrefix() && index != "" {
			pipe.HSet(ctx, index, e.ID, member)
		}
		bb.ids = append(bb.ids, e.ID)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		b.Fatal(err)
	}
	return bb
}

// delta is the i-th call's update: +1 on even passes over the ids, −1 on odd ones.
func delta(i int) int64 { return 1 - 2*int64(i/benchEntries%2) }

// op is one way of doing the benchmarked operation for the i-th call.
type op func(c *redis.Client, i int) error

// runModes runs an operation once per caller (mode=seq: one caller, each call waits for its
// reply) and from 32 concurrent callers (mode=par: the server is the bottleneck).
func runModes(b *testing.B, name string, c *redis.Client, f op) {
	b.Run("mode=seq/impl="+name, func(b *testing.B) {
		i := 0
		for b.Loop() {
			if err := f(c, i); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("mode=par/impl="+name, func(b *testing.B) {
		var n atomic.Int64
		b.SetParallelism(16)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := f(c, int(n.Add(1))); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// benchClient is a client with a pool large enough for the parallel runs.
func benchClient(b *testing.B) *redis.Client {
	return redistest.ClientWith(b, func(o *redis.Options) { o.PoolSize = 64 })
}

// minimalAdd is the hand-written baseline of a single-field add on a score-only layout: ZSCORE,
// the digit arithmetic and range check of the field, ZADD, and the new score as exact text.
func minimalAdd(f *layout.Field) *redis.Script {
	return redis.NewScript(fmt.Sprintf(`local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
local p = s and tonumber(s) or 0
local d = math.floor(p / %[1]d) %% %[2]d
local nd = d + tonumber(ARGV[2])
if nd < 0 or nd > %[3]d then
  return redis.error_reply('OVERFLOW')
end
p = p + (nd - d) * %[1]d
redis.call('ZADD', KEYS[1], string.format('%%d', p), ARGV[1])
return string.format('%%d', p)`, f.Weight, f.MaxDigit+1, f.Span()))
}

// minimalAddPrefix is the hand-written baseline for a layout with a member prefix: HGET the
// member, ZSCORE, arithmetic, ZREM the old member, ZADD the new one (whose prefix the client
// computed), HSET the index.
var minimalAddPrefix = redis.NewScript(`local m = redis.call('HGET', KEYS[2], ARGV[1])
local s = m and redis.call('ZSCORE', KEYS[1], m)
local p = s and tonumber(s) or 0
local d = math.floor(p / tonumber(ARGV[4])) % tonumber(ARGV[5])
local nd = d + tonumber(ARGV[2])
if nd < 0 or nd > tonumber(ARGV[6]) then
  return redis.error_reply('OVERFLOW')
end
p = p + (nd - d) * tonumber(ARGV[4])
local nm = ARGV[3] .. ARGV[1]
if m and m ~= nm then
  redis.call('ZREM', KEYS[1], m)
end
redis.call('ZADD', KEYS[1], string.format('%d', p), nm)
redis.call('HSET', KEYS[2], ARGV[1], nm)
return string.format('%d', p)`)

// updateTarget names, per example, the field a single update adds to.
var updateTarget = map[string]string{"racing": "Laps", "arena": "Points", "season": "Points"}

// BenchmarkUpdate: a single "add 1 to a field" on an existing entry, one round trip per call.
func BenchmarkUpdate(b *testing.B) {
	c := benchClient(b)
	for _, ex := range []example{exampleNamed("racing"), exampleNamed("arena"), exampleNamed("season")} {
		b.Run("ex="+ex.name, func(b *testing.B) {
			k := redistest.Key(b, ex.name)
			l := parse(b, ex.schema)
			idx := ""
			if l.HasPrefix() {
				idx = k + ":idx"
			}
			bb := newBenchBoard(b, c, ex.schema, k, idx)
			f := l.Field(updateTarget[ex.name])
			ids := bb.ids
			runModes(b, "zincrby", c, func(c *redis.Client, i int) error {
				return c.ZIncrBy(ctx, k, float64(delta(i))*float64(f.Weight), ids[i%len(ids)]).Err()
			})
			if !l.HasPrefix() {
				s := minimalAdd(f)
				runModes(b, "minimal-lua", c, func(c *redis.Client, i int) error {
					return s.Run(ctx, c, []string{k}, ids[i%len(ids)], delta(i)).Err()
				})
			} else {
				prefixes := make([]string, len(bb.entries))
				for i, e := range bb.entries {
					_, m, _ := l.Encode(e)
					prefixes[i] = m[:l.PrefixLen]
				}
				runModes(b, "minimal-lua", c, func(c *redis.Client, i int) error {
					j := i % len(ids)
					return minimalAddPrefix.Run(ctx, c, []string{k, idx}, ids[j], delta(i), prefixes[j],
						f.Weight, f.MaxDigit+1, f.Span()).Err()
				})
			}
			for _, g := range genUpdates {
				if g.ex == ex.name {
					bench := g.new(b, c, bb)
					runModes(b, "generated", c, bench)
				}
			}
		})
	}
}

func exampleNamed(name string) example {
	for _, ex := range examples {
		if ex.name == name {
			return ex
		}
	}
	panic("no example " + name)
}

// genBench builds the generated board's side of a benchmark for one example.
type genBench struct {
	ex  string
	new func(b *testing.B, c *redis.Client, bb *benchBoard) op
}

var _ = strconv.Itoa
