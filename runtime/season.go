package runtime

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Period is how a calendar's seasons repeat.
type Period int

// The periods of a season calendar: four civil ones, which follow a time zone's wall clock
// (daylight saving included), and a fixed duration.
const (
	Daily Period = iota + 1
	Weekly
	Monthly
	Yearly
	Fixed
)

var periodNames = map[Period]string{Daily: "day", Weekly: "week", Monthly: "month", Yearly: "year", Fixed: "fixed"}

func (p Period) String() string {
	if s, ok := periodNames[p]; ok {
		return s
	}
	return "period(" + strconv.Itoa(int(p)) + ")"
}

// CalendarSpec describes a season calendar. Generated code fills it from the schema's season
// block, which the generator has validated.
type CalendarSpec struct {
	Period       Period
	Every        time.Duration // Fixed: each season's length, whole seconds
	Origin       time.Time     // Fixed: the start of one season (any one: seasons tile time both ways)
	Month        time.Month    // Yearly: the month seasons start in
	Day          int           // Monthly, Yearly: the day of the month seasons start on (1–28, Yearly: of Month)
	Weekday      time.Weekday  // Weekly: the weekday seasons start on
	Hour, Minute int           // civil periods: the wall-clock time seasons start at
	Zone         string        // civil periods: the IANA time zone of that wall clock
}

// Calendar maps instants to seasons. It is immutable and safe for concurrent use.
type Calendar struct {
	spec    CalendarSpec
	loc     *time.Location
	longest time.Duration
}

// Season is one period of a calendar: the instants from Start (included) to End (excluded).
// ID is Start in Unix seconds: stable (it depends only on the calendar), unique, ordered like
// the seasons, and readable without the calendar (date -d @ID); board keys end with it.
type Season struct {
	ID         int64
	Start, End time.Time
}

// Contains reports whether t lies in the season: Start ≤ t < End.
func (s Season) Contains(t time.Time) bool { return !t.Before(s.Start) && t.Before(s.End) }

// Len is the season's length (a civil day may last 23 or 25 hours).
func (s Season) Len() time.Duration { return s.End.Sub(s.Start) }

func (s Season) String() string {
	return fmt.Sprintf("season %d [%s, %s)", s.ID, s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339))
}

// NewCalendar checks spec and returns its calendar.
func NewCalendar(spec CalendarSpec) (*Calendar, error) {
	c := &Calendar{spec: spec, loc: time.UTC}
	switch spec.Period {
	case Fixed:
		if spec.Every < time.Second || spec.Every%time.Second != 0 {
			return nil, fmt.Errorf("rankgen: a fixed season lasts whole seconds, at least one, not %v", spec.Every)
		}
		c.longest = spec.Every
		return c, nil
	case Daily, Weekly, Monthly, Yearly:
	default:
		return nil, fmt.Errorf("rankgen: unknown season period %d", spec.Period)
	}
	if spec.Hour < 0 || spec.Hour > 23 || spec.Minute < 0 || spec.Minute > 59 {
		return nil, fmt.Errorf("rankgen: seasons start at a time of day, not %02d:%02d", spec.Hour, spec.Minute)
	}
	if (spec.Period == Monthly || spec.Period == Yearly) && (spec.Day < 1 || spec.Day > maxStartDay(spec)) {
		return nil, fmt.Errorf("rankgen: seasons start on day 1 to %d of the month, not %d", maxStartDay(spec), spec.Day)
	}
	loc, err := time.LoadLocation(spec.Zone)
	if err != nil || spec.Zone == "" || spec.Zone == "Local" {
		return nil, fmt.Errorf("rankgen: unknown time zone %q (an IANA name such as Europe/Paris or UTC)", spec.Zone)
	}
	c.loc = loc
	// The fall is measured over spans longer than any season by two days, more than any
	// zone's clocks ever stepped back at once.
	c.longest = civilLongest(spec.Period) + maxLengthening(loc, civilLongest(spec.Period)+48*time.Hour)
	return c, nil
}

// maxStartDay is the last day of the month seasons may start on: one every month (or every
// year, February's 29th excluded) has.
func maxStartDay(spec CalendarSpec) int {
	if spec.Period == Yearly && spec.Month >= time.January && spec.Month <= time.December {
		return time.Date(2026, spec.Month+1, 0, 0, 0, 0, 0, time.UTC).Day()
	}
	return 28
}

// MustCalendar is NewCalendar for a spec the generator validated; it panics on an invalid
// one, which only a Go toolchain without the zone could make (generated packages embed the
// zone database, time/tzdata).
func MustCalendar(spec CalendarSpec) *Calendar {
	c, err := NewCalendar(spec)
	if err != nil {
		panic(err)
	}
	return c
}

// Spec returns the calendar's spec.
func (c *Calendar) Spec() CalendarSpec { return c.spec }

// Location is the calendar's time zone (UTC for fixed periods).
func (c *Calendar) Location() *time.Location { return c.loc }

// At returns the season that contains t.
func (c *Calendar) At(t time.Time) Season {
	if c.spec.Period == Fixed {
		return c.fixedAt(t)
	}
	// The season of t's civil date is a guess: the wall clock may read a time before the
	// season's start (a start the clock skips, a day skipped whole) or after the next one
	// (a clock set back past it). Starts never decrease, so step to the last start ≤ t.
	n := c.civilIndex(t.In(c.loc))
	start, end := c.civilStart(n), c.civilStart(n+1)
	for start.After(t) {
		n--
		start, end = c.civilStart(n), start
	}
	for !end.After(t) {
		n++
		start, end = end, c.civilStart(n+1)
	}
	return Season{ID: start.Unix(), Start: start, End: end}
}

func (c *Calendar) fixedAt(t time.Time) Season {
	every, origin := int64(c.spec.Every/time.Second), c.spec.Origin.Unix()
	d := t.Unix() - origin // Unix() floors, so an instant inside a second belongs to it
	k := d / every
	if d%every != 0 && d < 0 {
		k--
	}
	start := time.Unix(origin+k*every, 0).UTC()
	return Season{ID: start.Unix(), Start: start, End: start.Add(c.spec.Every)}
}

// The civil periods number their start dates: the nth is day n after 1970-01-01 (Daily),
// the first day of week n that is the start weekday (Weekly), month n of year 0 (Monthly),
// year n (Yearly). civilStart(n) is the start of that date's season; a date whose start
// equals the next date's (a day the clock skips) has an empty season, which At never
// returns.

const unixThursday = time.Thursday // 1970-01-01

// civilIndex is the number of the start date on or before l's civil date.
func (c *Calendar) civilIndex(l time.Time) int {
	y, m, d := l.Date()
	switch c.spec.Period {
	case Daily:
		return unixDays(y, m, d)
	case Weekly:
		return floorDiv(unixDays(y, m, d)-c.weekOffset(), 7)
	case Monthly:
		return y*12 + int(m) - 1
	default: // Yearly
		return y
	}
}

// civilStart is the start of the nth date's season: the first instant whose wall clock reads
// the start time on that date or later.
func (c *Calendar) civilStart(n int) time.Time {
	y, m, d := 1970, time.January, 1
	switch c.spec.Period {
	case Daily:
		d += n
	case Weekly:
		d += 7*n + c.weekOffset()
	case Monthly:
		y, m, d = 0, time.Month(n+1), c.spec.Day
	default: // Yearly
		y, m, d = n, c.spec.Month, c.spec.Day
	}
	return firstAtOrAfter(c.loc, time.Date(y, m, d, c.spec.Hour, c.spec.Minute, 0, 0, time.UTC))
}

// weekOffset is the days from 1970-01-01 to the first start weekday.
func (c *Calendar) weekOffset() int { return (int(c.spec.Weekday) - int(unixThursday) + 7) % 7 }

func unixDays(y int, m time.Month, d int) int {
	return int(floorDiv64(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix(), 86400))
}

func floorDiv(a, b int) int { return int(floorDiv64(int64(a), int64(b))) }

func floorDiv64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// firstAtOrAfter returns the first instant whose wall clock in loc reads the civil time wall
// (given in UTC) or later. Where the clock skips wall, that is the instant of the skip; where
// it reads wall twice, the first time. (time.Date is not this: it reads a skipped time on the
// clock before the skip, which lands before the skip, at times on the previous day; and it
// picks the second of two readings in some zones.)
func firstAtOrAfter(loc *time.Location, wall time.Time) time.Time {
	target := wall.Unix()
	// Zone offsets stay under a day, so the clock reads before wall two days earlier; walk
	// the zone's periods from there to the first in which the clock reaches wall.
	t := time.Unix(target-2*86400, 0).In(loc)
	for {
		_, offset := t.Zone()
		at := max(target-int64(offset), t.Unix()) // where this period's clock reads wall, or its start when it starts past wall
		end := zoneEnd(t)
		if end.IsZero() || at < end.Unix() {
			return time.Unix(at, 0).In(loc)
		}
		t = end
	}
}

// zoneEnd is when the zone period of t ends (zero: never). Past its last listed change a
// zone follows a yearly rule, and there Go's ZoneBounds ends the last period of a leap year
// on 31 December 00:00 UTC, before t on that day (golang/go#81583); the period lasts the
// year, so its end is the next year's start, which changes no offset.
func zoneEnd(t time.Time) time.Time {
	_, end := t.ZoneBounds()
	if !end.IsZero() && !end.After(t) {
		end = end.Add(24 * time.Hour)
	}
	return end
}

// Next is the season after s.
func (c *Calendar) Next(s Season) Season { return c.At(s.End) }

// Prev is the season before s.
func (c *Calendar) Prev(s Season) Season { return c.At(s.Start.Add(-time.Nanosecond)) }

// ByID returns the season whose ID is id, or an error when id is not the start of a season.
func (c *Calendar) ByID(id int64) (Season, error) {
	s := c.At(time.Unix(id, 0))
	if s.ID != id {
		return Season{}, fmt.Errorf("rankgen: %d is not a season id of this calendar (the season at that instant is %d)", id, s.ID)
	}
	return s, nil
}

// Longest bounds the length of every season: the period's longest civil length (a 31-day
// month, a 366-day year) plus the most the zone's clocks step back within one season
// (scanned over its changes from 1970 to 2200: an hour in Europe/Paris); the fixed length.
func (c *Calendar) Longest() time.Duration { return c.longest }

func civilLongest(p Period) time.Duration {
	day := 24 * time.Hour
	return map[Period]time.Duration{Daily: day, Weekly: 7 * day, Monthly: 31 * day, Yearly: 366 * day}[p]
}

// maxLengthening is the most a zone's UTC offset falls within any span of the given length
// (the hour an autumn change adds to a day; two changes back in one year add both to it).
// A season's clock advances its civil length, so the season lasts that long plus the fall
// of the offset over it.
func maxLengthening(loc *time.Location, span time.Duration) time.Duration {
	type change struct {
		at            time.Time
		before, after int // UTC offsets in seconds
	}
	var changes []change
	t, stop := time.Date(1970, 1, 1, 0, 0, 0, 0, loc), time.Date(2200, 1, 1, 0, 0, 0, 0, loc)
	for i := 0; i < 4096 && t.Before(stop); i++ { // a zone changes at most a few times a year
		end := zoneEnd(t)
		if end.IsZero() { // no further change
			break
		}
		_, before := t.Zone()
		_, after := end.Zone()
		changes = append(changes, change{end, before, after})
		t = end
	}
	var most time.Duration
	for i, first := range changes {
		for _, last := range changes[i:] {
			if last.at.Sub(first.at) >= span {
				break
			}
			most = max(most, time.Duration(first.before-last.after)*time.Second)
		}
	}
	return most
}

// ErrSeasonClosed: a write's time (Redis's clock for server stamps, the client's for client
// stamps, or a season-anchored value given) lies outside the season of the board it targets.
// Nothing was written; the write belongs to another season's board.
var ErrSeasonClosed = errors.New("rankgen: time outside the board's season")

// SeasonError is a write refused for a time outside its board's season; it matches
// ErrSeasonClosed. A write script's refusal names the board's season in its calendar's zone
// once the board has given it (ExpiredSeason), else in UTC.
type SeasonError struct {
	Field  string    // the season-anchored or stamped field
	Value  string    // a season-anchored value refused, formatted (an offset: "…h from the start")
	At     time.Time // a stamp's clock reading refused (Value is then empty)
	Season Season    // the board's season
}

func (e *SeasonError) Error() string {
	if e.At.IsZero() {
		return fmt.Sprintf("rankgen: %s = %s is outside %s, which lasts %v: write it to the board of the season it falls in (Seasons.At)", e.Field, e.Value, e.Season, e.Season.Len())
	}
	when := "after " + e.Season.String() + " ended"
	if e.At.Before(e.Season.Start) {
		when = "before " + e.Season.String() + " started"
	}
	at := e.At.In(e.Season.Start.Location()).Format(TimeFormat)
	return fmt.Sprintf("rankgen: %s stamped at %s, %s: write to the board of the season that time falls in (Seasons.At), or through Seasons.Live, which moves such a write there", e.Field, at, when)
}

// Unwrap returns ErrSeasonClosed.
func (e *SeasonError) Unwrap() error { return ErrSeasonClosed }

// ErrSeasonExpired: the board's season is past its retention — its expiry (keep seasons after
// its end, or WithExpireAt's instant) is at or before now — so its keys are gone. A write is
// refused before anything is written (Redis's clock decides, in the write's own script),
// never acknowledged and dropped; a read says so instead of returning an empty board (the
// board's own clock decides).
var ErrSeasonExpired = errors.New("rankgen: the season's board has expired")

// SeasonExpiredError is a write or read refused because its board's season has expired; it
// matches ErrSeasonExpired.
type SeasonExpiredError struct {
	Season Season    // the board's season (zero when unknown: a script's reply read alone)
	Expiry time.Time // when the board's keys expire
	Now    time.Time // the clock that found the expiry past: Redis's for a write, the board's for a read
}

func (e *SeasonExpiredError) Error() string {
	board := "the board"
	if !e.Season.Start.IsZero() {
		board = e.Season.String()
	}
	return fmt.Sprintf("rankgen: %s expired at %s (now %s): its keys are gone, and nothing is written to or read from them", board, e.Expiry.UTC().Format(TimeFormat), e.Now.UTC().Format(TimeFormat))
}

// Unwrap returns ErrSeasonExpired.
func (e *SeasonExpiredError) Unwrap() error { return ErrSeasonExpired }

// CheckExpiry returns a *SeasonExpiredError when the board of season s, whose keys expire as
// exp says, has expired at now: exp is an instant (ExpireAt) at or before now. A TTL or no
// expiry never expires a board that is written.
func CheckExpiry(s Season, exp Expiry, now time.Time) error {
	if exp.mode != "pxat" || exp.ms > now.UnixMilli() {
		return nil
	}
	return &SeasonExpiredError{Season: s, Expiry: time.UnixMilli(exp.ms), Now: now}
}

// ExpiredSeason gives a write script's refusal of a time or a season the season s of the board
// that sent it, in its calendar's zone: a *SeasonExpiredError (RANKGEN_SEASON_EXPIRED), which
// the script's reply does not name, and a *SeasonError (RANKGEN_SEASON_CLOSED), whose season
// the reply gives in Unix microseconds. Any other error is returned as it is.
func ExpiredSeason(err error, s Season) error {
	var closed *SeasonError
	if errors.As(err, &closed) && closed.Season.Start.Equal(s.Start) && closed.Season.End.Equal(s.End) {
		named := *closed
		named.Season = s
		return &named
	}
	var e *SeasonExpiredError
	if !errors.As(err, &e) {
		return err
	}
	named := *e
	named.Season = s
	return &named
}

// seasonClosed reads a script's "field=F at=<us>us season=<us>..<us>us" (a stamp's clock) or
// "field=F offset=<n><unit> season=…" (a season-anchored value) into a *SeasonError, its
// season in UTC; nil for any other text.
func seasonClosed(detail string) *SeasonError {
	var e SeasonError
	var ok bool
	for _, part := range strings.Fields(detail) {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "field":
			e.Field = v
		case "at":
			us, err := strconv.ParseInt(strings.TrimSuffix(v, "us"), 10, 64)
			if err != nil || !strings.HasSuffix(v, "us") {
				return nil
			}
			e.At = time.UnixMicro(us).UTC()
		case "offset":
			d, err := offsetOf(v)
			if err != nil {
				return nil
			}
			e.Value = d.String() + " from the start"
		case "season":
			from, until, found := strings.Cut(strings.TrimSuffix(v, "us"), "..")
			a, aerr := strconv.ParseInt(from, 10, 64)
			b, berr := strconv.ParseInt(until, 10, 64)
			if !found || aerr != nil || berr != nil || !strings.HasSuffix(v, "us") || b <= a {
				return nil
			}
			start := time.UnixMicro(a).UTC()
			e.Season, ok = Season{ID: start.Unix(), Start: start, End: time.UnixMicro(b).UTC()}, true
		}
	}
	if e.Field == "" || !ok || e.At.IsZero() == (e.Value == "") {
		return nil
	}
	return &e
}

// offsetOf reads a script's offset in whole units ("36s", "1500ms", "90us").
func offsetOf(v string) (time.Duration, error) {
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"us", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}} {
		if digits, ok := strings.CutSuffix(v, u.name); ok {
			n, err := strconv.ParseInt(digits, 10, 64)
			if err != nil || n > int64(math.MaxInt64/u.d) || n < int64(math.MinInt64/u.d) {
				return 0, fmt.Errorf("offset %s", v)
			}
			return time.Duration(n) * u.d, nil
		}
	}
	return 0, fmt.Errorf("offset %s", v)
}

// seasonExpired reads a script's "expiry=<ms>ms now=<ms>ms" into a *SeasonExpiredError.
func seasonExpired(detail string) *SeasonExpiredError {
	var e SeasonExpiredError
	for _, part := range strings.Fields(detail) {
		k, v, _ := strings.Cut(part, "=")
		ms, err := strconv.ParseInt(strings.TrimSuffix(v, "ms"), 10, 64)
		if err != nil || !strings.HasSuffix(v, "ms") {
			return nil
		}
		switch k {
		case "expiry":
			e.Expiry = time.UnixMilli(ms)
		case "now":
			e.Now = time.UnixMilli(ms)
		}
	}
	if e.Expiry.IsZero() || e.Now.IsZero() {
		return nil
	}
	return &e
}

// CheckOffset returns a *SeasonError when the offset d of field from the season's start lies
// outside the season: d < 0 or d ≥ its length.
func (s Season) CheckOffset(field string, d time.Duration) error {
	if d >= 0 && d < s.Len() {
		return nil
	}
	return &SeasonError{Field: field, Value: d.String() + " from the start", Season: s}
}

// SeasonKey is the key of a season's board: base + ":" + the season's id. Its side keys
// (index, meta, ack) derive from it, so they share its hash slot; a base with a hash tag
// ("{lb}:weekly") keeps every season in that slot.
func SeasonKey(base string, s Season) string { return base + ":" + strconv.FormatInt(s.ID, 10) }

// OffsetRangeError is the *RangeError of a season-anchored field's offset outside its width.
func OffsetRangeError(field string, v time.Duration, min, max string) error {
	return &RangeError{Field: field, Value: v.String(), Min: min, Max: max}
}

// SeasonClock returns the clock reading a write script refused for lying outside its board's
// season (Redis's clock for server stamps, the client's for client stamps), from the script's
// ErrSeasonClosed reply. ok is false for any other error, and for a refused season-anchored
// value, which carries no clock.
func SeasonClock(err error) (at time.Time, ok bool) {
	var se *SeasonError
	if !errors.As(err, &se) || se.At.IsZero() {
		return time.Time{}, false
	}
	return se.At, true
}
