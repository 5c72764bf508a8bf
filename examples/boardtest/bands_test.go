package boardtest

import (
	"errors"
	"slices"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestRacingBands reads bands the way a racing game does: "Laps between 10 and 11", "Laps ==
// 10 and RaceTime between 60 s and 62 s" (RaceTime is asc: the shorter time ranks first and is
// stored inverted), where 10 laps would rank, and the errors of bad bands and places.
func TestRacingBands(t *testing.T) {
	b := racing.NewBoard(redistest.Client(t), redistest.Key(t, "racing"))
	entries := []racing.Entry{
		{Car: 1, Laps: 12, RaceTime: 70000},
		{Car: 2, Laps: 11, RaceTime: 61000},
		{Car: 3, Laps: 10, RaceTime: 60000},
		{Car: 4, Laps: 10, RaceTime: 61500},
		{Car: 5, Laps: 10, RaceTime: 63000},
		{Car: 6, Laps: 9, RaceTime: 59000},
	}
	if _, err := b.SetMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	cars := func(rs []racing.Ranked, err error) []uint64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, r := range rs {
			if want, _ := b.Rank(ctx, r.Car); r.Rank != want {
				t.Errorf("car %d has rank %d in the band, %d on the board", r.Car, r.Rank, want)
			}
			out = append(out, r.Car)
		}
		return out
	}
	for _, c := range []struct {
		what  string
		band  racing.Band
		off   int64
		want  []uint64
		count int64
	}{
		{"Laps in [10, 11]", racing.LapsBetween(10, 11), 0, []uint64{2, 3, 4, 5}, 4},
		{"the same, skipping 2", racing.LapsBetween(10, 11), 2, []uint64{4, 5}, 4},
		{"Laps in [11, 10]: empty", racing.LapsBetween(11, 10), 0, nil, 0},
		{"10 laps in [60 s, 62 s]", racing.LapsIs(10).RaceTimeBetween(60000, 62000), 0, []uint64{3, 4}, 2},
		{"10 laps in exactly 63 s", racing.LapsIs(10).RaceTimeBetween(63000, 63000), 0, []uint64{5}, 1},
		{"the zero Band", racing.Band{}, 0, nil, 0},
	} {
		got := cars(b.Between(ctx, c.band, c.off, 10))
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: cars %v; want %v", c.what, got, c.want)
		}
		if n, err := b.CountBetween(ctx, c.band); err != nil || n != c.count {
			t.Errorf("%s: CountBetween = %d, %v; want %d", c.what, n, err, c.count)
		}
	}
	// Before every car on 10 laps: cars 1 and 2 ahead, then 3 and 4.
	if got := cars(b.AroundScore(ctx, racing.LapsIs(10), 2, 2)); !slices.Equal(got, []uint64{1, 2, 3, 4}) {
		t.Errorf("AroundScore(10 laps) = %v", got)
	}
	// A whole entry: car 7 on 10 laps in 61 s would rank between cars 3 and 4.
	if got := cars(b.AroundScore(ctx, racing.Entry{Car: 7, Laps: 10, RaceTime: 61000}, 1, 1)); !slices.Equal(got, []uint64{3, 4}) {
		t.Errorf("AroundScore(car 7) = %v", got)
	}
	for what, err := range map[string]error{
		"LapsBetween(0, 1000)":      second(b.Between(ctx, racing.LapsBetween(0, 1000), 0, 10)),
		"LapsIs(1000).RaceTime…":    second(b.CountBetween(ctx, racing.LapsIs(1000).RaceTimeBetween(0, 1))),
		"AroundScore(LapsIs(1000))": second(b.AroundScore(ctx, racing.LapsIs(1000), 1, 1)),
		"AroundScore(nil)":          second(b.AroundScore(ctx, nil, 1, 1)),
	} {
		if !errors.Is(err, rankgenrt.ErrOutOfRange) {
			t.Errorf("%s: %v; want ErrOutOfRange", what, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }
