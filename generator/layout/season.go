package layout

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // zones are checked the same on every machine, with or without a zoneinfo

	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
	"github.com/rankgen/rankgen/text/suggest"
	"gopkg.in/yaml.v3"
)

// Season is a layout's season calendar: the board is periodic, one sorted set per season
// under the base key and the season's id, and time fields with epoch: season store their
// offset from the season's start.
type Season struct {
	Calendar *rankgenrt.Calendar // the calendar; on a regional layout, the first zone's
	Regions  *rankgenrt.Regions  // a regional layout's calendars (zones:), one per zone; nil otherwise
	Keep     int                 // finished seasons kept readable; older ones expire
	Every    string              // the period as written: day, week, month, year, or a duration ("6h")
	Starts   string              // the start as written (defaults filled in)
}

// Spec is the calendar's spec.
func (s *Season) Spec() rankgenrt.CalendarSpec { return s.Calendar.Spec() }

// rawSeason is the season block as written.
type rawSeason struct {
	Every, Starts, Zone, Keep scalar
	Zones                     []scalar // zones: a regional layout's, each a season calendar of its own
	ZonesAt                   scalar   // where zones: is written (Set when it is)
	Line, Col                 int
	Set, Bad                  bool
}

var seasonKeys = []string{"every", "starts", "zone", "zones", "keep"}

// SeasonNames are the package-level names a periodic board's package adds; its fields, id and
// enum constants must not take them either.
var SeasonNames = []string{"Season", "Seasons", "SeasonsOption", "NewSeasons", "WithClock"}

// MaxKeep bounds keep: a board kept longer than this many seasons is better not periodic.
const MaxKeep = 10000

func (p *parser) season(k, v *yaml.Node) rawSeason {
	s := rawSeason{Line: k.Line, Col: k.Column, Set: true}
	_, ok := p.mapping(v, "season", seasonKeys, func(key string, _, v *yaml.Node) {
		if key == "zones" {
			zones, bad := p.list(v, "season zones")
			s.Zones, s.ZonesAt = zones, scalar{Line: v.Line, Col: v.Column, Set: true, Bad: bad}
			return
		}
		sc := p.scalar(v, "season "+key)
		switch key {
		case "every":
			s.Every = sc
		case "starts":
			s.Starts = sc
		case "zone":
			s.Zone = sc
		case "keep":
			s.Keep = sc
		}
	})
	s.Bad = !ok
	return s
}

var civilPeriods = map[string]rankgenrt.Period{"day": rankgenrt.Daily, "week": rankgenrt.Weekly, "month": rankgenrt.Monthly, "year": rankgenrt.Yearly}

// defaultStarts is where a civil season starts when starts is not given.
var defaultStarts = map[rankgenrt.Period]string{rankgenrt.Daily: "00:00", rankgenrt.Weekly: "monday 00:00", rankgenrt.Monthly: "1 00:00", rankgenrt.Yearly: "01-01 00:00", rankgenrt.Fixed: "1970-01-01T00:00:00Z"}

// seasonBlock validates the season block; nil when there is none or it is refused (reported).
func (v *validator) seasonBlock(raw rawSeason) *Season {
	if !raw.Set || raw.Bad || anyBad(append([]scalar{raw.Every, raw.Starts, raw.Zone, raw.Keep, raw.ZonesAt}, raw.Zones...)...) {
		return nil
	}
	// Every key is checked, so that all the block's problems are reported at once.
	spec, okEvery := v.seasonEvery(raw)
	keep, okKeep := v.seasonKeep(raw.Keep)
	if !okEvery {
		return nil
	}
	starts := raw.Starts.Value
	if !raw.Starts.Set {
		starts = defaultStarts[spec.Period]
	}
	okStarts := v.seasonStarts(raw, &spec, starts)
	if !v.seasonZone(raw, &spec) || !okStarts || !okKeep {
		return nil
	}
	season := &Season{Keep: keep, Every: raw.Every.Value, Starts: starts}
	var err error
	if raw.ZonesAt.Set {
		zones := make([]string, len(raw.Zones))
		for i, z := range raw.Zones {
			zones[i] = z.Value
		}
		if season.Regions, err = rankgenrt.NewRegions(spec, zones...); err == nil {
			season.Calendar, err = season.Regions.In(zones[0])
		}
	} else {
		season.Calendar, err = rankgenrt.NewCalendar(spec)
	}
	if err != nil {
		v.errorf(raw.Line, raw.Col, "season: %s", strings.TrimPrefix(err.Error(), "rankgen: "))
		return nil
	}
	return season
}

// seasonEvery reads the period: a civil one, or a fixed duration of whole seconds.
func (v *validator) seasonEvery(raw rawSeason) (rankgenrt.CalendarSpec, bool) {
	if !raw.Every.Set {
		v.errorf(raw.Line, raw.Col, "season has no period; add \"every:\" with day, week, month, year or a duration such as 6h")
		return rankgenrt.CalendarSpec{}, false
	}
	if p, ok := civilPeriods[raw.Every.Value]; ok {
		return rankgenrt.CalendarSpec{Period: p}, true
	}
	d, err := time.ParseDuration(raw.Every.Value)
	switch {
	case err != nil:
		msg := fmt.Sprintf("season: every must be day, week, month, year or a duration such as 6h, not %s", quote.Short(raw.Every.Value))
		if s := suggest.Closest(raw.Every.Value, []string{"day", "week", "month", "year"}); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		v.errAt(raw.Every, "%s", msg)
	case d < time.Second || d%time.Second != 0:
		v.errAt(raw.Every, "season: every %s must be whole seconds, at least 1s", raw.Every.Value)
	default:
		return rankgenrt.CalendarSpec{Period: rankgenrt.Fixed, Every: d}, true
	}
	return rankgenrt.CalendarSpec{}, false
}

// seasonStarts reads where seasons start, in the period's own words.
func (v *validator) seasonStarts(raw rawSeason, spec *rankgenrt.CalendarSpec, starts string) bool {
	at := raw.Starts
	if !at.Set {
		at = scalar{Line: raw.Line, Col: raw.Col}
	}
	if spec.Period == rankgenrt.Fixed {
		t, err := time.Parse(time.RFC3339, starts)
		if err != nil || t.Nanosecond() != 0 {
			v.errAt(at, "season: a fixed period starts at an RFC 3339 instant in whole seconds, like 2026-01-01T00:00:00Z, not %s%s", quote.Short(starts), rfc3339Hint(starts))
			return false
		}
		spec.Origin = t
		return true
	}
	words := strings.Fields(starts)
	var day, clock string
	if n := len(words); n > 0 {
		clock = words[n-1]
	}
	if len(words) == 2 {
		day = words[0]
	}
	ok := len(words) >= 1 && len(words) <= 2 && v.startClock(clock, spec)
	switch spec.Period {
	case rankgenrt.Daily:
		ok = ok && len(words) == 1
	case rankgenrt.Weekly:
		ok = ok && startWeekday(day, spec)
	case rankgenrt.Monthly:
		n, err := strconv.Atoi(day)
		spec.Day = n
		ok = ok && err == nil && n >= 1 && n <= 28
	case rankgenrt.Yearly:
		ok = ok && startMonthDay(day, spec)
	}
	if !ok {
		v.errAt(at, "season: every %s starts at %s, not %s", raw.Every.Value, startsForm[spec.Period], quote.Short(starts))
	}
	return ok
}

var startsForm = map[rankgenrt.Period]string{
	rankgenrt.Daily:   "a time of day like 00:00",
	rankgenrt.Weekly:  "a weekday and a time like \"monday 00:00\"",
	rankgenrt.Monthly: "a day of the month from 1 to 28 and a time like \"1 00:00\"",
	rankgenrt.Yearly:  "a month-day and a time like \"01-01 00:00\"",
}

func (v *validator) startClock(s string, spec *rankgenrt.CalendarSpec) bool {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return false
	}
	spec.Hour, spec.Minute = t.Hour(), t.Minute()
	return true
}

func startWeekday(s string, spec *rankgenrt.CalendarSpec) bool {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(s, d.String()) {
			spec.Weekday = d
			return true
		}
	}
	return false
}

func startMonthDay(s string, spec *rankgenrt.CalendarSpec) bool {
	t, err := time.Parse("01-02", s)
	if err != nil || t.Month() == time.February && t.Day() == 29 {
		return false
	}
	spec.Month, spec.Day = t.Month(), t.Day()
	return true
}

// seasonZone reads the zone of a civil period, or the zones of a regional one (zones:); a
// fixed period has none.
func (v *validator) seasonZone(raw rawSeason, spec *rankgenrt.CalendarSpec) bool {
	if spec.Period == rankgenrt.Fixed {
		ok := true
		for key, at := range map[string]scalar{"zone": raw.Zone, "zones": raw.ZonesAt} {
			if at.Set {
				v.errAt(at, "season: a fixed period counts instants, not wall-clock time; remove %s (starts carries its offset)", key)
				ok = false
			}
		}
		return ok
	}
	switch {
	case raw.Zone.Set && raw.ZonesAt.Set:
		v.errAt(raw.ZonesAt, "season: give zone (one zone) or zones (a board per zone, chosen at run time), not both")
		return false
	case raw.ZonesAt.Set:
		return v.seasonZones(raw)
	case !raw.Zone.Set:
		v.errorf(raw.Line, raw.Col, "season: every %s follows a wall clock; add \"zone:\" with an IANA time zone such as Europe/Paris or UTC, or \"zones:\" with the zones of your regions", raw.Every.Value)
		return false
	}
	if !knownZone(raw.Zone.Value) {
		v.errAt(raw.Zone, "season: unknown time zone %s; use an IANA name such as Europe/Paris, America/New_York or UTC", quote.Short(raw.Zone.Value))
		return false
	}
	spec.Zone = raw.Zone.Value
	return true
}

// seasonZones checks a regional layout's zones: IANA names, each once, at least one; every
// zone's problems are reported at once.
func (v *validator) seasonZones(raw rawSeason) bool {
	if len(raw.Zones) == 0 {
		v.errAt(raw.ZonesAt, "season: zones lists no zone; list the IANA zones of your regions, such as [Europe/Paris, America/New_York, Asia/Tokyo]")
		return false
	}
	ok, seen := true, map[string]string{} // constant name → zone
	for _, z := range raw.Zones {
		switch c := ZoneConst(z.Value); {
		case !knownZone(z.Value):
			v.errAt(z, "season: unknown time zone %s; use an IANA name such as Europe/Paris, America/New_York or UTC", quote.Short(z.Value))
			ok = false
		case seen[c] == z.Value:
			v.errAt(z, "season: zone %s is listed twice; list each zone once", z.Value)
			ok = false
		case seen[c] != "":
			v.errAt(z, "season: zones %s and %s would both be the constant %s; list one of them", seen[c], z.Value, c)
			ok = false
		default:
			seen[c] = z.Value
		}
	}
	return ok
}

// ZoneConst is the name of a regional layout's constant for zone: "Europe/Paris" →
// ZoneEuropeParis, "Etc/GMT+5" → ZoneEtcGMTPlus5.
func ZoneConst(zone string) string {
	var b strings.Builder
	b.WriteString("Zone")
	upper := true
	for i, r := range zone {
		switch {
		case r == '+' || r == '-' && i+1 < len(zone) && zone[i+1] >= '0' && zone[i+1] <= '9':
			b.WriteString(map[rune]string{'+': "Plus", '-': "Minus"}[r])
			upper = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			if upper && r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			upper = false
		default:
			upper = true
		}
	}
	return b.String()
}

// zoneConst reports whether name is one of a regional layout's zone constants.
func (s *Season) zoneConst(name string) bool {
	if s.Regions == nil {
		return false
	}
	for _, z := range s.Regions.Zones() {
		if ZoneConst(z) == name {
			return true
		}
	}
	return false
}

// knownZone reports whether name is an IANA zone (not the machine's Local).
func knownZone(name string) bool {
	_, err := time.LoadLocation(name)
	return err == nil && name != "Local" && name != ""
}

func (v *validator) seasonKeep(s scalar) (int, bool) {
	if !s.Set {
		return 1, true
	}
	n, err := strconv.Atoi(s.Value)
	if err != nil || n < 0 || n > MaxKeep {
		v.errAt(s, "season: keep must be a whole number from 0 to %d (finished seasons kept readable), not %s", MaxKeep, quote.Short(s.Value))
		return 0, false
	}
	return n, true
}

// seasonRange is the range of a time field with epoch: season: offsets from the season's
// start, 0 up to what the width holds, which must hold the longest season.
func (v *validator) seasonRange(raw *rawField, f *Field, label string, radix *big.Int) (lo, hi *big.Int, ok bool) {
	if v.season == nil && v.seasonRefused {
		return nil, nil, false // the block's own errors say it all
	}
	if v.season == nil {
		v.errAt(raw.Epoch, "%s: epoch: season needs a season: block (every, starts, zone, keep) at the top of the schema; add one, or give epoch an RFC 3339 time", label)
		return nil, nil, false
	}
	for _, s := range []scalar{raw.Min, raw.Max} {
		if s.Set {
			v.errAt(s, "%s: epoch: season measures from each season's start; remove min and max (the width sets the range)", label)
			return nil, nil, false
		}
	}
	longest := v.season.LongestUnits(f.Unit)
	if radix == nil {
		v.errorf(raw.Line, raw.Col, "%s: epoch: season needs a width: add bits: %d (the longest season is %s)", label, bits.Len64(longest-1), v.season.LongestText(f.Unit))
		return nil, nil, false
	}
	if radix.IsUint64() && radix.Uint64() < longest {
		v.errAt(firstSet(raw.Bits, raw.Digits), "%s: the longest season is %s, more than %s holds (%s values); it needs bits: %d (or digits: %d)",
			label, v.season.LongestText(f.Unit), widthWords(f), radix, bits.Len64(longest-1), len(strconv.FormatUint(longest-1, 10)))
		return nil, nil, false
	}
	f.Season = true
	// Offsets are time.Duration values in Go: the range stops where a Duration does.
	hi = new(big.Int).Sub(radix, big.NewInt(1))
	if most := big.NewInt(math.MaxInt64 / int64(f.Unit.Duration())); hi.Cmp(most) > 0 {
		hi = most
	}
	// The write scripts check an offset against the season's length in exact doubles.
	if hi.Cmp(new(big.Int).Lsh(big.NewInt(1), 53)) >= 0 {
		v.errAt(firstSet(raw.Bits, raw.Digits), "%s: offsets from the season's start are checked in exact doubles, below 2^53 %s; the longest season is %s: bits: %d (or digits: %d) holds it",
			label, f.Unit, v.season.LongestText(f.Unit), bits.Len64(longest-1), len(strconv.FormatUint(longest-1, 10)))
		return nil, nil, false
	}
	return big.NewInt(0), hi, true
}

// LongestUnits is the longest season in units of u, rounded up.
func (s *Season) LongestUnits(u Unit) uint64 {
	d := s.Longest()
	return uint64((d + u.Duration() - 1) / u.Duration())
}

// Longest bounds the length of every season, in every zone of a regional layout.
func (s *Season) Longest() time.Duration {
	if s.Regions != nil {
		return s.Regions.Longest()
	}
	return s.Calendar.Longest()
}

// longestZone is the zone whose seasons are the longest: the first of them on a regional
// layout.
func (s *Season) longestZone() string {
	if s.Regions == nil {
		return s.Spec().Zone
	}
	for _, z := range s.Regions.Zones() {
		if cal, _ := s.Regions.In(z); cal.Longest() == s.Longest() {
			return z
		}
	}
	return s.Spec().Zone
}

// Zones are the zones of the seasons: the one zone, or a regional layout's zones; none for a
// fixed period.
func (s *Season) Zones() []string {
	if s.Regions != nil {
		return s.Regions.Zones()
	}
	if z := s.Spec().Zone; z != "" {
		return []string{z}
	}
	return nil
}

// LongestText describes the longest season: "608400 s (a week and 1h of daylight saving)".
func (s *Season) LongestText(u Unit) string {
	spec := s.Spec()
	text := fmt.Sprintf("%d %s", s.LongestUnits(u), u)
	if spec.Period == rankgenrt.Fixed {
		return text
	}
	civil := map[rankgenrt.Period]string{rankgenrt.Daily: "a day", rankgenrt.Weekly: "a week", rankgenrt.Monthly: "a month of 31 days", rankgenrt.Yearly: "a year of 366 days"}[spec.Period]
	extra := s.Longest() - map[rankgenrt.Period]time.Duration{rankgenrt.Daily: 24 * time.Hour, rankgenrt.Weekly: 7 * 24 * time.Hour, rankgenrt.Monthly: 31 * 24 * time.Hour, rankgenrt.Yearly: 366 * 24 * time.Hour}[spec.Period]
	if extra > 0 {
		return fmt.Sprintf("%s (%s and %s of daylight saving in %s)", text, civil, shortDuration(extra), s.longestZone())
	}
	return fmt.Sprintf("%s (%s in %s)", text, civil, s.longestZone())
}

// shortDuration writes 1h0m0s as 1h and 30m0s as 30m.
func shortDuration(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	return strings.TrimSuffix(s, "0m")
}

// Describe is the season in words: "weekly from Monday 00:00 Europe/Paris, 4 past seasons
// kept".
func (s *Season) Describe() string {
	spec := s.Spec()
	at := fmt.Sprintf("%02d:%02d %s", spec.Hour, spec.Minute, spec.Zone)
	if s.Regions != nil {
		at = fmt.Sprintf("%02d:%02d in each of %s", spec.Hour, spec.Minute, strings.Join(s.Regions.Zones(), ", "))
	}
	var from string
	switch spec.Period {
	case rankgenrt.Daily:
		from = "daily from " + at
	case rankgenrt.Weekly:
		from = fmt.Sprintf("weekly from %s %s", spec.Weekday, at)
	case rankgenrt.Monthly:
		from = fmt.Sprintf("monthly from day %d %s", spec.Day, at)
	case rankgenrt.Yearly:
		from = fmt.Sprintf("yearly from %s %d %s", spec.Month, spec.Day, at)
	default:
		from = fmt.Sprintf("every %s from %s", shortDuration(spec.Every), spec.Origin.Format(time.RFC3339))
	}
	switch s.Keep {
	case 0:
		return from + ", no past season kept"
	case 1:
		return from + ", 1 past season kept"
	}
	return fmt.Sprintf("%s, %d past seasons kept", from, s.Keep)
}

// canonical is the season's line of the canonical form: the period, start and zone decide
// what an offset and a season id mean; keep only decides expiry, so it is left out. A regional
// layout's line says "regional" where the zone goes: a board's zone is in its key, and the
// zones listed only bound the widths, so that a zone added later shares the layout.
func (s *Season) Canonical() string {
	spec := s.Spec()
	zone := spec.Zone
	if s.Regions != nil {
		zone = "regional"
	}
	switch spec.Period {
	case rankgenrt.Fixed:
		return fmt.Sprintf("season every=%s origin=%d\n", spec.Every, spec.Origin.Unix())
	case rankgenrt.Weekly:
		return fmt.Sprintf("season week %s %02d:%02d %s\n", spec.Weekday, spec.Hour, spec.Minute, zone)
	case rankgenrt.Monthly:
		return fmt.Sprintf("season month %d %02d:%02d %s\n", spec.Day, spec.Hour, spec.Minute, zone)
	case rankgenrt.Yearly:
		return fmt.Sprintf("season year %02d-%02d %02d:%02d %s\n", int(spec.Month), spec.Day, spec.Hour, spec.Minute, zone)
	}
	return fmt.Sprintf("season day %02d:%02d %s\n", spec.Hour, spec.Minute, zone)
}

// OffsetOf is the offset a key of a season-anchored field stands for.
func (f *Field) OffsetOf(key uint64) time.Duration {
	return time.Duration(IntOf(key)) * f.Unit.Duration()
}

// seasonLifetime describes a season-anchored field: "20 bits of s from the season's start
// (up to 291h16m15s)".
func (f *Field) seasonLifetime() string {
	w := strings.Fields(f.WidthText())
	return fmt.Sprintf("%s %s of %s from the season's start (up to %s)", w[1], w[0], f.Unit, f.Format(f.Hi))
}
