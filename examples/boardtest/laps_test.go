package boardtest

import (
	"testing"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestLapsBestLap is the racing-laps example as a game uses it: a driver's first lap is their
// best lap (not min(0, lap) = 0), a slower one keeps it, a faster one replaces it, and laps run
// start from zero; the fastest driver ranks first.
func TestLapsBestLap(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { lapsBestLap(t, tg.Client) })
}

func lapsBestLap(t *testing.T, c redis.UniversalClient) {
	b := laps.NewBoard(c, redistest.Key(t, "laps"))
	steps := []struct {
		driver string
		lap    uint32
		want   uint32
	}{
		{"ada", 65000, 65000}, // the first lap stores the lap submitted
		{"ada", 66000, 65000}, // slower: kept
		{"ada", 64000, 64000}, // faster: replaced
		{"bo", 63500, 63500},
	}
	for _, s := range steps {
		e, err := b.MinBestLap(ctx, s.driver, s.lap)
		if err != nil {
			t.Fatal(err)
		}
		if e.BestLap != s.want || e.Laps != 0 {
			t.Errorf("MinBestLap(%q, %d) = %+v; want BestLap %d, Laps 0", s.driver, s.lap, e, s.want)
		}
	}
	if e, err := b.AddLaps(ctx, "ada", 3); err != nil || e.Laps != 3 || e.BestLap != 64000 {
		t.Errorf("AddLaps(ada, 3) = %+v, %v; want Laps 3, BestLap 64000", e, err)
	}
	// A batch: the first update of a new driver is their lap, the next compares with it.
	res, err := b.MinBestLapMany(ctx, []laps.Update[uint32]{{Driver: "cy", Value: 70000}, {Driver: "cy", Value: 71000}})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil || r.Entry.BestLap != 70000 {
			t.Errorf("MinBestLapMany[%d] = %+v, %v; want BestLap 70000", i, r.Entry, r.Err)
		}
	}
	top, err := b.Top(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range top {
		order = append(order, r.Entry.Driver)
	}
	if len(order) != 3 || order[0] != "bo" || order[1] != "ada" || order[2] != "cy" {
		t.Errorf("Top(3) = %v; want [bo ada cy]", order)
	}
}
