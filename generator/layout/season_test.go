package layout_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
)

func weeklySchema(season string) string {
	return "package: w\nid: {name: ID}\nseason: " + season + `
fields:
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: ReachedAt, type: time, unit: s, epoch: season, bits: 20, order: asc}
`
}

// TestSeasonFingerprint: the period, start and zone decide what an offset means, so they are
// in the fingerprint; keep only decides expiry, so it is not.
func TestSeasonFingerprint(t *testing.T) {
	base := mustParse(t, weeklySchema("{every: week, starts: monday 00:00, zone: Europe/Paris, keep: 4}"))
	if got := mustParse(t, weeklySchema("{every: week, starts: monday 00:00, zone: Europe/Paris, keep: 9}")); got.Fingerprint != base.Fingerprint {
		t.Errorf("keep changed the fingerprint")
	}
	for _, other := range []string{
		"{every: week, starts: sunday 00:00, zone: Europe/Paris, keep: 4}",
		"{every: week, starts: monday 01:00, zone: Europe/Paris, keep: 4}",
		"{every: week, starts: monday 00:00, zone: UTC, keep: 4}",
		"{every: 168h, keep: 4}",
	} {
		if got := mustParse(t, weeklySchema(other)); got.Fingerprint == base.Fingerprint {
			t.Errorf("%s: same fingerprint as the Paris week", other)
		}
	}
	if !strings.Contains(base.Canonical, "season week Monday 00:00 Europe/Paris\n") || !strings.Contains(base.Canonical, "epoch=season") {
		t.Errorf("canonical form:\n%s", base.Canonical)
	}
	want := "season: weekly from Monday 00:00 Europe/Paris, 4 past seasons kept"
	if !strings.Contains(base.Table(), want) || !strings.Contains(base.Table(), "ReachedAt: 20 bits of s from the season's start") {
		t.Errorf("table lacks %q:\n%s", want, base.Table())
	}
}

// TestSeasonWidths: the longest season of each period decides the width a field needs.
func TestSeasonWidths(t *testing.T) {
	for _, tc := range []struct {
		season, unit string
		bits         int
		ok           bool
	}{
		{"{every: day, zone: UTC}", "s", 17, true},               // 86,400 < 2^17
		{"{every: day, zone: Europe/Paris}", "ms", 27, true},     // 90,000,000 < 2^27
		{"{every: month, zone: UTC}", "s", 22, true},             // 2,678,400 < 2^22
		{"{every: year, zone: America/New_York}", "s", 25, true}, // 31,626,000 < 2^25
		{"{every: year, zone: America/New_York}", "s", 24, false},
		{"{every: 2s}", "ms", 11, true}, // 2,000 < 2^11
		{"{every: 3s}", "ms", 11, false},
	} {
		src := "package: w\nid: {name: ID}\nseason: " + tc.season + "\nfields:\n  - {name: At, type: time, unit: " + tc.unit +
			", epoch: season, bits: " + strconv.Itoa(tc.bits) + ", order: asc}\n"
		_, err := layout.Parse("w.yaml", []byte(src))
		if (err == nil) != tc.ok {
			t.Errorf("%s in %s, bits %d: %v", tc.season, tc.unit, tc.bits, err)
		}
	}
}

// TestRegionalSeason: a season with zones bounds its widths by the longest season of every
// zone it lists; its fingerprint says "regional" where a zone goes, so that a zone added later
// shares the layout, while one zone (or none) is another layout.
func TestRegionalSeason(t *testing.T) {
	regional := mustParse(t, weeklySchema("{every: week, zones: [Asia/Tokyo, Europe/Paris], keep: 4}"))
	if got := regional.Season.Longest(); got != 169*time.Hour {
		t.Errorf("longest week of Tokyo and Paris: %v; want Paris's 169h", got)
	}
	if got := mustParse(t, weeklySchema("{every: week, zones: [Asia/Tokyo], keep: 4}")).Season.Longest(); got != 168*time.Hour {
		t.Errorf("longest week of Tokyo: %v; want 168h", got)
	}
	if !strings.Contains(regional.Canonical, "season week Monday 00:00 regional\n") {
		t.Errorf("canonical form:\n%s", regional.Canonical)
	}
	if more := mustParse(t, weeklySchema("{every: week, zones: [Asia/Tokyo, Europe/Paris, America/New_York], keep: 4}")); more.Fingerprint != regional.Fingerprint {
		t.Errorf("a zone added changed the fingerprint")
	}
	if one := mustParse(t, weeklySchema("{every: week, zone: Europe/Paris, keep: 4}")); one.Fingerprint == regional.Fingerprint {
		t.Errorf("one zone and a regional season share a fingerprint")
	}
	want := "season: weekly from Monday 00:00 in each of Asia/Tokyo, Europe/Paris, 4 past seasons kept; one board per zone and season under <key>:<zone>:<season id>"
	if !strings.Contains(regional.Table(), want) {
		t.Errorf("table lacks %q:\n%s", want, regional.Table())
	}
	_, err := layout.Parse("w.yaml", []byte("package: w\nid: {name: ID}\nseason: {every: week, zones: [Asia/Tokyo, Europe/Paris]}\nfields:\n  - {name: At, type: time, unit: s, epoch: season, order: asc}\n"))
	if want := "(the longest season is 608400 s (a week and 1h of daylight saving in Europe/Paris))"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a regional season-anchored field without a width: %v; want it to name %q", err, want)
	}
	for zone, want := range map[string]string{"Europe/Paris": "ZoneEuropeParis", "America/Port-au-Prince": "ZoneAmericaPortAuPrince",
		"Etc/GMT+5": "ZoneEtcGMTPlus5", "Etc/GMT-5": "ZoneEtcGMTMinus5", "America/Argentina/Buenos_Aires": "ZoneAmericaArgentinaBuenosAires", "UTC": "ZoneUTC"} {
		if got := layout.ZoneConst(zone); got != want {
			t.Errorf("ZoneConst(%q) = %q; want %q", zone, got, want)
		}
	}
}
