package main

import (
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// FuzzSeasonLines feeds arbitrary lines to the weekly schema's encode and decode with a
// -season (the 169-hour autumn week in Paris) and as -season's text: never a panic; an entry
// that encodes decodes (with its season and instants) to a line that encodes to the same pair.
func FuzzSeasonLines(f *testing.F) {
	l := loadWeekly(f)
	season := l.Season.Calendar.At(time.Date(2026, 10, 21, 12, 0, 0, 0, time.UTC))
	for _, s := range []string{
		`{"PlayerID": "ann", "Points": 5, "ReachedAt": "2026-10-25T23:59:59.999+01:00", "Paid": true}`,
		`{"PlayerID": "ann", "Points": 5, "ReachedAt": "168h59m59s", "Paid": true, "season": 1792360800, "at": {"ReachedAt": "2026-10-25T23:59:59+01:00"}}`,
		`{"PlayerID": "ann", "Points": 5, "ReachedAt": "2026-10-25T02:30:00+01:00", "Paid": false, "season": "2026-10-21T12:00:00Z"}`,
		`{"PlayerID": "ann", "Points": 5, "ReachedAt": "1s", "Paid": true, "at": {"ReachedAt": null}}`,
		`{"score": 11366113, "member": "bob"}`, `{"score": 11142911}`,
		`1792360800`, `1792360801`, `-0`, `+1792360800`, `2026-10-25T02:30:00+01:00`, `99999999999999999999`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if _, err := parseSeason(l, line); err == nil && len(line) > 64 {
			t.Fatalf("-season %q accepted: no season id or RFC 3339 time is that long", line)
		}
		e, err := entryFromJSON(l, &season, []byte(line))
		if err != nil {
			decodeLine(l, &season, line)
			return
		}
		score, member, err := l.Encode(e)
		if err != nil {
			return
		}
		out, err := decodeJSON(l, &season, score, member, true, nil)
		if err != nil {
			t.Fatalf("%s encodes to (%v, %q), which decode -season refuses: %v", line, score, member, err)
		}
		back, err := entryFromJSON(l, &season, []byte(out))
		if err != nil {
			t.Fatalf("decode -season prints %s, which encode -season refuses: %v", out, err)
		}
		score2, member2, err := l.Encode(back)
		if err != nil || score2 != score || member2 != member {
			t.Fatalf("%s → (%v, %q) → %s → (%v, %q, %v)", line, score, member, out, score2, member2, err)
		}
	})
}

// decodeLine runs decode -season's reading of a line, for its panics.
func decodeLine(l *layout.Layout, season *rankgenrt.Season, line string) {
	score, member, has, err := encodingFromJSON(l, []byte(line))
	if err == nil {
		decodeJSON(l, season, score, member, has, nil)
	}
}
