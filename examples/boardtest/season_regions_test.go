package boardtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/tournament"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestRegionalSeasons: one regional schema (tournament: weekly from Monday 00:00, zones Europe/
// Paris, America/New_York and Asia/Tokyo) serves every zone. Each zone's season starts on its
// own wall clock; its boards are its own (<base>:<zone>:<season id>), so a write in one region
// is in no other; a server stamp counts from the zone's own season start; each board expires
// when its zone's calendar says; Live writes the zone's current season; History and
// RemoveEverywhere reach the zone's boards alone; a zone the schema does not list is refused.
// On a single server and on the cluster.
func TestRegionalSeasons(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { regionalSeasons(t, tg.Client) })
}

func regionalSeasons(t *testing.T, c redis.UniversalClient) {
	base := redistest.Key(t, "{cup}")
	zones := []string{tournament.ZoneEuropeParis, tournament.ZoneAmericaNewYork, tournament.ZoneAsiaTokyo}
	keys := map[string]bool{}
	for i, zone := range zones {
		ss, err := tournament.NewSeasons(c, base, zone)
		if err != nil {
			t.Fatal(err)
		}
		s := exampleboards.LiveSeason(t, c, ss.At, 2*time.Minute)
		loc, _ := time.LoadLocation(zone)
		if local := s.Start.In(loc); local.Weekday() != time.Monday || local.Hour() != 0 || local.Minute() != 0 {
			t.Errorf("%s: %v starts at %v local time; want a Monday 00:00", zone, s, local)
		}
		b := ss.Board(s)
		if want := fmt.Sprintf("%s:%s:%d", base, zone, s.ID); b.Key() != want {
			t.Errorf("%s: board key %q; want %q", zone, b.Key(), want)
		}
		keys[b.Key()] = true
		if _, err := b.SetBestLap(ctx, "ana", uint32(61000+i)); err != nil {
			t.Fatal(err)
		}
		e, err := b.Get(ctx, "ana")
		if err != nil {
			t.Fatal(err)
		}
		now := redisNow(t, c)
		if since := now.Sub(s.Start); e.BestLap != uint32(61000+i) || e.SetAt > since || since-e.SetAt > 5*time.Second {
			t.Errorf("%s: ana = %+v at %v after the zone's season start; want BestLap %d set within 5 s", zone, e, since, 61000+i)
		}
		// Each region's board holds its own write alone.
		if n, err := b.Count(ctx); err != nil || n != 1 {
			t.Errorf("%s: %d entries, %v; want 1", zone, n, err)
		}
		// It expires at the end of the keep-th season after it, on its zone's calendar.
		end := s
		for range 2 {
			end = ss.Next(end)
		}
		at, err := c.PExpireTime(ctx, b.Key()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if at != time.Duration(end.End.UnixMilli())*time.Millisecond {
			t.Errorf("%s: board expires at %v; want %v, the end of the 2nd season after it", zone, time.UnixMilli(int64(at/time.Millisecond)), end.End)
		}
		// Live writes the zone's current season's board.
		err = ss.Live(ctx, func(ctx context.Context, b *tournament.Board) error {
			if b.Key() != fmt.Sprintf("%s:%s:%d", base, zone, s.ID) {
				return fmt.Errorf("Live wrote %s", b.Key())
			}
			_, err := b.MinBestLap(ctx, "bo", 59000)
			return err
		})
		if err != nil {
			t.Errorf("%s: Live: %v", zone, err)
		}
	}
	if len(keys) != len(zones) {
		t.Errorf("the zones' boards share keys: %v", keys)
	}
	// A zone's reads across seasons and its removal reach its own boards alone.
	paris, _ := tournament.NewSeasons(c, base, tournament.ZoneEuropeParis)
	tokyo, _ := tournament.NewSeasons(c, base, tournament.ZoneAsiaTokyo)
	history, err := tokyo.History(ctx, "ana", tokyo.Current())
	if err != nil || len(history) != 1 || history[0].Err != nil || history[0].BestLap != 61002 {
		t.Errorf("Tokyo's history of ana: %+v, %v; want its one entry, BestLap 61002", history, err)
	}
	removed, err := tokyo.RemoveEverywhere(ctx, []string{"ana"})
	if err != nil || len(removed) != 1 || removed[0] != 1 {
		t.Errorf("RemoveEverywhere in Tokyo = %v, %v; want ana removed from one board", removed, err)
	}
	if _, err := tokyo.Board(tokyo.Current()).Get(ctx, "ana"); !errors.Is(err, rankgenrt.ErrNotFound) {
		t.Errorf("ana on Tokyo's board after RemoveEverywhere: %v; want ErrNotFound", err)
	}
	if e, err := paris.Board(paris.Current()).Get(ctx, "ana"); err != nil || e.BestLap != 61000 {
		t.Errorf("ana on Paris's board after Tokyo's RemoveEverywhere: %+v, %v; want it kept", e, err)
	}
	if _, err := tournament.NewSeasons(c, base, "Europe/Lisbon"); !errors.Is(err, rankgenrt.ErrUnknownZone) {
		t.Errorf("NewSeasons in a zone the schema does not list: %v; want ErrUnknownZone", err)
	}
}

// TestRegionalWidths: the tournament's SetAt holds the longest week of every zone it lists —
// Paris and New York have a 169-hour week when their clocks go back, Tokyo none — and the
// generator refuses a width that holds only some zones' seasons.
func TestRegionalWidths(t *testing.T) {
	for _, zone := range []string{tournament.ZoneEuropeParis, tournament.ZoneAmericaNewYork} {
		ss, err := tournament.NewSeasons(nil, "", zone)
		if err != nil {
			t.Fatal(err)
		}
		var longest tournament.Season
		for s, i := ss.At(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), 0; i < 53; s, i = ss.Next(s), i+1 {
			if s.Len() > longest.Len() {
				longest = s
			}
		}
		if longest.Len() != 169*time.Hour {
			t.Errorf("%s: the longest week of 2026 lasts %v; want 169h", zone, longest.Len())
		}
		// The board of that week takes an offset in its last second (its SetAt is wide enough).
		last := tournament.Entry{Driver: "ana", BestLap: 61000, SetAt: 169*time.Hour - time.Second}
		if err := longest.CheckOffset("SetAt", last.SetAt); err != nil {
			t.Errorf("%s: the last second of the 169-hour week: %v", zone, err)
		}
		if _, _, err := last.Encode(); err != nil {
			t.Errorf("%s: an entry set in the last second of the 169-hour week: %v", zone, err)
		}
	}
}

// redisNow is Redis's clock.
func redisNow(t *testing.T, c redis.UniversalClient) time.Time {
	t.Helper()
	now, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}
