package boardtest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestUpdateAppliesTheListAtOnce: one race result adds laps and race time in one call; a
// list on a board with a stamp stamps the entry once, with the call's instant, and a list
// that moves nothing writes nothing (the old stamp stays).
func TestUpdateAppliesTheListAtOnce(t *testing.T) {
	c := redistest.Client(t)
	r := racing.NewBoard(c, redistest.Key(t, "{racing}"))
	if _, err := r.Set(ctx, racing.Entry{Car: 7, Laps: 10, RaceTime: 600000}); err != nil {
		t.Fatal(err)
	}
	e, err := r.Update(ctx, 7, racing.AddLaps(1), racing.AddRaceTime(83412))
	if err != nil || e.Entry != (racing.Entry{Car: 7, Laps: 11, RaceTime: 683412}) {
		t.Fatalf("racing Update = %+v, %v; want Laps 11, RaceTime 683412", e, err)
	}
	if got, err := r.Get(ctx, 7); err != nil || got != e.Entry {
		t.Fatalf("Get after Update = %+v, %v; want %+v", got, err, e)
	}

	a := arena.NewBoard(c, redistest.Key(t, "{arena}"))
	t0 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	if _, err := a.Set(ctx, arena.Entry{PlayerID: "ana", Points: 10, ReachedAt: t0}); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Truncate(time.Second)
	got, err := a.Update(ctx, "ana", arena.AddPoints(3), arena.SetPaid(true))
	after := time.Now()
	if err != nil || got.Points != 13 || !got.Paid {
		t.Fatalf("arena Update = %+v, %v; want Points 13, Paid", got, err)
	}
	if got.ReachedAt.Before(before) || got.ReachedAt.After(after) {
		t.Errorf("ReachedAt = %v; want the call's instant, in [%v, %v]", got.ReachedAt, before, after)
	}
	if _, err := a.Set(ctx, arena.Entry{PlayerID: "bo", Points: 5, Paid: true, ReachedAt: t0}); err != nil {
		t.Fatal(err)
	}
	keys := a.Keys()[:2]
	snap := dumpKeys(t, c, keys...)
	if e, err := a.Update(ctx, "bo", arena.MaxPoints(4), arena.SetPaid(true)); err != nil || !e.ReachedAt.Equal(t0) {
		t.Fatalf("a list that moves nothing = %+v, %v; want bo as it was (ReachedAt %v)", e, err, t0)
	}
	sameSnapshot(t, "a list that moves nothing", snap, dumpKeys(t, c, keys...))
}

// TestUpdateAllOrNothing: when one change of a list fails, none is written, whatever the
// order of the list, and the error names the field; a value out of range is refused before
// anything is sent.
func TestUpdateAllOrNothing(t *testing.T) {
	c := redistest.Client(t)
	r := racing.NewBoard(c, redistest.Key(t, "{racing}"))
	if _, err := r.Set(ctx, racing.Entry{Car: 7, Laps: 998, RaceTime: 1000}); err != nil {
		t.Fatal(err)
	}
	keys := r.Keys()[:2]
	snap := dumpKeys(t, c, keys...)
	lists := [][]racing.Change{
		{racing.AddRaceTime(-5), racing.AddLaps(1000)}, // RaceTime alone would succeed (it saturates)
		{racing.AddLaps(1000), racing.AddRaceTime(-5)},
		{racing.SetRaceTime(5), racing.AddLaps(1000)},
	}
	for _, list := range lists {
		for _, id := range []uint64{7, 8} { // an entry, and an id without one: nothing created
			_, err := r.Update(ctx, id, list...)
			if !errors.Is(err, rankgenrt.ErrOverflow) || !strings.Contains(err.Error(), "field=Laps") {
				t.Errorf("Update(%d) with Laps overflowing: %v; want ErrOverflow naming Laps", id, err)
			}
		}
	}
	_, err := r.Update(ctx, 7, racing.AddLaps(1), racing.SetRaceTime(1_000_000_000))
	var re *rankgenrt.RangeError
	if !errors.As(err, &re) || re.Field != "RaceTime" {
		t.Errorf("Update with RaceTime out of range: %v; want a RangeError of RaceTime", err)
	}
	sameSnapshot(t, "failed lists", snap, dumpKeys(t, c, keys...))
}

// TestUpdateFirstWriteTakesMinMax: a list that creates an entry gives its min or max the value
// submitted, adds start from zero, the other fields stay at their zero; later lists compare.
func TestUpdateFirstWriteTakesMinMax(t *testing.T) {
	c := redistest.Client(t)
	r := racing.NewBoard(c, redistest.Key(t, "{racing}"))
	e, err := r.Update(ctx, 9, racing.MinRaceTime(65000), racing.AddLaps(1))
	if err != nil || e.Entry != (racing.Entry{Car: 9, Laps: 1, RaceTime: 65000}) {
		t.Fatalf("first Update = %+v, %v; want Laps 1, RaceTime 65000", e, err)
	}
	if e, err = r.Update(ctx, 9, racing.MinRaceTime(70000), racing.AddLaps(1)); err != nil || e.RaceTime != 65000 || e.Laps != 2 {
		t.Fatalf("second Update = %+v, %v; want RaceTime 65000 kept, Laps 2", e, err)
	}
	l := laps.NewBoard(c, redistest.Key(t, "{laps}"))
	le, err := l.Update(ctx, "dee", laps.MinBestLap(81234), laps.AddLaps(3))
	if err != nil || le.Entry != (laps.Entry{Driver: "dee", BestLap: 81234, Laps: 3}) {
		t.Fatalf("laps first Update = %+v, %v; want BestLap 81234, Laps 3", le, err)
	}
	s := season.NewBoard(c, redistest.Key(t, "{season}"))
	se, err := s.Update(ctx, "u", season.MaxTier(season.TierGold), season.AddWins(2))
	if err != nil || se.Tier != season.TierGold || se.Wins != 2 || se.Points != 0 {
		t.Fatalf("season first Update = %+v, %v; want Tier gold, Wins 2, Points 0", se, err)
	}
	if se, err = s.Update(ctx, "u"); err != nil || se.Tier != season.TierGold {
		t.Fatalf("season empty list = %+v, %v; want the entry as it is", se, err)
	}
	if e, err := r.Update(ctx, 10); err != nil || e.Entry != (racing.Entry{Car: 10, RaceTime: 0}) {
		t.Fatalf("empty list on a new id = %+v, %v; want the zero entry stored", e, err)
	}
}

// TestUpdateRefusesBadLists: a field changed twice and a zero Change are refused before
// anything is sent, with ErrBadChange naming the field.
func TestUpdateRefusesBadLists(t *testing.T) {
	c := redistest.Client(t)
	r := racing.NewBoard(c, redistest.Key(t, "{racing}"))
	if _, err := r.Set(ctx, racing.Entry{Car: 7, Laps: 3}); err != nil {
		t.Fatal(err)
	}
	keys := r.Keys()
	snap := dumpKeys(t, c, keys...)
	_, err := r.Update(ctx, 7, racing.AddLaps(1), racing.AddRaceTime(9), racing.SetLaps(4))
	var ce *rankgenrt.ChangeError
	if !errors.Is(err, rankgenrt.ErrBadChange) || !errors.As(err, &ce) || ce.Field != "Laps" {
		t.Errorf("Laps changed twice: %v; want ErrBadChange naming Laps", err)
	}
	if _, err := r.Update(ctx, 8, racing.AddLaps(1), racing.Change{}); !errors.Is(err, rankgenrt.ErrBadChange) {
		t.Errorf("a zero Change: %v; want ErrBadChange", err)
	}
	// A value outside its field's range is held in its Change, which refuses its list.
	var re *rankgenrt.RangeError
	if _, err := r.Update(ctx, 7, racing.AddRaceTime(1), racing.SetLaps(1000)); !errors.Is(err, rankgenrt.ErrOutOfRange) || !errors.As(err, &re) {
		t.Errorf("SetLaps(1000), Laps being 0..999: %v; want ErrOutOfRange", err)
	}
	res, err := r.UpdateMany(ctx, []racing.Changes{{Car: 7, Apply: []racing.Change{racing.MinRaceTime(1e9)}}})
	if err != nil || len(res) != 1 || !errors.Is(res[0].Err, rankgenrt.ErrOutOfRange) {
		t.Errorf("UpdateMany with MinRaceTime(1e9), RaceTime being 0..999999999: %v, %+v; want one ErrOutOfRange", err, res)
	}
	sameSnapshot(t, "refused lists (nothing sent, no token recorded)", snap, dumpKeys(t, c, keys...))
}

// TestUpdateMany: each list succeeds or fails on its own, in order; a later list of the same id
// starts from what the earlier one left.
func TestUpdateMany(t *testing.T) {
	c := redistest.Client(t)
	r := racing.NewBoard(c, redistest.Key(t, "{racing}"))
	res, err := r.UpdateMany(ctx, []racing.Changes{
		{Car: 7, Apply: []racing.Change{racing.AddLaps(1), racing.MinRaceTime(90000)}},
		{Car: 8, Apply: []racing.Change{racing.AddLaps(5000)}},
		{Car: 7, Apply: []racing.Change{racing.AddLaps(2), racing.MinRaceTime(95000)}},
		{Car: 9, Apply: []racing.Change{racing.AddLaps(1), racing.SetLaps(2)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[0].Entry != (racing.Entry{Car: 7, Laps: 1, RaceTime: 90000}) {
		t.Errorf("res[0] = %+v; want Laps 1, RaceTime 90000", res[0])
	}
	if !errors.Is(res[1].Err, rankgenrt.ErrOverflow) {
		t.Errorf("res[1] = %+v; want ErrOverflow", res[1])
	}
	if res[2].Err != nil || res[2].Entry != (racing.Entry{Car: 7, Laps: 3, RaceTime: 90000}) {
		t.Errorf("res[2] = %+v; want Laps 3, RaceTime 90000 (from res[0])", res[2])
	}
	if !errors.Is(res[3].Err, rankgenrt.ErrBadChange) {
		t.Errorf("res[3] = %+v; want ErrBadChange", res[3])
	}
	for _, id := range []uint64{8, 9} {
		if _, err := r.Get(ctx, id); !errors.Is(err, rankgenrt.ErrNotFound) {
			t.Errorf("Get(%d) after its list failed: %v; want ErrNotFound", id, err)
		}
	}
	if res, err := r.UpdateMany(ctx, nil); err != nil || len(res) != 0 {
		t.Errorf("UpdateMany(nil) = %v, %v", res, err)
	}
}

// TestUpdateGuards: Update checks what every write checks: another layout's board, a key of
// another type.
func TestUpdateGuards(t *testing.T) {
	c := redistest.Client(t)
	ak := redistest.Key(t, "{arena}")
	c.Set(ctx, rankgenrt.MetaKey(ak), "0123456789abcdef", 0)
	a := arena.NewBoard(c, ak)
	if _, err := a.Update(ctx, "x", arena.AddPoints(1)); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("arena Update on another layout's board: %v; want ErrLayoutMismatch", err)
	}
	sk := redistest.Key(t, "{season}")
	c.HSet(ctx, rankgenrt.IndexKey(sk), "", "0123456789abcdef")
	s := season.NewBoard(c, sk)
	if _, err := s.UpdateMany(ctx, []season.Changes{{UserID: "u", Apply: []season.Change{season.AddWins(1)}}}); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("season UpdateMany on another layout's board: %v; want ErrLayoutMismatch", err)
	}
	rk := redistest.Key(t, "{racing}")
	c.Set(ctx, rk, "not a sorted set", 0)
	r := racing.NewBoard(c, rk)
	_, err := r.Update(ctx, 1, racing.AddLaps(1))
	var reply redis.Error
	if !errors.Is(err, rankgenrt.ErrWrongType) || !errors.As(err, &reply) {
		t.Errorf("racing Update on a string key: %v; want ErrWrongType", err)
	}
}
