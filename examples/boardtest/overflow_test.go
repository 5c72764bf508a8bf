package boardtest

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// dump is everything stored under a board's keys, scores as bits.
func dump(t *testing.T, c redis.UniversalClient, keys []string) map[string]any {
	t.Helper()
	out := map[string]any{}
	zs, err := c.ZRangeWithScores(ctx, keys[0], 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]any
	for _, z := range zs {
		pairs = append(pairs, [2]any{math.Float64bits(z.Score), z.Member})
	}
	out["zset"] = pairs
	typ, _ := c.Type(ctx, keys[1]).Result()
	switch typ {
	case "hash":
		out["side"], _ = c.HGetAll(ctx, keys[1]).Result()
	case "string":
		out["side"], _ = c.Get(ctx, keys[1]).Result()
	}
	if len(keys) > 2 { // a board with data fields: its data hash (Keys)
		out["data"], _ = c.HGetAll(ctx, keys[2]).Result()
	}
	return out
}

// TestOverflow: an add past a field's range with overflow: error returns ErrOverflow and leaves
// the board byte for byte as it was (single and batched: the other updates of the batch apply);
// with overflow: saturate it clamps at the edge it passed, in both directions and for an asc
// field. Out-of-range values of set/max updates return ErrOutOfRange and change nothing; on a
// periodic board (weekly), times outside the board's week return ErrSeasonClosed and change
// nothing (weeklyOverflow).
func TestOverflow(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { overflow(t, tg.Client) })
}

func overflow(t *testing.T, c redis.UniversalClient) {
	when := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

	t.Run("arena error", func(t *testing.T) {
		b := arena.NewBoard(c, redistest.Key(t, "arena"))
		if _, err := b.Set(ctx, arena.Entry{PlayerID: "p", Points: 1<<20 - 3, ReachedAt: when}); err != nil {
			t.Fatal(err)
		}
		before := dump(t, c, b.Keys())
		for _, d := range []int64{3, 1 << 20, math.MaxInt64, -(1 << 20), math.MinInt64} {
			if _, err := b.AddPoints(ctx, "p", d); !errors.Is(err, rankgenrt.ErrOverflow) {
				t.Errorf("AddPoints(%d) = %v; want ErrOverflow", d, err)
			}
		}
		if _, err := b.MaxPoints(ctx, "p", 1<<20); !errors.Is(err, rankgenrt.ErrOutOfRange) {
			t.Errorf("MaxPoints(2^20) = %v; want ErrOutOfRange", err)
		}
		if _, err := b.SetPoints(ctx, "p", math.MaxUint32); !errors.Is(err, rankgenrt.ErrOutOfRange) {
			t.Errorf("SetPoints(MaxUint32) = %v; want ErrOutOfRange", err)
		}
		if after := dump(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
			t.Fatalf("refused updates changed the board:\n%v\n%v", before, after)
		}
		res, err := b.AddPointsMany(ctx, []arena.Update[int64]{{PlayerID: "p", Value: 2}, {PlayerID: "p", Value: 1}, {PlayerID: "q", Value: 5}})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Err != nil || res[0].Entry.Points != 1<<20-1 || !errors.Is(res[1].Err, rankgenrt.ErrOverflow) || res[2].Err != nil || res[2].Entry.Points != 5 {
			t.Fatalf("AddPointsMany = %+v; want the top, ErrOverflow, 5", res)
		}
		if e, _ := b.Get(ctx, "p"); e.Points != 1<<20-1 {
			t.Fatalf("Points = %d after the batch; want %d", e.Points, 1<<20-1)
		}
	})

	t.Run("season saturate", func(t *testing.T) {
		b := season.NewBoard(c, redistest.Key(t, "season"))
		const top = 1<<40 - 1
		if _, err := b.Set(ctx, season.Entry{UserID: "u", Points: top - 2, Wins: 7, ReachedAt: when}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			delta int64
			want  uint64
		}{{1, top - 1}, {5, top}, {math.MaxInt64, top}, {-top, 0}, {math.MinInt64, 0}, {-1, 0}, {10, 10}} {
			e, err := b.AddPoints(ctx, "u", tc.delta)
			if err != nil || e.Points != tc.want {
				t.Fatalf("AddPoints(%d) = %d, %v; want %d", tc.delta, e.Points, err, tc.want)
			}
		}
		before := dump(t, c, b.Keys())
		if _, err := b.AddWins(ctx, "u", math.MaxUint16); !errors.Is(err, rankgenrt.ErrOverflow) {
			t.Errorf("AddWins past 65535 = %v; want ErrOverflow (Wins has overflow: error)", err)
		}
		if _, err := b.MaxTier(ctx, "u", season.Tier(9)); !errors.Is(err, rankgenrt.ErrOutOfRange) {
			t.Errorf("MaxTier(9) = %v; want ErrOutOfRange", err)
		}
		if after := dump(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
			t.Fatalf("refused updates changed the board:\n%v\n%v", before, after)
		}
	})

	t.Run("weekly error and season", func(t *testing.T) { weeklyOverflow(t, c) })

	t.Run("racing asc saturate", func(t *testing.T) {
		b := racing.NewBoard(c, redistest.Key(t, "racing"))
		if _, err := b.Set(ctx, racing.Entry{Car: 7, Laps: 998, RaceTime: 500}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			delta int64
			want  uint32
		}{{-501, 0}, {999_999_998, 999_999_998}, {5, 999_999_999}, {math.MinInt64, 0}} {
			e, err := b.AddRaceTime(ctx, 7, tc.delta)
			if err != nil || e.RaceTime != tc.want || e.Laps != 998 {
				t.Fatalf("AddRaceTime(%d) = %+v, %v; want RaceTime %d", tc.delta, e, err, tc.want)
			}
		}
		before := dump(t, c, b.Keys())
		if _, err := b.AddLaps(ctx, 7, 2); !errors.Is(err, rankgenrt.ErrOverflow) {
			t.Errorf("AddLaps past 999 = %v; want ErrOverflow", err)
		}
		if after := dump(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
			t.Fatalf("a refused update changed the board:\n%v\n%v", before, after)
		}
	})
}
