package boardtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestSeasonHistory: Seasons.History reads an id's entry and rank on several seasons' boards in
// one pipeline, and agrees with each board's own Get and Rank: on one server, and on the
// cluster with the seasons in one slot (a hash tag in the base) and spread over the masters
// (no hash tag). The oldest of the six seasons read is past its retention on the Seasons'
// clock (keep: 4), which History reports as each Board's reads do (ErrSeasonExpired). A season
// whose key holds another type fails the call with ErrWrongType.
func TestSeasonHistory(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC) // coming weeks: their boards do not expire during the test
		for _, base := range []string{"{" + redistest.Key(t, "hist") + "}:weekly", redistest.Key(t, "spread") + ":weekly"} {
			ss := weekly.NewSeasons(tg.Client, base, weekly.WithClock(func() time.Time { return now }))
			seasons := ss.Recent(6)
			rng := rand.New(rand.NewPCG(uint64(len(base)), 7))
			for i, s := range seasons {
				if i == 2 {
					continue // no board that week
				}
				var es []weekly.Entry
				for p := range 40 {
					if p%3 == i%3 {
						continue // each week misses some players
					}
					es = append(es, weekly.Entry{PlayerID: fmt.Sprintf("p%02d", p), Points: uint32(rng.IntN(8)),
						ReachedAt: time.Duration(rng.Int64N(int64(s.Len()/time.Second))) * time.Second, Paid: rng.IntN(2) == 0})
				}
				if _, err := ss.Board(s).SetMany(ctx, es); err != nil {
					t.Fatal(err)
				}
			}
			for p := range 40 {
				id := fmt.Sprintf("p%02d", p)
				hist, err := ss.History(ctx, id, seasons...)
				if err != nil || len(hist) != len(seasons) {
					t.Fatalf("History(%s) = %d results, %v", id, len(hist), err)
				}
				for i, h := range hist {
					checkHistory(t, ss.Board(seasons[i]), id, h)
				}
				if !errors.Is(hist[5].Err, rankgenrt.ErrSeasonExpired) {
					t.Errorf("History(%s) of %v, past its retention: %v; want ErrSeasonExpired", id, seasons[5], hist[5].Err)
				}
			}
		}
		ss := weekly.NewSeasons(tg.Client, "{"+redistest.Key(t, "wrong")+"}:weekly", weekly.WithClock(func() time.Time { return now }))
		if err := tg.Client.Set(ctx, ss.Board(ss.Previous(1)).Key(), "a string", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := ss.History(ctx, "p01", ss.Recent(3)...); !errors.Is(err, rankgenrt.ErrWrongType) {
			t.Errorf("History over a string key: %v; want ErrWrongType", err)
		}
	})
}

// checkHistory compares one season's History result with the board's own Get and Rank.
func checkHistory(t *testing.T, b *weekly.Board, id string, h weekly.SeasonResult) {
	t.Helper()
	if h.Season != b.Season() {
		t.Errorf("%s: season %v; want %v", id, h.Season, b.Season())
	}
	e, err := b.Get(ctx, id)
	if errors.Is(err, rankgenrt.ErrSeasonExpired) {
		if !errors.Is(h.Err, rankgenrt.ErrSeasonExpired) || h.Rank != 0 {
			t.Errorf("%s in %v: %+v; want ErrSeasonExpired", id, h.Season, h)
		}
		return
	}
	if errors.Is(err, rankgenrt.ErrNotFound) {
		if !errors.Is(h.Err, rankgenrt.ErrNotFound) || h.Rank != 0 {
			t.Errorf("%s in %v: %+v; want ErrNotFound", id, h.Season, h)
		}
		return
	}
	r, rerr := b.Rank(ctx, id)
	if err != nil || rerr != nil {
		t.Fatal(err, rerr)
	}
	if h.Err != nil || h.Rank != r || h.Entry != e {
		t.Errorf("%s in %v: %+v; want rank %d, %+v", id, h.Season, h, r, e)
	}
}
