package boardtest

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// The weekly example (a periodic board) in the suites written board by board: exactly-once
// replays, the kill storm, overflow and season refusals byte for byte, and concurrent updates.
// Its boards hold the week of Redis's clock (liveSeason), so that their server stamps succeed
// for the whole test.

// weeklyAt is the weekly package's calendar.
var weeklyAt = weekly.NewSeasons(nil, "").At

func weeklyReplays(b *weekly.Board) []replayCase {
	low := weekly.Entry{PlayerID: "a", Points: 10, ReachedAt: time.Hour}
	high := weekly.Entry{PlayerID: "a", Points: 20, ReachedAt: 2 * time.Hour}
	others := []weekly.Entry{low, {PlayerID: "b", Points: 5, ReachedAt: time.Minute}, {PlayerID: "c", Points: 1}}
	set := func(es ...weekly.Entry) func(context.Context) error {
		return func(ctx context.Context) error { _, err := b.SetMany(ctx, es); return err }
	}
	return []replayCase{
		{"Set", set(high), // the call's Before: the replay answers with it, whatever the board holds
			func(ctx context.Context) (any, error) { return b.Set(ctx, low) }},
		{"SetMany", set(high),
			func(ctx context.Context) (any, error) { return b.SetMany(ctx, others[:2]) }},
		{"Best", set(low), func(ctx context.Context) (any, error) { return b.Best(ctx, high) }},
		{"BestMany", set(low), func(ctx context.Context) (any, error) { return b.BestMany(ctx, []weekly.Entry{high}) }},
		{"Remove", set(low), func(ctx context.Context) (any, error) { return b.Remove(ctx, "a") }},
		{"Trim", set(others...), func(ctx context.Context) (any, error) { return b.Trim(ctx, 1) }},
		{"AddPoints", set(low), func(ctx context.Context) (any, error) { return b.AddPoints(ctx, "a", 5) }},
		{"AddPointsMany", set(low), func(ctx context.Context) (any, error) {
			return b.AddPointsMany(ctx, []weekly.Update[int64]{{PlayerID: "a", Value: 5}, {PlayerID: "b", Value: 1}})
		}},
		{"MaxPoints", set(low), func(ctx context.Context) (any, error) { return b.MaxPoints(ctx, "a", 30) }},
		{"SetPaidMany", set(low), func(ctx context.Context) (any, error) {
			return b.SetPaidMany(ctx, []weekly.Update[bool]{{PlayerID: "a", Value: true}})
		}},
		{"Update", set(low), func(ctx context.Context) (any, error) {
			return b.Update(ctx, "a", weekly.AddPoints(5), weekly.SetPaid(true))
		}},
		{"UpdateMany", set(low), func(ctx context.Context) (any, error) {
			return b.UpdateMany(ctx, []weekly.Changes{{PlayerID: "a", Apply: []weekly.Change{weekly.MaxPoints(30)}}, {PlayerID: "b", Apply: []weekly.Change{weekly.AddPoints(1)}}})
		}},
		{"Touch", set(low), func(ctx context.Context) (any, error) { return b.Touch(ctx, "a") }},
		{"TouchMany", set(low), func(ctx context.Context) (any, error) { return b.TouchMany(ctx, []string{"a", "n"}) }},
	}
}

func weeklyAdds(b *weekly.Board) stormAdds {
	return stormAdds{
		add: func(ctx context.Context, id string) error { _, err := b.AddPoints(ctx, id, 1); return err },
		addTwo: func(ctx context.Context, id string) error {
			res, err := b.AddPointsMany(ctx, []weekly.Update[int64]{{PlayerID: id, Value: 1}, {PlayerID: id, Value: 1}})
			return batchErr(res, err, func(r weekly.Result) error { return r.Err })
		},
		points: func(ctx context.Context, id string) (int64, error) {
			e, err := b.Get(ctx, id)
			return int64(e.Points), err
		},
	}
}

// weeklyOverflow: on the board of the present week, an add past Points's range (overflow:
// error) is ErrOverflow; a ReachedAt outside the week (its length, a negative offset, the
// widest the field holds) is ErrSeasonClosed, for Set, SetMany and BestMany; on last week's
// board every stamped update is ErrSeasonClosed, single and batched. Each leaves the board byte
// for byte as it was; the batches' other updates apply.
func weeklyOverflow(t *testing.T, c redis.UniversalClient) {
	s := liveSeason(t, c, weeklyAt)
	b := weekly.NewBoard(c, redistest.Key(t, "weekly"), s)
	if _, err := b.Set(ctx, weekly.Entry{PlayerID: "p", Points: math.MaxUint32 - 2, ReachedAt: s.Len() - time.Second}); err != nil {
		t.Fatal(err)
	}
	before := dump(t, c, b.Keys())
	for _, d := range []int64{3, math.MaxInt64, -(1 << 33), math.MinInt64} {
		if _, err := b.AddPoints(ctx, "p", d); !errors.Is(err, rankgenrt.ErrOverflow) {
			t.Errorf("AddPoints(%d) = %v; want ErrOverflow", d, err)
		}
	}
	for _, at := range []time.Duration{s.Len(), -time.Second, (1<<20 - 1) * time.Second} {
		bad := weekly.Entry{PlayerID: "q", Points: 1, ReachedAt: at}
		if _, err := b.Set(ctx, bad); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
			t.Errorf("Set(ReachedAt %v) = %v; want ErrSeasonClosed", at, err)
		}
		if _, err := b.SetMany(ctx, []weekly.Entry{{PlayerID: "r", Points: 2}, bad}); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
			t.Errorf("SetMany(…, ReachedAt %v) = %v; want ErrSeasonClosed", at, err)
		}
		if _, err := b.BestMany(ctx, []weekly.Entry{bad}); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
			t.Errorf("BestMany(ReachedAt %v) = %v; want ErrSeasonClosed", at, err)
		}
	}
	if after := dump(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
		t.Fatalf("refused writes changed the board:\n%v\n%v", before, after)
	}
	res, err := b.AddPointsMany(ctx, []weekly.Update[int64]{{PlayerID: "p", Value: 2}, {PlayerID: "p", Value: 1}, {PlayerID: "q", Value: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[0].Entry.Points != math.MaxUint32 || !errors.Is(res[1].Err, rankgenrt.ErrOverflow) || res[2].Err != nil || res[2].Entry.Points != 5 {
		t.Fatalf("AddPointsMany = %+v; want the top, ErrOverflow, 5", res)
	}
	weeklyPastRefuses(t, c, s)
}

// weeklyPastRefuses: last week's board refuses every update that stamps (Redis's clock is past
// the week), and keeps what Set gave it.
func weeklyPastRefuses(t *testing.T, c redis.UniversalClient, now rankgenrt.Season) {
	past := weeklyAt(now.Start.Add(-time.Nanosecond))
	b := weekly.NewBoard(c, redistest.Key(t, "past"), past)
	if _, err := b.Set(ctx, weekly.Entry{PlayerID: "p", Points: 7, ReachedAt: past.Len() - time.Second}); err != nil {
		t.Fatal(err)
	}
	before := dump(t, c, b.Keys())
	if _, err := b.AddPoints(ctx, "p", 1); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("AddPoints on last week = %v; want ErrSeasonClosed", err)
	}
	if _, err := b.Update(ctx, "new", weekly.SetPaid(true)); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("Update of a new id on last week = %v; want ErrSeasonClosed", err)
	}
	res, err := b.MaxPointsMany(ctx, []weekly.Update[uint32]{{PlayerID: "p", Value: 3}, {PlayerID: "p", Value: 9}})
	if err != nil || res[0].Err != nil || res[0].Entry.Points != 7 || !errors.Is(res[1].Err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("MaxPointsMany on last week = %+v, %v; want unchanged 7 (no stamp), then ErrSeasonClosed", res, err)
	}
	if after := dump(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
		t.Fatalf("refused writes changed last week's board:\n%v\n%v", before, after)
	}
}

// TestConcurrentWeekly: 16 goroutines × 300 mixed updates (AddPoints single and batched,
// SetPaid) on 50 shared ids of the present week's board, each that changes an entry
// server-stamped inside its script. Afterwards each Points equals its start plus the sum of
// the adds that succeeded (no lost update), Paid is set where a SetPaid succeeded, and every
// stamp is an offset from the week's start that lies within the run.
func TestConcurrentWeekly(t *testing.T) {
	t.Parallel()
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { concurrentWeekly(t, tg.WithPoolSize(t, 16)) })
}

func concurrentWeekly(t *testing.T, c redis.UniversalClient) {
	const workers, each, ids = 16, 300, 50
	s := liveSeason(t, c, weeklyAt)
	b := weekly.NewBoard(c, redistest.Key(t, "weekly"), s)
	var initial []weekly.Entry
	for i := range ids {
		initial = append(initial, weekly.Entry{PlayerID: concurrentID(i), Points: 1000})
	}
	if _, err := b.SetMany(ctx, initial); err != nil {
		t.Fatal(err)
	}
	start := serverNow(t, c)
	var points [ids]atomic.Int64
	var paid [ids]atomic.Bool
	record := func(what string, err error) bool {
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
		return err == nil
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 13))
			for range each {
				i := rng.IntN(ids)
				switch r := rng.IntN(10); {
				case r < 5:
					d := rng.Int64N(21) - 5
					if _, err := b.AddPoints(ctx, concurrentID(i), d); record("AddPoints", err) {
						points[i].Add(d)
					}
				case r < 7:
					if _, err := b.SetPaid(ctx, concurrentID(i), true); record("SetPaid", err) {
						paid[i].Store(true)
					}
				default:
					us := []weekly.Update[int64]{{PlayerID: concurrentID(i), Value: 2}, {PlayerID: concurrentID((i + 1) % ids), Value: -1}}
					res, err := b.AddPointsMany(ctx, us)
					if record("AddPointsMany", err) {
						for j, r := range res {
							if record("AddPointsMany item", r.Err) {
								points[(i+j)%ids].Add(us[j].Value)
							}
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	end := serverNow(t, c)
	lo, hi := start.Sub(s.Start).Truncate(time.Second), end.Sub(s.Start)
	for i := range ids {
		e, err := b.Get(ctx, concurrentID(i))
		if err != nil {
			t.Fatal(err)
		}
		if want := 1000 + points[i].Load(); int64(e.Points) != want || e.Paid != paid[i].Load() {
			t.Errorf("%s = %+v; want Points %d, Paid %v", e.PlayerID, e, want, paid[i].Load())
		}
		if e.ReachedAt != 0 && (e.ReachedAt < lo || e.ReachedAt > hi) {
			t.Errorf("%s: ReachedAt %v outside the run [%v, %v] from the week's start", e.PlayerID, e.ReachedAt, lo, hi)
		}
	}
}
