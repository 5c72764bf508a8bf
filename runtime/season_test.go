package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func mustCal(t *testing.T, spec CalendarSpec) *Calendar {
	t.Helper()
	c, err := NewCalendar(spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// civil is a wall-clock instant in loc.
func civil(loc *time.Location, y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, loc)
}

// TestSeasonsAcrossDST checks weekly and daily seasons over the spring and autumn changes of
// two zones, against lengths worked out by hand (a week of 167 or 169 hours, a day of 23 or 25).
func TestSeasonsAcrossDST(t *testing.T) {
	paris, ny := zone(t, "Europe/Paris"), zone(t, "America/New_York")
	cases := []struct {
		name      string
		spec      CalendarSpec
		at        time.Time
		start     time.Time
		wantHours float64
	}{
		// Paris springs forward on Sunday 2026-03-29 (02:00 → 03:00): that week lasts 167 h.
		{"paris spring week", CalendarSpec{Period: Weekly, Weekday: time.Monday, Zone: "Europe/Paris"}, civil(paris, 2026, 3, 29, 12, 0), civil(paris, 2026, 3, 23, 0, 0), 167},
		// and falls back on Sunday 2026-10-25 (03:00 → 02:00): 169 h.
		{"paris autumn week", CalendarSpec{Period: Weekly, Weekday: time.Monday, Zone: "Europe/Paris"}, civil(paris, 2026, 10, 26, 0, 0).Add(-time.Nanosecond), civil(paris, 2026, 10, 19, 0, 0), 169},
		{"paris spring day", CalendarSpec{Period: Daily, Zone: "Europe/Paris"}, civil(paris, 2026, 3, 29, 4, 0), civil(paris, 2026, 3, 29, 0, 0), 23},
		{"paris autumn day", CalendarSpec{Period: Daily, Zone: "Europe/Paris"}, civil(paris, 2026, 10, 25, 23, 59), civil(paris, 2026, 10, 25, 0, 0), 25},
		// New York springs forward on 2026-03-08 and falls back on 2026-11-01, both Sundays.
		{"ny spring day", CalendarSpec{Period: Daily, Zone: "America/New_York"}, civil(ny, 2026, 3, 8, 3, 0), civil(ny, 2026, 3, 8, 0, 0), 23},
		{"ny autumn week (sunday start)", CalendarSpec{Period: Weekly, Weekday: time.Sunday, Zone: "America/New_York"}, civil(ny, 2026, 11, 7, 23, 0), civil(ny, 2026, 11, 1, 0, 0), 169},
		// A season starting at 02:30, a wall-clock time that 2026-03-08 lacks in New York,
		// starts when the clock passes it: at the change, 03:00 EDT. That day's season and
		// the one before last 23.5 h.
		{"ny gap start", CalendarSpec{Period: Daily, Hour: 2, Minute: 30, Zone: "America/New_York"}, civil(ny, 2026, 3, 8, 12, 0), time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC), 23.5},
		{"ny before gap start", CalendarSpec{Period: Daily, Hour: 2, Minute: 30, Zone: "America/New_York"}, civil(ny, 2026, 3, 8, 1, 59), civil(ny, 2026, 3, 7, 2, 30), 23.5},
		// Paris reads 02:30 twice on 2026-10-25; the season starts at the first (CEST), and
		// lasts until 02:30 CET the next day: 25 h.
		{"paris repeated start", CalendarSpec{Period: Daily, Hour: 2, Minute: 30, Zone: "Europe/Paris"}, civil(paris, 2026, 10, 25, 12, 0), time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), 25},
	}
	for _, tc := range cases {
		c := mustCal(t, tc.spec)
		s := c.At(tc.at)
		if !s.Start.Equal(tc.start) || s.Len().Hours() != tc.wantHours || !s.Contains(tc.at) {
			t.Errorf("%s: At(%v) = %v (%v h); want start %v, %v h", tc.name, tc.at, s, s.Len().Hours(), tc.start, tc.wantHours)
		}
		if s.ID != s.Start.Unix() {
			t.Errorf("%s: id %d is not the start's Unix seconds", tc.name, s.ID)
		}
	}
}

// TestSeasonsMonthsAndLeapYears: month lengths, a leap day, years, and boundaries exactly.
func TestSeasonsMonthsAndLeapYears(t *testing.T) {
	utc := time.UTC
	month := mustCal(t, CalendarSpec{Period: Monthly, Day: 1, Zone: "UTC"})
	for _, tc := range []struct {
		at   time.Time
		days int
	}{
		{civil(utc, 2028, 2, 29, 23, 59), 29}, // leap February
		{civil(utc, 2027, 2, 28, 0, 0), 28},
		{civil(utc, 2026, 1, 31, 23, 59), 31},
		{civil(utc, 2026, 4, 30, 12, 0), 30},
	} {
		s := month.At(tc.at)
		if s.Start.Day() != 1 || s.Start.Month() != tc.at.Month() || s.Len() != time.Duration(tc.days)*24*time.Hour {
			t.Errorf("month At(%v) = %v; want %d days from the 1st", tc.at, s, tc.days)
		}
	}
	year := mustCal(t, CalendarSpec{Period: Yearly, Month: time.January, Day: 1, Zone: "UTC"})
	if s := year.At(civil(utc, 2028, 12, 31, 23, 59)); s.Len() != 366*24*time.Hour {
		t.Errorf("leap year: %v", s)
	}
	// Boundaries: the start belongs to its season, the instant before to the previous one.
	week := mustCal(t, CalendarSpec{Period: Weekly, Weekday: time.Monday, Zone: "Europe/Paris"})
	s := week.At(time.Date(2026, 11, 23, 10, 0, 0, 0, utc))
	if got := week.At(s.Start); got != s {
		t.Errorf("At(start) = %v; want %v", got, s)
	}
	if got := week.At(s.Start.Add(-time.Nanosecond)); got.End != s.Start || week.Prev(s) != got || week.Next(got) != s {
		t.Errorf("the season before %v is %v", s, got)
	}
	if got, err := week.ByID(s.ID); err != nil || got != s {
		t.Errorf("ByID(%d) = %v, %v", s.ID, got, err)
	}
	if _, err := week.ByID(s.ID + 1); err == nil {
		t.Errorf("ByID of a non-start accepted")
	}
}

// TestSeasonsTile walks many consecutive seasons of every period: each starts where the last
// ended, and every instant probed lies in the season At returns.
func TestSeasonsTile(t *testing.T) {
	specs := []CalendarSpec{
		{Period: Daily, Hour: 2, Minute: 30, Zone: "America/New_York"},
		{Period: Weekly, Weekday: time.Sunday, Hour: 1, Zone: "Europe/Paris"},
		{Period: Monthly, Day: 28, Hour: 23, Minute: 59, Zone: "Australia/Lord_Howe"},
		{Period: Yearly, Month: time.February, Day: 28, Zone: "UTC"},
		{Period: Fixed, Every: 6 * time.Hour, Origin: time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)},
	}
	for _, spec := range specs {
		c := mustCal(t, spec)
		s := c.At(time.Date(1999, 6, 1, 0, 0, 0, 0, time.UTC))
		for i := 0; i < 400; i++ {
			next := c.Next(s)
			if next.Start != s.End || next.Len() <= 0 || next.Len() > c.Longest() {
				t.Fatalf("%v: %v then %v (longest %v)", spec.Period, s, next, c.Longest())
			}
			mid := s.Start.Add(s.Len() / 3)
			if c.At(mid) != s || c.At(s.End.Add(-time.Nanosecond)) != s {
				t.Fatalf("%v: instants of %v map elsewhere", spec.Period, s)
			}
			s = next
		}
	}
}

func TestSeasonLongest(t *testing.T) {
	for _, tc := range []struct {
		spec CalendarSpec
		want time.Duration
	}{
		{CalendarSpec{Period: Weekly, Zone: "Europe/Paris"}, 7*24*time.Hour + time.Hour},
		{CalendarSpec{Period: Daily, Zone: "UTC"}, 24 * time.Hour},
		{CalendarSpec{Period: Monthly, Day: 1, Zone: "America/New_York"}, 31*24*time.Hour + time.Hour},
		// Lord Howe shifts by half an hour today, but by a whole one in 1981–1985.
		{CalendarSpec{Period: Yearly, Month: 1, Day: 1, Zone: "Australia/Lord_Howe"}, 366*24*time.Hour + time.Hour},
		{CalendarSpec{Period: Fixed, Every: 2 * time.Second}, 2 * time.Second},
	} {
		if got := mustCal(t, tc.spec).Longest(); got != tc.want {
			t.Errorf("%v %s: longest %v; want %v", tc.spec.Period, tc.spec.Zone, got, tc.want)
		}
	}
}

func TestCalendarRefusesBadSpecs(t *testing.T) {
	for _, spec := range []CalendarSpec{
		{Period: Fixed, Every: 1500 * time.Millisecond},
		{Period: Daily, Zone: "Mars/Olympus"},
		{Period: Daily, Zone: ""},
		{Period: Monthly, Day: 29, Zone: "UTC"},
		{Period: Yearly, Month: time.February, Day: 29, Zone: "UTC"},
		{Period: Daily, Hour: 24, Zone: "UTC"},
		{Period: 99},
	} {
		if _, err := NewCalendar(spec); err == nil {
			t.Errorf("%+v accepted", spec)
		}
	}
}

func TestSeasonErrors(t *testing.T) {
	c := mustCal(t, CalendarSpec{Period: Fixed, Every: 2 * time.Second, Origin: time.Unix(0, 0)})
	s := c.At(time.Unix(11, 5))
	if s.ID != 10 || SeasonKey("lb", s) != "lb:10" {
		t.Fatalf("season %v, key %s", s, SeasonKey("lb", s))
	}
	for _, d := range []time.Duration{-time.Nanosecond, 2 * time.Second} {
		err := s.CheckOffset("ReachedAt", d)
		if !errors.Is(err, ErrSeasonClosed) {
			t.Errorf("offset %v: %v", d, err)
		}
	}
	if err := s.CheckOffset("ReachedAt", 2*time.Second-1); err != nil {
		t.Error(err)
	}
	if err, ok := ParseReply("RANKGEN_SEASON_CLOSED field=ReachedAt at=12000000us"); !ok || !errors.Is(err, ErrSeasonClosed) {
		t.Errorf("script reply: %v %v", err, ok)
	}
}

func TestSeasonClock(t *testing.T) {
	refused, _ := ParseReply("RANKGEN_SEASON_CLOSED field=ReachedAt at=1795384169123456us season=1795000000000000..1795600000000000us")
	if at, ok := SeasonClock(fmt.Errorf("wrapped: %w", refused)); !ok || at.UnixMicro() != 1795384169123456 {
		t.Errorf("SeasonClock = %v, %v", at, ok)
	}
	for _, err := range []error{
		nil,
		ErrSeasonClosed,
		&SeasonError{Field: "ReachedAt", Value: "-1s from the start"}, // a value given, no clock
		mustReply(t, "RANKGEN_SEASON_CLOSED field=ReachedAt at=12s"),
		mustReply(t, "RANKGEN_OVERFLOW field=Points at=12us"),
	} {
		if at, ok := SeasonClock(err); ok {
			t.Errorf("SeasonClock(%v) = %v; want none", err, at)
		}
	}
}

func mustReply(t *testing.T, msg string) error {
	t.Helper()
	err, ok := ParseReply(msg)
	if !ok {
		t.Fatalf("ParseReply(%q) is not a rankgen error", msg)
	}
	return err
}

// TestSeasonsWhereTheClockSkipsTheStart: the cases of clocks that skip a season's start
// across midnight or skip a whole day. Each season contains the instant asked about, starts
// where the one before ended, and is not empty.
func TestSeasonsWhereTheClockSkipsTheStart(t *testing.T) {
	havana, santiago, apia := zone(t, "America/Havana"), zone(t, "America/Santiago"), zone(t, "Pacific/Apia")
	utc := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	cases := []struct {
		name       string
		spec       CalendarSpec
		at         time.Time
		start, end time.Time
		nextEnd    time.Time
	}{
		// Havana springs from 2026-03-08 00:00 to 01:00: the day's season starts at the
		// change, and the hour before it still belongs to 7 March.
		{"havana 2026-03-07 23:30", CalendarSpec{Period: Daily, Zone: "America/Havana"}, civil(havana, 2026, 3, 7, 23, 30),
			civil(havana, 2026, 3, 7, 0, 0), utc(2026, 3, 8, 5), civil(havana, 2026, 3, 9, 0, 0)},
		// Santiago springs from 2026-09-06 00:00 to 01:00.
		{"santiago 2026-09-05 23:30", CalendarSpec{Period: Daily, Zone: "America/Santiago"}, civil(santiago, 2026, 9, 5, 23, 30),
			civil(santiago, 2026, 9, 5, 0, 0), utc(2026, 9, 6, 4), civil(santiago, 2026, 9, 7, 0, 0)},
		// A week from Sunday 00:00 in Havana: 167 hours.
		{"havana week", CalendarSpec{Period: Weekly, Weekday: time.Sunday, Zone: "America/Havana"}, civil(havana, 2026, 3, 7, 23, 30),
			utc(2026, 3, 1, 5), utc(2026, 3, 8, 5), civil(havana, 2026, 3, 15, 0, 0)},
		// Apia skipped Friday 2011-12-30: 29 December 23:59:59 (UTC−10) was followed by
		// 31 December 00:00 (UTC+14). The 30th has no season.
		{"apia 2011-12-29 23:30", CalendarSpec{Period: Daily, Zone: "Pacific/Apia"}, civil(apia, 2011, 12, 29, 23, 30),
			civil(apia, 2011, 12, 29, 0, 0), civil(apia, 2011, 12, 31, 0, 0), civil(apia, 2012, 1, 1, 0, 0)},
		{"apia noon", CalendarSpec{Period: Daily, Hour: 12, Zone: "Pacific/Apia"}, civil(apia, 2011, 12, 29, 23, 30),
			civil(apia, 2011, 12, 29, 12, 0), civil(apia, 2011, 12, 31, 0, 0), civil(apia, 2011, 12, 31, 12, 0)},
		// A week from Friday lasts six days when its Friday is skipped.
		{"apia friday week", CalendarSpec{Period: Weekly, Weekday: time.Friday, Zone: "Pacific/Apia"}, civil(apia, 2011, 12, 29, 23, 30),
			civil(apia, 2011, 12, 23, 0, 0), civil(apia, 2011, 12, 31, 0, 0), civil(apia, 2012, 1, 6, 0, 0)},
	}
	for _, tc := range cases {
		c := mustCal(t, tc.spec)
		s := c.At(tc.at)
		if !s.Start.Equal(tc.start) || !s.End.Equal(tc.end) || !s.Contains(tc.at) {
			t.Errorf("%s: At(%v) = %v; want [%v, %v)", tc.name, tc.at, s, tc.start.UTC(), tc.end.UTC())
		}
		next := c.Next(s)
		if next.Start != s.End || !next.End.Equal(tc.nextEnd) || c.Prev(next) != s {
			t.Errorf("%s: Next(%v) = %v; want [%v, %v)", tc.name, s, next, s.End.UTC(), tc.nextEnd.UTC())
		}
		if got, err := c.ByID(next.ID); err != nil || got != next {
			t.Errorf("%s: ByID(%d) = %v, %v", tc.name, next.ID, got, err)
		}
	}
}

// TestSeasonLongestSpansTwoChanges: a season may hold two steps back of the clocks. The year
// from 2023-10-27 in Scoresbysund holds the fall from UTC+0 to −1 of 29 October 2023 and,
// with no spring between (in March 2024 the zone's standard time moved to −2, its summer time
// to −1), the fall from −1 to −2 of 27 October 2024: 366 days (29 February) and 2 hours.
func TestSeasonLongestSpansTwoChanges(t *testing.T) {
	c := mustCal(t, CalendarSpec{Period: Yearly, Month: time.October, Day: 27, Zone: "America/Scoresbysund"})
	s := c.At(time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
	if want := 366*24*time.Hour + 2*time.Hour; s.Len() != want || c.Longest() < want {
		t.Errorf("%v lasts %v, longest %v; want %v", s, s.Len(), c.Longest(), want)
	}
}

// TestSeasonExpired: a write script's refusal of an expired board is a *SeasonExpiredError
// (ErrSeasonExpired) that ExpiredSeason names the season of; CheckExpiry finds an instant
// expiry at or before now expired, and never a TTL or no expiry.
func TestSeasonExpired(t *testing.T) {
	c := mustCal(t, CalendarSpec{Period: Fixed, Every: 2 * time.Second, Origin: time.Unix(0, 0)})
	s := c.At(time.Unix(1795384168, 0))
	refused := mustReply(t, "RANKGEN_SEASON_EXPIRED expiry=1795384172000ms now=1795384172001ms")
	var se *SeasonExpiredError
	if !errors.Is(refused, ErrSeasonExpired) || !errors.As(refused, &se) || se.Expiry.UnixMilli() != 1795384172000 || se.Now.UnixMilli() != 1795384172001 {
		t.Fatalf("script reply: %#v", refused)
	}
	named := ExpiredSeason(refused, s)
	if !errors.As(named, &se) || se.Season != s || se.Expiry.UnixMilli() != 1795384172000 {
		t.Errorf("ExpiredSeason: %#v", named)
	}
	if want := "rankgen: " + s.String() + " expired at 2026-11-22T21:49:32Z (now 2026-11-22T21:49:32.001Z)"; !strings.HasPrefix(named.Error(), want) {
		t.Errorf("message %q; want it to start %q", named.Error(), want)
	}
	if other := mustReply(t, "RANKGEN_OVERFLOW field=Points"); ExpiredSeason(other, s) != other {
		t.Errorf("ExpiredSeason changed %v", other)
	}
	// A reply whose words do not parse still matches its sentinel.
	if err := mustReply(t, "RANKGEN_SEASON_EXPIRED expiry=soon"); !errors.Is(err, ErrSeasonExpired) {
		t.Errorf("unparsed reply: %v", err)
	}
	at := time.UnixMilli(1795384172000)
	for _, tc := range []struct {
		exp     Expiry
		now     time.Time
		expired bool
	}{
		{ExpireAt(at), at.Add(-time.Millisecond), false},
		{ExpireAt(at), at, true}, // PEXPIREAT of the present deletes the key at once
		{ExpireAt(at), at.Add(time.Hour), true},
		{TTL(time.Second), at.Add(time.Hour), false},
		{Expiry{}, at.Add(time.Hour), false},
	} {
		err := CheckExpiry(s, tc.exp, tc.now)
		if (err != nil) != tc.expired || (err != nil && !errors.Is(err, ErrSeasonExpired)) {
			t.Errorf("CheckExpiry(%v, now %v) = %v; want expired %v", tc.exp, tc.now, err, tc.expired)
		}
	}
}

// TestSeasonClosedReply: a script's refusal of a time outside its board's season
// (RANKGEN_SEASON_CLOSED, in Unix microseconds) reads as a *SeasonError that says the times as
// RFC 3339 — in the season's zone once the board gives its season (ExpiredSeason) — and what
// to do, never raw microseconds; it is the server's answer, never an uncertain write.
func TestSeasonClosedReply(t *testing.T) {
	c := mustCal(t, CalendarSpec{Period: Weekly, Weekday: time.Monday, Zone: "Europe/Paris"})
	s := c.At(time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC))
	at := s.End.Add(4*24*time.Hour + 9*time.Hour + 912050*time.Microsecond)
	reply := fmt.Sprintf("RANKGEN_SEASON_CLOSED field=SetAt at=%dus season=%d..%dus", at.UnixMicro(), s.Start.UnixMicro(), s.End.UnixMicro())
	parsed := mustReply(t, reply)
	var se *SeasonError
	if !errors.As(parsed, &se) || !errors.Is(parsed, ErrSeasonClosed) || !se.At.Equal(at) || se.Season.ID != s.ID {
		t.Fatalf("ParseReply(%q) = %#v", reply, parsed)
	}
	if got, ok := SeasonClock(parsed); !ok || !got.Equal(at) {
		t.Errorf("SeasonClock = %v, %v; want %v", got, ok, at)
	}
	named := ExpiredSeason(parsed, s)
	for _, want := range []string{"SetAt", at.In(c.Location()).Format(TimeFormat), "+01:00", s.Start.Format(time.RFC3339), s.End.Format(time.RFC3339), "ended", "Seasons.Live", "Seasons.At"} {
		if !strings.Contains(named.Error(), want) {
			t.Errorf("%q does not say %q", named, want)
		}
	}
	if strings.Contains(named.Error(), fmt.Sprint(at.UnixMicro())) || strings.Contains(parsed.Error(), fmt.Sprint(s.Start.UnixMicro())) {
		t.Errorf("raw microseconds in %q", named)
	}
	if !strings.Contains(parsed.Error(), at.UTC().Format(TimeFormat)) {
		t.Errorf("without the board's season: %q; want the time in UTC", parsed)
	}
	if other := c.Next(s); ExpiredSeason(parsed, other) != parsed {
		t.Errorf("ExpiredSeason named the refusal with another season")
	}
	// writeError takes the error as go-redis returns it: the server's reply, untyped.
	var fromWrite *SeasonError
	if err := writeError(otherWords(reply), "tok"); !errors.As(err, &fromWrite) || errors.Is(err, ErrUncertain) || !fromWrite.At.Equal(at) {
		t.Errorf("writeError = %v; want the refusal itself, not an uncertain write", err)
	}

	before := mustReply(t, fmt.Sprintf("RANKGEN_SEASON_CLOSED field=SetAt at=%dus season=%d..%dus", s.Start.UnixMicro()-1, s.Start.UnixMicro(), s.End.UnixMicro()))
	if !strings.Contains(before.Error(), "started") {
		t.Errorf("a clock before the season: %q; want it to say so", before)
	}
	offset := ExpiredSeason(mustReply(t, fmt.Sprintf("RANKGEN_SEASON_CLOSED field=ReachedAt offset=605000s season=%d..%dus", s.Start.UnixMicro(), s.End.UnixMicro())), s)
	for _, want := range []string{"ReachedAt", "168h3m20s from the start", s.End.Format(time.RFC3339), "Seasons.At"} {
		if !strings.Contains(offset.Error(), want) {
			t.Errorf("%q does not say %q", offset, want)
		}
	}
	if _, ok := SeasonClock(offset); ok {
		t.Errorf("SeasonClock of a refused offset: want none")
	}
	for _, bad := range []string{"field=SetAt at=12us", "field=SetAt at=12s season=0..10us", "field=SetAt at=12us season=10..0us", "at=12us season=0..10us", "field=X offset=9zz season=0..10us"} {
		var se *SeasonError
		if err := mustReply(t, "RANKGEN_SEASON_CLOSED "+bad); errors.As(err, &se) || !errors.Is(err, ErrSeasonClosed) {
			t.Errorf("%q: %#v; want a plain ScriptError matching ErrSeasonClosed", bad, err)
		}
	}
}

// TestRollupLastError: a RollupSpec.Last out of range says that the limit is the schema's keep.
func TestRollupLastError(t *testing.T) {
	err := RollupLastError(8, 6)
	var re *RangeError
	if !errors.As(err, &re) || !errors.Is(err, ErrOutOfRange) || re.Max != "7" {
		t.Fatalf("RollupLastError = %#v", err)
	}
	for _, want := range []string{"RollupSpec.Last = 8", "[1, 7]", "keep: 6", "raise keep"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}
