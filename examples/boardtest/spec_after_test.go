package boardtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestAfterStableWhenCursorMoves: a keyset page continues after the cursor's (score, member)
// even when the cursor's own entry has moved or left, ties included, with current ranks.
func TestAfterStableWhenCursorMoves(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { afterStableWhenCursorMoves(t, tg.Client) })
}

func afterStableWhenCursorMoves(t *testing.T, c redis.UniversalClient) {
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

	t.Run("arena", func(t *testing.T) {
		b := arena.NewBoard(c, redistest.Key(t, "{after}"))
		var es []arena.Entry
		for i := 0; i < 12; i++ { // four groups of equal tuples: ties broken by id bytes
			es = append(es, arena.Entry{PlayerID: fmt.Sprintf("p%02d", i), Points: uint32(100 - i%4*10), ReachedAt: t0})
		}
		if _, err := b.SetMany(ctx, es); err != nil {
			t.Fatal(err)
		}
		page, cur, err := b.After(ctx, arena.Cursor{}, 4)
		if err != nil || len(page) != 4 {
			t.Fatal(page, err)
		}
		moved := page[3].PlayerID
		if _, err := b.AddPoints(ctx, moved, 500); err != nil { // the cursor's entry jumps to the top
			t.Fatal(err)
		}
		if _, err := b.Remove(ctx, page[2].PlayerID); err != nil {
			t.Fatal(err)
		}
		checkAfter(t, c, b.Key(), cur.Score, cur.Member, func(cur2 float64, m string, limit int64) ([]string, []int64) {
			page, _, err := b.After(ctx, arena.Cursor{Score: cur2, Member: m}, limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			var ranks []int64
			for _, r := range page {
				ids = append(ids, r.PlayerID)
				ranks = append(ranks, r.Rank)
			}
			return ids, ranks
		})
	})
	t.Run("season", func(t *testing.T) {
		b := season.NewBoard(c, redistest.Key(t, "{after}"))
		var es []season.Entry
		for i := 0; i < 12; i++ { // equal scores, members differ by Wins and id
			es = append(es, season.Entry{UserID: fmt.Sprintf("u%02d", i), Points: 7, Wins: uint16(i % 3), ReachedAt: t0})
		}
		if _, err := b.SetMany(ctx, es); err != nil {
			t.Fatal(err)
		}
		page, cur, err := b.After(ctx, season.Cursor{}, 5)
		if err != nil || len(page) != 5 {
			t.Fatal(page, err)
		}
		if _, err := b.AddWins(ctx, page[4].UserID, 9); err != nil { // moves within the tie band
			t.Fatal(err)
		}
		checkAfter(t, c, b.Key(), cur.Score, cur.Member, func(cur2 float64, m string, limit int64) ([]string, []int64) {
			page, _, err := b.After(ctx, season.Cursor{Score: cur2, Member: m}, limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			var ranks []int64
			for _, r := range page {
				ids = append(ids, r.UserID)
				ranks = append(ranks, r.Rank)
			}
			return ids, ranks
		})
	})
}

// checkAfter compares After(cursor) with the board's current order filtered to what sorts
// after the cursor.
func checkAfter(t *testing.T, c redis.UniversalClient, key string, cs float64, cm string, after func(float64, string, int64) ([]string, []int64)) {
	t.Helper()
	zs, err := c.ZRevRangeWithScores(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var wantRanks []int64
	for i, z := range zs {
		m := z.Member.(string)
		if z.Score < cs || z.Score == cs && m < cm {
			want = append(want, m)
			wantRanks = append(wantRanks, int64(i+1))
		}
	}
	got, ranks := after(cs, cm, 100)
	if len(got) != len(want) {
		t.Fatalf("After: %v, want members %q", got, want)
	}
	for i := range got {
		if want[i][len(want[i])-len(got[i]):] != got[i] || ranks[i] != wantRanks[i] {
			t.Fatalf("After[%d] = %s rank %d, want member %q rank %d", i, got[i], ranks[i], want[i], wantRanks[i])
		}
	}
}
