package boardtest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// duelEntry is the i-th of a sequence of duel entries whose bit patterns climb from the
// smallest subnormals (P < 2^52) through normal doubles up to near scoreBound.
func duelEntry(i int) duel.Entry {
	epochEnd := time.Date(2034, 7, 4, 21, 24, 15, 0, time.UTC)
	e := duel.Entry{PlayerID: fmt.Sprintf("p%04d", i), ReachedAt: epochEnd.Add(-time.Duration(i) * time.Second)}
	switch {
	case i < 60: // subnormal: only the time digit
	case i < 120: // around 2^52: tier and wins
		e.Tier, e.Wins = duel.Tier((i/3)%3), uint8(i)
	default:
		e.Points, e.Wins, e.Tier = uint32(i)<<14, uint8(i), duel.TierGold
	}
	return e
}

// TestBits62CrossesEncodings writes 200 duel entries through the Board in ascending and in
// descending pattern order, so each board crosses from listpack to skiplist (128 entries)
// with subnormal and normal scores on both sides, and checks after each phase that Redis's
// order is Compare's, that every stored pair decodes back, and that updates on the far ends
// of the pattern range agree with the codec.
func TestBits62CrossesEncodings(t *testing.T) {
	c := redistest.Client(t)
	for _, dir := range []string{"ascending", "descending"} {
		t.Run(dir, func(t *testing.T) {
			key := redistest.Key(t, "duel")
			b := duel.NewBoard(c, key)
			var want []duel.Entry
			for k := 0; k < 200; k++ {
				i := k
				if dir == "descending" {
					i = 199 - k
				}
				e := duelEntry(i)
				if _, err := b.Set(ctx, e); err != nil {
					t.Fatal(err)
				}
				want = append(want, e)
				if k == 127 || k == 128 {
					enc, err := c.ObjectEncoding(ctx, key).Result()
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("%d entries: %s", k+1, enc)
				}
			}
			checkDuelOrder(t, c, key, want)

			// Updates at both ends: the smallest subnormal entry and the largest normal one.
			lo, hi := duelEntry(0), duelEntry(199)
			got, err := b.AddPoints(ctx, lo.PlayerID, 1<<30) // saturates at 2^24 − 1
			if err != nil || got.Points != 1<<24-1 {
				t.Fatalf("AddPoints saturate: %+v, %v", got, err)
			}
			if _, err := b.AddWins(ctx, hi.PlayerID, 300); !errors.Is(err, rankgenrt.ErrOverflow) {
				t.Fatalf("AddWins past 255: %v; want ErrOverflow", err)
			}
			if got, err = b.MinWins(ctx, hi.PlayerID, 3); err != nil || got.Wins != 3 {
				t.Fatalf("MinWins: %+v, %v", got, err)
			}
			if got, err = b.MaxTier(ctx, lo.PlayerID, duel.TierSilver); err != nil || got.Tier != duel.TierSilver {
				t.Fatalf("MaxTier: %+v, %v", got, err)
			}
			res, err := b.AddPointsMany(ctx, []duel.Update[int64]{{PlayerID: hi.PlayerID, Value: -int64(hi.Points) - 5}, {PlayerID: "fresh", Value: 7}})
			if err != nil || res[0].Err != nil || res[0].Entry.Points != 0 || res[1].Err != nil || res[1].Entry.Points != 7 {
				t.Fatalf("AddPointsMany: %+v, %v", res, err)
			}
			for i := range want {
				if e, err := b.Get(ctx, want[i].PlayerID); err != nil {
					t.Fatal(err)
				} else {
					want[i] = e
				}
			}
			fresh, err := b.Get(ctx, "fresh")
			if err != nil {
				t.Fatal(err)
			}
			checkDuelOrder(t, c, key, append(want, fresh))
		})
	}
}

// checkDuelOrder reads the whole board high to low and compares it with want sorted by Compare.
func checkDuelOrder(t *testing.T, c redis.UniversalClient, key string, want []duel.Entry) {
	t.Helper()
	got, err := c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: key, Start: 0, Stop: -1, Rev: true}).Result()
	if err != nil {
		t.Fatal(err)
	}
	want = slices.Clone(want)
	slices.SortFunc(want, duel.Compare)
	if len(got) != len(want) {
		t.Fatalf("%d members; want %d", len(got), len(want))
	}
	for i, z := range got {
		s, m, err := want[i].Encode()
		if err != nil || math.Float64bits(s) != math.Float64bits(z.Score) || m != z.Member {
			t.Fatalf("rank %d: Redis has (%v, %v); Compare puts %+v (%v) there, %v", i+1, z.Score, z.Member, want[i], s, err)
		}
	}
}

// TestBits62RefusesBadStoredScores: a score no duel entry has (negative, a pattern above
// scoreBound, +inf) is refused by every script that reads it, before anything is written.
func TestBits62RefusesBadStoredScores(t *testing.T) {
	c := redistest.Client(t)
	for _, bad := range []string{"-1", "1.9", "inf", "-4.9406564584124654e-324"} {
		key := redistest.Key(t, "duel")
		b := duel.NewBoard(c, key)
		if _, err := b.Set(ctx, duelEntry(5)); err != nil {
			t.Fatal(err)
		}
		if err := c.Do(ctx, "ZADD", key, bad, "x").Err(); err != nil {
			t.Fatal(err)
		}
		before, _ := c.ZRangeWithScores(ctx, key, 0, -1).Result()
		if _, err := b.AddPoints(ctx, "x", 1); !errors.Is(err, rankgenrt.ErrBadScore) {
			t.Errorf("AddPoints on score %s: %v; want ErrBadScore", bad, err)
		}
		res, err := b.SetTierMany(ctx, []duel.Update[duel.Tier]{{PlayerID: "x", Value: duel.TierGold}})
		if !errors.Is(err, rankgenrt.ErrBadScore) && (err != nil || len(res) != 1 || !errors.Is(res[0].Err, rankgenrt.ErrBadScore)) {
			t.Errorf("SetTierMany on score %s: %+v, %v; want ErrBadScore", bad, res, err)
		}
		if _, err := b.Get(ctx, "x"); !errors.Is(err, rankgenrt.ErrBadScore) {
			t.Errorf("Get of score %s: %v; want ErrBadScore", bad, err)
		}
		after, _ := c.ZRangeWithScores(ctx, key, 0, -1).Result()
		if !slices.Equal(before, after) {
			t.Errorf("score %s: board changed from %v to %v", bad, before, after)
		}
	}
}
