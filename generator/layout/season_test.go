package layout_test

import (
	"strconv"
	"strings"
	"testing"

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
