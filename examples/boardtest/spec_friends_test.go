package boardtest

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestRankedMany: a friends list's standings in one read-only call — each id's entry (its data
// included) and rank, best first, an id without an entry left out, an id given twice once —
// equal to Get and Rank of each id; on a ShardedBoard, the same merged over its shards.
func TestRankedMany(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		t.Run("laps", func(t *testing.T) { rankedManyLaps(t, tg.Client) })
		t.Run("season-sharded", func(t *testing.T) { rankedManySharded(t, tg.Client) })
	})
}

func rankedManyLaps(t *testing.T, c redis.UniversalClient) {
	b := laps.NewBoard(c, redistest.Key(t, "{friends}"))
	var es []laps.Entry
	for i := range 40 {
		es = append(es, laps.Entry{Driver: fmt.Sprintf("d%02d", i), BestLap: uint32(60000 + i*37%13*100), Laps: uint32(i % 5),
			Data: laps.Data{Name: fmt.Sprintf("Driver %d", i), Car: laps.Car(i % 4)}})
	}
	if _, err := b.SetMany(ctx, es); err != nil {
		t.Fatal(err)
	}
	friends := []string{"d07", "nobody", "d31", "d02", "d07", "d19", "ghost"}
	got, err := b.RankedMany(ctx, friends...)
	if err != nil {
		t.Fatal(err)
	}
	var want []laps.Ranked
	for _, id := range []string{"d07", "d31", "d02", "d19"} {
		e, err := b.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		r, err := b.Rank(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, laps.Ranked{Rank: r, Entry: e})
	}
	slices.SortFunc(want, func(a, b laps.Ranked) int { return int(a.Rank - b.Rank) })
	if !slices.Equal(got, want) {
		t.Errorf("RankedMany(%q) =\n%+v\nwant\n%+v", friends, got, want)
	}
	if none, err := b.RankedMany(ctx, "nobody"); err != nil || len(none) != 0 {
		t.Errorf("RankedMany of an id without an entry = %v, %v; want none", none, err)
	}
	if _, err := b.RankedMany(ctx, "d01", string(make([]byte, 33))); err == nil {
		t.Error("RankedMany with a 33-byte id: no error")
	}
}

func rankedManySharded(t *testing.T, c redis.UniversalClient) {
	s, err := season.NewShardedBoard(c, redistest.Key(t, "friends"), 3)
	if err != nil {
		t.Fatal(err)
	}
	one := season.NewBoard(c, redistest.Key(t, "{friends-one}"))
	var es []season.Entry
	for i := range 30 {
		es = append(es, season.Entry{UserID: fmt.Sprintf("u%02d", i), Points: uint64(i * 7 % 11), Wins: uint16(i % 3), ReachedAt: time.Date(2026, 5, 1, 0, 0, i%4, 0, time.UTC)})
	}
	if _, err := s.SetMany(ctx, es); err != nil {
		t.Fatal(err)
	}
	if _, err := one.SetMany(ctx, es); err != nil {
		t.Fatal(err)
	}
	friends := []string{"u04", "u28", "x", "u04", "u13", "u00"}
	got, err := s.RankedMany(ctx, friends...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := one.RankedMany(ctx, friends...)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 || !slices.Equal(got, want) {
		t.Errorf("sharded RankedMany(%q) =\n%+v\none board's\n%+v", friends, got, want)
	}
}

// TestRankedManyOneRoundTrip: RankedMany is one command on the wire, once the library is
// loaded.
func TestRankedManyOneRoundTrip(t *testing.T) {
	c := redistest.Client(t)
	b := laps.NewBoard(c, redistest.Key(t, "{friends}"))
	if _, err := b.Set(ctx, laps.Entry{Driver: "ana", BestLap: 61000}); err != nil {
		t.Fatal(err)
	}
	var trips atomic.Int64
	c.AddHook(roundTrips{&trips})
	got, err := b.RankedMany(ctx, "ana", "bo", "ana")
	if err != nil || len(got) != 1 || got[0].Rank != 1 {
		t.Fatalf("RankedMany = %+v, %v; want ana at rank 1", got, err)
	}
	if n := trips.Load(); n != 1 {
		t.Errorf("RankedMany took %d round trips; want 1", n)
	}
}

// roundTrips counts a client's round trips: single commands and pipelines.
type roundTrips struct{ n *atomic.Int64 }

func (roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}

func (h roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}
