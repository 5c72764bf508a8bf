package boardtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

const (
	writers   = 32
	opsEach   = 1000
	sharedIDs = 100
)

func concurrentID(i int) string { return fmt.Sprintf("player-%03d", i) }

// TestConcurrentSeason: 32 goroutines × 1,000 mixed updates (AddPoints, AddWins, MaxTier, single
// and batched, with reads in between) on 100 shared ids of the season board, whose members carry
// a prefix that every update rewrites (ZREM + ZADD + index). Afterwards every id has exactly one
// member, the index maps each id to it, and each field equals its start plus the sum of the
// updates that succeeded (Tier: the largest MaxTier that succeeded): no lost update.
func TestConcurrentSeason(t *testing.T) {
	t.Parallel()
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { concurrentSeason(t, tg.WithPoolSize(t, writers)) })
}

// answered sends a write and, while its reply is lost (an i/o timeout on a loaded machine),
// resends it under its token as docs/board-api.md tells callers to: the outcome is then
// known and the write applied once, so the sums below stay exact whatever the load.
func answered[T any](write func(context.Context) (T, error)) (T, error) {
	v, err := write(ctx)
	for range 20 {
		var ue *rankgenrt.UncertainError
		if !errors.As(err, &ue) {
			break
		}
		v, err = write(rankgenrt.WithIdempotencyKey(ctx, ue.Token))
	}
	return v, err
}

func concurrentSeason(t *testing.T, c redis.UniversalClient) {
	b := season.NewBoard(c, redistest.Key(t, "season"))
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var initial []season.Entry
	for i := range sharedIDs {
		initial = append(initial, season.Entry{UserID: concurrentID(i), Points: 1_000_000, Tier: season.TierBronze, Wins: 30000, ReachedAt: start})
	}
	if _, err := b.SetMany(ctx, initial); err != nil {
		t.Fatal(err)
	}
	var points, wins [sharedIDs]atomic.Int64
	var tier [sharedIDs]atomic.Int64
	var succeeded, failed atomic.Int64
	record := func(err error) bool {
		if err != nil {
			failed.Add(1)
			t.Errorf("update: %v", err)
			return false
		}
		succeeded.Add(1)
		return true
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for range opsEach {
				i := rng.IntN(sharedIDs)
				id := concurrentID(i)
				switch r := rng.IntN(100); {
				case r < 40:
					d := rng.Int64N(16) - 5
					if _, err := answered(func(ctx context.Context) (season.Written, error) { return b.AddPoints(ctx, id, d) }); record(err) {
						points[i].Add(d)
					}
				case r < 65:
					d := rng.Int64N(7) - 3
					if _, err := answered(func(ctx context.Context) (season.Written, error) { return b.AddWins(ctx, id, d) }); record(err) {
						wins[i].Add(d)
					}
				case r < 75:
					v := season.Tier(rng.IntN(4))
					if _, err := answered(func(ctx context.Context) (season.Written, error) { return b.MaxTier(ctx, id, v) }); record(err) {
						for old := tier[i].Load(); int64(v) > old && !tier[i].CompareAndSwap(old, int64(v)); old = tier[i].Load() {
						}
					}
				case r < 90:
					us := make([]season.Update[int64], 5)
					idx := make([]int, 5)
					for j := range us {
						idx[j] = rng.IntN(sharedIDs)
						us[j] = season.Update[int64]{UserID: concurrentID(idx[j]), Value: rng.Int64N(16) - 5}
					}
					res, err := answered(func(ctx context.Context) ([]season.Result, error) { return b.AddPointsMany(ctx, us) })
					if err != nil {
						record(err)
						continue
					}
					for j, r := range res {
						if record(r.Err) {
							points[idx[j]].Add(us[j].Value)
						}
					}
				default:
					if _, err := b.Get(ctx, id); err != nil {
						t.Errorf("Get(%q): %v", id, err)
					}
					if _, err := b.Rank(ctx, id); err != nil {
						t.Errorf("Rank(%q): %v", id, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d updates succeeded, %d failed", succeeded.Load(), failed.Load())

	keys := b.Keys()
	zs, err := c.ZRangeWithScores(ctx, keys[0], 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := c.HGetAll(ctx, keys[1]).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(zs) != sharedIDs || len(idx) != sharedIDs+1 {
		t.Fatalf("%d members, %d index fields; want %d and %d (with the fingerprint)", len(zs), len(idx), sharedIDs, sharedIDs+1)
	}
	seen := map[string]bool{}
	for _, z := range zs {
		e, err := season.Decode(z.Score, z.Member.(string))
		if err != nil {
			t.Fatal(err)
		}
		if seen[e.UserID] {
			t.Fatalf("id %q has two members", e.UserID)
		}
		seen[e.UserID] = true
		if idx[e.UserID] != z.Member {
			t.Errorf("index maps %q to %q; the set holds %q", e.UserID, idx[e.UserID], z.Member)
		}
	}
	for i := range sharedIDs {
		e, err := b.Get(ctx, concurrentID(i))
		if err != nil {
			t.Fatal(err)
		}
		want := season.Entry{UserID: concurrentID(i), Points: uint64(1_000_000 + points[i].Load()),
			Tier: season.Tier(tier[i].Load()), Wins: uint16(30000 + wins[i].Load()), ReachedAt: e.ReachedAt}
		if e != want {
			t.Errorf("%s = %+v; want %+v", concurrentID(i), e, want)
		}
	}
}

// TestConcurrentArenaOverflow: 32 goroutines × 1,000 AddPoints (single and batched) on 100 ids of
// the arena board whose Points start 150 below the top of their range (overflow: error), so that
// many updates overflow. Every overflow is ErrOverflow and changes nothing; each final Points is
// its start plus the sum of the deltas that succeeded.
func TestConcurrentArenaOverflow(t *testing.T) {
	t.Parallel()
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { concurrentArenaOverflow(t, tg.WithPoolSize(t, writers)) })
}

func concurrentArenaOverflow(t *testing.T, c redis.UniversalClient) {
	b := arena.NewBoard(c, redistest.Key(t, "arena"))
	const top = 1<<20 - 1
	const start = top - 150
	var initial []arena.Entry
	for i := range sharedIDs {
		initial = append(initial, arena.Entry{PlayerID: concurrentID(i), Points: start,
			ReachedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
	}
	if _, err := b.SetMany(ctx, initial); err != nil {
		t.Fatal(err)
	}
	var points [sharedIDs]atomic.Int64
	var ok, overflowed atomic.Int64
	apply := func(i int, d int64, err error) {
		switch {
		case err == nil:
			points[i].Add(d)
			ok.Add(1)
		case errors.Is(err, rankgenrt.ErrOverflow):
			overflowed.Add(1)
		default:
			t.Errorf("AddPoints: %v", err)
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			for range opsEach {
				if rng.IntN(5) > 0 {
					i := rng.IntN(sharedIDs)
					d := rng.Int64N(9) - 3
					e, err := answered(func(ctx context.Context) (arena.Written, error) { return b.AddPoints(ctx, concurrentID(i), d) })
					apply(i, d, err)
					if err == nil && e.Points > top {
						t.Errorf("AddPoints returned Points %d above the range", e.Points)
					}
					continue
				}
				us := make([]arena.Update[int64], 4)
				for j := range us {
					us[j] = arena.Update[int64]{PlayerID: concurrentID(rng.IntN(sharedIDs)), Value: rng.Int64N(9) - 3}
				}
				res, err := answered(func(ctx context.Context) ([]arena.Result, error) { return b.AddPointsMany(ctx, us) })
				if err != nil {
					t.Errorf("AddPointsMany: %v", err)
					continue
				}
				for j, r := range res {
					var i int
					fmt.Sscanf(us[j].PlayerID, "player-%d", &i)
					apply(i, us[j].Value, r.Err)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d updates succeeded, %d overflowed", ok.Load(), overflowed.Load())
	if overflowed.Load() == 0 {
		t.Fatal("no update overflowed: the test did not reach the top of the range")
	}
	if n, err := c.ZCard(ctx, b.Key()).Result(); err != nil || n != sharedIDs {
		t.Fatalf("ZCARD = %d, %v; want %d", n, err, sharedIDs)
	}
	for i := range sharedIDs {
		e, err := b.Get(ctx, concurrentID(i))
		if err != nil {
			t.Fatal(err)
		}
		if want := uint32(start + points[i].Load()); e.Points != want {
			t.Errorf("%s: Points = %d; want %d (start + succeeded deltas)", concurrentID(i), e.Points, want)
		}
	}
}
