package boardtest

import (
	"errors"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/boards/relay"
	"github.com/rankgen/rankgen/examples/boardtest/internal/boards/relay2"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestPackageRollingDeploy: a package of boards whose boards' schemas name the ones they
// replace (relay2's best and week, over relay's) submits to and removes from boards relay's
// code filled, each step in the layout its board holds: before any switch, between the
// switches of its boards (best's and latest's moved, week's not yet) and after them, a
// submission resent across a switch answered once. On one server and on a cluster.
func TestPackageRollingDeploy(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { packageRollingDeploy(t, tg.Client) })
}

func packageRollingDeploy(t *testing.T, c redis.UniversalClient) {
	s := exampleboards.LiveSeason(t, c, relay.NewWeekSeasons(nil, "").At, time.Minute)
	tag := "{" + redistest.Key(t, "deploy") + "}"
	v1 := newRelay(c, tag, s)
	v2 := relay2.Race{
		Best:   relay2.NewBestBoard(c, tag+":best"),
		Latest: relay2.NewBestBoard(c, tag+":latest"),
		Total:  relay2.NewTotalBoard(c, tag+":total"),
		Week:   relay2.NewWeekBoard(c, tag+":week", s),
	}
	race2 := func(driver string, lap uint32, class relay2.BestClass, car uint64) relay2.RaceInput {
		e := relay2.BestEntry{Driver: driver, BestLap: lap, Laps: 1, Class: class, Data: relay2.BestData{Car: relay2.BestCarFormula}}
		return relay2.RaceInput{Best: e, Latest: e,
			Total: relay2.TotalChanges{Car: car, Apply: []relay2.TotalChange{relay2.TotalAddPoints(10)}},
			Week:  relay2.WeekChanges{Driver: driver, Apply: []relay2.WeekChange{relay2.WeekAddWins(1), relay2.WeekAddRaces(1)}}}
	}
	if _, err := v1.race().Submit(ctx, relay.RaceInput{
		Best:   relay.BestEntry{Driver: "ann", BestLap: 61000, Laps: 1},
		Latest: relay.BestEntry{Driver: "ann", BestLap: 61000, Laps: 1},
		Total:  relay.TotalChanges{Car: 7, Apply: []relay.TotalChange{relay.TotalAddPoints(10)}},
		Week:   relay.WeekChanges{Driver: "ann", Apply: []relay.WeekChange{relay.WeekAddWins(1)}},
	}); err != nil {
		t.Fatal(err)
	}

	// Every board in relay's layouts: relay2's submission writes each in it, as relay's would.
	w, err := v2.Submit(ctx, race2("bob", 60000, relay2.BestClassOpen, 7))
	if err != nil {
		t.Fatalf("relay2's submission on relay's boards: %v", err)
	}
	if !w.Best.Changed || w.Best.BestLap != 60000 || w.Total.Points != 20 || w.Week.Wins != 1 {
		t.Fatalf("relay2's submission replied %+v", w)
	}
	if e, err := v1.best.Get(ctx, "bob"); err != nil || e.BestLap != 60000 || e.Laps != 1 || e.Data.Car != relay.BestCarFormula {
		t.Fatalf("relay reads relay2's write as %+v, %v", e, err)
	}
	// A value only relay2's layout holds is refused by its step before anything is sent.
	before := v1.contents(t, c)
	_, err = v2.Submit(ctx, race2("cat", 60000, relay2.BestClassPro, 7))
	var se *rankgenrt.SubmissionError
	if !errors.As(err, &se) || se.Step != "Best" || !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
		t.Fatalf("a class relay's layout lacks: %v; want a SubmissionError of step Best, ErrNotInPreviousLayout", err)
	}
	if after := v1.contents(t, c); !equalMaps(before, after) {
		t.Fatalf("a refused submission changed the boards:\nbefore %v\nafter  %v", before, after)
	}

	// best's and latest's boards move to relay2's layout, week's not yet: each step runs in its
	// board's layout; relay's submission is refused and writes nothing.
	for _, key := range []string{tag + ":best", tag + ":latest"} {
		if _, err := migrate.Run(ctx, c, previousPlan(t, "internal/boards/relay2/best.yaml"), migrate.Options{Key: key}); err != nil {
			t.Fatalf("migrate %s: %v", key, err)
		}
	}
	if w, err = v2.Submit(ctx, race2("cat", 59000, relay2.BestClassPro, 8)); err != nil || w.Best.Class != relay2.BestClassPro || w.Week.Wins != 1 {
		t.Fatalf("relay2's submission over boards of both layouts: %+v, %v", w, err)
	}
	before = v1.contents(t, c)
	if _, err := v1.race().Submit(ctx, relay.RaceInput{
		Best:   relay.BestEntry{Driver: "dan", BestLap: 1},
		Latest: relay.BestEntry{Driver: "dan", BestLap: 1},
		Total:  relay.TotalChanges{Car: 9},
		Week:   relay.WeekChanges{Driver: "dan"},
	}); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Fatalf("relay's submission on a switched board: %v; want ErrLayoutMismatch", err)
	}
	if after := v1.contents(t, c); !equalMaps(before, after) {
		t.Fatalf("relay's refused submission changed the boards")
	}

	// A submission sent before week's switch and resent after it, by code that has seen week's
	// board in its new layout since, gets the first call's reply, applied once.
	keyed := rankgenrt.WithIdempotencyKey(ctx, "race-of-eve")
	first, err := v2.Submit(keyed, race2("eve", 58000, relay2.BestClassPro, 9))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(ctx, c, previousPlan(t, "internal/boards/relay2/week.yaml"), migrate.Options{Key: tag + ":week", Now: s.Start.Add(time.Second)}); err != nil {
		t.Fatalf("migrate week: %v", err)
	}
	if _, err := v2.Week.AddRaces(ctx, "zed", 1); err != nil {
		t.Fatal(err)
	}
	again, err := relay2.Race{Best: relay2.NewBestBoard(c, tag+":best"), Latest: relay2.NewBestBoard(c, tag+":latest"),
		Total: relay2.NewTotalBoard(c, tag+":total"), Week: relay2.NewWeekBoard(c, tag+":week", s)}.Submit(keyed, race2("eve", 58000, relay2.BestClassPro, 9))
	if err != nil || again != first {
		t.Fatalf("the resend after week's switch: %+v, %v; want the first reply %+v", again, err, first)
	}
	if e, err := v2.Week.Get(ctx, "eve"); err != nil || e.Wins != 1 || e.Races != 1 {
		t.Fatalf("eve's week after the resend: %+v, %v; want one win, one race", e, err)
	}
	if _, err := v2.Week.AddWins(ctx, "eve", 1<<17); err != nil {
		t.Fatalf("a count only relay2's week holds, after its switch: %v", err)
	}

	// A removal reaches every board in the layout it holds.
	got, err := (&relay2.Removal{}).Best(v2.Best, v2.Latest).Week(v2.Week).Remove(ctx, "bob", "cat", "ann")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if want := map[string]int64{"best": 3, "week": 3}[r.Board]; r.Count != want {
			t.Fatalf("the removal: %+v; want 3 from each board", got)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
