package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// seasonKeyFromJSON reads a season-anchored time: its offset from the season's start as a Go
// duration ("36h0m5s", as decode prints it), or an RFC 3339 instant, whose offset is from the
// start of the season that contains it (the calendar decides which).
func seasonKeyFromJSON(l *layout.Layout, f *layout.Field, v any) (uint64, error) {
	s, _ := v.(string)
	d, err := time.ParseDuration(s)
	if err != nil {
		t, terr := time.Parse(time.RFC3339Nano, s)
		if terr != nil {
			return 0, fmt.Errorf("%s: want the offset from the season's start (a duration like 36h0m5s) or an RFC 3339 time, got %s", f.Name, describe(v))
		}
		d = t.Sub(l.Season.Calendar.At(t).Start)
	}
	if d < 0 || d/f.Unit.Duration() > time.Duration(f.MaxInt()) {
		return 0, fmt.Errorf("%s: %s is out of range [%s, %s]", f.Name, s, f.Format(f.Lo), f.Format(f.Hi))
	}
	return layout.IntKey(int64(d / f.Unit.Duration())), nil
}

// seasonFlag is decode's -season: a season, named by an instant in it or by its id.
type seasonFlag struct{ text string }

// resolve returns the season named, nil when none is, or an error.
func (sf seasonFlag) resolve(l *layout.Layout) (*rankgenrt.Season, error) {
	if sf.text == "" {
		return nil, nil
	}
	if l.Season == nil {
		return nil, fmt.Errorf("-season: %s has no season: block", l.File)
	}
	if id, err := strconv.ParseInt(sf.text, 10, 64); err == nil {
		s, err := l.Season.Calendar.ByID(id)
		if err != nil {
			return nil, fmt.Errorf("-season: %v", errText(err))
		}
		return &s, nil
	}
	t, err := time.Parse(time.RFC3339Nano, sf.text)
	if err != nil {
		return nil, fmt.Errorf("-season: want a season id (its start in Unix seconds) or an RFC 3339 time in it, got %s", strconv.Quote(sf.text))
	}
	s := l.Season.Calendar.At(t)
	return &s, nil
}

// seasonValue is a season-anchored key as decode prints it: the instant in season s (in the
// calendar's zone), or without a season the offset.
func seasonValue(l *layout.Layout, f *layout.Field, key uint64, s *rankgenrt.Season) string {
	if s == nil {
		return f.Format(key)
	}
	return s.Start.Add(f.OffsetOf(key)).In(l.Season.Calendar.Location()).Format(time.RFC3339Nano)
}
