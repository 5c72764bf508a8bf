package boardtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// rollupOps are the rollup operations the tests draw.
var rollupOps = []weekly.RollupOp{weekly.RollupSum, weekly.RollupMax, weekly.RollupMin}

// fillSeasons writes random entries of players p00..p59 to the boards of seasons (each player
// in about two seasons of three, a season skipped when skip says so) and returns each
// season's model. Points stay small unless huge is set, when a few reach the top of the range
// (their sums overflow).
func fillSeasons(t *testing.T, l *layout.Layout, ss *weekly.Seasons, seasons []weekly.Season, rng *rand.Rand, huge bool, skip func(int) bool) []*boardmodel.Model {
	t.Helper()
	models := make([]*boardmodel.Model, len(seasons))
	for i, s := range seasons {
		models[i] = boardmodel.For(boardmodel.NewBoard(l, ss.Board(s)))
		if skip(i) {
			continue
		}
		var es []weekly.Entry
		for p := range 60 {
			if rng.IntN(3) == 0 {
				continue
			}
			points := rng.Uint64N(40)
			if huge && rng.IntN(20) == 0 {
				points = l.Fields[0].Hi - rng.Uint64N(3)
			}
			e := layout.Entry{ID: fmt.Sprintf("p%02d", p), Keys: []uint64{points, layout.IntKey(rng.Int64N(int64(s.Len() / time.Second))), rng.Uint64N(2)}}
			if _, err := models[i].Set(e); err != nil {
				t.Fatal(err)
			}
			var g weekly.Entry
			oracle.ToGenerated(l, e, &g)
			es = append(es, g)
		}
		if _, err := ss.Board(s).SetMany(ctx, es); err != nil {
			t.Fatal(err)
		}
	}
	return models
}

// TestSeasonRollup: Seasons.Rollup of Points by sum, max and min over the last 1 to 5 weeks
// agrees with the model (boardmodel.Rollup) on Top, Page, Rank and Around, on random boards
// (a week without a board among them), on one server and on the cluster (a hash-tagged
// base); a sum past Points' range fails with ErrOverflow and writes nothing.
func TestSeasonRollup(t *testing.T) {
	l := exampleboards.Named(t, "weekly")[0].Layout(t)
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC) // coming weeks: their boards do not expire during the test
		overflows := 0
		for round := range 4 {
			rng := rand.New(rand.NewPCG(uint64(round), 22))
			base := "{" + redistest.Key(t, fmt.Sprint("rollup", round)) + "}:weekly"
			ss := weekly.NewSeasons(tg.Client, base, weekly.WithClock(func() time.Time { return now }))
			seasons := ss.Recent(5)
			models := fillSeasons(t, l, ss, seasons, rng, round == 3, func(i int) bool { return i == 2 && round%2 == 0 })
			for _, op := range rollupOps {
				for last := 1; last <= len(seasons); last++ {
					what := fmt.Sprintf("round %d: %v of the last %d", round, op, last)
					got, err := ss.Rollup(ctx, weekly.RollupSpec{Field: weekly.RollupPoints, Op: op, Last: last, TTL: time.Minute})
					want, werr := boardmodel.Rollup(models[:last], 0, op)
					if !boardmodel.SameError(err, werr) {
						t.Fatalf("%s: %v; want %v", what, err, werr)
					}
					if err != nil {
						overflows++
						n, xerr := tg.Client.Exists(ctx, rankgenrt.RollupKey(base, "Points", op, last, seasons[0])).Result()
						if xerr != nil || n != 0 {
							t.Errorf("%s: a refused rollup left its board (%d, %v)", what, n, xerr)
						}
						continue
					}
					compareReads(t, what, boardmodel.NewBoard(l, got), want, rng)
				}
			}
		}
		if overflows == 0 {
			t.Error("no rollup overflowed Points: the overflow round drew no large points")
		}
	})
}

// TestSeasonRollupCache: a rollup is reused until its TTL passes (a write to a season meanwhile
// is not in it), then rebuilt with the write; Rollup refuses a bad spec before sending
// anything, and on a Cluster a base without a hash tag (its seasons' keys in different slots)
// with ErrCrossSlot.
func TestSeasonRollupCache(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
		ss := weekly.NewSeasons(tg.Client, "{"+redistest.Key(t, "cache")+"}:weekly", weekly.WithClock(func() time.Time { return now }))
		cur, prev := ss.Board(ss.Current()), ss.Board(ss.Previous(1))
		for _, b := range []*weekly.Board{cur, prev} {
			if _, err := b.Set(ctx, weekly.Entry{PlayerID: "ann", Points: 5}); err != nil {
				t.Fatal(err)
			}
		}
		spec := weekly.RollupSpec{Field: weekly.RollupPoints, Op: weekly.RollupSum, Last: 2, TTL: 2 * time.Second} // long enough that no stall of a loaded machine ends it before "cached"
		points := func(what string, want uint32) {
			t.Helper()
			r, err := ss.Rollup(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if e, err := r.Get(ctx, "ann"); err != nil || e.Points != want {
				t.Fatalf("%s: ann has %d points (%v); want %d", what, e.Points, err, want)
			}
		}
		points("built", 10)
		if _, err := cur.Set(ctx, weekly.Entry{PlayerID: "ann", Points: 12}); err != nil {
			t.Fatal(err)
		}
		points("cached", 10)
		time.Sleep(spec.TTL + 100*time.Millisecond)
		points("rebuilt after the TTL", 17)

		for _, bad := range []weekly.RollupSpec{
			{Field: 9, Op: weekly.RollupSum, Last: 2, TTL: time.Second},
			{Field: weekly.RollupPoints, Op: 0, Last: 2, TTL: time.Second},
			{Field: weekly.RollupPoints, Op: weekly.RollupMax, Last: 0, TTL: time.Second},
			{Field: weekly.RollupPoints, Op: weekly.RollupMax, Last: 6, TTL: time.Second},
			{Field: weekly.RollupPoints, Op: weekly.RollupMax, Last: 2, TTL: 0},
			{Field: weekly.RollupPoints, Op: weekly.RollupMax, Last: 2, TTL: 1500 * time.Microsecond},
		} {
			if _, err := ss.Rollup(ctx, bad); !errors.Is(err, rankgenrt.ErrOutOfRange) {
				t.Errorf("Rollup(%+v) = %v; want ErrOutOfRange", bad, err)
			}
		}
		spread := weekly.NewSeasons(tg.Client, redistest.Key(t, "spread")+":weekly")
		_, err := spread.Rollup(ctx, spec)
		if tg.Cluster != errors.Is(err, rankgenrt.ErrCrossSlot) || !tg.Cluster && err != nil {
			t.Errorf("Rollup over a base without a hash tag on %s: %v", tg.Name, err)
		}
	})
}

// compareReads compares the board's Top, a random Page, and every id's Rank and Around
// with the model's: ranks, ids, field values and data.
func compareReads(t *testing.T, what string, b *boardmodel.Board, want *boardmodel.Model, rng *rand.Rand) {
	t.Helper()
	sorted := want.Sorted()
	check := func(read string, got []boardmodel.Ranked, err error, first int, es []layout.Entry) {
		t.Helper()
		if err != nil || len(got) != len(es) {
			t.Fatalf("%s: %s = %d entries, %v; want %d", what, read, len(got), err, len(es))
		}
		for i, r := range got {
			if e := r.Entry; r.Rank != int64(first+i+1) || e.ID != es[i].ID || fmt.Sprint(e.Keys, e.Data) != fmt.Sprint(es[i].Keys, es[i].Data) {
				t.Fatalf("%s: %s[%d] = rank %d %+v; want rank %d %+v", what, read, i, r.Rank, e, first+i+1, es[i])
			}
		}
	}
	top, err := b.Top(int64(len(sorted) + 1))
	check("Top", top, err, 0, sorted)
	offset, limit := rng.IntN(len(sorted)+1), 1+rng.IntN(10)
	page, err := b.Page(int64(offset), int64(limit))
	check(fmt.Sprintf("Page(%d, %d)", offset, limit), page, err, offset, sorted[offset:min(offset+limit, len(sorted))])
	for i, e := range sorted {
		if r, err := b.Rank(e.ID); err != nil || r != int64(i+1) {
			t.Fatalf("%s: Rank(%s) = %d, %v; want %d", what, e.ID, r, err, i+1)
		}
		around, err := b.Around(e.ID, 2, 1)
		lo := max(0, i-2)
		check("Around("+e.ID+", 2, 1)", around, err, lo, sorted[lo:min(i+2, len(sorted))])
	}
	if _, err := b.Rank("nobody"); !errors.Is(err, rankgenrt.ErrNotFound) {
		t.Fatalf("%s: Rank(nobody) = %v; want ErrNotFound", what, err)
	}
}

// TestRemoveEverywhere: one call removes a cheater from every retained season's board, the
// next season's, a cached rollup (which Rollup then returns without them, within its TTL) and
// a board of the same layout given beside, and counts per id the boards that held it; the
// other players stay, and an id nobody holds counts 0.
func TestRemoveEverywhere(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
		ss := weekly.NewSeasons(tg.Client, "{"+redistest.Key(t, "family")+"}:weekly", weekly.WithClock(func() time.Time { return now }))
		allTime := weekly.NewBoard(tg.Client, "{"+redistest.Key(t, "family")+"}:all", ss.Current())
		boards := []*weekly.Board{ss.Board(ss.Next(ss.Current())), allTime}
		for _, s := range ss.Recent(5) {
			boards = append(boards, ss.Board(s))
		}
		for i, b := range boards {
			es := []weekly.Entry{{PlayerID: "ann", Points: 3}}
			if i%2 == 0 {
				es = append(es, weekly.Entry{PlayerID: "cheat", Points: 900}, weekly.Entry{PlayerID: "twin", Points: 800})
			}
			if _, err := b.SetMany(ctx, es); err != nil {
				t.Fatal(err)
			}
		}
		spec := weekly.RollupSpec{Field: weekly.RollupPoints, Op: weekly.RollupSum, Last: 5, TTL: time.Minute}
		rollup, err := ss.Rollup(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if top, err := rollup.Top(ctx, 1); err != nil || len(top) != 1 || top[0].PlayerID != "cheat" {
			t.Fatalf("the rollup's top before: %+v, %v", top, err)
		}
		held, err := ss.RemoveEverywhere(ctx, []string{"cheat", "nobody", "twin"}, allTime)
		// The seasons hold cheat in 3 of the 5 retained weeks, plus the next week's board and the
		// rollup; twin likewise; the all-time board holds neither.
		if err != nil || fmt.Sprint(held) != "[5 0 5]" {
			t.Fatalf("RemoveEverywhere = %v, %v; want [5 0 5]", held, err)
		}
		rollup, err = ss.Rollup(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range append(boards, rollup) {
			for _, id := range []string{"cheat", "twin"} {
				if _, err := b.Get(ctx, id); !errors.Is(err, rankgenrt.ErrNotFound) {
					t.Errorf("%s on %s after RemoveEverywhere: %v; want ErrNotFound", id, b.Key(), err)
				}
			}
			if _, err := b.Get(ctx, "ann"); err != nil {
				t.Errorf("ann on %s after RemoveEverywhere: %v", b.Key(), err)
			}
		}

		// Under an idempotency key both ids are removed by the one call, and the call resent
		// under the key answers the same counts.
		week := ss.Board(ss.Current())
		if _, err := week.SetMany(ctx, []weekly.Entry{{PlayerID: "x", Points: 1}, {PlayerID: "y", Points: 2}}); err != nil {
			t.Fatal(err)
		}
		once := rankgenrt.WithIdempotencyKey(ctx, "ban-xy")
		for try := range 2 {
			held, err := ss.RemoveEverywhere(once, []string{"x", "y"})
			if err != nil || fmt.Sprint(held) != "[1 1]" {
				t.Fatalf("RemoveEverywhere under a key, try %d = %v, %v; want [1 1]", try, held, err)
			}
		}
		if n, err := week.Count(ctx); err != nil || n != 1 {
			t.Errorf("the week holds %d entries (%v) after x and y were removed; want ann alone", n, err)
		}
	})
}

// TestSeasonRollupPrefixed: the rollup of a layout whose members carry a prefix (blitz: At in
// the member, its index beside the board) agrees with the model on Top, Page, Rank and Around,
// by sum, max and min over its two kept seasons, on one server and on the cluster.
func TestSeasonRollupPrefixed(t *testing.T) {
	l := parse(t, blitzExample.schema)
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		now := time.Date(2027, 3, 10, 12, 0, 1, 0, time.UTC)
		ss := blitz.NewSeasons(tg.Client, "{"+redistest.Key(t, "blitz")+"}:blitz", blitz.WithClock(func() time.Time { return now }))
		rng := rand.New(rand.NewPCG(9, 22))
		seasons := ss.Recent(2)
		models := make([]*boardmodel.Model, len(seasons))
		for i, s := range seasons {
			mb := boardmodel.NewBoard(l, ss.Board(s))
			models[i] = boardmodel.For(mb)
			var es []layout.Entry
			for p := range 50 {
				if rng.IntN(3) == 0 {
					continue
				}
				e := layout.Entry{ID: fmt.Sprintf("p%02d", p), Keys: []uint64{rng.Uint64N(1000), layout.IntKey(rng.Int64N(2000)), layout.IntKey(rng.Int64N(2000))}}
				if _, err := models[i].Set(e); err != nil {
					t.Fatal(err)
				}
				es = append(es, e)
			}
			if _, err := mb.SetMany(es); err != nil {
				t.Fatal(err)
			}
		}
		for _, op := range []blitz.RollupOp{blitz.RollupSum, blitz.RollupMax, blitz.RollupMin} {
			r, err := ss.Rollup(ctx, blitz.RollupSpec{Field: blitz.RollupPoints, Op: op, Last: 2, TTL: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			want, err := boardmodel.Rollup(models, 0, op)
			if err != nil {
				t.Fatal(err)
			}
			compareReads(t, op.String(), boardmodel.NewBoard(l, r), want, rng)
		}
	})
}
