package boardtest

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/daily"
	"github.com/rankgen/rankgen/examples/generated/ladders"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestWritesLogChanges drives every example board with the differential's random operations
// (every write and read the board has, checked against the model) under the fence rankgen
// migrate raises while it copies a board, which lets the board's own layout write and has each
// write log the ids it changes: after every operation, every id whose entry or data changed is
// in the board's change log (rankgenrt.ChangeLogKey), which the migration copies again before
// its switch. A write that changed an id without logging it would lose that change.
func TestWritesLogChanges(t *testing.T) {
	c := redistest.Client(t)
	for _, ex := range append(withPeriodic(), dailyExample) {
		t.Run(ex.name, func(t *testing.T) {
			board := ex.newBoard(c, redistest.Key(t, "board"))
			w := &logWatch{}
			runDifferentialOn(t, c, ex, board, 42, 150, w)
			if w.logged == 0 {
				t.Fatal("no write logged a change")
			}
			t.Logf("%d ids changed and logged over 150 operations", w.logged)
		})
	}
}

// logWatch raises a logging fence over a differential's board and checks, after each
// operation, that the ids it changed are in the change log.
type logWatch struct {
	raised bool
	logged int // ids changed and found logged
}

// snapshot raises the fence (once) and returns each id's stored entry and data as one text.
func (w *logWatch) snapshot(d *diff) map[string]string {
	if w == nil {
		return nil
	}
	keys := d.b.Keys()
	if !w.raised {
		fence := rankgenrt.FenceKey(keys[0])
		if err := d.c.HSet(ctx, fence, "plan", "test", "layout", "test", "logged", d.l.Fingerprint).Err(); err != nil {
			d.t.Fatal(err)
		}
		if err := d.c.PExpire(ctx, fence, 10*time.Minute).Err(); err != nil {
			d.t.Fatal(err)
		}
		w.raised = true
	}
	zs, err := d.c.ZRangeWithScores(ctx, keys[0], 0, -1).Result()
	if err != nil {
		d.t.Fatal(err)
	}
	score := map[string]float64{}
	for _, z := range zs {
		score[z.Member.(string)] = z.Score
	}
	out := map[string]string{}
	if d.l.HasPrefix() {
		idx, err := d.c.HGetAll(ctx, keys[1]).Result()
		if err != nil {
			d.t.Fatal(err)
		}
		for id, m := range idx {
			if s, ok := score[m]; ok && id != "" {
				out[id] = m + " " + strconv.FormatFloat(s, 'g', -1, 64)
			}
		}
	} else {
		for m, s := range score {
			out[m] = m + " " + strconv.FormatFloat(s, 'g', -1, 64)
		}
	}
	if d.l.HasData() {
		data, err := d.c.HGetAll(ctx, keys[2]).Result()
		if err != nil {
			d.t.Fatal(err)
		}
		for id, v := range data {
			if id != "" {
				out[id] += " | " + v
			}
		}
	}
	return out
}

// check fails for each id whose text differs from before and is not in the change log, then
// empties the log.
func (w *logWatch) check(d *diff, before map[string]string) {
	if w == nil {
		return
	}
	after := w.snapshot(d)
	log := rankgenrt.ChangeLogKey(d.b.Keys()[0])
	in, err := d.c.SMembers(ctx, log).Result()
	if err != nil {
		d.t.Fatal(err)
	}
	logged := map[string]bool{}
	for _, id := range in {
		logged[id] = true
	}
	for _, id := range slices.Sorted(maps.Keys(union(before, after))) {
		if before[id] != after[id] {
			if !logged[id] {
				d.errorf("%s: id %q changed (%q → %q) but is not in the change log %v", d.op, id, before[id], after[id], in)
			}
			w.logged++
		}
	}
	if ttl := d.c.PTTL(ctx, log).Val(); len(in) > 0 && ttl <= 0 {
		d.errorf("the change log has no expiry (%v)", ttl)
	}
	if err := d.c.Del(ctx, log).Err(); err != nil && err != redis.Nil {
		d.t.Fatal(err)
	}
}

func union(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

// TestFeedLogsEachBoard: a feed writes several boards in one call; each board whose fence
// logs (a migration copies it) gets the ids changed there in its own change log, and a board
// with no fence none.
func TestFeedLogsEachBoard(t *testing.T) {
	c := redistest.Client(t)
	feed := ladders.NewSubmitFeed(c, ladders.SubmitKeys{Game: redistest.Key(t, "g"), Day: "d", Week: "w"})
	run := feedRun("ann", 500, 1, ladders.RegionEu)
	boards := feed.BoardKeys(run)
	migrating := boards[1:]
	for _, b := range migrating {
		fence := rankgenrt.FenceKey(b)
		if err := errors.Join(c.HSet(ctx, fence, "plan", "test", "layout", "test", "logged", ladders.Fingerprint).Err(), c.PExpire(ctx, fence, time.Minute).Err()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := feed.Submit(ctx, run); err != nil {
		t.Fatal(err)
	}
	for i, b := range boards {
		got, err := c.SMembers(ctx, rankgenrt.ChangeLogKey(b)).Result()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"ann"}
		if i == 0 {
			want = []string{}
		}
		if !slices.Equal(got, want) {
			t.Errorf("board %s's change log holds %q; want %q", b, got, want)
		}
	}
}

// TestRemoveEverywhereLogsEachBoard: a removal across a periodic board's seasons, in one
// script, logs the ids it removes on each season's board whose fence logs, and on no other.
func TestRemoveEverywhereLogsEachBoard(t *testing.T) {
	c := redistest.Client(t)
	now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC)
	ds := daily.NewSeasons(c, "{"+redistest.Key(t, "everywhere")+"}:daily", daily.WithClock(func() time.Time { return now }))
	days := ds.Recent(3)
	for _, s := range days {
		if _, err := ds.Board(s).Set(ctx, daily.Entry{Trader: "cheat", Profit: 9}); err != nil {
			t.Fatal(err)
		}
	}
	migrating := ds.Board(days[1]).Key()
	fence := rankgenrt.FenceKey(migrating)
	if err := errors.Join(c.HSet(ctx, fence, "plan", "test", "layout", "test", "logged", daily.Fingerprint).Err(), c.PExpire(ctx, fence, time.Minute).Err()); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.RemoveEverywhere(ctx, []string{"cheat"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range days {
		key := ds.Board(s).Key()
		got, err := c.SMembers(ctx, rankgenrt.ChangeLogKey(key)).Result()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{}
		if key == migrating {
			want = []string{"cheat"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("day %d's change log holds %q; want %q", s.ID, got, want)
		}
	}
}
