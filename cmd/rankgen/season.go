package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

// A periodic board's season-anchored times are offsets from a season's start: an instant
// means an offset only in a named season. explain, encode and decode take that season as
// -season, by its id (its start in Unix seconds, as board keys end) or by an instant in it;
// an encode line may also name its own, as decode -season prints it.

// seasonFlag is the -season flag: a season, named by its id or by an instant in it; with
// -zone, the zone of a regional board (season: zones:) whose calendar names it.
type seasonFlag struct{ text, zone string }

// register declares -season and -zone on fs; use says what -season does for the command.
func (sf *seasonFlag) register(fs *flag.FlagSet, use string) {
	fs.StringVar(&sf.text, "season", "", "a periodic board's season `S`: its id (its start in Unix seconds) or an RFC 3339 time in it; "+use)
	fs.StringVar(&sf.zone, "zone", "", "a regional board's zone `Z` (one of its schema's season zones), whose calendar -season and season ids are read in; a -key of the zone's board names it too")
}

// resolve returns the season named, nil when none is, or an error. It first makes a regional
// layout's calendar that of -zone's.
func (sf seasonFlag) resolve(l *layout.Layout) (*rankgenrt.Season, error) {
	if err := useZone(l, sf.zone, sf.text != ""); err != nil {
		return nil, err
	}
	if sf.text == "" {
		return nil, nil
	}
	if l.Season == nil {
		return nil, fmt.Errorf("-season: %s has no season: block, so its boards have no seasons; drop -season", l.File)
	}
	s, err := parseSeason(l, sf.text)
	if err != nil {
		return nil, fmt.Errorf("-season: %v", err)
	}
	return &s, nil
}

// useZone makes a regional layout's calendar that of zone: its season ids, starts and expiry
// are that zone's. A regional layout needs one where a season is named (needed); a layout of
// one zone takes none.
func useZone(l *layout.Layout, zone string, needed bool) error {
	regional := l.Season != nil && l.Season.Regions != nil
	switch {
	case zone == "" && regional && needed:
		return fmt.Errorf("%s is regional: its seasons start on each zone's wall clock; give -zone, one of %s", l.File, strings.Join(l.Season.Zones(), ", "))
	case zone == "":
		return nil
	case !regional:
		return fmt.Errorf("-zone: %s lists no zones (season: zones:), so its seasons have one calendar; drop -zone", l.File)
	}
	cal, err := l.Season.Regions.In(zone)
	if err != nil {
		return fmt.Errorf("-zone: %s", strings.TrimPrefix(err.Error(), "rankgen: "))
	}
	l.Season.Calendar = cal
	return nil
}

// keyZone is the zone a regional board's key names: <base>:<zone>, or <base>:<zone>:<season
// id>; "" for a key that names none of the layout's zones.
func keyZone(l *layout.Layout, key string) string {
	if l.Season == nil || l.Season.Regions == nil {
		return ""
	}
	parts := strings.Split(key, ":")
	if len(parts) > 1 && idText.MatchString(parts[len(parts)-1]) {
		parts = parts[:len(parts)-1]
	}
	if zone := parts[len(parts)-1]; len(parts) > 1 {
		if _, err := l.Season.Regions.In(zone); err == nil {
			return zone
		}
	}
	return ""
}

// idText is what a season id looks like (any sign, digits); parseSeason then insists on the
// id exactly as board keys write it.
var idText = regexp.MustCompile(`^[-+]?[0-9]+$`)

// The ids -season accepts: starts RFC 3339 can write (years 0000 to 9999), as its instants.
var (
	minSeasonID = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxSeasonID = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
)

// parseSeason reads a season id or an RFC 3339 instant in a season of l's calendar. An id must
// start a season: the error for one that does not names the two ids around it.
func parseSeason(l *layout.Layout, text string) (rankgenrt.Season, error) {
	cal := l.Season.Calendar
	if !idText.MatchString(text) {
		t, err := time.Parse(time.RFC3339Nano, text)
		if err != nil {
			return rankgenrt.Season{}, fmt.Errorf("want a season id (its start in Unix seconds, as board keys end) or an RFC 3339 time in the season (2026-11-25T12:00:00+01:00), got %s", quote.Short(text))
		}
		return cal.At(t), nil
	}
	id, err := strconv.ParseInt(text, 10, 64)
	switch {
	case err != nil || id < minSeasonID || id > maxSeasonID:
		return rankgenrt.Season{}, fmt.Errorf("%s is not a season id: a season id is the start of a season in Unix seconds, from year 0000 to 9999", quote.Short(text))
	case strconv.FormatInt(id, 10) != text:
		return rankgenrt.Season{}, fmt.Errorf("%s is not a season id as board keys write it: write %d", quote.Short(text), id)
	}
	s, err := cal.ByID(id)
	if err != nil {
		s = cal.At(time.Unix(id, 0))
		next := cal.Next(s)
		return rankgenrt.Season{}, fmt.Errorf("%d starts no season (%s); the nearest season ids are %d (%s) and %d (%s)",
			id, calendarWords(l), s.ID, inZone(l, s.Start), next.ID, inZone(l, next.Start))
	}
	return s, nil
}

// calendarWords is the calendar without its keep: "weekly from Monday 00:00 Europe/Paris".
func calendarWords(l *layout.Layout) string {
	words, _, _ := strings.Cut(l.Season.Describe(), ", ")
	return words
}

// inZone writes t in RFC 3339 in the calendar's zone (UTC for fixed periods): the wall clock
// the schema speaks of, and with its UTC offset the exact instant. RFC 3339 offsets are whole
// minutes, so in an offset with seconds (local mean time before 1911 in Paris) t is in UTC.
func inZone(l *layout.Layout, t time.Time) string {
	local := t.In(l.Season.Calendar.Location())
	if _, offset := local.Zone(); offset%60 != 0 {
		return t.UTC().Format(time.RFC3339Nano)
	}
	return local.Format(time.RFC3339Nano)
}

// seasonBounds is "season 1795388400 [2026-11-23T00:00:00+01:00, 2026-11-30T00:00:00+01:00)".
func seasonBounds(l *layout.Layout, s rankgenrt.Season) string {
	return fmt.Sprintf("season %d [%s, %s)", s.ID, inZone(l, s.Start), inZone(l, s.End))
}

// keySeason is the season a periodic board's key names (its base, ":" and the season's id, as
// rankgenrt.SeasonKey writes it), checked against flagged (-season's); flagged when the
// layout has no seasons or the key ends in no season id.
func keySeason(l *layout.Layout, key string, flagged *rankgenrt.Season) (*rankgenrt.Season, error) {
	if zone := keyZone(l, key); zone != "" {
		if flagged != nil && l.Season.Calendar.Spec().Zone != zone {
			return nil, fmt.Errorf("-zone is %s, but -key %s is a board of zone %s", l.Season.Calendar.Spec().Zone, quote.Short(key), zone)
		}
		if err := useZone(l, zone, true); err != nil {
			return nil, err
		}
	} else if l.Season != nil && l.Season.Regions != nil && idText.MatchString(key[strings.LastIndexByte(key, ':')+1:]) {
		return nil, fmt.Errorf("-key %s names no zone of %s: a regional board's key is <base>:<zone>:<season id> (its zones: %s)", quote.Short(key), l.File, strings.Join(l.Season.Zones(), ", "))
	}
	i := strings.LastIndexByte(key, ':')
	if l.Season == nil || i < 0 || !idText.MatchString(key[i+1:]) {
		return flagged, nil
	}
	s, err := parseSeason(l, key[i+1:])
	switch {
	case err != nil:
		return nil, fmt.Errorf("-key %s ends in no season of %s: %v", quote.Short(key), l.File, err)
	case flagged != nil && flagged.ID != s.ID:
		return nil, fmt.Errorf("-season names season %d, but -key %s is the board of season %d", flagged.ID, quote.Short(key), s.ID)
	}
	return &s, nil
}

// lineSeason is the season an encode line is measured in: its "season" key (as decode
// -season prints it), which must agree with -season, else -season; nil when neither names one.
func lineSeason(l *layout.Layout, flagged *rankgenrt.Season, raw json.RawMessage) (*rankgenrt.Season, error) {
	if raw == nil {
		return flagged, nil
	}
	v, err := jsonValue(raw)
	if err != nil {
		return nil, fmt.Errorf("season: %s", jsonErr(err))
	}
	text, ok := numberOrString(v)
	if !ok {
		return nil, fmt.Errorf("season: want a season id or an RFC 3339 time in the season, got %s", describe(v))
	}
	s, err := parseSeason(l, text)
	if err != nil {
		return nil, fmt.Errorf("season: %v", err)
	}
	if flagged != nil && flagged.ID != s.ID {
		return nil, fmt.Errorf("season: the line's season %d is not -season's %d", s.ID, flagged.ID)
	}
	return &s, nil
}

// seasonKeyFromJSON reads a season-anchored time: its offset from the season's start as a Go
// duration ("36h0m5s", as decode prints it), or with a season an RFC 3339 instant in it. With
// a season the time must lie in it, as the season's board requires. Either is read exactly
// (layout.Field.Parse, OffsetKey): an offset finer than the unit is refused.
func seasonKeyFromJSON(l *layout.Layout, f *layout.Field, v any, s *rankgenrt.Season) (uint64, error) {
	text, _ := v.(string)
	if !isInstant(text) {
		if _, err := time.ParseDuration(text); err != nil {
			return 0, fmt.Errorf("%s: want the offset from the season's start (a duration like 36h0m5s) or an RFC 3339 time in the season, got %s", f.Name, describe(v))
		}
		key, err := f.Parse(text)
		if err == nil && s != nil && f.OffsetOf(key) >= s.Len() {
			return 0, fmt.Errorf("%s: %s is outside %s, which lasts %s", f.Name, quote.Short(text), seasonBounds(l, *s), s.Len())
		}
		return key, err
	}
	t, _ := time.Parse(time.RFC3339Nano, text)
	switch {
	case s == nil:
		return 0, fmt.Errorf("%s: %s is an instant, but %s stores the offset from its season's start: pass -season (the season's id, or an RFC 3339 time in it), or give the offset (36h0m5s)", f.Name, quote.Short(text), f.Name)
	case !s.Contains(t):
		return 0, fmt.Errorf("%s: %s is outside %s; it lies in season %d", f.Name, quote.Short(text), seasonBounds(l, *s), l.Season.Calendar.At(t).ID)
	}
	return f.OffsetKey(t.Sub(s.Start))
}

// checkInstants checks an encode line's "at" object (as decode -season prints it): for each
// season-anchored field, its instant in the season, which must give the field's offset.
func checkInstants(l *layout.Layout, raw json.RawMessage, s *rankgenrt.Season, e layout.Entry) error {
	if raw == nil {
		return nil
	}
	if s == nil {
		return errors.New(`at: instants need their season: pass -season (its id, or an RFC 3339 time in it), or add "season": ID to the line`)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return errors.New("at: want an object of season-anchored fields and their instants, as decode -season prints it")
	}
	at, err := jsonObject(raw)
	if err != nil {
		return fmt.Errorf("at: %v", err)
	}
	for i, f := range l.Fields {
		rawT, ok := at[f.Name]
		if !ok || !f.Season {
			continue
		}
		delete(at, f.Name)
		v, err := jsonValue(rawT)
		if err != nil {
			return fmt.Errorf("at.%s: %s", f.Name, jsonErr(err))
		}
		text, _ := v.(string)
		if !isInstant(text) {
			return fmt.Errorf("at.%s: want an RFC 3339 time in the season, got %s", f.Name, describe(v))
		}
		key, err := seasonKeyFromJSON(l, f, v, s)
		if err != nil {
			return fmt.Errorf("at.%v", err)
		}
		if key != e.Keys[i] {
			return fmt.Errorf("at.%s: %s is %s from the season's start, but %s is %s; give the same time", f.Name, quote.Short(text), f.Format(key), f.Name, f.Format(e.Keys[i]))
		}
	}
	if len(at) > 0 {
		return fmt.Errorf("at: %s is not a season-anchored field", quote.Short(slices.Sorted(maps.Keys(at))[0]))
	}
	return nil
}

func isInstant(text string) bool {
	_, err := time.Parse(time.RFC3339Nano, text)
	return err == nil
}

// seasonExtras is what decode -season adds to an entry: the season's id, and the instants of
// the season-anchored fields decoded, in it. A key whose offset lies outside the season is an error:
// the season's board cannot hold it.
func seasonExtras(l *layout.Layout, fields []*layout.Field, keys []uint64, s *rankgenrt.Season) (string, error) {
	at, sep := "", ""
	for i, f := range fields {
		if !f.Season {
			continue
		}
		d := f.OffsetOf(keys[i])
		if d >= s.Len() {
			return "", fmt.Errorf("%s: %s is outside %s, which lasts %s: that season's board cannot hold it", f.Name, f.Format(keys[i]), seasonBounds(l, *s), s.Len())
		}
		at += sep + jsonString(f.Name) + ": " + jsonString(inZone(l, s.Start.Add(d)))
		sep = ", "
	}
	if at == "" { // no season-anchored field among those decoded
		return fmt.Sprintf(`, "season": %d`, s.ID), nil
	}
	return fmt.Sprintf(`, "season": %d, "at": {%s}`, s.ID, at), nil
}

// given reports whether -season or -zone was given: both speak of one board.
func (sf seasonFlag) given() bool { return sf.text != "" || sf.zone != "" }
