package boardtest

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/generated/ladders"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// raiseFence holds the migration fence of the board key, as rankgen migrate does, towards a
// layout of another fingerprint, for a minute.
func raiseFence(t *testing.T, c redis.UniversalClient, key string) {
	t.Helper()
	fence := rankgenrt.FenceKey(key)
	if err := c.HSet(ctx, fence, "layout", "0123456789abcdef", "refused", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.PExpire(ctx, fence, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
}

// checkFenced fails unless err is a fence's refusal (a *MigratingError, ErrMigrating and
// ErrRetry) and not ErrUncertain: the script said nothing was written.
func checkFenced(t *testing.T, what string, err error) {
	t.Helper()
	var me *rankgenrt.MigratingError
	if !errors.As(err, &me) || !errors.Is(err, rankgenrt.ErrMigrating) || !errors.Is(err, rankgenrt.ErrRetry) || me.Layout != "0123456789abcdef" {
		t.Errorf("%s under a fence: %v; want a *MigratingError towards layout 0123456789abcdef", what, err)
	}
	if errors.Is(err, rankgenrt.ErrUncertain) {
		t.Errorf("%s under a fence: %v matches ErrUncertain; want a definite refusal", what, err)
	}
}

// TestFencedWritesAreRefusals: every write method of the blitz and weekly boards, single and
// batch (every write script of each library), RemoveEverywhere across the weekly boards and a
// ladders feed, refused by a migration's fence, is a *MigratingError that does not match
// ErrUncertain (it used to: the fence's refusal read as a lost reply), and the fence is all the
// boards' keys hold.
func TestFencedWritesAreRefusals(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		t.Run("blitz", func(t *testing.T) {
			base := redistest.Key(t, "{blitz}")
			b := blitz.NewSeasons(c, base).Board(blitz.NewSeasons(c, base).Current())
			raiseFence(t, c, b.Key())
			writes := blitzWrites(b)
			checkEveryWriteScript(t, filepath.Join("internal", "season", "blitz", "blitz.yaml"), filepath.Join("internal", "season", "blitz"), "blitz", writes)
			for _, w := range writes {
				checkFenced(t, w.script, w.call(ctx))
			}
			checkOnlyFences(t, c, base)
		})
		t.Run("weekly", func(t *testing.T) {
			base := redistest.Key(t, "{weekly}")
			ss := weekly.NewSeasons(c, base)
			b := ss.Board(ss.Current())
			raiseFence(t, c, b.Key())
			writes := weeklyWrites(b)
			checkEveryWriteScript(t, "weekly.yaml", filepath.Join("..", "generated", "weekly"), "weekly", writes)
			writes = append(writes, expiredWrite{"remove_everywhere", func(ctx context.Context) error {
				_, err := ss.RemoveEverywhere(ctx, []string{"p"})
				return err
			}})
			for _, w := range writes {
				checkFenced(t, w.script, w.call(ctx))
			}
			checkOnlyFences(t, c, base)
		})
		t.Run("feed", func(t *testing.T) {
			game := redistest.Key(t, "game")
			feed := ladders.NewSubmitFeed(c, ladders.SubmitKeys{Game: game, Day: "d1", Week: "w1"})
			run := feedRun("p0", 100, 0, ladders.RegionEu)
			raiseFence(t, c, feed.BoardKeys(run)[2]) // a board after the first: the feed's own check
			_, err := feed.Submit(ctx, run)
			checkFenced(t, "Submit", err)
			raiseFence(t, c, feed.BoardKeys(run)[0])
			_, err = feed.SubmitRanked(ctx, run)
			checkFenced(t, "SubmitRanked", err)
			checkOnlyFences(t, c, "{"+game+"}")
		})
	})
}

// checkOnlyFences fails unless the keys under base are fences: the refused writes wrote
// nothing, their tokens' records included.
func checkOnlyFences(t *testing.T, c redis.UniversalClient, base string) {
	t.Helper()
	keys := keysUnder(t, c, base)
	if i := slices.IndexFunc(keys, func(k string) bool { return !strings.HasSuffix(k, ":migrate:fence") }); i >= 0 {
		t.Errorf("refused writes left %q among %v", keys[i], keys)
	}
}
