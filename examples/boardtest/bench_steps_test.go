package boardtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/racing"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// BenchmarkWriteSteps takes a single generated update (racing's AddLaps) apart on the server,
// in server CPU (INFO cpu): step= each redis.call its function makes, run stepsPerCall times in
// one script on a board of benchEntries entries (the call's own cost spread thin; srv-ns/step);
// body= the generated update's body and the minimal Lua's, each run stepsPerCall times in one
// call (srv-ns/body); calls: whole calls taking turns, from an empty script to the generated
// update with every guard on, each variant removing one piece (srv-us per call, one metric
// each). docs/performance.md has the tables.
//
//	go test -run '^$' -bench WriteSteps -benchtime 20x -count 3 ./examples/boardtest
func BenchmarkWriteSteps(b *testing.B) {
	c := benchClient(b)
	l := parse(b, exampleNamed("racing").schema)
	bb := newBenchBoard(b, c, exampleNamed("racing").schema, "steps-board")
	ack := rankgenrt.AckKeys(bb.key)
	// A live ack hash of a few thousand tokens, as a board under steady writes holds.
	for i := range 4000 {
		c.HSet(ctx, ack[0], fmt.Sprintf("tok.%d", i), "\x92\xa8add_laps\x91\xae123456789012")
	}
	const stepsPerCall = 1000
	steps := []struct{ name, lua string }{
		{"loop", `local x = i`},
		{"TIME", `redis.call('TIME')`},
		{"GET-fingerprint", `redis.call('GET', KEYS[2])`},
		{"HMGET-ack", `redis.call('HMGET', KEYS[3], '', 'tok.x' .. i)`},
		{"PTTL-fence", `redis.call('PTTL', KEYS[4])`},
		{"ZSCORE", `redis.call('ZSCORE', KEYS[1], ARGV[(i % 100) + 1])`},
		{"ZADD", `redis.call('ZADD', KEYS[1], string.format('%d', 500000000000 + i % 7), ARGV[(i % 100) + 1])`},
		{"msgpack-reply", `cmsgpack.pack('add_laps', {'500000000000'})`},
		{"HSET-ack", `redis.call('HSET', KEYS[3], 'tok.y' .. i, cmsgpack.pack('add_laps', {'500000000000'}))`},
	}
	ids := make([]any, 100)
	for i := range ids {
		ids[i] = bb.ids[i]
	}
	keys := []string{bb.key, rankgenrt.MetaKey(bb.key), ack[0], rankgenrt.FenceKey(bb.key)}
	for _, st := range steps {
		script := redis.NewScript(fmt.Sprintf("for i = 1, %d do\n%s\nend\nreturn 1", stepsPerCall, st.lua))
		b.Run("step="+st.name, func(b *testing.B) {
			srv0 := serverCPU(b, c)
			for b.Loop() {
				if err := script.Run(ctx, c, keys, ids...).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((serverCPU(b, c)-srv0)*1e9/float64(b.N*stepsPerCall), "srv-ns/step")
		})
	}

	// Whole calls, one caller: what each costs the server per call.
	empty := "#!lua name=steps_empty\nredis.register_function('steps_empty', function(KEYS, ARGV) return {'1'} end)"
	if err := c.FunctionLoadReplace(ctx, empty).Err(); err != nil {
		b.Fatal(err)
	}
	emptyScript := redis.NewScript("return '1'")
	// The library with its guards' commands taken out (the fence's PTTL, the fingerprint's GET),
	// dedup off: what is left beside the minimal Lua is the function's Lua and its arguments.
	lib := racing.Library()
	bare := strings.ReplaceAll(lib.Source, lib.Name, "steps_bare")
	for _, cut := range [][2]string{
		{"local fence = fenced(keys[2])", "local fence = nil"},
		{"local fp = redis.call('GET', aux)\n  local refused", "local fp = FINGERPRINT\n  local refused"},
	} {
		if !strings.Contains(bare, cut[0]) {
			b.Fatalf("the library no longer holds %q", cut[0])
		}
		bare = strings.Replace(bare, cut[0], cut[1], 1)
	}
	// The minimal Lua as a function of the board's library, and of a library of its own: what
	// the library's size (its Lua state's garbage, its head) costs a call.
	minimalBody := "function(KEYS, ARGV)\n" + minimalAddLua(l, l.Field(updateTarget["racing"])) + "\nend"
	bare += "\nredis.register_function('steps_bare_minimal', " + minimalBody + ")\n" +
		// Each body run stepsPerCall times in one call: their Lua and commands without the call.
		"local minimal_body = " + minimalBody + "\n" +
		"redis.register_function('steps_minimal_wide', function(KEYS, ARGV) return minimal_body(KEYS, {ARGV[6], ARGV[7]}) end)\n" +
		"redis.register_function('steps_loop_minimal', function(KEYS, ARGV)\n" +
		fmt.Sprintf("  for i = 1, %d do minimal_body(KEYS, {ARGV[6], ARGV[7]}) end\n  return 1\nend)\n", stepsPerCall) +
		"redis.register_function('steps_loop_generated', function(KEYS, ARGV)\n  bind()\n" +
		fmt.Sprintf("  for i = 1, %d do update_1(KEYS, ARGV, F.add_laps) end\n  return 1\nend)\n", stepsPerCall)
	alone := "#!lua name=steps_alone\nredis.register_function('steps_alone_minimal', " + minimalBody + ")\n"
	if err := c.FunctionLoadReplace(ctx, alone).Err(); err != nil {
		b.Fatal(err)
	}
	if err := c.FunctionLoadReplace(ctx, bare).Err(); err != nil {
		b.Fatal(err)
	}
	minimal := minimalScript(b, c, l, bb)
	off := racing.NewBoard(c, bb.key, racing.WithDedupWindow(0))
	on := racing.NewBoard(c, bb.key)
	cars := make([]uint64, len(bb.ids))
	for i, id := range bb.ids {
		cars[i], _ = strconv.ParseUint(id, 10, 64)
	}
	car := func(i int) uint64 { return cars[i%len(cars)] }
	calls := []struct {
		name string
		call func(i int) error
	}{
		{"zincrby", func(i int) error { return c.ZIncrBy(ctx, bb.key, 0, bb.ids[i%benchEntries]).Err() }},
		{"fcall-empty", func(i int) error {
			return c.FCall(ctx, "steps_empty", keys, "", "", "tok", "60", "", bb.ids[i%benchEntries], 1).Err()
		}},
		{"evalsha-empty", func(i int) error { return emptyScript.Run(ctx, c, keys[:1], bb.ids[i%benchEntries], 1).Err() }},
		{"evalsha-empty-same-args", func(i int) error {
			return emptyScript.Run(ctx, c, keys, "", "", "tok", "60", "", bb.ids[i%benchEntries], 1).Err()
		}},
		{"fcall-bare", func(i int) error {
			return c.FCall(ctx, "steps_bare_add_laps", keys, "", "", "", "0", "", car(i), delta(i)).Err()
		}},
		{"fcall-minimal-alone", func(i int) error {
			return c.FCall(ctx, "steps_alone_minimal", keys[:1], bb.ids[i%benchEntries], delta(i)).Err()
		}},
		{"fcall-minimal-in-library", func(i int) error {
			return c.FCall(ctx, "steps_bare_minimal", keys[:1], bb.ids[i%benchEntries], delta(i)).Err()
		}},
		{"fcall-minimal-wide", func(i int) error { // the generated update's 4 keys and 9 arguments
			return c.FCall(ctx, "steps_minimal_wide", keys, "", "", "", "0", "", bb.ids[i%benchEntries], delta(i)).Err()
		}},
		{"minimal-lua", func(i int) error { return minimal(c, i, delta(i)).Err() }},
		{"generated-dedup-off", func(i int) error { _, err := off.AddLaps(ctx, car(i), delta(i)); return err }},
		{"generated", func(i int) error { _, err := on.AddLaps(ctx, car(i), delta(i)); return err }},
	}
	for _, body := range []string{"minimal", "generated"} {
		b.Run("body="+body, func(b *testing.B) {
			srv0 := serverCPU(b, c)
			for b.Loop() {
				// The generated body with exactly once off, the fence and fingerprint cut out:
				// the same two commands as the minimal body, and its own Lua.
				if err := c.FCall(ctx, "steps_loop_"+body, keys, "", "", "", "0", "", bb.ids[0], 0).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((serverCPU(b, c)-srv0)*1e9/float64(b.N*stepsPerCall), "srv-ns/body")
		})
	}

	// The calls take turns, 100 of each a round, the order rotating, so that all see the same
	// load: each one's server CPU per call is reported beside the others'.
	b.Run("calls", func(b *testing.B) {
		cpu := make([]float64, len(calls))
		i := 0
		for round := 0; b.Loop(); round++ {
			for k := range calls {
				side := (k + round) % len(calls)
				srv0 := serverCPU(b, c)
				for j := range 100 {
					if err := calls[side].call(i + j); err != nil {
						b.Fatal(err)
					}
				}
				cpu[side] += serverCPU(b, c) - srv0
			}
			i += 100
		}
		for k, cl := range calls {
			b.ReportMetric(cpu[k]*1e6/float64(b.N*100), cl.name+"-srv-us")
		}
	})
}

// BenchmarkCoalescedPaired: 16 goroutines each making single-entry updates, one after the
// other, through a Coalescer of the generated AddLaps (every guard on: token, fingerprint,
// range checks) against 16 goroutines each sending ZINCRBY (no check at all), paired as
// BenchmarkPaired pairs: rounds of 16 × 20 calls alternate. ratio-wall is the throughput
// ratio (≥ 1: the coalesced updates are as fast), ratio-cpu the CPU one (server and client).
//
//	go test -run '^$' -bench CoalescedPaired -count 3 -benchtime 100x ./examples/boardtest
func BenchmarkCoalescedPaired(b *testing.B) {
	const goroutines, perGoroutine = 16, 20
	c := benchClient(b)
	zb := newBenchBoard(b, c, exampleNamed("racing").schema, "coalesced-zincrby")
	gb := newBenchBoard(b, c, exampleNamed("racing").schema, "coalesced-generated")
	f := zb.l.Field(updateTarget["racing"])
	cars := make([]uint64, len(gb.ids))
	for i, id := range gb.ids {
		cars[i], _ = strconv.ParseUint(id, 10, 64)
	}
	board := racing.NewBoard(c, gb.key)
	var batches atomic.Int64
	co, err := rankgenrt.NewCoalescer(func(ctx context.Context, us []racing.Update[int64]) ([]racing.Result, error) {
		batches.Add(1)
		return board.AddLapsMany(ctx, us)
	}, rankgenrt.DefaultCoalescing)
	if err != nil {
		b.Fatal(err)
	}
	sides := [2]func(i int) error{
		func(i int) error {
			return c.ZIncrBy(ctx, zb.key, float64(delta(i))*float64(f.Weight), zb.members[i%benchEntries]).Err()
		},
		func(i int) error {
			r, err := co.Do(ctx, racing.Update[int64]{Car: cars[i%len(cars)], Value: delta(i)})
			if err == nil {
				err = r.Err
			}
			return err
		},
	}
	var wall [2]time.Duration
	var cpu, srv [2]float64
	i := 0
	for round := 0; b.Loop(); round++ {
		for k := range 2 {
			side := (k + round) % 2
			srv0, cli0, t0 := serverCPU(b, c), clientCPU(), time.Now()
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for j := range perGoroutine {
						if err := sides[side](i + g*perGoroutine + j); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			wall[side] += time.Since(t0)
			s := serverCPU(b, c) - srv0
			srv[side] += s
			cpu[side] += s + clientCPU() - cli0
		}
		i += goroutines * perGoroutine
	}
	calls := float64(b.N * goroutines * perGoroutine)
	b.ReportMetric(float64(wall[0])/float64(wall[1]), "ratio-wall")
	b.ReportMetric(cpu[0]/cpu[1], "ratio-cpu")
	b.ReportMetric(calls/wall[1].Seconds(), "gen-updates/s")
	b.ReportMetric(calls/float64(batches.Load()), "updates/batch")
	for side, name := range []string{"zincrby", "gen"} {
		b.ReportMetric(srv[side]*1e6/calls, name+"-srv-us")
		b.ReportMetric((cpu[side]-srv[side])*1e6/calls, name+"-cli-us")
	}
}
