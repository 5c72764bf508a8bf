package boardmodel

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// weeklyModel is a model of the weekly example (ReachedAt: seconds from the week's start,
// stamped by the server) holding the week that starts Monday 2026-11-23 in Paris.
func weeklyModel(t *testing.T) (*Model, rankgenrt.Season) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "schemas", "weekly.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.Parse("weekly.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	week := l.Season.Calendar.At(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	m := New(l)
	m.Season = &week
	return m, week
}

// TestSeasonValues: a season-anchored value is refused with ErrSeasonClosed outside [0, the
// season's length), by Set and Best (before the codec's own checks) and by field updates;
// MaxKey is the season's last second.
func TestSeasonValues(t *testing.T) {
	m, week := weeklyModel(t)
	at := m.Layout.Fields[1] // ReachedAt
	last := layout.IntKey(int64(week.Len()/time.Second) - 1)
	if got := m.MaxKey(at); got != last {
		t.Errorf("MaxKey(ReachedAt) = %s; want %s", at.Format(got), at.Format(last))
	}
	if got := m.MaxKey(m.Layout.Fields[0]); got != m.Layout.Fields[0].Hi {
		t.Errorf("MaxKey(Points) = %d; want Hi", got)
	}
	for _, tc := range []struct {
		off  int64
		want error
	}{{0, nil}, {int64(week.Len()/time.Second) - 1, nil}, {int64(week.Len() / time.Second), rankgenrt.ErrSeasonClosed},
		{-1, rankgenrt.ErrSeasonClosed}, {layout.IntOf(at.Hi), rankgenrt.ErrSeasonClosed}} {
		e := layout.Entry{ID: "p", Keys: []uint64{1, layout.IntKey(tc.off), 0}}
		if _, err := m.Set(e); !errorIs(err, tc.want) {
			t.Errorf("Set(offset %ds) = %v; want %v", tc.off, err, tc.want)
		}
		if _, err := m.Best(e); !errorIs(err, tc.want) {
			t.Errorf("Best(offset %ds) = %v; want %v", tc.off, err, tc.want)
		}
	}
	if n := len(m.Entries); n != 1 {
		t.Errorf("%d entries after the refused writes; want 1", n)
	}
	m.Season = nil // a model without a season checks the field's width alone
	if _, err := m.Set(layout.Entry{ID: "q", Keys: []uint64{1, at.Hi, 0}}); err != nil {
		t.Errorf("Set without a season: %v", err)
	}
}

func errorIs(err, target error) bool {
	if target == nil {
		return err == nil
	}
	return errors.Is(err, target)
}

// TestSeasonStamp: a stamp whose clock window lies inside the season must be the offset of an
// instant of the window; a window wholly outside must be refused; one that straddles the
// season's end may be either.
func TestSeasonStamp(t *testing.T) {
	m, week := weeklyModel(t)
	const at = 1 // ReachedAt
	entry := func(off time.Duration) layout.Entry {
		return layout.Entry{ID: "p", Keys: []uint64{5, layout.IntKey(int64(off / time.Second)), 0}}
	}
	inside := Window{Before: week.Start.Add(90*time.Minute + 300*time.Millisecond), After: week.Start.Add(90*time.Minute + 2*time.Second)}
	for _, off := range []time.Duration{90 * time.Minute, 90*time.Minute + 2*time.Second} {
		if k, err := m.SeasonStamp(at, entry(off), inside); err != nil || k != entry(off).Keys[at] {
			t.Errorf("stamp %v in window: %v, %v", off, k, err)
		}
	}
	for _, off := range []time.Duration{90*time.Minute - time.Second, 90*time.Minute + 3*time.Second} {
		if _, err := m.SeasonStamp(at, entry(off), inside); err == nil || errors.Is(err, rankgenrt.ErrSeasonClosed) {
			t.Errorf("stamp %v outside the window: %v; want a mismatch", off, err)
		}
	}
	if _, err := m.SeasonStamp(at, layout.Entry{}, inside); err == nil || errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("a refusal inside the season: %v; want a mismatch", err)
	}
	after := Window{Before: week.End, After: week.End.Add(time.Millisecond)}
	if _, err := m.SeasonStamp(at, layout.Entry{}, after); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("a refusal after the season: %v; want ErrSeasonClosed", err)
	}
	if _, err := m.SeasonStamp(at, entry(week.Len()-time.Second), after); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("a stamp after the season: %v; want ErrSeasonClosed (the board must refuse)", err)
	}
	straddle := Window{Before: week.End.Add(-time.Millisecond), After: week.End.Add(time.Millisecond)}
	if _, err := m.SeasonStamp(at, layout.Entry{}, straddle); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("a refusal across the end: %v; want ErrSeasonClosed", err)
	}
	if k, err := m.SeasonStamp(at, entry(week.Len()-time.Second), straddle); err != nil || k != entry(week.Len() - time.Second).Keys[at] {
		t.Errorf("the last second's stamp across the end: %v, %v", k, err)
	}
	if _, err := m.SeasonStamp(at, entry(week.Len()), straddle); err == nil {
		t.Error("a stamp of the season's length across the end was accepted")
	}
}
