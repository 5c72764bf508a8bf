package boardtest

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

var measureBits62 = flag.Int("bits62.measure", 0, "measure duel (bits62) against duelint (integer score + member prefix) at this many entries, for docs/performance.md (-1: only the costs inside one script)")

// duelOps is what the measurement does to one board, whichever layout it has.
type duelOps struct {
	name    string
	load    func(ctx context.Context, ids []string, rng *rand.Rand) error
	add     func(ctx context.Context, id string) error
	addBare func(ctx context.Context, id string) error // add without exactly-once (dedup window 0)
	addN    func(ctx context.Context, ids []string) error
	rank    func(ctx context.Context, id string) error
	top100  func(ctx context.Context) error
}

func duelBits62(c redis.UniversalClient, key string) duelOps {
	b, bare := duel.NewBoard(c, key), duel.NewBoard(c, key, duel.WithDedupWindow(0))
	return duelOps{name: "bits62 (duel)",
		addBare: func(ctx context.Context, id string) error { _, err := bare.AddPoints(ctx, id, 1); return err },
		load: func(ctx context.Context, ids []string, rng *rand.Rand) error {
			es := make([]duel.Entry, len(ids))
			for i, id := range ids {
				e := randomDuel(rng)
				e.PlayerID = id
				es[i] = e
			}
			_, err := b.SetMany(ctx, es)
			return err
		},
		add: func(ctx context.Context, id string) error { _, err := b.AddPoints(ctx, id, 1); return err },
		addN: func(ctx context.Context, ids []string) error {
			us := make([]duel.Update[int64], len(ids))
			for i, id := range ids {
				us[i] = duel.Update[int64]{PlayerID: id, Value: 1}
			}
			_, err := b.AddPointsMany(ctx, us)
			return err
		},
		rank:   func(ctx context.Context, id string) error { _, err := b.Rank(ctx, id); return err },
		top100: func(ctx context.Context) error { _, err := b.Top(ctx, 100); return err },
	}
}

func duelInteger(c redis.UniversalClient, key string) duelOps {
	b, bare := duelint.NewBoard(c, key), duelint.NewBoard(c, key, duelint.WithDedupWindow(0))
	return duelOps{name: "integer + member prefix (duelint)",
		addBare: func(ctx context.Context, id string) error { _, err := bare.AddPoints(ctx, id, 1); return err },
		load: func(ctx context.Context, ids []string, rng *rand.Rand) error {
			es := make([]duelint.Entry, len(ids))
			for i, id := range ids {
				e := randomDuel(rng)
				es[i] = duelint.Entry{PlayerID: id, Points: e.Points, Wins: e.Wins, Tier: duelint.Tier(e.Tier), ReachedAt: e.ReachedAt}
			}
			_, err := b.SetMany(ctx, es)
			return err
		},
		add: func(ctx context.Context, id string) error { _, err := b.AddPoints(ctx, id, 1); return err },
		addN: func(ctx context.Context, ids []string) error {
			us := make([]duelint.Update[int64], len(ids))
			for i, id := range ids {
				us[i] = duelint.Update[int64]{PlayerID: id, Value: 1}
			}
			_, err := b.AddPointsMany(ctx, us)
			return err
		},
		rank:   func(ctx context.Context, id string) error { _, err := b.Rank(ctx, id); return err },
		top100: func(ctx context.Context) error { _, err := b.Top(ctx, 100); return err },
	}
}

// TestMeasureBits62 (run with -bits62.measure=1000000) fills one board of each layout with the
// same entries on one server and prints memory per entry and, per operation, the rate of one
// caller (round-trip bound on loopback), the rate of measureCallers concurrent callers (the
// server saturated) and the server's CPU time per operation, each as a bits62 : prefix ratio.
// The two boards take turns in rounds, so both see the same machine load.
func TestMeasureBits62(t *testing.T) {
	n := *measureBits62
	if n == 0 {
		t.Skip("a measurement for docs/performance.md, not a check: run with -bits62.measure=1000000")
	}
	c, sent := redistest.Client(t), &sentCommands{}
	c.AddHook(sent)
	if n < 0 { // -bits62.measure=-1: only the script pieces
		t.Logf("load average %s\n%s", loadAverage(), strings.Join(measureScriptPieces(t, c), "\n"))
		return
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "player:" + strconv.Itoa(i)
	}
	boards := []duelOps{duelBits62(c, redistest.Key(t, "bits62")), duelInteger(c, redistest.Key(t, "prefix"))}
	var mem [2]float64
	for i, ops := range boards {
		mem[i] = loadDuel(t, c, ops, ids)
	}
	lines := []string{fmt.Sprintf("%-40s %-34s %-34s %s", "", boards[0].name, boards[1].name, "ratio"),
		fmt.Sprintf("%-40s %-34s %-34s %.2fx", "memory per entry", fmt.Sprintf("%.1f B", mem[0]), fmt.Sprintf("%.1f B", mem[1]), mem[0]/mem[1])}
	for _, m := range duelMeasures(ids) {
		var got [2]duelRates
		for round := 0; round < measureRounds; round++ {
			for j := range boards {
				i := (j + round) % 2 // who goes first alternates
				got[i].add(measureOp(t, c, sent, m, boards[i]))
			}
		}
		lines = append(lines, got[0].lines(m.name, got[1])...)
	}
	lines = append(lines, measureFloor(t, c), "")
	lines = append(lines, measureScriptPieces(t, c)...)
	t.Logf("load average %s\n%s", loadAverage(), strings.Join(lines, "\n"))
}

// measureCallers is how many concurrent callers saturate the server; measureRounds how many
// turns each board takes per operation.
const measureCallers, measureRounds = 16, 4

// duelMeasure is one operation measured: count calls of run (each on per entries) per round.
type duelMeasure struct {
	name       string
	count, per int
	run        func(ops duelOps, i int) error
}

func duelMeasures(ids []string) []duelMeasure {
	pick := func(i int) string { return ids[(i*7919)%len(ids)] }
	return []duelMeasure{
		{"single update", 5000, 1, func(ops duelOps, i int) error { return ops.add(ctx, pick(i)) }},
		{"single update, no dedup", 5000, 1, func(ops duelOps, i int) error { return ops.addBare(ctx, pick(i)) }},
		{"batch update", 10, 1000, func(ops duelOps, i int) error {
			b := make([]string, 1000)
			for j := range b {
				b[j] = pick(i*1000 + j)
			}
			return ops.addN(ctx, b)
		}},
		{"Rank", 5000, 1, func(ops duelOps, i int) error { return ops.rank(ctx, pick(i)) }},
		{"Top(100)", 1250, 1, func(ops duelOps, _ int) error { return ops.top100(ctx) }},
	}
}

// duelRates sums one board's measurements of one operation over the rounds.
type duelRates struct {
	entries          float64 // entries operated on, per mode
	seqSecs, parSecs float64 // wall time of one caller, of measureCallers callers
	serverSecs       float64 // the server's CPU time over both modes
	execSecs         float64 // the time its commands ran (INFO commandstats), over both modes
}

func (r *duelRates) add(o duelRates) {
	r.entries += o.entries
	r.seqSecs += o.seqSecs
	r.parSecs += o.parSecs
	r.serverSecs += o.serverSecs
	r.execSecs += o.execSecs
}

// lines writes r (bits62) beside o (prefix): rates in entries/s, server CPU in µs per entry,
// and the ratios, each oriented so that above 1 means bits62 does better.
func (r duelRates) lines(name string, o duelRates) []string {
	row := func(what, unit string, a, b, ratio float64) string {
		return fmt.Sprintf("%-40s %-34s %-34s %.2fx", name+": "+what, fmt.Sprintf("%.1f %s", a, unit), fmt.Sprintf("%.1f %s", b, unit), ratio)
	}
	seqA, seqB := r.entries/r.seqSecs, o.entries/o.seqSecs
	parA, parB := r.entries/r.parSecs, o.entries/o.parSecs
	cpuA, cpuB := r.serverSecs*1e6/(2*r.entries), o.serverSecs*1e6/(2*o.entries)
	execA, execB := r.execSecs*1e6/(2*r.entries), o.execSecs*1e6/(2*o.entries)
	return []string{
		row("1 caller", "/s", seqA, seqB, seqA/seqB),
		row(fmt.Sprintf("%d callers", measureCallers), "/s", parA, parB, parA/parB),
		row("server CPU", "us", cpuA, cpuB, cpuB/cpuA),
		row("commands' time", "us", execA, execB, execB/execA),
	}
}

// measureOp runs m.count calls on ops from one caller, then from measureCallers callers.
func measureOp(t *testing.T, c *redis.Client, sent *sentCommands, m duelMeasure, ops duelOps) duelRates {
	sent.names.Clear()
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	cpu0 := serverCPU(t, c)
	start := time.Now()
	for i := 0; i < m.count; i++ {
		if err := m.run(ops, i); err != nil {
			t.Fatal(err)
		}
	}
	seq := time.Since(start).Seconds()
	var next atomic.Int64
	var wg sync.WaitGroup
	start = time.Now()
	for g := 0; g < measureCallers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)); i <= m.count; i = int(next.Add(1)) {
				if err := m.run(ops, m.count+i); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	par := time.Since(start).Seconds()
	return duelRates{entries: float64(m.count * m.per), seqSecs: seq, parSecs: par,
		serverSecs: serverCPU(t, c) - cpu0, execSecs: commandSecs(t, c, sent)}
}

// commandSecs is the time the commands the client sent have run since the last CONFIG
// RESETSTAT, by INFO commandstats. A script's EVALSHA time includes the commands it calls,
// which commandstats also lists under their own names, so only names the client sent count.
func commandSecs(t *testing.T, c *redis.Client, sent *sentCommands) float64 {
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var usec float64
	for _, line := range strings.Split(info, "\n") {
		name, stats, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !sent.has(strings.TrimPrefix(name, "cmdstat_")) {
			continue
		}
		for _, kv := range strings.Split(stats, ",") {
			if v, ok := strings.CutPrefix(kv, "usec="); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("INFO commandstats: %s: %v", line, err)
				}
				usec += f
			}
		}
	}
	return usec / 1e6
}

// sentCommands is a client hook that records the names of the commands the client sends,
// but for the measurement's own INFO and CONFIG.
type sentCommands struct{ names sync.Map }

func (s *sentCommands) has(name string) bool { _, ok := s.names.Load(name); return ok }

func (s *sentCommands) note(cmd redis.Cmder) {
	if n := cmd.Name(); n != "info" && n != "config" {
		s.names.Store(n, true)
	}
}

func (s *sentCommands) DialHook(next redis.DialHook) redis.DialHook { return next }

func (s *sentCommands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		s.note(cmd)
		return next(ctx, cmd)
	}
}

func (s *sentCommands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			s.note(cmd)
		}
		return next(ctx, cmds)
	}
}

// loadDuel fills ops's board with ids (random entries) and returns the memory per entry.
func loadDuel(t *testing.T, c *redis.Client, ops duelOps, ids []string) float64 {
	rng := rand.New(rand.NewPCG(62, 4))
	before := usedMemory(t, c)
	for i := 0; i < len(ids); i += 1000 {
		if err := ops.load(ctx, ids[i:min(i+1000, len(ids))], rng); err != nil {
			t.Fatal(err)
		}
	}
	return float64(usedMemory(t, c)-before) / float64(len(ids))
}

// loadAverage is the machine's load over the last 1, 5 and 15 minutes, for the record.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func usedMemory(t *testing.T, c redis.UniversalClient) int64 {
	info := c.Info(ctx, "memory").Val()
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no used_memory in INFO memory")
	return 0
}

// scriptPieces runs, inside one script on the server, N times one of what a bits62 update adds
// or what a prefix update adds (ARGV[2] names it): the bits62 arithmetic of an update (split
// the stored score into digits, set two of them, write the score text and the decimal reply),
// ZADD of a bits62 score text or of an integer, and the index commands a prefix update adds.
// It runs the duel example's own functions (the library part of its add_points script).
const scriptPieces = `
local N, piece, run = tonumber(ARGV[1]), ARGV[2], ARGV[3] == '1' -- run '0': the set-up alone
local s = tonumber(score_text({123456, 77, 2, 200000000}))
local texts = {}
for k = 1, N do
  texts[k] = piece == 'ZADD bits62 text' and score_text({123456, 77, 2, 200000000 + k})
    or string.format('%d', 4503599627370496 + k * 977)
end
local pieces = {
  ['bits62 arithmetic'] = function(k)
    local p = with(with(p_of(s), 1, 123457), 4, 200000000 + k)
    return score_text(p) .. p_text(p)
  end,
  ['ZADD bits62 text'] = function(k) redis.call('ZADD', KEYS[1], texts[k], 'm') end,
  ['ZADD integer text'] = function(k) redis.call('ZADD', KEYS[1], texts[k], 'm') end,
  ['GET meta'] = function(k) redis.call('GET', KEYS[2]) end,
  ['HMGET index'] = function(k) redis.call('HMGET', KEYS[2], '', 'player:1') end,
  ['HSET index'] = function(k) redis.call('HSET', KEYS[2], 'player:1', texts[k]) end,
  ['ZREM'] = function(k) redis.call('ZREM', KEYS[1], 'other') end,
  ['empty loop'] = function(k) end,
}
local f = pieces[piece]
for k = 1, run and N or 0 do
  f(k)
end
return N
`

// measureScriptPieces runs each piece of scriptPieces over the duel library and returns the
// server's CPU time per call (INFO cpu deltas, less those of the set-up alone; the least of 10
// runs, which the machine's other load disturbs least).
func measureScriptPieces(t *testing.T, c *redis.Client) []string {
	src, err := os.ReadFile("../generated/duel/duel.rankgen.lua")
	if err != nil {
		t.Fatal(err)
	}
	lib := string(src)
	start, end := strings.Index(lib, "local HIGH, LIMBS, BASE"), strings.Index(lib, "local function score_p(")
	if start < 0 || end < start {
		t.Fatal("duel.rankgen.lua: no codec part found")
	}
	keys := []string{redistest.Key(t, "pieces"), redistest.Key(t, "pieces:idx")}
	// The codec as the part holds it, behind the bindings the runtime's head makes.
	bind := "local floor, fmt, sub = math.floor, string.format, string.sub\n"
	script := redis.NewScript(bind + lib[start:end] + scriptPieces)
	cpu := func(n int, piece string, run int) float64 {
		least := math.Inf(1)
		for range 10 {
			cpu0 := serverCPU(t, c)
			if err := script.Run(ctx, c, keys, n, piece, run).Err(); err != nil {
				t.Fatal(err)
			}
			least = min(least, serverCPU(t, c)-cpu0)
		}
		return least
	}
	lines := []string{"server CPU per call, inside one script:"}
	for _, piece := range []string{"bits62 arithmetic", "ZADD bits62 text", "ZADD integer text", "GET meta", "HMGET index", "HSET index", "ZREM", "empty loop"} {
		const n = 20000
		us := (cpu(n, piece, 1) - cpu(n, piece, 0)) * 1e6 / n
		lines = append(lines, fmt.Sprintf("  %-28s %.2f us", piece, us))
	}
	return lines
}

// measureFloor is the server's CPU time per call of a script that does nothing, from one
// caller: what every single update pays (request, EVALSHA, reply) before its own work.
func measureFloor(t *testing.T, c *redis.Client) string {
	script := redis.NewScript("return 1")
	const n = 5000
	least := math.Inf(1)
	for range 4 {
		cpu0 := serverCPU(t, c)
		for range n {
			if err := script.Run(ctx, c, nil).Err(); err != nil {
				t.Fatal(err)
			}
		}
		least = min(least, serverCPU(t, c)-cpu0)
	}
	return fmt.Sprintf("%-40s %.1f us per call (server CPU, least of 4 runs)", "EVALSHA of 'return 1'", least*1e6/n)
}
