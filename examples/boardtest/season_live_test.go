package boardtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestSeasonLive: Seasons.Live sends a write to the current season's board by the client's
// clock; when Redis's clock (which stamps weekly's ReachedAt) reads another week, that board
// refuses the write and Live sends it again to Redis's week. Here the client's clock is a week
// behind, then a week ahead: every write lands, once, on the board of the server's week,
// stamped by the server's clock, and the client's week gets nothing.
func TestSeasonLive(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		for _, skew := range []time.Duration{-7 * 24 * time.Hour, 7 * 24 * time.Hour} {
			ss := weekly.NewSeasons(c, "{"+redistest.Key(t, "live"+skew.String())+"}:weekly", weekly.WithClock(func() time.Time { return time.Now().Add(skew) }))
			before := serverNow(t, c)
			var on []*weekly.Board
			err := ss.Live(ctx, func(ctx context.Context, b *weekly.Board) error {
				on = append(on, b)
				_, err := b.AddPoints(ctx, "p", 5)
				return err
			})
			after := serverNow(t, c)
			week := ss.At(before)
			if !week.Contains(after) {
				return // Monday 00:00 in Paris passed during the call: the server's week is not one
			}
			if err != nil || len(on) != 2 || on[0].Season() != ss.Current() || on[1].Season() != week {
				t.Fatalf("skew %v: Live = %v after %d calls; want the client's week refused, then the server's", skew, err, len(on))
			}
			e, err := on[1].Get(ctx, "p")
			if err != nil || e.Points != 5 {
				t.Fatalf("skew %v: %+v, %v", skew, e, err)
			}
			if stamp := week.Start.Add(e.ReachedAt); stamp.Before(before.Truncate(time.Second)) || stamp.After(after) {
				t.Errorf("skew %v: stamped %v; the server's clock read %v … %v", skew, stamp, before, after)
			}
			if _, err := on[0].Get(ctx, "p"); !errors.Is(err, rankgenrt.ErrNotFound) {
				t.Errorf("skew %v: the client's week has an entry: %v", skew, err)
			}
		}
		// A refusal without a clock (a season-anchored value given) is not moved.
		ss := weekly.NewSeasons(c, "{"+redistest.Key(t, "live")+"}:given")
		calls := 0
		err := ss.Live(ctx, func(ctx context.Context, b *weekly.Board) error {
			calls++
			_, err := b.Set(ctx, weekly.Entry{PlayerID: "p", ReachedAt: -time.Second})
			return err
		})
		if !errors.Is(err, rankgenrt.ErrSeasonClosed) || calls != 1 {
			t.Errorf("a given offset outside the week: %v after %d calls; want ErrSeasonClosed after 1", err, calls)
		}
	})
}
