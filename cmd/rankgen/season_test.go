package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

const weeklySchema = "../../examples/schemas/weekly.yaml"

func loadWeekly(t testing.TB) *layout.Layout {
	t.Helper()
	src, err := os.ReadFile(weeklySchema)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.Parse("weekly.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// cli runs rankgen in-process from examples/schemas and returns its exit code and output.
func seasonCLI(stdin string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runIn(&env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, dir: "../../examples/schemas"}, args)
	return code, stdout.String(), stderr.String()
}

// weeksAround are instants where Paris weeks are hard: the Monday 00:00 boundaries (a
// nanosecond and a second either side), and the weeks of the spring (167 h) and autumn (169 h)
// clock changes of 2026 and 2027, including the repeated hour of the autumn nights.
func weeksAround(t *testing.T) []time.Time {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	var out []time.Time
	for _, day := range []string{"2026-03-23", "2026-03-30", "2026-10-19", "2026-10-26", "2027-03-22", "2027-03-29", "2027-10-25", "2027-11-01", "2028-02-28"} {
		d, err := time.ParseInLocation("2006-01-02", day, paris)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d, d.Add(-time.Nanosecond), d.Add(time.Nanosecond), d.Add(-time.Second), d.Add(time.Second))
	}
	for _, at := range []string{
		"2026-03-29T01:59:59+01:00", "2026-03-29T03:00:00+02:00", "2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00",
		"2027-03-28T01:59:59.999999999+01:00", "2027-10-31T02:59:59+01:00", "2028-02-29T12:00:00Z",
	} {
		tm, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tm)
	}
	return out
}

// TestSeasonFlagAgreesWithGenerated: -season, as an instant or as an id, names the season the
// generated weekly package's Seasons.At gives, and explain's facts about it (bounds, length,
// key, neighbours) are the package's.
func TestSeasonFlagAgreesWithGenerated(t *testing.T) {
	l := loadWeekly(t)
	ss := weekly.NewSeasons(nil, "lb")
	lengths := map[time.Duration]bool{}
	for _, tm := range weeksAround(t) {
		want := ss.At(tm)
		for _, text := range []string{tm.Format(time.RFC3339Nano), strconv.FormatInt(want.ID, 10)} {
			got, err := parseSeason(l, text)
			if err != nil {
				t.Fatalf("-season %s: %v", text, err)
			}
			if got.ID != want.ID || !got.Start.Equal(want.Start) || !got.End.Equal(want.End) {
				t.Fatalf("-season %s = %v, the generated package says %v", text, got, want)
			}
		}
		d := seasonJSON(l, want)
		if d.Previous != ss.Prev(want).ID || d.Next != ss.Next(want).ID {
			t.Errorf("%v: neighbours %d, %d; the generated package says %d, %d", want, d.Previous, d.Next, ss.Prev(want).ID, ss.Next(want).ID)
		}
		if key := ss.Board(want).Key(); "lb"+d.KeySuffix != key {
			t.Errorf("%v: key lb%s, the generated board's is %s", want, d.KeySuffix, key)
		}
		start, err := time.Parse(time.RFC3339, d.Start)
		if err != nil || !start.Equal(want.Start) || d.StartUTC != want.Start.UTC().Format(time.RFC3339) || d.LengthSeconds != int64(want.Len()/time.Second) {
			t.Errorf("%v: explain says %+v", want, d)
		}
		lengths[want.Len()] = true
	}
	for _, h := range []time.Duration{167, 168, 169} {
		if !lengths[h*time.Hour] {
			t.Errorf("no week of %d h among the instants tried: the DST weeks are not covered", h)
		}
	}
}

// TestSeasonEncodeDecodeAgreesWithGenerated: encode -season turns an instant into the score
// the generated package stores for its offset (in whole seconds), and decode -season
// prints the instant the package's Decode and the season give, across DST weeks and at random
// instants of 100 weeks.
func TestSeasonEncodeDecodeAgreesWithGenerated(t *testing.T) {
	ss := weekly.NewSeasons(nil, "lb")
	wl := loadExample(t, "weekly.yaml")
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(11))
	instants := weeksAround(t)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 100; i++ {
		instants = append(instants, start.Add(time.Duration(rng.Int63n(int64(3*365*24*time.Hour)))))
	}
	for _, tm := range instants {
		s := ss.At(tm)
		id := strconv.FormatInt(s.ID, 10)
		offset := tm.Sub(s.Start).Truncate(time.Second) // the field's unit: a finer time is refused
		entry := weekly.Entry{PlayerID: "ann", Points: 5, ReachedAt: offset, Paid: true}
		score, member, err := entry.Encode()
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf(`{"PlayerID": "ann", "Points": 5, "ReachedAt": %q, "Paid": true}`, s.Start.Add(offset).In(tm.Location()).Format(time.RFC3339Nano))
		code, out, errs := seasonCLI(line+"\n", "encode", "-schema", "weekly.yaml", "-season", id)
		if want := encodingJSON(wl, score, member) + "\n"; code != 0 || out != want {
			t.Fatalf("encode -season %s of %s: exit %d, %q%s; the generated package stores %q", id, line, code, out, errs, want)
		}
		code, out, errs = seasonCLI("", "decode", "-schema", "weekly.yaml", "-season", tm.Format(time.RFC3339Nano), formatScore(score), member)
		var got struct {
			ReachedAt string
			Season    int64 `json:"season"`
			At        struct{ ReachedAt string }
		}
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("decode -season: exit %d, %q%s", code, out, errs)
		}
		back, err := weekly.Decode(score, member)
		if err != nil {
			t.Fatal(err)
		}
		want := s.Start.Add(back.ReachedAt).In(paris).Format(time.RFC3339) // Paris wall clock and offset
		if got.At.ReachedAt != want || got.Season != s.ID || got.ReachedAt != back.ReachedAt.String() {
			t.Fatalf("decode -season of %s prints %s; the generated package gives %s (%s) in season %d", tm, out, want, back.ReachedAt, s.ID)
		}
		code, again, errs := seasonCLI(out, "encode", "-schema", "weekly.yaml")
		if code != 0 || again != encodingJSON(wl, score, member)+"\n" {
			t.Fatalf("decode -season | encode: %q, exit %d %s", again, code, errs)
		}
	}
}

// TestSeasonExplainOnRedis: the expiry explain -season prints is the one a write by the
// generated package sets on a real server, and the key is the board's.
func TestSeasonExplainOnRedis(t *testing.T) {
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	l := loadWeekly(t)
	ss := weekly.NewSeasons(c, "{lb}:weekly")
	// The autumn week of 2027 (169 h), in the future so its keys do not expire at once.
	s := ss.At(time.Date(2027, 10, 27, 12, 0, 0, 0, time.UTC))
	code, out, errs := seasonCLI("", "explain", "-json", "-season", strconv.FormatInt(s.ID, 10), "weekly.yaml")
	var doc struct{ Season seasonDoc }
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("explain -json -season: exit %d %s", code, errs)
	}
	b := ss.Board(s)
	if _, err := b.Set(ctx, weekly.Entry{PlayerID: "ann", Points: 5, ReachedAt: 168*time.Hour + 59*time.Minute, Paid: true}); err != nil {
		t.Fatal(err)
	}
	ms, err := c.Do(ctx, "PEXPIRETIME", b.Key()).Int64()
	if err != nil {
		t.Fatal(err)
	}
	expires, err := time.Parse(time.RFC3339, doc.Season.ExpiresUTC)
	if err != nil || expires.UnixMilli() != ms {
		t.Errorf("explain says the board expires at %s; the server has %s", doc.Season.ExpiresUTC, time.UnixMilli(ms).UTC())
	}
	if "{lb}:weekly"+doc.Season.KeySuffix != b.Key() || doc.Season.LengthSeconds != 169*3600 {
		t.Errorf("explain's season %+v; the board's key is %s", doc.Season, b.Key())
	}
	if want := seasonJSON(l, s); *want != doc.Season {
		t.Errorf("explain -json's season %+v, seasonJSON %+v", doc.Season, *want)
	}
	score, err := c.ZScore(ctx, b.Key(), "ann").Result()
	if err != nil {
		t.Fatal(err)
	}
	line := `{"PlayerID": "ann", "Points": 5, "ReachedAt": "` + s.Start.Add(168*time.Hour+59*time.Minute).Format(time.RFC3339) + `", "Paid": true}`
	if code, out, errs := seasonCLI(line+"\n", "encode", "-schema", "weekly.yaml", "-season", strconv.FormatInt(s.ID, 10)); code != 0 || out != encodingJSON(l, score, "ann")+"\n" {
		t.Errorf("encode -season of the stored instant: exit %d, %q%s; the board stores %s", code, out, errs, formatScore(score))
	}
}

// TestSeasonExpiryKeep: the expiry is the end of the keep-th season after it, and a layout
// that keeps none expires at the season's own end.
func TestSeasonExpiryKeep(t *testing.T) {
	src, err := os.ReadFile(weeklySchema)
	if err != nil {
		t.Fatal(err)
	}
	for keep, want := range map[int]string{0: "2026-11-30T00:00:00+01:00", 1: "2026-12-07T00:00:00+01:00", 4: "2026-12-28T00:00:00+01:00"} {
		l, err := layout.Parse("weekly.yaml", bytes.Replace(src, []byte("keep: 4"), []byte("keep: "+strconv.Itoa(keep)), 1))
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseSeason(l, "1795388400")
		if err != nil {
			t.Fatal(err)
		}
		if got := seasonJSON(l, s).Expires; got != want {
			t.Errorf("keep: %d: expires %s, want %s", keep, got, want)
		}
	}
}

// TestDocumentedSeasonSamples keeps the CLI reference's -season samples true: the season
// paragraph explain prints, the refusal of an id that starts no season, and a decoded line.
func TestDocumentedSeasonSamples(t *testing.T) {
	readme := readDoc(t, cliDoc)
	indent := func(s string) string {
		return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
	}
	_, out, _ := seasonCLI("", "explain", "-season", "2026-10-21T12:00:00Z", "weekly.yaml")
	_, paragraph, _ := strings.Cut(out, "\n\nseason ")
	if !strings.Contains(readme, "    $ rankgen explain -season 2026-10-21T12:00:00Z examples/schemas/weekly.yaml\n    …\n"+indent("season "+paragraph)) {
		t.Errorf(cliDoc+": the explain -season sample is out of date; the command prints:\n%s", indent("season "+paragraph))
	}
	_, _, errs := seasonCLI("", "explain", "-season", "1795388401", "weekly.yaml")
	msg := strings.TrimPrefix(strings.TrimSuffix(errs, "\n"), "rankgen explain: ")
	if flat := strings.Join(strings.Fields(readme), " "); !strings.Contains(flat, "(`"+msg+"`)") {
		t.Errorf(cliDoc+": the refusal of an id that starts no season is out of date; the command prints:\n%s", msg)
	}
	_, out, _ = seasonCLI("", "decode", "-schema", "weekly.yaml", "-season", "2026-11-25T12:00:00Z", "12510911", "ann")
	if !strings.Contains(readme, "    $ rankgen decode -schema examples/schemas/weekly.yaml -season 2026-11-25T12:00:00Z 12510911 ann\n"+indent(out)) {
		t.Errorf(cliDoc+": the decode -season sample is out of date; the command prints:\n%s", out)
	}
}

// TestInZoneExact: every instant inZone writes parses back to itself, also where the zone's
// offset has seconds (Paris's local mean time before 1911), which RFC 3339 cannot write.
func TestInZoneExact(t *testing.T) {
	l := loadWeekly(t)
	for _, tm := range append(weeksAround(t), time.Date(1900, 6, 1, 12, 0, 0, 0, time.UTC), time.Date(0, 6, 1, 0, 0, 0, 0, time.UTC)) {
		for _, at := range []time.Time{tm, l.Season.Calendar.At(tm).Start} {
			back, err := time.Parse(time.RFC3339Nano, inZone(l, at))
			if err != nil || !back.Equal(at) {
				t.Errorf("inZone(%v) = %s, which reads back as %v", at, inZone(l, at), back)
			}
		}
	}
}
