package boardtest

import (
	"testing"
	"time"

	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// seasonMargin is how long, at least, the season of liveSeason still lasts: far longer than
// any test that takes it runs (seconds).
const seasonMargin = 2 * time.Minute

// liveSeason returns the season (of the calendar seasonAt) that holds Redis's clock now and
// for at least seasonMargin more (exampleboards.LiveSeason): that of a board whose stamped
// writes must all succeed during a test that has no model of the season's end, which the
// differential test has. Near the end of a season it waits for the next one, at most
// seasonMargin; a run that outlasts its season fails.
func liveSeason(t *testing.T, c redis.UniversalClient, seasonAt func(time.Time) rankgenrt.Season) rankgenrt.Season {
	t.Helper()
	return exampleboards.LiveSeason(t, c, seasonAt, seasonMargin)
}

// liveBoard returns ex's board under key: for a periodic example, that of liveSeason.
func liveBoard(t *testing.T, c redis.UniversalClient, ex example, key string) any {
	t.Helper()
	if ex.seasonAt == nil {
		return ex.newBoard(c, key)
	}
	return ex.boardIn(c, key, liveSeason(t, c, ex.seasonAt))
}
