package boardtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestChangeSetData: SetData in a change list replaces the entry's data when the list applies,
// even when no field moves (no stamp, no member change); the returned Entry carries it. A list
// without SetData leaves the data as it is and returns the zero Data. On a new id SetData
// creates the zero entry with that data. Invalid data and SetData twice are refused before
// anything is sent.
func TestChangeSetData(t *testing.T) {
	c := redistest.Client(t)
	b := laps.NewBoard(c, redistest.Key(t, "laps"))
	ada := laps.Data{Name: "Ada", Car: laps.CarKart}
	if _, err := b.Set(ctx, laps.Entry{Driver: "a", BestLap: 61000, Laps: 3, Data: ada}); err != nil {
		t.Fatal(err)
	}
	dataOf := func(id string) laps.Data {
		t.Helper()
		e, err := b.Get(ctx, id)
		if err != nil {
			t.Fatalf("Get(%q): %v", id, err)
		}
		return e.Data
	}

	rally := laps.Data{Name: "Ada L.", Car: laps.CarRally}
	e, err := b.Update(ctx, "a", laps.SetData(rally))
	if err != nil || e.BestLap != 61000 || e.Laps != 3 || e.Data != rally {
		t.Fatalf("Update(a, SetData) = %+v, %v; want the entry as it was with the new data", e, err)
	}
	if got := dataOf("a"); got != rally {
		t.Fatalf("after SetData alone, Get(a).Data = %+v; want %+v", got, rally)
	}

	e, err = b.Update(ctx, "a", laps.AddLaps(1))
	if err != nil || e.Laps != 4 || e.Data != (laps.Data{}) {
		t.Fatalf("Update(a, AddLaps(1)) = %+v, %v; want Laps 4 and the zero Data", e, err)
	}
	if got := dataOf("a"); got != rally {
		t.Fatalf("a list without SetData changed the data: %+v; want %+v", got, rally)
	}

	both := laps.Data{Name: "Both", Car: laps.CarFormula}
	e, err = b.Update(ctx, "a", laps.MinBestLap(60000), laps.SetData(both))
	if err != nil || e.BestLap != 60000 || e.Data != both || dataOf("a") != both {
		t.Fatalf("Update(a, MinBestLap, SetData) = %+v, %v; stored %+v", e, err, dataOf("a"))
	}

	bo := laps.Data{Name: "Bo", Car: laps.CarTouring}
	res, err := b.UpdateMany(ctx, []laps.Changes{{Driver: "new", Apply: []laps.Change{laps.SetData(bo)}}})
	if err != nil || res[0].Err != nil || res[0].Entry.Data != bo || res[0].Entry.Laps != 0 {
		t.Fatalf("UpdateMany(new, SetData) = %+v, %v; want the zero entry with the data", res, err)
	}
	if got := dataOf("new"); got != bo {
		t.Fatalf("Get(new).Data = %+v; want %+v", got, bo)
	}

	long := laps.Data{Name: strings.Repeat("x", 33)}
	if _, err := b.Update(ctx, "a", laps.AddLaps(1), laps.SetData(long)); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("SetData of a 33-byte name: %v; want ErrOutOfRange", err)
	}
	if _, err := b.Update(ctx, "a", laps.SetData(ada), laps.SetData(rally)); !errors.Is(err, rankgenrt.ErrBadChange) {
		t.Fatalf("SetData twice: %v; want ErrBadChange", err)
	}
	if e, err := b.Get(ctx, "a"); err != nil || e.Laps != 4 || e.Data != both {
		t.Fatalf("refused lists changed a: %+v, %v", e, err)
	}
}

// TestChangeSetDataAllOrNone: the changes function stores a list's data only when the list
// applies. Laps refuses every failing change in Go before sending, so the function is called
// directly with a BestLap digit out of range beside data, and another id's list, which
// applies, in the same call.
func TestChangeSetDataAllOrNone(t *testing.T) {
	c := redistest.Client(t)
	b := laps.NewBoard(c, redistest.Key(t, "laps"))
	ada := laps.Data{Name: "Ada", Car: laps.CarKart}
	if _, err := b.Set(ctx, laps.Entry{Driver: "a", BestLap: 61000, Data: ada}); err != nil {
		t.Fatal(err)
	}
	bad, _ := laps.Data{Name: "Bad", Car: laps.CarRally}.Encode()
	good, _ := laps.Data{Name: "Good", Car: laps.CarTouring}.Encode()
	// Head: expiry mode and ms, token and window (off), the client's clock; then per id the
	// id, MinBestLap, SetBestLap, AddLaps and the data.
	args := []any{"", "0", "", "0", "",
		"a", "", "16777216", "", bad,
		"b", "", "", "1", good}
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := c.FCall(ctx, laps.Library().Function("changes").Name, scriptKeys(parse(t, exampleNamed("laps").schema), b.Key()), args...).Slice()
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 8 || !strings.Contains(fmt.Sprint(v[0]), "OUT_OF_RANGE") || v[4] == "" {
		t.Fatalf("changes script replied %q; want an error for a and an entry for b", v)
	}
	if e, err := b.Get(ctx, "a"); err != nil || e.BestLap != 61000 || e.Data != ada {
		t.Fatalf("a failing list wrote data: Get(a) = %+v, %v; want %+v", e, err, ada)
	}
	if e, err := b.Get(ctx, "b"); err != nil || e.Laps != 1 || e.Data.Name != "Good" {
		t.Fatalf("Get(b) = %+v, %v; want Laps 1 and the data of its list", e, err)
	}
}
