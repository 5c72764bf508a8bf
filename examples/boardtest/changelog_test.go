package boardtest

import (
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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
