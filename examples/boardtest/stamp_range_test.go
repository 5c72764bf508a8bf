package boardtest

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestStampOutOfRangeReadsAsTime calls season's add_points function on a real server with a client
// clock past ReachedAt's range (2095-09-07): the update fails with a *RangeError whose value is
// the clock as RFC 3339, like the range's ends, not a count of milliseconds.
func TestStampOutOfRangeReadsAsTime(t *testing.T) {
	c := redistest.Client(t)
	b := season.NewBoard(c, redistest.Key(t, "season"))
	addPoints := season.Library().Function("add_points")
	clock := time.Date(2100, 3, 4, 5, 6, 7, 891000000, time.UTC)
	// mode, ms, token, window, clock, then the id and the delta.
	v, err := rankgenrt.Call(ctx, c, addPoints, scriptKeys(parse(t, exampleNamed("season").schema), b.Key()), "", "0", "stamp-range", "0", strconv.FormatInt(clock.UnixMicro(), 10), "ana", 5)
	if err != nil {
		t.Fatal(err)
	}
	items, err := rankgenrt.Items(v, 1)
	if err != nil {
		t.Fatal(err)
	}
	var re *rankgenrt.RangeError
	if !errors.As(items[0].Err, &re) || !errors.Is(items[0].Err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("AddPoints with a clock in 2100: %v; want a *RangeError", items[0].Err)
	}
	if want := "2100-03-04T05:06:07.891Z"; re.Field != "ReachedAt" || re.Value != want || re.Min != "2026-01-01T00:00:00Z" {
		t.Errorf("error %q: field %q value %q min %q; want ReachedAt, %s, 2026-01-01T00:00:00Z", re, re.Field, re.Value, re.Min, want)
	}
	if n, err := b.Count(ctx); err != nil || n != 0 {
		t.Errorf("Count = %d, %v; the refused update wrote", n, err)
	}
}
