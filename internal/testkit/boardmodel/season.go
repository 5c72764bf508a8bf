package boardmodel

import (
	"errors"
	"fmt"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// A periodic board (a season: block) holds one season, and its model knows it (Model.Season):
// a season-anchored value (epoch: season) lies in [0, the season's length), and a stamp of a
// season-anchored field is the offset of its clock from the season's start, floor(now/unit) −
// floor(start/unit), taken only while that clock reads inside the season. Anything else is
// refused with an error matching ErrSeasonClosed, and the board is left as it was.

// Season returns the season a generated periodic *Board holds (its Season method), and false
// for a board that is not periodic.
func (b *Board) Season() (rankgenrt.Season, bool) {
	m := b.V.MethodByName("Season")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return rankgenrt.Season{}, false
	}
	s, ok := m.Call(nil)[0].Interface().(rankgenrt.Season)
	return s, ok
}

// For returns an empty model of board b: of its layout and, on a periodic board, its season.
func For(b *Board) *Model {
	m := New(b.Layout)
	if s, ok := b.Season(); ok {
		m.Season = &s
	}
	return m
}

// MaxKey is the highest key of field f that the model's board accepts: f.Hi, or for a
// season-anchored field the offset of its season's last instant.
func (m *Model) MaxKey(f *layout.Field) uint64 {
	if m.Season == nil || !f.Season {
		return f.Hi
	}
	return min(f.Hi, layout.IntKey(int64(m.Season.Len()/f.Unit.Duration())-1))
}

// checkOffset refuses, as the generated code does before anything else, a season-anchored
// value outside the season: an offset below 0 or at least the season's length.
func (m *Model) checkOffset(f *layout.Field, k uint64) error {
	if m.Season == nil || !f.Season {
		return nil
	}
	return m.Season.CheckOffset(f.Name, f.OffsetOf(k))
}

// checkOffsets checks every season-anchored field of keys, in field order.
func (m *Model) checkOffsets(keys []uint64) error {
	for i, f := range m.Layout.Fields {
		if err := m.checkOffset(f, keys[i]); err != nil {
			return err
		}
	}
	return nil
}

// Window is when a write may have read the clock that stamps it: Before is read just before
// the call and After just after its reply, from that clock (Redis's TIME for stamp: server,
// the client's for stamp: client).
type Window struct{ Before, After time.Time }

// SeasonStamp is the value that season-anchored stamped field i takes in a write whose clock
// read an instant of w, on the model's season; got is the entry the board returned (Keys nil
// when it refused the write). A window wholly outside the season must be refused
// (ErrSeasonClosed, which SeasonStamp returns), one wholly inside must be stamped, and one
// that straddles the season's start or end may be either; a stamp must be the offset of an
// instant of w inside the season.
func (m *Model) SeasonStamp(i int, got layout.Entry, w Window) (uint64, error) {
	f, s := m.Layout.Fields[i], *m.Season
	closed := &rankgenrt.SeasonError{Field: f.Name, Value: "a clock read in [" + stampTime(w.Before) + ", " + stampTime(w.After) + "]", Season: s}
	maybeOut := w.Before.Before(s.Start) || !w.After.Before(s.End)
	switch {
	case w.After.Before(s.Start) || !w.Before.Before(s.End):
		return 0, closed
	case got.Keys == nil && maybeOut:
		return 0, closed
	case got.Keys == nil:
		return 0, errors.New("the board refused a stamp whose clock read inside its season")
	}
	from, to := w.Before, w.After
	if from.Before(s.Start) {
		from = s.Start
	}
	if !to.Before(s.End) {
		to = s.End.Add(-time.Nanosecond)
	}
	start, _ := layout.TimeUnits(s.Start, f.Unit)
	lo, _ := layout.TimeUnits(from, f.Unit)
	hi, _ := layout.TimeUnits(to, f.Unit)
	k := got.Keys[i]
	if v := layout.IntOf(k); v < lo-start || v > hi-start {
		return 0, fmt.Errorf("stamp %s = %s from the season's start, not within [%s, %s] (%s)", f.Name, f.Format(k),
			f.OffsetOf(layout.IntKey(lo-start)), f.OffsetOf(layout.IntKey(hi-start)), s)
	}
	return k, nil
}

func stampTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
