package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// seasonDoc is explain's season, named by -season: its bounds in the calendar's zone and in
// UTC, its length, its board's key suffix and expiry, and its neighbours. Keys only added.
type seasonDoc struct {
	ID            int64  `json:"id"`
	Start         string `json:"start"`
	StartUTC      string `json:"start_utc"`
	End           string `json:"end"` // excluded: the next season's start
	EndUTC        string `json:"end_utc"`
	Length        string `json:"length"`
	LengthSeconds int64  `json:"length_seconds"`
	KeySuffix     string `json:"key_suffix"` // the board's key is <base> + KeySuffix
	Expires       string `json:"expires"`    // when writes set its keys to expire: keep seasons after its end
	ExpiresUTC    string `json:"expires_utc"`
	Previous      int64  `json:"previous"`
	Next          int64  `json:"next"`
}

// seasonJSON describes season s of l's calendar.
func seasonJSON(l *layout.Layout, s rankgenrt.Season) *seasonDoc {
	cal := l.Season.Calendar
	utc := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	exp := seasonExpiry(l, s)
	return &seasonDoc{
		ID:    s.ID,
		Start: inZone(l, s.Start), StartUTC: utc(s.Start),
		End: inZone(l, s.End), EndUTC: utc(s.End),
		Length: s.Len().String(), LengthSeconds: int64(s.Len() / time.Second),
		KeySuffix: seasonKeySuffix(l, s),
		Expires:   inZone(l, exp), ExpiresUTC: utc(exp),
		Previous: cal.Prev(s).ID, Next: cal.Next(s).ID,
	}
}

// seasonKeySuffix ends the key of season s's board after its base: ":<season id>", and on a
// regional layout ":<zone>:<season id>".
func seasonKeySuffix(l *layout.Layout, s rankgenrt.Season) string {
	if l.Season.Regions != nil {
		return rankgenrt.SeasonKey(rankgenrt.RegionBase("", l.Season.Calendar.Spec().Zone), s)
	}
	return rankgenrt.SeasonKey("", s)
}

// seasonExpiry is when the writes to season s's board set its keys to expire: the end of the
// keep-th season after it, as the generated package's expiry does.
func seasonExpiry(l *layout.Layout, s rankgenrt.Season) time.Time {
	for i := 0; i < l.Season.Keep; i++ {
		s = l.Season.Calendar.Next(s)
	}
	return s.End
}

// seasonText is explain's paragraph on season s (-season named it as text).
func seasonText(l *layout.Layout, s rankgenrt.Season, text string) string {
	d := seasonJSON(l, s)
	after := "its own end (keep: 0)"
	switch l.Season.Keep {
	case 0:
	case 1:
		after = "the end of the season after it (keep: 1)"
	default:
		after = fmt.Sprintf("the end of the %s season after it (keep: %d)", ordinal(l.Season.Keep), l.Season.Keep)
	}
	// An instant in the zone, then in UTC when the zone is not UTC.
	both := func(zoned, utc string) string {
		if zoned == utc {
			return zoned
		}
		return zoned + " (" + utc + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nseason %d (-season %s):\n", s.ID, text)
	fmt.Fprintf(&b, "  start:     %s\n", both(d.Start, d.StartUTC))
	fmt.Fprintf(&b, "  end:       %s, excluded\n", both(d.End, d.EndUTC))
	fmt.Fprintf(&b, "  length:    %s (%d s)\n", d.Length, d.LengthSeconds)
	fmt.Fprintf(&b, "  board key: <key>%s\n", d.KeySuffix)
	fmt.Fprintf(&b, "  expires:   %s, %s\n", both(d.Expires, d.ExpiresUTC), after)
	fmt.Fprintf(&b, "  previous:  %d\n", d.Previous)
	fmt.Fprintf(&b, "  next:      %d\n", d.Next)
	return b.String()
}

// ordinal writes 4 as 4th, 22 as 22nd.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprint(n) + suffix
}
