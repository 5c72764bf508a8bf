package boardtest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/internal/redistest"
	"github.com/redis/go-redis/v9"
)

var measureBits62 = flag.Int("bits62.measure", 0, "measure duel (bits62) against duelint (integer score + member prefix) at this many entries, for README")

// duelOps is what the measurement does to one board, whichever layout it has.
type duelOps struct {
	name   string
	load   func(ctx context.Context, ids []string, rng *rand.Rand) error
	add    func(ctx context.Context, id string) error
	addN   func(ctx context.Context, ids []string) error
	rank   func(ctx context.Context, id string) error
	top100 func(ctx context.Context) error
}

func duelBits62(c redis.UniversalClient, key string) duelOps {
	b := duel.NewBoard(c, key)
	return duelOps{name: "bits62 (duel)",
		load: func(ctx context.Context, ids []string, rng *rand.Rand) error {
			es := make([]duel.Entry, len(ids))
			for i, id := range ids {
				e := randomDuel(rng)
				e.PlayerID = id
				es[i] = e
			}
			return b.SetMany(ctx, es)
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
	b := duelint.NewBoard(c, key)
	return duelOps{name: "integer + member prefix (duelint)",
		load: func(ctx context.Context, ids []string, rng *rand.Rand) error {
			es := make([]duelint.Entry, len(ids))
			for i, id := range ids {
				e := randomDuel(rng)
				es[i] = duelint.Entry{PlayerID: id, Points: e.Points, Wins: e.Wins, Tier: duelint.Tier(e.Tier), ReachedAt: e.ReachedAt}
			}
			return b.SetMany(ctx, es)
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
// same entries on one server and prints, per layout, memory per entry and operation rates.
func TestMeasureBits62(t *testing.T) {
	n := *measureBits62
	if n == 0 {
		t.Skip("a measurement for README, not a check: run with -bits62.measure=1000000")
	}
	c := redistest.Client(t)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = "player:" + strconv.Itoa(i)
	}
	var lines []string
	for _, mk := range []func(redis.UniversalClient, string) duelOps{duelBits62, duelInteger} {
		key := redistest.Key(t, "m"+strconv.Itoa(len(lines)))
		ops := mk(c, key)
		lines = append(lines, measureDuel(t, c, ops, ids))
		c.Del(ctx, key, key+":idx", key+":meta")
		for _, k := range c.Keys(ctx, redistest.Key(t, "*")).Val() {
			c.Del(ctx, k)
		}
	}
	t.Logf("\n%s", strings.Join(lines, "\n"))
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

func measureDuel(t *testing.T, c redis.UniversalClient, ops duelOps, ids []string) string {
	rng := rand.New(rand.NewPCG(62, 4))
	before := usedMemory(t, c)
	for i := 0; i < len(ids); i += 1000 {
		if err := ops.load(ctx, ids[i:min(i+1000, len(ids))], rng); err != nil {
			t.Fatal(err)
		}
	}
	perEntry := float64(usedMemory(t, c)-before) / float64(len(ids))
	rate := func(count int, f func(i int) error) float64 {
		start := time.Now()
		for i := 0; i < count; i++ {
			if err := f(i); err != nil {
				t.Fatal(err)
			}
		}
		return float64(count) / time.Since(start).Seconds()
	}
	pick := func(i int) string { return ids[(i*7919)%len(ids)] }
	single := rate(20000, func(i int) error { return ops.add(ctx, pick(i)) })
	batch := rate(40, func(i int) error {
		b := make([]string, 1000)
		for j := range b {
			b[j] = pick(i*1000 + j)
		}
		return ops.addN(ctx, b)
	}) * 1000
	rank := rate(20000, func(i int) error { return ops.rank(ctx, pick(i)) })
	top := rate(5000, func(int) error { return ops.top100(ctx) })
	return fmt.Sprintf("%-36s %7.1f B/entry  add %8.0f/s  batch add %9.0f/s  rank %8.0f/s  top100 %7.0f/s",
		ops.name, perEntry, single, batch, rank, top)
}
