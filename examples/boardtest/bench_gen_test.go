package boardtest

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// genOps is the generated board's side of the benchmarks, for one example; i indexes the
// benchmark board's ids (modulo their number).
type genOps struct {
	update func(i int, delta int64) error    // Add<Target>(id_i, delta)
	many   func(i, n int, delta int64) error // Add<Target>Many over ids i … i+n−1
	best   func(i int) error                 // Best(bestEntries[i])
	set    func(i int) error                 // Set(bestEntries[i])
	get    func(i int) error                 // Get of bestEntries[i]'s id (ErrNotFound is no error)
	top    func(n int64) (int, error)        // Top(n), returns how many
	rank   func(i int) error                 // Rank(id_i)
	decode func(ps []redis.Z) (int, error)   // Decode every pair
	bestZ  []redis.Z                         // bestEntries encoded, for the raw ZADD baselines
	bestE  []layout.Entry                    // entries submitted to Best
	member func(i int) string                // the member of id_i (for raw ZREVRANK)
}

// bestEntries returns n random entries for the board's ids, encoded, for Best benchmarks.
func bestEntries(b *testing.B, bb *benchBoard, n int) ([]layout.Entry, []redis.Z) {
	rng := rand.New(rand.NewPCG(3, 4))
	es := make([]layout.Entry, n)
	zs := make([]redis.Z, n)
	for i := range es {
		es[i] = layout.Entry{ID: bb.ids[i%len(bb.ids)], Keys: randomKeys(rng, bb.l)}
		score, member, err := bb.l.Encode(es[i])
		if err != nil {
			b.Fatal(err)
		}
		zs[i] = redis.Z{Score: score, Member: member}
	}
	return es, zs
}

func genFor(b *testing.B, name string, c *redis.Client, bb *benchBoard) genOps {
	return genForDedup(b, name, c, bb, rankgenrt.DefaultDedupWindow)
}

// genForDedup is genFor with the board's dedup window set (0: exactly-once writes off).
func genForDedup(b *testing.B, name string, c *redis.Client, bb *benchBoard, window time.Duration) genOps {
	es, zs := bestEntries(b, bb, benchEntries)
	members := make([]string, len(bb.entries))
	for i, e := range bb.entries {
		_, members[i], _ = bb.l.Encode(e)
	}
	g := genOps{bestE: es, bestZ: zs, member: func(i int) string { return members[i%len(members)] }}
	ids := bb.ids
	switch name {
	case "racing":
		board := racing.NewBoard(c, bb.key, racing.WithDedupWindow(window))
		cars := make([]uint64, len(ids))
		for i, id := range ids {
			cars[i], _ = strconv.ParseUint(id, 10, 64)
		}
		gen := make([]racing.Entry, len(es))
		for i, e := range es {
			oracle.ToGenerated(bb.l, e, &gen[i])
		}
		g.update = func(i int, d int64) error { _, err := board.AddLaps(ctx, cars[i%len(cars)], d); return err }
		g.many = func(i, n int, d int64) error {
			us := make([]racing.Update[int64], n)
			for j := range us {
				us[j] = racing.Update[int64]{Car: cars[(i+j)%len(cars)], Value: d}
			}
			_, err := board.AddLapsMany(ctx, us)
			return err
		}
		g.best = func(i int) error { _, err := board.Best(ctx, gen[i%len(gen)]); return err }
		g.set = func(i int) error { _, err := board.Set(ctx, gen[i%len(gen)]); return err }
		g.get = func(i int) error { _, err := board.Get(ctx, gen[i%len(gen)].Car); return ignoreNotFound(err) }
		g.top = func(n int64) (int, error) { r, err := board.Top(ctx, n); return len(r), err }
		g.rank = func(i int) error { _, err := board.Rank(ctx, cars[i%len(cars)]); return err }
		g.decode = func(ps []redis.Z) (int, error) {
			for _, p := range ps {
				if _, err := racing.Decode(p.Score, p.Member.(string)); err != nil {
					return 0, err
				}
			}
			return len(ps), nil
		}
	case "arena":
		board := arena.NewBoard(c, bb.key, arena.WithDedupWindow(window))
		gen := make([]arena.Entry, len(es))
		for i, e := range es {
			oracle.ToGenerated(bb.l, e, &gen[i])
		}
		g.update = func(i int, d int64) error { _, err := board.AddPoints(ctx, ids[i%len(ids)], d); return err }
		g.many = func(i, n int, d int64) error {
			us := make([]arena.Update[int64], n)
			for j := range us {
				us[j] = arena.Update[int64]{PlayerID: ids[(i+j)%len(ids)], Value: d}
			}
			_, err := board.AddPointsMany(ctx, us)
			return err
		}
		g.best = func(i int) error { _, err := board.Best(ctx, gen[i%len(gen)]); return err }
		g.set = func(i int) error { _, err := board.Set(ctx, gen[i%len(gen)]); return err }
		g.get = func(i int) error { _, err := board.Get(ctx, gen[i%len(gen)].PlayerID); return ignoreNotFound(err) }
		g.top = func(n int64) (int, error) { r, err := board.Top(ctx, n); return len(r), err }
		g.rank = func(i int) error { _, err := board.Rank(ctx, ids[i%len(ids)]); return err }
		g.decode = func(ps []redis.Z) (int, error) {
			for _, p := range ps {
				if _, err := arena.Decode(p.Score, p.Member.(string)); err != nil {
					return 0, err
				}
			}
			return len(ps), nil
		}
	case "season":
		board := season.NewBoard(c, bb.key, season.WithDedupWindow(window))
		gen := make([]season.Entry, len(es))
		for i, e := range es {
			oracle.ToGenerated(bb.l, e, &gen[i])
		}
		g.update = func(i int, d int64) error { _, err := board.AddPoints(ctx, ids[i%len(ids)], d); return err }
		g.many = func(i, n int, d int64) error {
			us := make([]season.Update[int64], n)
			for j := range us {
				us[j] = season.Update[int64]{UserID: ids[(i+j)%len(ids)], Value: d}
			}
			_, err := board.AddPointsMany(ctx, us)
			return err
		}
		g.best = func(i int) error { _, err := board.Best(ctx, gen[i%len(gen)]); return err }
		g.set = func(i int) error { _, err := board.Set(ctx, gen[i%len(gen)]); return err }
		g.get = func(i int) error { _, err := board.Get(ctx, gen[i%len(gen)].UserID); return ignoreNotFound(err) }
		g.top = func(n int64) (int, error) { r, err := board.Top(ctx, n); return len(r), err }
		g.rank = func(i int) error { _, err := board.Rank(ctx, ids[i%len(ids)]); return err }
		g.decode = func(ps []redis.Z) (int, error) {
			for _, p := range ps {
				if _, err := season.Decode(p.Score, p.Member.(string)); err != nil {
					return 0, err
				}
			}
			return len(ps), nil
		}
	default:
		b.Fatalf("no benchmark adapter for %s", name)
	}
	return g
}

// ignoreNotFound is err, or nil for an error matching ErrNotFound.
func ignoreNotFound(err error) error {
	if errors.Is(err, rankgenrt.ErrNotFound) {
		return nil
	}
	return err
}
