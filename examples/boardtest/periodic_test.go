package boardtest

import (
	"testing"
	"time"

	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// seasonMargin is how long, at least, the season of liveSeason still lasts: far longer than
// any test that takes it runs (seconds).
const seasonMargin = 2 * time.Minute

// liveSeason returns the season of a periodic example that holds Redis's clock now and for at
// least seasonMargin more: the season of a board whose stamped writes must all succeed during
// a test that has no model of the season's end (which the differential test has). Within the
// margin of a season's end (Sunday 23:58 in Paris for weekly) it waits for the next season to
// start, rather than let the end refuse the test's writes: at most seasonMargin, once a week.
// When the test ends, Redis's clock must still be inside the season: the run did not outlast
// the margin.
func liveSeason(t *testing.T, c redis.UniversalClient, seasonAt func(time.Time) rankgenrt.Season) rankgenrt.Season {
	t.Helper()
	now := serverNow(t, c)
	s := seasonAt(now)
	if s.End.Sub(now) < seasonMargin {
		t.Logf("%v ends in %v: waiting for the next season", s, s.End.Sub(now))
		time.Sleep(s.End.Sub(now) + 10*time.Millisecond)
		s = seasonAt(serverNow(t, c))
	}
	if s.Len() < 2*seasonMargin {
		t.Fatalf("seasons of %v are too short for liveSeason", s.Len())
	}
	t.Cleanup(func() {
		if now, err := c.Time(ctx).Result(); err == nil && !s.Contains(now) {
			t.Errorf("the run outlasted its season %v (now %v): raise seasonMargin", s, now)
		}
	})
	return s
}

// liveBoard returns ex's board under key: for a periodic example, that of liveSeason.
func liveBoard(t *testing.T, c redis.UniversalClient, ex example, key string) any {
	t.Helper()
	if ex.seasonAt == nil {
		return ex.newBoard(c, key)
	}
	return ex.boardIn(c, key, liveSeason(t, c, ex.seasonAt))
}
