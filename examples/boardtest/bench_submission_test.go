package boardtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/game"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// BenchmarkSubmissionPaired measures docs/game.md's cost of a submission: the game's lap
// (five writes: the track's best, the class's best, all-time laps and meters, the region's
// weekly best, the day's laps) as one Lap.Submit, against the same five writes sent one call
// at a time through each board's own method (the baseline), paired as BenchmarkPaired pairs
// (ratio-wall, ratio-cpu, ratio-srv: baseline / submission; above 1 the submission is cheaper).
//
//	go test -run '^$' -bench SubmissionPaired -count 3 ./examples/boardtest
func BenchmarkSubmissionPaired(b *testing.B) {
	srv := redistest.Start(b)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer c.Close()
	laps := func(prefix string) game.Lap {
		weekly, err := game.NewWeeklySeasons(c, prefix+":weekly", game.WeeklyZoneEuropeParis)
		if err != nil {
			b.Fatal(err)
		}
		daily := game.NewDailySeasons(c, prefix+":daily")
		return game.Lap{
			Track:      game.NewTrackBoard(c, prefix+":track"),
			TrackClass: game.NewTrackBoard(c, prefix+":track:formula"),
			Alltime:    game.NewAlltimeBoard(c, prefix+":alltime"),
			Weekly:     weekly.Board(weekly.Current()),
			Daily:      daily.Board(daily.Current()),
		}
	}
	weekStart := laps("{probe}").Weekly.Season().Start
	input := func(i int) game.LapInput {
		driver := fmt.Sprint("d", i%benchEntries)
		now := time.Now()
		run := game.TrackEntry{Driver: driver, BestLap: uint32(80000 + i%5000), SetAt: now.Truncate(time.Millisecond), Data: game.TrackData{Car: game.TrackCarFormula}}
		return game.LapInput{
			Track:      run,
			TrackClass: run,
			Alltime:    game.AlltimeChanges{Driver: driver, Apply: []game.AlltimeChange{game.AlltimeAddLaps(1), game.AlltimeAddMeters(5793)}},
			Weekly:     game.WeeklyEntry{Driver: driver, BestLap: uint32(80000 + i%5000), SetAt: now.Sub(weekStart).Truncate(time.Second)},
			Daily:      game.DailyChanges{Driver: driver, Apply: []game.DailyChange{game.DailyAddLaps(1)}},
		}
	}
	alone, together := laps("{alone}"), laps("{together}")
	runPaired(b, "op=LapSubmit/base=five-calls", c, func(_ *redis.Client, i int) error {
		in := input(i)
		if _, err := alone.Track.Best(ctx, in.Track); err != nil {
			return err
		}
		if _, err := alone.TrackClass.Best(ctx, in.TrackClass); err != nil {
			return err
		}
		if _, err := alone.Alltime.Update(ctx, in.Alltime.Driver, in.Alltime.Apply...); err != nil {
			return err
		}
		if _, err := alone.Weekly.Best(ctx, in.Weekly); err != nil {
			return err
		}
		_, err := alone.Daily.Update(ctx, in.Daily.Driver, in.Daily.Apply...)
		return err
	}, func(_ *redis.Client, i int) error {
		_, err := together.Submit(ctx, input(i))
		return err
	})
}
