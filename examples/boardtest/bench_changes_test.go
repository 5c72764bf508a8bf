package boardtest

import (
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/redis/go-redis/v9"
)

// BenchmarkUpdateListPaired measures a change list of two fields (Board.Update, one script,
// one stamp) against what it replaces: the same two field updates as two calls of their
// single update methods (two scripts, two round trips, two stamps, not atomic together).
//
//	go test -run '^$' -bench UpdateListPaired -count 3 -benchtime 60x ./examples/boardtest
func BenchmarkUpdateListPaired(b *testing.B) {
	forExamples(b, func(b *testing.B, l *layout.Layout, c *redis.Client, board func(string) *benchBoard) {
		two := twoFieldOps(l.Package, c, board("two-calls"))
		list := twoFieldOps(l.Package, c, board("one-list"))
		runPaired(b, "op=UpdateList/base=two-updates", c,
			func(_ *redis.Client, i int) error { return two.separate(i, delta(i)) },
			func(_ *redis.Client, i int) error { return list.together(i, delta(i)) })
	})
}

// twoFields changes two fields of the i-th entry: one at a time, or in one change list.
type twoFields struct {
	separate, together func(i int, d int64) error
}

// twoFieldOps are the two-field changes of an example: racing adds laps and race time, arena
// adds points and sets paid (the server stamps ReachedAt), season adds points and sets wins
// (the client stamps ReachedAt in the member).
func twoFieldOps(name string, c *redis.Client, bb *benchBoard) twoFields {
	switch name {
	case "racing":
		r := racing.NewBoard(c, bb.key)
		cars := make([]uint64, len(bb.ids))
		for i, id := range bb.ids {
			cars[i], _ = strconv.ParseUint(id, 10, 64)
		}
		car := func(i int) uint64 { return cars[i%len(cars)] }
		return twoFields{
			separate: func(i int, d int64) error {
				if _, err := r.AddLaps(ctx, car(i), d); err != nil {
					return err
				}
				_, err := r.AddRaceTime(ctx, car(i), 1000*d)
				return err
			},
			together: func(i int, d int64) error {
				_, err := r.Update(ctx, car(i), racing.AddLaps(d), racing.AddRaceTime(1000*d))
				return err
			},
		}
	case "arena":
		a := arena.NewBoard(c, bb.key)
		id := func(i int) string { return bb.ids[i%len(bb.ids)] }
		return twoFields{
			separate: func(i int, d int64) error {
				if _, err := a.AddPoints(ctx, id(i), d); err != nil {
					return err
				}
				_, err := a.SetPaid(ctx, id(i), i%2 == 0)
				return err
			},
			together: func(i int, d int64) error {
				_, err := a.Update(ctx, id(i), arena.AddPoints(d), arena.SetPaid(i%2 == 0))
				return err
			},
		}
	}
	s := season.NewBoard(c, bb.key)
	id := func(i int) string { return bb.ids[i%len(bb.ids)] }
	return twoFields{
		separate: func(i int, d int64) error {
			if _, err := s.AddPoints(ctx, id(i), d); err != nil {
				return err
			}
			_, err := s.SetWins(ctx, id(i), uint16(i%1000))
			return err
		},
		together: func(i int, d int64) error {
			_, err := s.Update(ctx, id(i), season.AddPoints(d), season.SetWins(uint16(i%1000)))
			return err
		},
	}
}
