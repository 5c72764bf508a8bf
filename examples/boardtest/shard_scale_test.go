package boardtest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

var (
	shardScale  = flag.Int("shard.scale", 0, "TestShardScale: load this many entries into a sharded and a one-key board on the private cluster and measure both, for docs/performance.md")
	shardCount  = flag.Int("shard.shards", 6, "TestShardScale: the sharded board's shard count")
	shardCalls  = flag.Int("shard.callers", 32, "TestShardScale: concurrent callers of the update and read phases")
	shardPeriod = flag.Duration("shard.period", 5*time.Second, "TestShardScale: how long each throughput phase runs")
)

// scaleOps is what the measurement does to one board: a seed002decimal Board or ShardedBoard.
type scaleOps struct {
	name   string
	keys   []string
	load   func(ctx context.Context, es []seed002decimal.Entry) error
	add    func(ctx context.Context, player string) error
	rank   func(ctx context.Context, player string) error
	top100 func(ctx context.Context) error
}

func scaleBoard(b *seed002decimal.Board) scaleOps {
	return scaleOps{name: "one key", keys: []string{b.Key()},
		load:   func(ctx context.Context, es []seed002decimal.Entry) error { _, err := b.SetMany(ctx, es); return err },
		add:    func(ctx context.Context, player string) error { _, err := b.AddPoints(ctx, player, 1); return err },
		rank:   func(ctx context.Context, player string) error { _, err := b.Rank(ctx, player); return err },
		top100: func(ctx context.Context) error { _, err := b.Top(ctx, 100); return err },
	}
}

func scaleSharded(b *seed002decimal.ShardedBoard) scaleOps {
	var keys []string
	for _, s := range b.Shards() {
		keys = append(keys, s.Key())
	}
	return scaleOps{name: fmt.Sprintf("sharded ×%d", len(keys)), keys: keys,
		load:   func(ctx context.Context, es []seed002decimal.Entry) error { _, err := b.SetMany(ctx, es); return err },
		add:    func(ctx context.Context, player string) error { _, err := b.AddPoints(ctx, player, 1); return err },
		rank:   func(ctx context.Context, player string) error { _, err := b.Rank(ctx, player); return err },
		top100: func(ctx context.Context) error { _, err := b.Top(ctx, 100); return err },
	}
}

// scaleResult is one board's measurements.
type scaleResult struct {
	loadRate, updateRate, rankRate float64    // per second
	updateCPU, rankCPU             [2]float64 // server CPU µs per call: masters, all nodes (with the replicas)
	top, rank                      [2]time.Duration
	bytesPerEntry                  float64 // MEMORY USAGE of the board's keys
	usedPerEntry                   float64 // the masters' INFO memory used_memory grown by the load
}

// awaitLazyFree waits until no master has objects left to free in the background (UNLINK).
func awaitLazyFree(t *testing.T, c *redis.ClusterClient) {
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var pending atomic.Int64
		err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			info, err := n.Info(ctx, "memory").Result()
			for _, line := range strings.Split(info, "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), "lazyfree_pending_objects:"); ok && v != "0" {
					pending.Add(1)
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if pending.Load() == 0 {
			return
		}
	}
	t.Fatal("the masters still free the last board in the background after 5 minutes")
}

// mastersUsedMemory is the sum of the masters' used_memory (INFO memory), in bytes.
func mastersUsedMemory(t *testing.T, c *redis.ClusterClient) int64 {
	var mu sync.Mutex
	var total int64
	err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		info, err := n.Info(ctx, "memory").Result()
		if err != nil {
			return err
		}
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
				used, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return fmt.Errorf("INFO memory: %s: %w", line, err)
				}
				mu.Lock()
				total += used
				mu.Unlock()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// TestShardScale measures a seed002decimal ShardedBoard (-shard.shards, 6 by default) against a
// one-key seed002decimal Board on the private 3-master cluster, in one run: load rate (SetMany of
// 1,000, 8 loaders), single-update throughput and Rank throughput (-shard.callers concurrent
// callers for -shard.period each), Top(100) and Rank latency (p50, p99 of one caller), and
// memory per entry (MEMORY USAGE of every key, SAMPLES 0). It runs only with
// -shard.scale=N: go test ./examples/boardtest -run TestShardScale -shard.scale=1000000 -v -timeout 1h
func TestShardScale(t *testing.T) {
	if *shardScale == 0 {
		t.Skip("a measurement: run with -shard.scale=N (docs/performance.md, capacity planning)")
	}
	c := redistest.StartCluster(t)
	sb, err := seed002decimal.NewShardedBoard(c, redistest.Key(t, "sharded"), *shardCount)
	if err != nil {
		t.Fatal(err)
	}
	boards := []scaleOps{scaleBoard(seed002decimal.NewBoard(c, redistest.Key(t, "one"))), scaleSharded(sb)}
	var results []scaleResult
	for _, ops := range boards {
		results = append(results, measureScale(t, c, ops, *shardScale))
		for _, k := range ops.keys { // free the memory before the next board
			c.Unlink(ctx, k)
		}
		awaitLazyFree(t, c) // so that the next board's used_memory delta is its own
	}
	one, sh := results[0], results[1]
	t.Logf("%d entries, seed002decimal layout, %d callers, 3 masters + 3 replicas on %s", *shardScale, *shardCalls, "this machine")
	t.Logf("%-28s %14s %14s %8s", "", boards[0].name, boards[1].name, "ratio")
	row := func(what string, a, b float64, unit string) {
		t.Logf("%-28s %12.1f%-2s %12.1f%-2s %7.2f×", what, a, unit, b, unit, b/a)
	}
	row("load (entries/s)", one.loadRate, sh.loadRate, "")
	row("AddPoints (updates/s)", one.updateRate, sh.updateRate, "")
	row("Rank (reads/s)", one.rankRate, sh.rankRate, "")
	row("AddPoints CPU, masters (µs)", one.updateCPU[0], sh.updateCPU[0], "")
	row("AddPoints CPU, all nodes (µs)", one.updateCPU[1], sh.updateCPU[1], "")
	row("Rank CPU, masters (µs)", one.rankCPU[0], sh.rankCPU[0], "")
	row("Rank CPU, all nodes (µs)", one.rankCPU[1], sh.rankCPU[1], "")
	row("Top(100) p50 (µs)", micros(one.top[0]), micros(sh.top[0]), "")
	row("Top(100) p99 (µs)", micros(one.top[1]), micros(sh.top[1]), "")
	row("Rank p50 (µs)", micros(one.rank[0]), micros(sh.rank[0]), "")
	row("Rank p99 (µs)", micros(one.rank[1]), micros(sh.rank[1]), "")
	row("memory (bytes/entry)", one.bytesPerEntry, sh.bytesPerEntry, "")
	row("used_memory (bytes/entry)", one.usedPerEntry, sh.usedPerEntry, "")
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func measureScale(t *testing.T, c *redis.ClusterClient, ops scaleOps, n int) scaleResult {
	var r scaleResult
	rng := rand.New(rand.NewPCG(7, 11))
	used0 := mastersUsedMemory(t, c)
	start := time.Now()
	if err := loadScale(ops, n, rng); err != nil {
		t.Fatalf("%s: load: %v", ops.name, err)
	}
	r.loadRate = float64(n) / time.Since(start).Seconds()
	r.usedPerEntry = float64(mastersUsedMemory(t, c)-used0) / float64(n)
	var mem int64
	for _, k := range ops.keys {
		m, err := c.MemoryUsage(ctx, k, 0).Result()
		if err != nil {
			t.Fatalf("MEMORY USAGE %s: %v", k, err)
		}
		mem += m
	}
	r.bytesPerEntry = float64(mem) / float64(n)
	player := func(rng *rand.Rand) string { return strconv.Itoa(rng.IntN(n) * 7) }
	r.updateRate, r.updateCPU = scaleThroughput(t, c, func(rng *rand.Rand) error { return ops.add(ctx, player(rng)) })
	r.rankRate, r.rankCPU = scaleThroughput(t, c, func(rng *rand.Rand) error { return ops.rank(ctx, player(rng)) })
	r.top = scaleLatency(t, 1000, func(*rand.Rand) error { return ops.top100(ctx) })
	r.rank = scaleLatency(t, 2000, func(rng *rand.Rand) error { return ops.rank(ctx, player(rng)) })
	t.Logf("%s: %+v", ops.name, r)
	return r
}

// loadScale stores n seed002decimal entries (players "0", "7", "14", …) with 8 loaders of SetMany(1,000).
func loadScale(ops scaleOps, n int, rng *rand.Rand) error {
	const batch, loaders = 1000, 8
	next := atomic.Int64{}
	var first atomic.Value
	var wg sync.WaitGroup
	for w := range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(rng.Uint64(), uint64(w)))
			for {
				lo := int(next.Add(batch)) - batch
				if lo >= n {
					return
				}
				es := make([]seed002decimal.Entry, 0, batch)
				for i := lo; i < min(lo+batch, n); i++ {
					es = append(es, seed002decimal.Entry{Player: strconv.Itoa(i * 7), Points: uint32(rng.IntN(200)), ReachedAt: reachedAt(rng.IntN(1_000_000))})
				}
				if err := ops.load(ctx, es); err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, ok := first.Load().(error); ok {
		return err
	}
	return nil
}

// scaleThroughput runs call from -shard.callers goroutines for -shard.period and returns calls/s
// and the server CPU time per call, in µs, of the masters and of all nodes.
func scaleThroughput(t *testing.T, c *redis.ClusterClient, call func(*rand.Rand) error) (float64, [2]float64) {
	m0, all0 := shardClusterCPU(t, c)
	var done atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(*shardPeriod)
	for w := range *shardCalls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for time.Now().Before(deadline) {
				if err := call(rng); err != nil {
					t.Errorf("call: %v", err)
					return
				}
				done.Add(1)
			}
		}()
	}
	start := time.Now()
	wg.Wait()
	rate := float64(done.Load()) / time.Since(start).Seconds()
	m1, all1 := shardClusterCPU(t, c)
	n := float64(done.Load())
	return rate, [2]float64{(m1 - m0) * 1e6 / n, (all1 - all0) * 1e6 / n}
}

// shardClusterCPU is the CPU time (user + system, seconds, from INFO cpu) the cluster's masters and
// all its nodes have used.
func shardClusterCPU(t testing.TB, c *redis.ClusterClient) (masters, all float64) {
	var mu sync.Mutex
	read := func(isMaster bool) func(context.Context, *redis.Client) error {
		return func(ctx context.Context, n *redis.Client) error {
			info, err := n.Info(ctx, "cpu").Result()
			if err != nil {
				return err
			}
			var total float64
			for _, line := range strings.Split(info, "\n") {
				k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
				if k == "used_cpu_sys" || k == "used_cpu_user" {
					f, err := strconv.ParseFloat(v, 64)
					if err != nil {
						return fmt.Errorf("INFO cpu: %s: %w", line, err)
					}
					total += f
				}
			}
			mu.Lock()
			defer mu.Unlock()
			all += total
			if isMaster {
				masters += total
			}
			return nil
		}
	}
	if err := c.ForEachMaster(ctx, read(true)); err != nil {
		t.Fatal(err)
	}
	if err := c.ForEachSlave(ctx, read(false)); err != nil {
		t.Fatal(err)
	}
	return masters, all
}

// scaleLatency times n calls of one caller and returns the p50 and p99.
func scaleLatency(t *testing.T, n int, call func(*rand.Rand) error) [2]time.Duration {
	rng := rand.New(rand.NewPCG(5, 5))
	ds := make([]time.Duration, n)
	for i := range ds {
		start := time.Now()
		if err := call(rng); err != nil {
			t.Fatalf("call: %v", err)
		}
		ds[i] = time.Since(start)
	}
	slices.Sort(ds)
	return [2]time.Duration{ds[n/2], ds[n*99/100]}
}
