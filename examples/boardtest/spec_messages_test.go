package boardtest

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// mentions fails the test unless the message of err contains every one of wants.
func mentions(t *testing.T, what string, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

// parisTime is an RFC 3339 instant with Paris's offset (winter or summer), to the second or
// finer.
var parisTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+0[12]:00`)

// TestSeasonClosedSaysTheTimes: a stamp the script refuses for its clock reading outside the
// board's season (last week's weekly board, stamped by Redis's clock now) says the refused time
// and the season's bounds as RFC 3339 in the season's zone (Europe/Paris), never raw
// microseconds, and what to do (Seasons.Live, Seasons.At); it still matches ErrSeasonClosed and
// still gives Live the script's clock (SeasonClock). A season-anchored value refused in Go says
// the fix too.
func TestSeasonClosedSaysTheTimes(t *testing.T) {
	c := redistest.Client(t)
	ss := weekly.NewSeasons(c, redistest.Key(t, "{closed}"))
	live := exampleboards.LiveSeason(t, c, ss.At, seasonMargin) // Redis's clock stays in it
	last := ss.Prev(live)
	_, err := ss.Board(last).AddPoints(ctx, "ann", 1)
	if !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Fatalf("a stamp on last week's board: %v; want ErrSeasonClosed", err)
	}
	mentions(t, "a closed season's stamp", err, "ReachedAt", last.Start.Format(time.RFC3339), last.End.Format(time.RFC3339), strconv.FormatInt(last.ID, 10), "Seasons.Live", "Seasons.At")
	if strings.Contains(err.Error(), strconv.FormatInt(last.Start.UnixMicro(), 10)) || strings.Contains(err.Error(), "us ") {
		t.Errorf("the message shows raw microseconds: %q", err)
	}
	at, ok := rankgenrt.SeasonClock(err)
	if !ok || !live.Contains(at) {
		t.Errorf("SeasonClock = %v, %v; want a time of the current week", at, ok)
	}
	if !strings.Contains(err.Error(), at.In(last.Start.Location()).Format(rankgenrt.TimeFormat)) || len(parisTime.FindAllString(err.Error(), -1)) < 3 {
		t.Errorf("the refused time is not said in Paris's time: %q", err)
	}

	_, err = ss.Board(last).Set(ctx, weekly.Entry{PlayerID: "ann", ReachedAt: last.Len() + time.Hour})
	if !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Fatalf("an offset past the week: %v; want ErrSeasonClosed", err)
	}
	mentions(t, "an offset past the season", err, "ReachedAt", last.End.Format(time.RFC3339), "Seasons.At")
}

// TestLayoutMismatchSaysWhatToDo: a board another layout wrote is refused with a message that
// names both layouts and says what to do: migrate the board (rankgen migrate, the online
// migration guide) or use a new key.
func TestLayoutMismatchSaysWhatToDo(t *testing.T) {
	c := redistest.Client(t)
	ss := weekly.NewSeasons(c, redistest.Key(t, "{mismatch}"))
	b := ss.Board(ss.Current())
	if err := c.Set(ctx, rankgenrt.MetaKey(b.Key()), "f32690611a53ed90", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, werr := b.Set(ctx, weekly.Entry{PlayerID: "ann", Points: 1})
	_, rerr := b.Get(ctx, "ann")
	for what, err := range map[string]error{"a write": werr, "a read": rerr} {
		if !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Fatalf("%s of another layout's board: %v; want ErrLayoutMismatch", what, err)
		}
		mentions(t, what, err, "f32690611a53ed90", weekly.Fingerprint, "rankgen migrate", "docs/online-migration.md", "new key")
	}
}

// TestRollupLastSaysKeep: a RollupSpec.Last past the seasons kept says that the limit is the
// schema's keep (4 on weekly: at most 5 seasons).
func TestRollupLastSaysKeep(t *testing.T) {
	c := redistest.Client(t)
	ss := weekly.NewSeasons(c, redistest.Key(t, "{rolluplast}"))
	_, err := ss.Rollup(ctx, weekly.RollupSpec{Field: weekly.RollupPoints, Op: weekly.RollupSum, Last: 8, TTL: time.Minute})
	var re *rankgenrt.RangeError
	if !errors.Is(err, rankgenrt.ErrOutOfRange) || !errors.As(err, &re) || re.Field != "RollupSpec.Last" || re.Max != "5" {
		t.Fatalf("Last 8: %v; want a RangeError of RollupSpec.Last up to 5", err)
	}
	mentions(t, "Last 8", err, "RollupSpec.Last = 8", "keep", "4")
}
