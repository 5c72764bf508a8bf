package boardtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/daily"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// familyBoard is one board of a family that RemoveEverywhere removes from (a Board, a
// ShardedBoard or a rollup), driven by reflection, with its model.
type familyBoard struct {
	name  string
	board *boardmodel.Board
	model *boardmodel.Model
}

// fillFamily writes random entries of players p00..p29 (each in about two boards of three) to
// every board of the family, entry makes a player's random entry on board i.
func fillFamily(t *testing.T, boards []familyBoard, rng *rand.Rand, entry func(i int, id string) layout.Entry) {
	t.Helper()
	for i, fb := range boards {
		var es []layout.Entry
		for p := range 30 {
			if rng.IntN(3) == 0 {
				continue
			}
			e := entry(i, fmt.Sprintf("p%02d", p))
			if _, err := fb.model.Set(e); err != nil {
				t.Fatal(err)
			}
			es = append(es, e)
		}
		if _, err := fb.board.SetMany(es); err != nil {
			t.Fatalf("%s: %v", fb.name, err)
		}
	}
}

// removeDifferential removes random ids (an id twice, one that no board holds) with remove,
// under an idempotency key, and checks the counts against the model (boardmodel.
// RemoveEverywhere) and every board's reads against its model; then it writes one removed id
// back to the first board and resends the call under the key: the same counts, nothing
// removed again.
func removeDifferential(t *testing.T, what string, boards []familyBoard, rng *rand.Rand, remove func(c context.Context, ids []string) ([]int, error)) {
	t.Helper()
	ids := []string{"nobody"}
	for _, p := range rng.Perm(30)[:4] {
		ids = append(ids, fmt.Sprintf("p%02d", p))
	}
	ids = append(ids, ids[2])
	groups := make([][]*boardmodel.Model, len(boards))
	for i, fb := range boards {
		groups[i] = []*boardmodel.Model{fb.model}
	}
	key := rankgenrt.WithIdempotencyKey(ctx, fmt.Sprint("ban-", rng.Uint64()))
	held, err := remove(key, ids)
	want := boardmodel.RemoveEverywhere(groups, ids)
	if err != nil || !slices.Equal(held, want) {
		t.Fatalf("%s: RemoveEverywhere(%v) = %v, %v; want %v", what, ids, held, err, want)
	}
	for _, fb := range boards {
		compareReads(t, what+": "+fb.name, fb.board, fb.model, rng)
	}
	back := layout.Entry{ID: ids[1], Keys: boardmodel.Zero(boards[0].model.Layout)}
	if _, err := boards[0].model.Set(back); err != nil {
		t.Fatal(err)
	}
	if _, err := boards[0].board.SetMany([]layout.Entry{back}); err != nil {
		t.Fatal(err)
	}
	if again, err := remove(key, ids); err != nil || !slices.Equal(again, held) {
		t.Fatalf("%s: the resend under the key = %v, %v; want the first counts %v", what, again, err, held)
	}
	compareReads(t, what+": "+boards[0].name+" after the resend", boards[0].board, boards[0].model, rng)
}

// TestRemoveEverywhereDifferential: RemoveEverywhere and RemoveEverywhereSharded agree with
// the model (boardmodel.RemoveEverywhere) on random families, on one server and on the
// cluster: the daily family under a hash tag (every day kept, the next day, a cached rollup
// with data, a board of the same tag beside), removed from in one script; the weekly family
// without a hash tag (removed from board by board on the cluster); and the weekly sharded
// family (every shard of every week, and a sharded board beside), each sharded board counted
// once. A resend under the idempotency key removes nothing twice.
func TestRemoveEverywhereDifferential(t *testing.T) {
	dl, wl := parse(t, dailySchema), parse(t, "weekly.yaml")
	now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
	weeklyEntry := func(rng *rand.Rand, s weekly.Season) func(int, string) layout.Entry {
		return func(_ int, id string) layout.Entry {
			return layout.Entry{ID: id, Keys: []uint64{rng.Uint64N(1000), layout.IntKey(rng.Int64N(int64(s.Len() / time.Second))), rng.Uint64N(2)}}
		}
	}
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		for round := range 2 {
			rng := rand.New(rand.NewPCG(uint64(round), 4))

			// The daily family, under one hash tag.
			tag := "{" + redistest.Key(t, fmt.Sprint("days", round)) + "}"
			ds := daily.NewSeasons(tg.Client, tag+":daily", daily.WithClock(func() time.Time { return now }))
			var days []familyBoard
			for _, s := range append(ds.Recent(7), ds.Next(ds.Current())) {
				b := boardmodel.NewBoard(dl, ds.Board(s))
				days = append(days, familyBoard{fmt.Sprint("day ", s.ID), b, boardmodel.For(b)})
			}
			desk := daily.NewBoard(tg.Client, tag+":desk", ds.Current())
			days = append(days, familyBoard{"the desk's board", boardmodel.NewBoard(dl, desk), boardmodel.New(dl)})
			days[len(days)-1].model.Season = days[0].model.Season
			fillFamily(t, days, rng, func(_ int, id string) layout.Entry {
				return layout.Entry{ID: id, Keys: []uint64{layout.IntKey(rng.Int64N(2001) - 1000), rng.Uint64N(100), layout.IntKey(rng.Int64N(2e12) - 1e12)}, Data: oracle.RandomData(dl, rng)}
			})
			rollup, err := ds.Rollup(ctx, daily.RollupSpec{Field: daily.RollupProfit, Op: daily.RollupSum, Last: 7, TTL: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			models := make([]*boardmodel.Model, 7)
			for i := range models {
				models[i] = days[i].model
			}
			want, err := boardmodel.Rollup(models, 0, rankgenrt.RollupSum)
			if err != nil {
				t.Fatal(err)
			}
			days = append(days, familyBoard{"the rollup", boardmodel.NewBoard(dl, rollup), want})
			removeDifferential(t, "daily", days, rng, func(c context.Context, ids []string) ([]int, error) { return ds.RemoveEverywhere(c, ids, desk) })

			// The weekly family, without a hash tag, and its sharded boards.
			base := redistest.Key(t, fmt.Sprint("weeks", round)) + ":weekly"
			ws := weekly.NewSeasons(tg.Client, base, weekly.WithClock(func() time.Time { return now }))
			var weeks, sharded []familyBoard
			for _, s := range append(ws.Recent(5), ws.Next(ws.Current())) {
				b := boardmodel.NewBoard(wl, ws.Board(s))
				weeks = append(weeks, familyBoard{fmt.Sprint("week ", s.ID), b, boardmodel.For(b)})
				sb, err := ws.Sharded(s, 3)
				if err != nil {
					t.Fatal(err)
				}
				b = boardmodel.NewBoard(wl, sb)
				sharded = append(sharded, familyBoard{fmt.Sprint("sharded week ", s.ID), b, boardmodel.For(b)})
			}
			allTime, err := weekly.NewShardedBoard(tg.Client, redistest.Key(t, fmt.Sprint("all", round)), ws.Current(), 2)
			if err != nil {
				t.Fatal(err)
			}
			b := boardmodel.NewBoard(wl, allTime)
			sharded = append(sharded, familyBoard{"the sharded all-time board", b, boardmodel.For(b)})
			fillFamily(t, weeks, rng, weeklyEntry(rng, ws.Current()))
			fillFamily(t, sharded, rng, weeklyEntry(rng, ws.Current()))
			removeDifferential(t, "weekly", weeks, rng, func(c context.Context, ids []string) ([]int, error) { return ws.RemoveEverywhere(c, ids) })
			removeDifferential(t, "weekly sharded", sharded, rng, func(c context.Context, ids []string) ([]int, error) {
				return ws.RemoveEverywhereSharded(c, 3, ids, allTime)
			})
		}
	})
}

// TestRemoveEverywhereAtomic: where one script reaches every board (a hash-tagged family), a
// refusal on one board (another layout's fingerprint on a day's board) refuses the whole call
// and removes nothing from any board, on one server and on the cluster.
func TestRemoveEverywhereAtomic(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
		ds := daily.NewSeasons(tg.Client, "{"+redistest.Key(t, "atomic")+"}:daily", daily.WithClock(func() time.Time { return now }))
		days := ds.Recent(7)
		for _, s := range days {
			if _, err := ds.Board(s).Set(ctx, daily.Entry{Trader: "cheat", Profit: 9}); err != nil {
				t.Fatal(err)
			}
		}
		foreign := ds.Board(days[3]).Keys()[1] // its index, whose field "" holds the layout's fingerprint
		if err := tg.Client.HSet(ctx, foreign, "", "another-layout").Err(); err != nil {
			t.Fatal(err)
		}
		if held, err := ds.RemoveEverywhere(ctx, []string{"cheat"}); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Fatalf("RemoveEverywhere with a foreign board = %v, %v; want ErrLayoutMismatch", held, err)
		}
		for _, s := range days {
			if _, err := ds.Board(s).Get(ctx, "cheat"); err != nil && s.ID != days[3].ID {
				t.Errorf("day %d after a refused RemoveEverywhere: %v; want cheat kept", s.ID, err)
			}
		}
	})
}
