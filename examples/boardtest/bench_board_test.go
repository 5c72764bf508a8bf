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
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

const (
	benchEntries = 10000 // entries on every benchmark board
	batchSize    = 100   // entries per batch / pipeline
)

// benchBoard is a board of benchEntries random entries written with the interpreted codec, with
// its id → member index when the layout has a member prefix, and the layout's fingerprint.
type benchBoard struct {
	l       *layout.Layout
	key     string
	ids     []string
	members []string
	entries []layout.Entry
}

func newBenchBoard(b *testing.B, c *redis.Client, schema, key string) *benchBoard {
	b.Helper()
	l := parse(b, schema)
	rng := rand.New(rand.NewPCG(1, 2))
	bb := &benchBoard{l: l, key: key, entries: randomEntries(rng, l, benchEntries)}
	pipe := c.Pipeline()
	for n, e := range bb.entries {
		// Start every field near the middle of its range: updates alternate +1 and −1 (delta),
		// so they stay in range however long the benchmark runs.
		e.Keys = make([]uint64, len(l.Fields))
		for i, f := range l.Fields {
			span := f.Span()
			d := rng.Uint64N(span/2 + 1)
			if span >= 8 {
				d = span/2 - rng.Uint64N(min(span/4, 1000)+1)
			}
			e.Keys[i] = f.Key(d)
		}
		bb.entries[n] = e
		score, member, err := l.Encode(e)
		if err != nil {
			b.Fatal(err)
		}
		pipe.ZAdd(ctx, key, redis.Z{Score: score, Member: member})
		if l.HasPrefix() {
			pipe.HSet(ctx, rankgenrt.IndexKey(key), e.ID, member)
		}
		bb.ids = append(bb.ids, e.ID)
		bb.members = append(bb.members, member)
	}
	// The layout's fingerprint, as its first generated write (or Reindex) records it.
	if l.HasPrefix() {
		pipe.HSet(ctx, rankgenrt.IndexKey(key), "", l.Fingerprint)
	} else {
		pipe.Set(ctx, rankgenrt.MetaKey(key), l.Fingerprint, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		b.Fatal(err)
	}
	return bb
}

// delta is the i-th call's update: +1 on even passes over the ids, −1 on odd ones.
func delta(i int) int64 { return 1 - 2*int64(i/benchEntries%2) }

// batchDelta is the delta of the i-th batch call (batchSize entries from entry i*batchSize): its
// sign flips each time the calls come round to the same entries, so that no entry drifts out
// of its field's range however long a benchmark runs.
func batchDelta(i int) int64 { return delta(i * batchSize) }

// op is one way of doing the benchmarked operation for the i-th call.
type op func(c *redis.Client, i int) error

// runModes runs an operation once per caller (mode=seq: one caller, each call waits for its
// reply) and from 32 concurrent callers (mode=par: the server is the bottleneck).
func runModes(b *testing.B, name string, c *redis.Client, f op) { runModesN(b, name, c, 0, f) }

// runModesN is runModes for operations on perOp entries each, reporting entries/s.
//
// Besides ns/op, every run reports the CPU time the operation costs, which does not depend on
// how busy the machine is: srv-us/op, the redis-server's (from INFO cpu; the server is private
// to this test binary unless REDIS_URL is set), and cli-us/op, this process's (getrusage).
func runModesN(b *testing.B, name string, c *redis.Client, perOp int, f op) {
	var srv0, cli0 float64
	start := func(b *testing.B) {
		runtime.GC() // the setup's garbage is not the operation's cost
		srv0, cli0 = serverCPU(b, c), clientCPU()
		b.ResetTimer()
	}
	report := func(b *testing.B) {
		b.StopTimer()
		n := float64(b.N)
		b.ReportMetric((serverCPU(b, c)-srv0)*1e6/n, "srv-us/op")
		b.ReportMetric((clientCPU()-cli0)*1e6/n, "cli-us/op")
		if perOp > 0 {
			b.ReportMetric(float64(perOp)*n/b.Elapsed().Seconds(), "entries/s")
		}
	}
	b.Run("mode=seq/impl="+name, func(b *testing.B) {
		start(b)
		for i := 0; i < b.N; i++ {
			if err := f(c, i); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
	b.Run("mode=par/impl="+name, func(b *testing.B) {
		var n atomic.Int64
		b.SetParallelism(16)
		start(b)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := f(c, int(n.Add(1))); err != nil {
					b.Error(err)
					return
				}
			}
		})
		report(b)
	})
}

// serverCPU is the CPU time (user + system, seconds) the server has used.
func serverCPU(b testing.TB, c *redis.Client) float64 {
	info, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if k == "used_cpu_sys" || k == "used_cpu_user" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatalf("INFO cpu: %s: %v", line, err)
			}
			total += f
		}
	}
	return total
}

// clientCPU is the CPU time (user + system, seconds) this process has used.
func clientCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// benchClient is a client with a pool large enough for the parallel runs.
func benchClient(b *testing.B) *redis.Client {
	return redistest.ClientWith(b, func(o *redis.Options) { o.PoolSize = 64 })
}

// minimalAdd is the hand-written baseline of a single-field add on a score-only layout: ZSCORE,
// the digit arithmetic and range check of the field, the server-clock stamps the layout declares
// (the same work as the generated update), ZADD, and the new score as exact text.
func minimalAdd(l *layout.Layout, f *layout.Field) *redis.Script {
	return redis.NewScript(minimalAddLua(l, f))
}

// minimalAddLua is minimalAdd's Lua.
func minimalAddLua(l *layout.Layout, f *layout.Field) string {
	return fmt.Sprintf(`local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
local p = s and tonumber(s) or 0
local d = math.floor(p / %[1]d) %% %[2]d
local nd = d + tonumber(ARGV[2])
if nd < 0 or nd > %[3]d then
  return redis.error_reply('OVERFLOW')
end
p = p + (nd - d) * %[1]d
%[4]s%[5]sredis.call('ZADD', KEYS[1], string.format('%%d', p), ARGV[1])
return string.format('%%d', p)`, f.Weight, f.MaxDigit+1, f.Span(), serverClock(l), serverStamps(l, ""))
}

// serverClock is the hand-written Lua that reads Redis's clock into now (Unix microseconds) when
// the layout has a `stamp: server` field in the score.
func serverClock(l *layout.Layout) string {
	if serverStamps(l, "") == "" {
		return ""
	}
	return "local t = redis.call('TIME')\nlocal now = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
}

// serverStamps is the hand-written Lua that sets every `stamp: server` field of P to now (see
// serverClock), indented by indent; empty when the layout has none.
func serverStamps(l *layout.Layout, indent string) string {
	var b strings.Builder
	for _, f := range l.Fields {
		if f.Stamp != layout.StampServer || f.Place != layout.InScore {
			continue
		}
		div := f.Unit.Duration() / time.Microsecond
		digit := fmt.Sprintf("math.floor(now / %d) - %d", div, f.MinInt())
		if f.Order == layout.Asc {
			digit = fmt.Sprintf("%d - math.floor(now / %d)", f.MaxInt(), div)
		}
		fmt.Fprintf(&b, "%[1]sp = p + (%[2]s - math.floor(p / %[3]d) %% %[4]d) * %[3]d\n", indent, digit, f.Weight, f.MaxDigit+1)
	}
	return b.String()
}

// minimalAddPrefix is the hand-written baseline for a layout with a member prefix: HGET the
// member, ZSCORE, arithmetic, ZREM the old member, ZADD the new one (whose prefix the client
// computed), HSET the index.
var minimalAddPrefix = redis.NewScript(minimalAddPrefixLua)

// minimalAddPrefixLua is minimalAddPrefix's Lua.
const minimalAddPrefixLua = `local m = redis.call('HGET', KEYS[2], ARGV[1])
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
return string.format('%d', p)`

// updateTarget names, per example, the field a single update adds to.
var updateTarget = map[string]string{"racing": "Laps", "arena": "Points", "season": "Points"}

// benchExamples are the boards benchmarked: racing (score only, no stamp), arena (score only,
// the server's TIME stamped on every update) and season (member prefix, id index, client stamp).
var benchExamples = []string{"racing", "arena", "season"}

// forExamples runs f for every benchmarked example; board(impl) makes a fresh board of
// benchEntries entries for one implementation, so that implementations never see each other's
// writes.
func forExamples(b *testing.B, f func(b *testing.B, l *layout.Layout, c *redis.Client, board func(impl string) *benchBoard)) {
	c := benchClient(b)
	for _, name := range benchExamples {
		ex := exampleNamed(name)
		b.Run("ex="+name, func(b *testing.B) {
			f(b, parse(b, ex.schema), c, func(impl string) *benchBoard {
				return newBenchBoard(b, c, ex.schema, redistest.Key(b, name+"-"+impl))
			})
		})
	}
}

// BenchmarkUpdate: add ±1 to a field of an existing entry, one call per update: ZINCRBY (no range
// check, no decode), the minimal hand-written Lua, and the generated Add<Field>.
func BenchmarkUpdate(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		f := l.Field(updateTarget[l.Package])
		zb := board("zincrby")
		runModes(b, "zincrby", c, func(c *redis.Client, i int) error {
			return c.ZIncrBy(ctx, zb.key, float64(delta(i))*float64(f.Weight), zb.members[i%benchEntries]).Err()
		})
		lb := board("lua")
		minimal := minimalScript(b, c, l, lb)
		runModes(b, "minimal-lua", c, func(c *redis.Client, i int) error { return minimal(c, i, delta(i)).Err() })
		g := genFor(b, l.Package, c, board("generated"))
		runModes(b, "generated", c, func(_ *redis.Client, i int) error { return g.update(i, delta(i)) })
	})
}

// minimalScript returns a function that runs the minimal hand-written Lua for the i-th id with
// a delta, on a Scripter (a client or a pipeline); the script is loaded first.
func minimalScript(b *testing.B, c *redis.Client, l *layout.Layout, bb *benchBoard) func(redis.Scripter, int, int64) *redis.Cmd {
	f := l.Field(updateTarget[l.Package])
	if !l.HasPrefix() {
		s := minimalAdd(l, f)
		if err := s.Load(ctx, c).Err(); err != nil {
			b.Fatal(err)
		}
		return func(c redis.Scripter, i int, d int64) *redis.Cmd {
			return s.EvalSha(ctx, c, []string{bb.key}, bb.ids[i%benchEntries], d)
		}
	}
	if err := minimalAddPrefix.Load(ctx, c).Err(); err != nil {
		b.Fatal(err)
	}
	keys := []string{bb.key, rankgenrt.IndexKey(bb.key)}
	return func(c redis.Scripter, i int, d int64) *redis.Cmd {
		j := i % benchEntries
		return minimalAddPrefix.EvalSha(ctx, c, keys, bb.ids[j], d, stampedPrefix(l, bb.members[j]),
			f.Weight, f.MaxDigit+1, f.Span())
	}
}

// stampedPrefix is the member prefix of member with every stamped member field set to now, as a
// hand-written client would compute it: the same work as the generated update, whose stamp
// moves the entry to a new member on every change.
func stampedPrefix(l *layout.Layout, member string) string {
	p := []byte(member[:l.PrefixLen])
	now := time.Now()
	for _, f := range l.Fields {
		if f.Stamp == layout.StampNone || f.Place != layout.InMember {
			continue
		}
		n, _ := layout.TimeUnits(now, f.Unit)
		copy(p[f.Offset:], rankgenrt.DigitText(f.Digit(layout.IntKey(n)), f.TextWidth, f.Hex))
	}
	return string(p)
}

// minimalBatchAdd is the hand-written baseline of a batch of adds on a score-only layout, in one
// script call: ZMSCORE of all ids, the digit arithmetic and range check of each (and the
// server-clock stamps the layout declares), one ZADD, and the new scores as the reply, as text
// like minimalAdd's (a Lua number would be truncated). It is what a careful hand would write,
// and the floor for any update that must read before it writes: no fingerprint, no validation
// of stored scores, no error per update (one overflow fails the whole batch).
func minimalBatchAdd(l *layout.Layout, f *layout.Field) *redis.Script {
	st := minimalBatchStages(l, f)
	return redis.NewScript(st.read + st.arithmetic + st.write + "return out")
}

// batchStages is minimalBatchAdd's source cut after each stage.
type batchStages struct{ read, arithmetic, write string }

func minimalBatchStages(l *layout.Layout, f *layout.Field) batchStages {
	return batchStages{
		read: serverClock(l) + `local n = #ARGV / 2
local ids = {}
for i = 1, n do
  ids[i] = ARGV[2 * i - 1]
end
local sc = redis.call('ZMSCORE', KEYS[1], unpack(ids))
`,
		arithmetic: fmt.Sprintf(`local zadd, out = {}, {}
for i = 1, n do
  local p = tonumber(sc[i]) or 0
  local d = math.floor(p / %[1]d) %% %[2]d
  local nd = d + tonumber(ARGV[2 * i])
  if nd < 0 or nd > %[3]d then
    return redis.error_reply('OVERFLOW')
  end
  p = p + (nd - d) * %[1]d
%[4]s  zadd[2 * i - 1], zadd[2 * i], out[i] = p, ids[i], string.format('%%d', p)
end
`, f.Weight, f.MaxDigit+1, f.Span(), serverStamps(l, "  ")),
		write: "redis.call('ZADD', KEYS[1], unpack(zadd))\n",
	}
}

// zincrbyPipeline is the unchecked baseline of a batch: batchSize ZINCRBYs of f's weight times
// the delta, pipelined.
func zincrbyPipeline(bb *benchBoard, f *layout.Field) op {
	return func(c *redis.Client, i int) error {
		pipe := c.Pipeline()
		for j := range batchSize {
			pipe.ZIncrBy(ctx, bb.key, float64(batchDelta(i))*float64(f.Weight), bb.members[(i*batchSize+j)%benchEntries])
		}
		_, err := pipe.Exec(ctx)
		return err
	}
}

// minimalBatch returns a function that runs minimalBatchAdd for n ids from the i-th, or nil for
// layouts with a member prefix (whose hand-written batch would need the index as well).
func minimalBatch(b *testing.B, c *redis.Client, l *layout.Layout, bb *benchBoard) op {
	if l.HasPrefix() {
		return nil
	}
	s := minimalBatchAdd(l, l.Field(updateTarget[l.Package]))
	if err := s.Load(ctx, c).Err(); err != nil {
		b.Fatal(err)
	}
	return func(c *redis.Client, i int) error {
		args := make([]any, 0, 2*batchSize)
		for j := range batchSize {
			args = append(args, bb.ids[(i*batchSize+j)%benchEntries], batchDelta(i))
		}
		return s.EvalSha(ctx, c, []string{bb.key}, args...).Err()
	}
}

// BenchmarkBatch: 100 updates per call, reported in entries/s: ZINCRBY pipelined, the minimal Lua
// pipelined (EVALSHA ×100 in one round trip), the minimal Lua batched (one script call, score-only
// layouts), and the generated Add<Field>Many (one script call).
func BenchmarkBatch(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		f := l.Field(updateTarget[l.Package])
		runBatch(b, "zincrby-pipeline", c, zincrbyPipeline(board("zincrby"), f))
		lb := board("lua")
		minimal := minimalScript(b, c, l, lb)
		runBatch(b, "minimal-lua-pipeline", c, func(c *redis.Client, i int) error {
			pipe := c.Pipeline()
			for j := range batchSize {
				minimal(pipe, i*batchSize+j, batchDelta(i))
			}
			_, err := pipe.Exec(ctx)
			return err
		})
		if mb := minimalBatch(b, c, l, board("lua-batch")); mb != nil {
			runBatch(b, "minimal-lua-batch", c, mb)
		}
		g := genFor(b, l.Package, c, board("generated"))
		runBatch(b, "generated-many", c, func(_ *redis.Client, i int) error {
			return g.many(i*batchSize, batchSize, batchDelta(i))
		})
	})
}

// runBatch is runModes for batches of batchSize updates, adding an entries/s metric.
func runBatch(b *testing.B, name string, c *redis.Client, f op) { runModesN(b, name, c, batchSize, f) }

// BenchmarkBest: submit an entry to keep the better of old and new: plain ZADD (always writes,
// no comparison), ZADD GT issued directly, and the generated Best (its script, which checks the
// fingerprint and the stored entry, compares whole tuples and records the call's token).
func BenchmarkBest(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		zb := board("zadd")
		g := genFor(b, l.Package, c, zb)
		runModes(b, "zadd", c, func(c *redis.Client, i int) error {
			return c.ZAdd(ctx, zb.key, g.bestZ[i%len(g.bestZ)]).Err()
		})
		gb := board("zadd-gt")
		runModes(b, "zadd-gt", c, func(c *redis.Client, i int) error {
			return c.ZAddArgs(ctx, gb.key, redis.ZAddArgs{GT: true, Ch: true, Members: []redis.Z{g.bestZ[i%len(g.bestZ)]}}).Err()
		})
		gen := genFor(b, l.Package, c, board("generated"))
		runModes(b, "generated", c, func(_ *redis.Client, i int) error { return gen.best(i) })
	})
}

// BenchmarkTop100: the first 100 entries: ZRANGE … REV WITHSCORES issued directly (pairs only)
// and the generated Top(100) (decoded, typed entries with ranks).
func BenchmarkTop100(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		bb := board("read")
		runModes(b, "zrange", c, func(c *redis.Client, i int) error {
			return c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: bb.key, Start: 0, Stop: 99, Rev: true}).Err()
		})
		g := genFor(b, l.Package, c, bb)
		runModes(b, "generated", c, func(_ *redis.Client, i int) error {
			n, err := g.top(100)
			if err == nil && n != 100 {
				err = fmt.Errorf("Top(100) returned %d entries", n)
			}
			return err
		})
	})
}

// BenchmarkDecode100: decoding the 100 pairs of a Top(100) with the generated Decode, without the
// round trip: the share of decoding in BenchmarkTop100.
func BenchmarkDecode100(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		bb := board("decode")
		zs, err := c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: bb.key, Start: 0, Stop: 99, Rev: true}).Result()
		if err != nil {
			b.Fatal(err)
		}
		g := genFor(b, l.Package, c, bb)
		b.Run("mode=seq/impl=generated", func(b *testing.B) {
			for b.Loop() {
				if _, err := g.decode(zs); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkRank: an entry's 1-based rank by id: ZREVRANK of the member issued directly, and the
// generated Rank (ZREVRANK of the id, or a read-only script through the index).
func BenchmarkRank(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		bb := board("read")
		runModes(b, "zrevrank", c, func(c *redis.Client, i int) error {
			return c.ZRevRank(ctx, bb.key, bb.members[i%benchEntries]).Err()
		})
		g := genFor(b, l.Package, c, bb)
		runModes(b, "generated", c, func(_ *redis.Client, i int) error { return g.rank(i) })
	})
}

func exampleNamed(name string) example {
	for _, ex := range examples {
		if ex.name == name {
			return ex
		}
	}
	panic("no example " + name)
}

// BenchmarkBatchStages takes the minimal batch (minimalBatchAdd on racing, 100 ids) apart, to
// show where a checked batch spends the server's time: scripts that stop after each stage —
// receiving the arguments, reading the scores (ZMSCORE), the arithmetic, writing (ZADD) — beside
// pipelined ZINCRBY. Compare their srv-us/op: a batch must read before it writes, and the read
// and the write through Lua cost about as much as the whole unchecked pipeline.
func BenchmarkBatchStages(b *testing.B) {
	c := benchClient(b)
	ex := exampleNamed("racing")
	l := parse(b, ex.schema)
	f := l.Field(updateTarget[l.Package])
	st := minimalBatchStages(l, f)
	stages := []struct{ name, body string }{
		{"args", "return #ARGV"},
		{"zmscore", st.read + "return #sc"},
		{"arithmetic", st.read + st.arithmetic + "return #zadd"},
	}
	runBatch(b, "zincrby-pipeline", c, zincrbyPipeline(newBenchBoard(b, c, ex.schema, redistest.Key(b, "stages-zincrby")), f))
	bb := newBenchBoard(b, c, ex.schema, redistest.Key(b, "stages"))
	args := func(i int) []any {
		a := make([]any, 0, 2*batchSize)
		for j := range batchSize {
			a = append(a, bb.ids[(i*batchSize+j)%benchEntries], batchDelta(i))
		}
		return a
	}
	for _, st := range stages {
		s := redis.NewScript(st.body)
		if err := s.Load(ctx, c).Err(); err != nil {
			b.Fatal(err)
		}
		runBatch(b, "stage-"+st.name, c, func(c *redis.Client, i int) error {
			return s.EvalSha(ctx, c, []string{bb.key}, args(i)...).Err()
		})
	}
	runBatch(b, "stage-zadd", c, minimalBatch(b, c, l, bb))
}
