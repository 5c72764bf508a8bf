package boardtest

import (
	"errors"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/daily"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// rollupClock is a week whose boards do not expire during the tests.
var rollupClock = weekly.WithClock(func() time.Time { return time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC) })

// TestRollupReadsSeasonWithoutSideKey: a season's board that holds entries but whose side key
// is gone (weekly: its meta key; daily, whose members carry a prefix: its index) is read by a
// rollup as the reads of places read it, never skipped: three seasons of 10 sum to 30. One whose
// other kind of side key holds another layout's fingerprint is refused (ErrLayoutMismatch) and
// nothing is written, rather than have its entries decoded with this layout.
func TestRollupReadsSeasonWithoutSideKey(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		ws := weekly.NewSeasons(c, "{"+redistest.Key(t, "nometa")+"}:weekly", rollupClock)
		weeks := ws.Recent(3)
		for _, s := range weeks {
			if _, err := ws.Board(s).Set(ctx, weekly.Entry{PlayerID: "ann", Points: 10}); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Del(ctx, rankgenrt.MetaKey(ws.Board(weeks[1]).Key())).Err(); err != nil {
			t.Fatal(err)
		}
		spec := weekly.RollupSpec{Field: weekly.RollupPoints, Op: weekly.RollupSum, Last: 3, TTL: time.Minute}
		r, err := ws.Rollup(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if e, err := r.Get(ctx, "ann"); err != nil || e.Points != 30 {
			t.Fatalf("weekly rollup over a week without its meta key: ann has %d points (%v); want 30", e.Points, err)
		}

		ds := daily.NewSeasons(c, "{"+redistest.Key(t, "noindex")+"}:daily", daily.WithClock(func() time.Time { return time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC) }))
		days := ds.Recent(3)
		for _, s := range days {
			if _, err := ds.Board(s).Set(ctx, daily.Entry{Trader: "ann", Profit: 10, Data: daily.Data{Desk: "fx"}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Del(ctx, rankgenrt.IndexKey(ds.Board(days[1]).Key())).Err(); err != nil {
			t.Fatal(err)
		}
		dr, err := ds.Rollup(ctx, daily.RollupSpec{Field: daily.RollupProfit, Op: daily.RollupSum, Last: 3, TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if e, err := dr.Get(ctx, "ann"); err != nil || e.Profit != 30 || e.Data.Desk != "fx" {
			t.Fatalf("daily rollup over a day without its index: ann = %+v (%v); want Profit 30, Desk fx", e, err)
		}

		// The week without a meta key, now with another layout's index beside it.
		other := weekly.NewSeasons(c, "{"+redistest.Key(t, "otherkind")+"}:weekly", rollupClock)
		for _, s := range weeks {
			if _, err := other.Board(s).Set(ctx, weekly.Entry{PlayerID: "ann", Points: 10}); err != nil {
				t.Fatal(err)
			}
		}
		foreign := other.Board(weeks[2]).Key()
		if err := c.Del(ctx, rankgenrt.MetaKey(foreign)).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.HSet(ctx, rankgenrt.IndexKey(foreign), "", "0123456789abcdef").Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Rollup(ctx, spec); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Fatalf("rollup over a week another layout's index claims: %v; want ErrLayoutMismatch", err)
		}
		key := rankgenrt.RollupKey("{"+redistest.Key(t, "otherkind")+"}:weekly", "Points", rankgenrt.RollupSum, 3, weeks[0])
		if n, err := c.Exists(ctx, key, rankgenrt.MetaKey(key), rankgenrt.RollupsKey("{"+redistest.Key(t, "otherkind")+"}:weekly")).Result(); err != nil || n != 0 {
			t.Fatalf("a refused rollup wrote %d keys (%v)", n, err)
		}
	})
}

// TestRollupWritesNothingOnError: with the list of cached rollups (<base>:rollups) holding a
// string, Rollup fails with ErrWrongType before writing anything (no rollup board is left
// cached and unlisted, where RemoveEverywhere would never find it), and RemoveEverywhere,
// which reads the list, fails with ErrWrongType too and removes nothing. Once the key is free,
// both work.
func TestRollupWritesNothingOnError(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		base := "{" + redistest.Key(t, "badlist") + "}:weekly"
		ss := weekly.NewSeasons(c, base, rollupClock)
		weeks := ss.Recent(2)
		for _, s := range weeks {
			if _, err := ss.Board(s).Set(ctx, weekly.Entry{PlayerID: "ann", Points: 10}); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Set(ctx, rankgenrt.RollupsKey(base), "not a list", 0).Err(); err != nil {
			t.Fatal(err)
		}
		spec := weekly.RollupSpec{Field: weekly.RollupPoints, Op: weekly.RollupSum, Last: 2, TTL: time.Minute}
		if _, err := ss.Rollup(ctx, spec); !errors.Is(err, rankgenrt.ErrWrongType) {
			t.Fatalf("Rollup with a string at the rollups key: %v; want ErrWrongType", err)
		}
		key := rankgenrt.RollupKey(base, "Points", rankgenrt.RollupSum, 2, weeks[0])
		if n, err := c.Exists(ctx, key, rankgenrt.MetaKey(key)).Result(); err != nil || n != 0 {
			t.Fatalf("a failed Rollup left %d of its keys (%v); want none", n, err)
		}
		if _, err := ss.RemoveEverywhere(ctx, []string{"ann"}); !errors.Is(err, rankgenrt.ErrWrongType) {
			t.Fatalf("RemoveEverywhere with a string at the rollups key: %v; want ErrWrongType", err)
		}
		for _, s := range weeks {
			if _, err := ss.Board(s).Get(ctx, "ann"); err != nil {
				t.Fatalf("a failed RemoveEverywhere removed ann from %s: %v", ss.Board(s).Key(), err)
			}
		}

		if err := c.Del(ctx, rankgenrt.RollupsKey(base)).Err(); err != nil {
			t.Fatal(err)
		}
		r, err := ss.Rollup(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if e, err := r.Get(ctx, "ann"); err != nil || e.Points != 20 {
			t.Fatalf("Rollup once the key is free: ann has %d points (%v); want 20", e.Points, err)
		}
		if held, err := ss.RemoveEverywhere(ctx, []string{"ann"}); err != nil || held[0] != 3 {
			t.Fatalf("RemoveEverywhere once the key is free = %v, %v; want ann on 3 boards", held, err)
		}
	})
}
