package runtime

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/redis/go-redis/v9"
)

// ErrUnknownZone matches a time zone a regional layout's schema does not list: its seasons'
// widths were checked for the listed zones only.
var ErrUnknownZone = errors.New("rankgen: time zone not served by this board")

// Regions are the calendars of a regional layout (a season block with zones:): one period
// and start, on each listed zone's wall clock. Each zone's seasons are boards of their own,
// under <base>:<zone>, so that regions never share a board. It is immutable and safe for
// concurrent use.
type Regions struct {
	zones []string
	cals  []*Calendar
}

// NewRegions returns the calendars of spec (its Zone ignored) in each of zones.
func NewRegions(spec CalendarSpec, zones ...string) (*Regions, error) {
	if len(zones) == 0 {
		return nil, errors.New("rankgen: a regional calendar lists at least one zone")
	}
	r := &Regions{}
	for _, z := range zones {
		spec.Zone = z
		cal, err := NewCalendar(spec)
		if err != nil {
			return nil, err
		}
		r.zones, r.cals = append(r.zones, z), append(r.cals, cal)
	}
	return r, nil
}

// MustRegions is NewRegions for zones the generator validated.
func MustRegions(spec CalendarSpec, zones ...string) *Regions {
	r, err := NewRegions(spec, zones...)
	if err != nil {
		panic(err)
	}
	return r
}

// Zones are the zones served, as the schema lists them.
func (r *Regions) Zones() []string { return append([]string(nil), r.zones...) }

// In is the calendar of zone, or an error matching ErrUnknownZone naming the zones served.
func (r *Regions) In(zone string) (*Calendar, error) {
	for i, z := range r.zones {
		if z == zone {
			return r.cals[i], nil
		}
	}
	return nil, fmt.Errorf("%w: %s; it serves %s", ErrUnknownZone, quote.Short(zone), strings.Join(r.zones, ", "))
}

// Longest bounds the length of every season of every zone.
func (r *Regions) Longest() time.Duration {
	var d time.Duration
	for _, c := range r.cals {
		d = max(d, c.Longest())
	}
	return d
}

// Expiry is when the board of season s expires when keep finished seasons stay readable, on
// the calendar of s's zone (the location of s.Start, as every calendar of r makes it). A
// season of no zone r serves gets the latest bound any zone allows, so that it never expires
// before its zone's calendar would have it.
func (r *Regions) Expiry(s Season, keep int) time.Time {
	if cal, err := r.In(s.Start.Location().String()); err == nil {
		if got, err := cal.ByID(s.ID); err == nil && got.End.Equal(s.End) {
			return cal.Expiry(s, keep)
		}
	}
	return s.End.Add(time.Duration(keep) * r.Longest())
}

// RegionBase is the base key of zone's seasons under base: <base>:<zone>.
func RegionBase(base, zone string) string { return base + ":" + zone }

// NewRegionSeasons returns the seasons of a regional layout's board in zone, under
// RegionBase(base, zone): spec with zone's calendar. A zone r does not serve is an error
// matching ErrUnknownZone.
func NewRegionSeasons[B any, I ID, R, SR any](c redis.UniversalClient, base, zone string, r *Regions, spec *SeasonsSpec[B, I, R, SR]) (*Seasons[B, I, R, SR], error) {
	cal, err := r.In(zone)
	if err != nil {
		return nil, err
	}
	zoned := *spec
	zoned.Calendar = cal
	return NewSeasons(c, RegionBase(base, zone), &zoned), nil
}
