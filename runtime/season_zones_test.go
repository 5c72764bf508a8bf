package runtime

import (
	"archive/zip"
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"math/rand"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
	_ "time/tzdata" // the zone names below come from this database; load them from it too
)

// embeddedZones lists the zones of the database Go embeds (time/tzdata), which periodic
// generated packages embed too, read from the package's source, there wherever Go is. Names
// whose data is the same (links such as US/Eastern) are listed once.
func embeddedZones(t *testing.T) []string {
	t.Helper()
	pkg, err := build.Import("time/tzdata", "", build.FindOnly)
	if err != nil {
		t.Fatal(err)
	}
	file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(pkg.Dir, "zzipdata.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var data string
	ast.Inspect(file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && data == "" {
			data, err = strconv.Unquote(lit.Value)
		}
		return data == ""
	})
	if err != nil || data == "" {
		t.Fatalf("no zone archive in %s: %v", pkg.Dir, err)
	}
	archive, err := zip.NewReader(bytes.NewReader([]byte(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	type content struct {
		crc  uint32
		size uint64
	}
	seen := map[content]bool{}
	var names []string
	for _, f := range archive.File {
		if key := (content{f.CRC32, f.UncompressedSize64}); !seen[key] {
			seen[key] = true
			names = append(names, f.Name)
		}
	}
	if len(names) < 300 {
		t.Fatalf("only %d zones in the embedded database", len(names))
	}
	return names
}

// zoneCalendars are the civil calendars a zone is checked with: every period, starting at
// midnight, on times a clock change skips or repeats somewhere (00:00 and 00:30 in Havana and
// Santiago, 01:00 to 03:00 in most zones, 23:30 in some), and on days before and after ones
// skipped whole.
func zoneCalendars(zone string, short bool) []CalendarSpec {
	clocks := [][2]int{{0, 0}, {0, 30}, {1, 0}, {2, 30}, {23, 30}}
	if short {
		clocks = [][2]int{{0, 0}, {2, 30}}
	}
	var specs []CalendarSpec
	for i, hm := range clocks {
		h, m := hm[0], hm[1]
		specs = append(specs,
			CalendarSpec{Period: Daily, Hour: h, Minute: m, Zone: zone},
			CalendarSpec{Period: Weekly, Weekday: time.Weekday((i + 5) % 7), Hour: h, Minute: m, Zone: zone}, // Friday first: Apia skipped Friday 2011-12-30
			CalendarSpec{Period: Monthly, Day: []int{1, 28}[i%2], Hour: h, Minute: m, Zone: zone},
			CalendarSpec{Period: Yearly, Month: time.Month(i%12*5%12 + 1), Day: 1 + i*6, Hour: h, Minute: m, Zone: zone})
	}
	return specs
}

// TestCalendarsTileEveryZone is the calendar's contract, in every zone of the database, for
// every period and start times clock changes skip or repeat: over ten years, each season
// starts where the one before ended, is not empty, is no longer than Longest, and is found
// again by At at its start and last instant, by Prev from the next and by ByID; At maps every
// instant around each of the zone's clock changes, and random instants of 1970–2190, into the
// walked season that contains it. -short walks two years with two start times.
func TestCalendarsTileEveryZone(t *testing.T) {
	from, to := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	if testing.Short() {
		from = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	zones := embeddedZones(t)
	const groups = 8
	for g := range groups {
		t.Run(fmt.Sprintf("group%d", g), func(t *testing.T) {
			t.Parallel()
			for i := g; i < len(zones); i += groups {
				for _, spec := range zoneCalendars(zones[i], testing.Short()) {
					checkCalendarTiles(t, spec, from, to, rand.New(rand.NewSource(int64(i))))
				}
			}
		})
	}
}

func checkCalendarTiles(t *testing.T, spec CalendarSpec, from, to time.Time, rng *rand.Rand) {
	t.Helper()
	c := mustCal(t, spec)
	name := fmt.Sprintf("%s %v at %02d:%02d (weekday %d, month %d, day %d)", spec.Zone, spec.Period, spec.Hour, spec.Minute, spec.Weekday, spec.Month, spec.Day)
	var walked []Season
	for s := c.At(from); s.Start.Before(to); {
		if s.Len() <= 0 || s.Len() > c.Longest() || s.ID != s.Start.Unix() {
			t.Fatalf("%s: %v lasts %v (longest %v)", name, s, s.Len(), c.Longest())
		}
		if got, err := c.ByID(s.ID); err != nil || got != s { // At(s.Start)
			t.Fatalf("%s: ByID(%d) = %v, %v; want %v", name, s.ID, got, err, s)
		}
		next := c.Next(s)
		if next.Start != s.End {
			t.Fatalf("%s: Next(%v) = %v", name, s, next)
		}
		if got := c.Prev(next); got != s { // At(s.End - 1ns)
			t.Fatalf("%s: Prev(%v) = %v; want %v", name, next, got, s)
		}
		walked = append(walked, s)
		s = next
	}
	// The walked seasons tile [walked[0].Start, end); At must agree with them around every
	// clock change in it.
	end := walked[len(walked)-1].End
	probe := func(at time.Time) {
		i := sort.Search(len(walked), func(i int) bool { return walked[i].End.After(at) })
		if got := c.At(at); got != walked[i] || !got.Contains(at) {
			t.Fatalf("%s: At(%v) = %v; want %v", name, at, got, walked[i])
		}
	}
	for at := walked[0].Start; ; {
		_, change := at.In(c.loc).ZoneBounds()
		if change.IsZero() || !change.Before(end) {
			break
		}
		for _, d := range []time.Duration{-time.Hour, -time.Nanosecond, 0, time.Nanosecond, time.Hour} {
			if at := change.Add(d); !at.Before(walked[0].Start) && at.Before(end) {
				probe(at)
			}
		}
		at = change
	}
	for range 8 {
		probe(walked[0].Start.Add(time.Duration(rng.Int63n(int64(end.Sub(walked[0].Start))))))
	}
	// Random instants anywhere the calendar's Longest holds.
	for range 8 {
		at := time.Unix(rng.Int63n(220*365*86400), rng.Int63n(1e9))
		s := c.At(at)
		if !s.Contains(at) || s.Len() <= 0 || s.Len() > c.Longest() || c.Next(s).Start != s.End || c.Prev(s).End != s.Start || c.Prev(c.Next(s)) != s {
			t.Fatalf("%s: At(%v) = %v (longest %v)", name, at, s, c.Longest())
		}
	}
}
