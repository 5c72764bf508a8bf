package boardtest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// call is one Board method, called for its error.
type call struct {
	name string
	do   func() error
}

// TestSeasonWrongType: a string where a season board's sorted set is makes every write and
// every read fail with an error matching ErrWrongType (never ErrNotIndexed, which says the set
// has entries to adopt), on the weekly example (members are the ids) and on blitz (members
// carry a prefix, found through an index); the key is left as it was and nothing else is
// written.
func TestSeasonWrongType(t *testing.T) {
	c := redistest.Client(t)
	ws := weekly.NewSeasons(c, redistest.Key(t, "{wk}"))
	wb := ws.Board(ws.Current())
	bs := blitz.NewSeasons(c, redistest.Key(t, "{blitz}"))
	bb := bs.Board(bs.Current())
	for _, board := range []struct {
		name  string
		keys  []string
		calls []call
	}{
		{"weekly", wb.Keys(), weeklyCalls(wb)},
		{"blitz", bb.Keys(), blitzCalls(bb)},
	} {
		const foreign = "not a board"
		if err := c.Set(ctx, board.keys[0], foreign, 0).Err(); err != nil {
			t.Fatal(err)
		}
		for _, cl := range board.calls {
			if err := cl.do(); !errors.Is(err, rankgenrt.ErrWrongType) {
				t.Errorf("%s %s on a string key: %v; want ErrWrongType", board.name, cl.name, err)
			}
		}
		if got, err := c.Get(ctx, board.keys[0]).Result(); err != nil || got != foreign {
			t.Errorf("%s: the key holds %q, %v; want %q", board.name, got, err, foreign)
		}
		if n, err := c.Exists(ctx, board.keys[1:]...).Result(); err != nil || n != 0 {
			t.Errorf("%s: %d side keys written (%v); want none", board.name, n, err)
		}
	}
}

// weeklyCalls are every write and read of a weekly board, with valid arguments.
func weeklyCalls(b *weekly.Board) []call {
	e := weekly.Entry{PlayerID: "p", Points: 1, ReachedAt: time.Second}
	return append([]call{
		{"Set", func() error { _, err := b.Set(ctx, e); return err }},
		{"SetMany", func() error { _, err := b.SetMany(ctx, []weekly.Entry{e}); return err }},
		{"Best", func() error { _, err := b.Best(ctx, e); return err }},
		{"BestMany", func() error { _, err := b.BestMany(ctx, []weekly.Entry{e}); return err }},
		{"Remove", func() error { _, err := b.Remove(ctx, "p"); return err }},
		{"Trim", func() error { _, err := b.Trim(ctx, 1); return err }},
		{"AddPoints", func() error { _, err := b.AddPoints(ctx, "p", 1); return err }},
		{"AddPointsMany", func() error {
			return resultErr(b.AddPointsMany(ctx, []weekly.Update[int64]{{PlayerID: "p", Value: 1}}))
		}},
		{"MaxPoints", func() error { _, err := b.MaxPoints(ctx, "p", 1); return err }},
		{"MaxPointsMany", func() error {
			return resultErr(b.MaxPointsMany(ctx, []weekly.Update[uint32]{{PlayerID: "p", Value: 1}}))
		}},
		{"SetPoints", func() error { _, err := b.SetPoints(ctx, "p", 1); return err }},
		{"SetPointsMany", func() error {
			return resultErr(b.SetPointsMany(ctx, []weekly.Update[uint32]{{PlayerID: "p", Value: 1}}))
		}},
		{"SetPaid", func() error { _, err := b.SetPaid(ctx, "p", true); return err }},
		{"SetPaidMany", func() error {
			return resultErr(b.SetPaidMany(ctx, []weekly.Update[bool]{{PlayerID: "p", Value: true}}))
		}},
		{"Update", func() error { _, err := b.Update(ctx, "p", weekly.AddPoints(1)); return err }},
		{"UpdateMany", func() error {
			return resultErr(b.UpdateMany(ctx, []weekly.Changes{{PlayerID: "p", Apply: []weekly.Change{weekly.AddPoints(1)}}}))
		}},
		{"GetMany", func() error { return resultErr(b.GetMany(ctx, "p")) }},
		{"RangePoints", func() error { _, err := b.RangePoints(ctx, 0, 10, 0, 10); return err }},
		{"CountPointsBetween", func() error { _, err := b.CountPointsBetween(ctx, 0, 10); return err }},
		{"Between", func() error { _, err := b.Between(ctx, weekly.PointsBetween(0, 10), 0, 10); return err }},
		{"CountBetween", func() error { _, err := b.CountBetween(ctx, weekly.PointsBetween(0, 10)); return err }},
		{"AroundScore", func() error { _, err := b.AroundScore(ctx, weekly.PointsIs(1), 1, 1); return err }},
	}, readCalls(b)...)
}

// blitzCalls are every write and read of a blitz board, with valid arguments.
func blitzCalls(b *blitz.Board) []call {
	e := blitz.Entry{ID: "p", Points: 1, At: time.Millisecond, Best: time.Millisecond}
	return append([]call{
		{"Set", func() error { _, err := b.Set(ctx, e); return err }},
		{"SetMany", func() error { _, err := b.SetMany(ctx, []blitz.Entry{e}); return err }},
		{"Best", func() error { _, err := b.Best(ctx, e); return err }},
		{"BestMany", func() error { _, err := b.BestMany(ctx, []blitz.Entry{e}); return err }},
		{"Remove", func() error { _, err := b.Remove(ctx, "p"); return err }},
		{"Trim", func() error { _, err := b.Trim(ctx, 1); return err }},
		{"AddPoints", func() error { _, err := b.AddPoints(ctx, "p", 1); return err }},
		{"AddPointsMany", func() error {
			return resultErr(b.AddPointsMany(ctx, []blitz.Update[int64]{{ID: "p", Value: 1}}))
		}},
		{"MinBest", func() error { _, err := b.MinBest(ctx, "p", time.Millisecond); return err }},
		{"MinBestMany", func() error {
			return resultErr(b.MinBestMany(ctx, []blitz.Update[time.Duration]{{ID: "p", Value: time.Millisecond}}))
		}},
		{"Update", func() error { _, err := b.Update(ctx, "p", blitz.AddPoints(1)); return err }},
		{"UpdateMany", func() error {
			return resultErr(b.UpdateMany(ctx, []blitz.Changes{{ID: "p", Apply: []blitz.Change{blitz.AddPoints(1)}}}))
		}},
		{"Reindex", func() error { _, err := b.Reindex(ctx); return err }},
		{"GetMany", func() error { return resultErr(b.GetMany(ctx, "p")) }},
		{"RangePoints", func() error { _, err := b.RangePoints(ctx, 0, 10, 0, 10); return err }},
		{"CountPointsBetween", func() error { _, err := b.CountPointsBetween(ctx, 0, 10); return err }},
		{"Between", func() error { _, err := b.Between(ctx, blitz.PointsBetween(0, 10), 0, 10); return err }},
		{"CountBetween", func() error { _, err := b.CountBetween(ctx, blitz.PointsBetween(0, 10)); return err }},
		{"AroundScore", func() error { _, err := b.AroundScore(ctx, blitz.PointsIs(1), 1, 1); return err }},
	}, readCalls(b)...)
}

// resultErr is the error of a batch call: the call's own, else its first item's (Err).
func resultErr[R any](res []R, err error) error {
	if err != nil || len(res) == 0 {
		return err
	}
	e, _ := reflect.ValueOf(res[0]).FieldByName("Err").Interface().(error)
	return e
}

// readNames are the reads both season boards have whose parameters are a context, ids,
// counts and cursors.
var readNames = []string{"Get", "Rank", "Top", "Page", "Around", "AroundFilled", "After", "Count", "RankMany",
	"Bottom", "PageFromEnd", "Percentile", "PageOf", "CompetitionRank", "CompetitionRankTuple", "DenseRank"}

// readCalls calls the readNames methods of board by reflection, with the id "p", counts of 1
// and zero cursors; the last result is the error.
func readCalls(board any) []call {
	v := reflect.ValueOf(board)
	var out []call
	for _, name := range readNames {
		m := v.MethodByName(name)
		out = append(out, call{name, func() error {
			if !m.IsValid() {
				return fmt.Errorf("no method %s", name)
			}
			typ := m.Type()
			args := []reflect.Value{reflect.ValueOf(ctx)}
			for i := 1; i < typ.NumIn(); i++ {
				in := typ.In(i)
				switch {
				case in.Kind() == reflect.String:
					args = append(args, reflect.ValueOf("p"))
				case in.Kind() == reflect.Int64:
					args = append(args, reflect.ValueOf(int64(1)))
				case typ.IsVariadic() && i == typ.NumIn()-1:
					args = append(args, reflect.ValueOf("p"))
				default:
					args = append(args, reflect.Zero(in))
				}
			}
			res := m.Call(args)
			err, _ := res[len(res)-1].Interface().(error)
			return err
		}})
	}
	return out
}

// TestPrefixBoardWrongType: the same on a board that is not periodic but whose members carry a
// prefix (the season example): a string at its sorted set's key is ErrWrongType for writes
// (whose index-less check used to answer ErrNotIndexed) and for reads of an id (which used to
// answer ErrNotFound without reading the set).
func TestPrefixBoardWrongType(t *testing.T) {
	c := redistest.Client(t)
	b := season.NewBoard(c, redistest.Key(t, "{season}"))
	if err := c.Set(ctx, b.Key(), "not a board", 0).Err(); err != nil {
		t.Fatal(err)
	}
	calls := append([]call{
		{"Set", func() error {
			_, err := b.Set(ctx, season.Entry{UserID: "p", Points: 1, ReachedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
			return err
		}},
		{"AddWins", func() error { _, err := b.AddWins(ctx, "p", 1); return err }},
		{"Remove", func() error { _, err := b.Remove(ctx, "p"); return err }},
		{"Trim", func() error { _, err := b.Trim(ctx, 1); return err }},
		{"Reindex", func() error { _, err := b.Reindex(ctx); return err }},
	}, readCalls(b)...)
	for _, cl := range calls {
		if err := cl.do(); !errors.Is(err, rankgenrt.ErrWrongType) {
			t.Errorf("season %s on a string key: %v; want ErrWrongType", cl.name, err)
		}
	}
}
