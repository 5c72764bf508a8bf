package runtime

import (
	"errors"
	"testing"
	"time"
)

// TestRegions: each zone's calendar starts its seasons on its own wall clock; a season's
// expiry is its zone's, found from the season; a season no zone made gets the latest bound any
// zone allows; an unlisted zone is ErrUnknownZone.
func TestRegions(t *testing.T) {
	r := MustRegions(CalendarSpec{Period: Weekly, Weekday: time.Monday}, "Europe/Paris", "Asia/Tokyo")
	at := time.Date(2026, 10, 21, 12, 0, 0, 0, time.UTC) // the week Paris's clocks go back
	paris, err := r.In("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	tokyo, _ := r.In("Asia/Tokyo")
	p, k := paris.At(at), tokyo.At(at)
	if p.ID == k.ID || p.Len() != 169*time.Hour || k.Len() != 168*time.Hour {
		t.Fatalf("Paris %v (%v), Tokyo %v (%v): want different weeks of 169h and 168h", p, p.Len(), k, k.Len())
	}
	if got, want := r.Expiry(p, 1), paris.Expiry(p, 1); !got.Equal(want) {
		t.Errorf("Expiry of a Paris week = %v; want Paris's %v", got, want)
	}
	if got, want := r.Expiry(k, 3), tokyo.Expiry(k, 3); !got.Equal(want) {
		t.Errorf("Expiry of a Tokyo week = %v; want Tokyo's %v", got, want)
	}
	utc := Season{ID: p.ID, Start: p.Start.UTC(), End: p.End.UTC()} // its zone lost
	if got, want := r.Expiry(utc, 2), p.End.Add(2*169*time.Hour); !got.Equal(want) {
		t.Errorf("Expiry of a season of no zone = %v; want the latest bound %v", got, want)
	}
	if r.Longest() != 169*time.Hour {
		t.Errorf("Longest = %v; want 169h", r.Longest())
	}
	if _, err := r.In("Europe/Lisbon"); !errors.Is(err, ErrUnknownZone) {
		t.Errorf("In(Europe/Lisbon): %v; want ErrUnknownZone", err)
	}
	if _, err := NewRegions(CalendarSpec{Period: Weekly}); err == nil {
		t.Error("NewRegions without zones: no error")
	}
	if _, err := NewRegions(CalendarSpec{Period: Weekly}, "Mars/Olympus"); err == nil {
		t.Error("NewRegions with an unknown zone: no error")
	}
}
