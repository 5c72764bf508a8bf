package boardtest

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
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
	ack := rankgenrt.AckBase(bb.key)
	// Live ack keys of a few thousand tokens, as a board under steady writes holds.
	for i := range 4000 {
		c.Set(ctx, rankgenrt.AckKey(ack, fmt.Sprintf("tok.%d", i)), "\x92\xa8add_laps\x91\xae123456789012", time.Minute)
	}
	const stepsPerCall = 1000
	steps := []struct{ name, lua string }{
		{"loop", `local x = i`},
		{"TIME", `redis.call('TIME')`},
		{"GET-fingerprint", `redis.call('GET', KEYS[2])`},
		{"GET-ack", `redis.call('GET', KEYS[3] .. ':tok.x' .. i)`},
		{"PTTL-fence", `redis.call('PTTL', KEYS[4])`},
		{"EXISTS-fence-earlier", `redis.call('EXISTS', KEYS[4], KEYS[3] .. '0', KEYS[3] .. '1')`},
		{"ZSCORE", `redis.call('ZSCORE', KEYS[1], ARGV[(i % 100) + 1])`},
		{"ZADD", `redis.call('ZADD', KEYS[1], string.format('%d', 500000000000 + i % 7), ARGV[(i % 100) + 1])`},
		{"msgpack-reply", `cmsgpack.pack('add_laps', {'500000000000'})`},
		{"SET-ack", `redis.call('SET', KEYS[3] .. ':tok.y' .. ARGV[101] .. i, cmsgpack.pack('add_laps', {'500000000000'}), 'EX', 60)`},
	}
	ids := make([]any, 100)
	for i := range ids {
		ids[i] = bb.ids[i]
	}
	keys := []string{bb.key, rankgenrt.MetaKey(bb.key), ack, rankgenrt.FenceKey(bb.key)}
	for _, st := range steps {
		script := redis.NewScript(fmt.Sprintf("for i = 1, %d do\n%s\nend\nreturn 1", stepsPerCall, st.lua))
		b.Run("step="+st.name, func(b *testing.B) {
			srv0, run := serverCPU(b, c), 0
			for b.Loop() {
				run++ // ARGV[101]: each run's SET-ack writes fresh keys
				if err := script.Run(ctx, c, keys, append(ids, fmt.Sprint(st.name, run, "."))...).Err(); err != nil {
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
	// The library with its guards' commands taken out (the EXISTS of the fence and the earlier
	// records, the fence's PTTL, the fingerprint's GET),
	// dedup off: what is left beside the minimal Lua is the function's Lua and its arguments.
	lib := racing.Library()
	bare := strings.ReplaceAll(lib.Source, lib.Name, "steps_bare")
	for _, cut := range [][2]string{
		{"local fence = fence_may_stand and fenced(keys[4])", "local fence = nil"},
		{"if redis.call('EXISTS', fence, base .. '0', base .. '1') == 0 then", "if true then"},
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
		"redis.register_function('steps_loop_generated', function(KEYS, ARGV)\n  bind(registering)\n  open_write(KEYS, ARGV, 'add_laps')\n" +
		fmt.Sprintf("  for i = 1, %d do update_one(KEYS, ARGV, F.add_laps) end\n  return 1\nend)\n", stepsPerCall)
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
		cpu := rotatingRounds(b, c, len(calls), 100, func(side, i int) error { return calls[side].call(i) })
		for k, cl := range calls {
			b.ReportMetric(cpu[k]*1e6/float64(b.N*100), cl.name+"-srv-us")
		}
	})
}

// rotatingRounds runs rounds until b is done: in each, perRound calls of every side in turn,
// the order rotating round by round so that all see the same load; call(side, i) makes the
// i-th call of a side. It returns each side's server CPU in seconds.
func rotatingRounds(b *testing.B, c *redis.Client, sides, perRound int, call func(side, i int) error) []float64 {
	cpu := make([]float64, sides)
	i := 0
	for round := 0; b.Loop(); round++ {
		for k := range sides {
			side := (k + round) % sides
			srv0 := serverCPU(b, c)
			for j := range perRound {
				if err := call(side, i+j); err != nil {
					b.Fatal(err)
				}
			}
			cpu[side] += serverCPU(b, c) - srv0
		}
		i += perRound
	}
	return cpu
}

// BenchmarkCoalescedPaired: C goroutines (callers=16, callers=64) each making single writes,
// one after the other, through a board made WithCoalescing (every guard on: token,
// fingerprint, range checks), against C goroutines each sending the same writes as plain
// commands in a pipeline of 20 (no check at all), as plain commands one at a time, and as
// the same method of a board without coalescing (and of one coalescing with InFlight 1);
// rounds of C × 20 writes rotate among the five sides, as BenchmarkPaired pairs. write=add:
// AddLaps against ZINCRBY; write=set: Set against ZADD; write=best: Best against ZADD GT (the
// same entries, some better than the stored one, some not: racing's score is the whole
// entry). ratio-wall-<side> is the throughput ratio (≥ 1: the coalesced writes are as fast),
// ratio-cpu-<side> the CPU one (server and client), and ratio-srv-<side> the server's alone
// (≥ 1: the coalesced writes cost the server no more).
//
//	go test -run '^$' -bench CoalescedPaired -count 3 -benchtime 100x ./examples/boardtest
func BenchmarkCoalescedPaired(b *testing.B) {
	for _, write := range []string{"add", "set", "best"} {
		for _, goroutines := range []int{16, 64} {
			b.Run(fmt.Sprintf("write=%s/callers=%d", write, goroutines), func(b *testing.B) { coalescedPaired(b, write, goroutines) })
		}
	}
}

// pairedSide is one side of BenchmarkCoalescedPaired: writes makes one goroutine's
// perGoroutine writes, from the i-th on.
type pairedSide struct {
	name   string
	writes func(i int) error
}

const perGoroutine = 20

// eachWrite is a side that makes a goroutine's writes one at a time with write.
func eachWrite(name string, write func(i int) error) pairedSide {
	return pairedSide{name, func(i int) error {
		for j := range perGoroutine {
			if err := write(i + j); err != nil {
				return err
			}
		}
		return nil
	}}
}

func coalescedPaired(b *testing.B, write string, goroutines int) {
	c := benchClient(b)
	zb := newBenchBoard(b, c, exampleNamed("racing").schema, "coalesced-plain-commands")
	gb := newBenchBoard(b, c, exampleNamed("racing").schema, "coalesced-generated")
	pb := newBenchBoard(b, c, exampleNamed("racing").schema, "coalesced-plain")
	f := zb.l.Field(updateTarget["racing"])
	cars := make([]uint64, len(gb.ids))
	for i, id := range gb.ids {
		cars[i], _ = strconv.ParseUint(id, 10, 64)
	}
	coalescedClient, calls := benchClient(b), &fcallCounter{}
	coalescedClient.AddHook(calls)
	coalesced := racing.NewBoard(coalescedClient, gb.key, racing.WithCoalescing(rankgenrt.DefaultCoalescing))
	one := rankgenrt.DefaultCoalescing
	one.InFlight = 1 // a batch goes for the callers that came back only when none is on its way
	coalescedOne := racing.NewBoard(c, gb.key, racing.WithCoalescing(one))
	plain := racing.NewBoard(c, pb.key)

	// The i-th write of each kind, the same on every side: an entry of a benchmark board's car
	// (whose Laps and RaceTime wander over their ranges, so that Best and ZADD GT store some
	// and not others), and its score and member, encoded once.
	entries := make([]racing.Entry, 4096)
	scores, members := make([]float64, len(entries)), make([]string, len(entries))
	for i := range entries {
		entries[i] = racing.Entry{Car: cars[i%len(cars)], Laps: uint16(i * 7919 % 1000), RaceTime: uint32(i * 104729 % 1_000_000_000)}
		var err error
		if scores[i], members[i], err = entries[i].Encode(); err != nil {
			b.Fatal(err)
		}
	}
	entry := func(i int) racing.Entry { return entries[i%len(entries)] }
	z := func(i int) redis.Z { return redis.Z{Score: scores[i%len(entries)], Member: members[i%len(entries)]} }
	var sides []pairedSide
	switch write {
	case "add":
		car := func(i int) uint64 { return cars[i%len(cars)] }
		zincrby := func(p redis.Cmdable, i int) *redis.FloatCmd {
			return p.ZIncrBy(ctx, zb.key, float64(delta(i))*float64(f.Weight), zb.members[i%benchEntries])
		}
		sides = []pairedSide{
			eachWrite("coalesced", func(i int) error { _, err := coalesced.AddLaps(ctx, car(i), delta(i)); return err }),
			eachWrite("inflight1", func(i int) error { _, err := coalescedOne.AddLaps(ctx, car(i), delta(i)); return err }),
			pipelinedSide(c, func(p redis.Pipeliner, i int) { zincrby(p, i) }),
			eachWrite("zincrby", func(i int) error { return zincrby(c, i).Err() }),
			eachWrite("plain", func(i int) error { _, err := plain.AddLaps(ctx, car(i), delta(i)); return err }),
		}
	case "set":
		sides = []pairedSide{
			eachWrite("coalesced", func(i int) error { _, err := coalesced.Set(ctx, entry(i)); return err }),
			eachWrite("inflight1", func(i int) error { _, err := coalescedOne.Set(ctx, entry(i)); return err }),
			pipelinedSide(c, func(p redis.Pipeliner, i int) { p.ZAdd(ctx, zb.key, z(i)) }),
			eachWrite("zadd", func(i int) error { return c.ZAdd(ctx, zb.key, z(i)).Err() }),
			eachWrite("plain", func(i int) error { _, err := plain.Set(ctx, entry(i)); return err }),
		}
	case "best":
		sides = []pairedSide{
			eachWrite("coalesced", func(i int) error { _, err := coalesced.Best(ctx, entry(i)); return err }),
			eachWrite("inflight1", func(i int) error { _, err := coalescedOne.Best(ctx, entry(i)); return err }),
			pipelinedSide(c, func(p redis.Pipeliner, i int) { p.ZAddGT(ctx, zb.key, z(i)) }),
			eachWrite("zadd-gt", func(i int) error { return c.ZAddGT(ctx, zb.key, z(i)).Err() }),
			eachWrite("plain", func(i int) error { _, err := plain.Best(ctx, entry(i)); return err }),
		}
	}
	wall := make([]time.Duration, len(sides))
	cpu, srv := make([]float64, len(sides)), make([]float64, len(sides))
	i := 0
	for round := 0; b.Loop(); round++ {
		for k := range sides {
			side := (k + round) % len(sides)
			srv0, cli0, t0 := serverCPU(b, c), clientCPU(), time.Now()
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					if err := sides[side].writes(i + g*perGoroutine); err != nil {
						b.Error(err)
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
	n := float64(b.N * goroutines * perGoroutine)
	for side := 1; side < len(sides); side++ {
		b.ReportMetric(float64(wall[side])/float64(wall[0]), "ratio-wall-"+sides[side].name)
		b.ReportMetric(cpu[side]/cpu[0], "ratio-cpu-"+sides[side].name)
		b.ReportMetric(srv[side]/srv[0], "ratio-srv-"+sides[side].name)
	}
	b.ReportMetric(n/wall[0].Seconds(), "coalesced-writes/s")
	b.ReportMetric(n/float64(calls.calls), "writes/batch")
	for side, sd := range sides {
		b.ReportMetric(srv[side]*1e6/n, sd.name+"-srv-us")
		b.ReportMetric((cpu[side]-srv[side])*1e6/n, sd.name+"-cli-us")
	}
}

// pipelinedSide sends a goroutine's writes as one pipeline of plain commands, which queue
// queues.
func pipelinedSide(c *redis.Client, queue func(p redis.Pipeliner, i int)) pairedSide {
	return pairedSide{"pipelined", func(i int) error {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for j := range perGoroutine {
				queue(p, i+j)
			}
			return nil
		})
		return err
	}}
}
