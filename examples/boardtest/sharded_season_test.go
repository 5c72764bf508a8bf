package boardtest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// weeklyChanges are the weekly example's change constructors, in catalogue order.
var weeklyChanges = []any{weekly.AddPoints, weekly.MaxPoints, weekly.SetPoints, weekly.SetPaid}

// TestShardedSeasonDifferential is TestShardedDifferential for a periodic layout: random
// writes (Set, SetMany, Best, BestMany, field updates single and batch, change lists, Remove,
// Trim; server stamps, season-anchored values out of the week and overflows included) go to
// the weekly example's ShardedBoard of the current week (Seasons.Sharded), and every few steps
// a one-key Board of the same week is given exactly the entries the shards hold, and every
// merged read of the ShardedBoard is compared with the same read of that Board. The in-memory
// model cannot predict Redis's clock, so the entries come from the shards rather than from
// the model; a batch write that fails must leave the board as it was on every shard.
func TestShardedSeasonDifferential(t *testing.T) {
	for _, tg := range shardTargets(t) {
		t.Run(tg.name+"/weekly", func(t *testing.T) {
			runShardedSeason(t, tg.c, tg.shards, 42, shortSize(120, 50))
		})
	}
}

func runShardedSeason(t *testing.T, c redis.UniversalClient, shards int, seed uint64, steps int) {
	l := parse(t, "weekly.yaml")
	ss := weekly.NewSeasons(c, redistest.Key(t, "weekly"))
	week := ss.Current()
	sharded, err := ss.Sharded(week, shards)
	if err != nil {
		t.Fatal(err)
	}
	if got := sharded.Season(); got != week {
		t.Fatalf("Season() = %v, want %v", got, week)
	}
	one := boardmodel.NewBoard(l, weekly.NewSeasons(c, redistest.Key(t, "one")).Board(week))
	d := &diff{t: t, l: l, b: boardmodel.NewBoard(l, sharded), m: boardmodel.New(l), rng: newRand(t, seed)}
	d.b.WithBands(weekly.PointsBetween, weekly.PointsIs)
	one.WithBands(weekly.PointsBetween, weekly.PointsIs)
	if err := d.b.UseChanges(weeklyChanges); err != nil {
		t.Fatal(err)
	}
	for range 24 {
		d.ids = append(d.ids, oracle.RandomID(l, d.rng))
	}
	for d.step = 1; d.step <= steps; d.step++ {
		seasonWrite(d)
		if d.step%5 == 0 {
			d.m = shardEntries(d, sharded)
			syncOneKey(t, one, d.m.Sorted())
			compareSharded(d, one)
			checkPlacement(d, sharded, shards)
		}
		if t.Failed() {
			t.Fatalf("stopped at step %d", d.step)
		}
	}
}

// seasonWrite applies one random write to the sharded board d.b. Its errors must be those a
// Board gives such writes (a value out of range or out of the week, an overflow, a list that
// changes a field twice); a batch that fails as a whole must have written nothing.
func seasonWrite(d *diff) {
	entries := func() []layout.Entry {
		es := make([]layout.Entry, 1+d.rng.IntN(5))
		for i := range es {
			es[i] = d.entry()
		}
		return es
	}
	switch r := d.rng.IntN(100); {
	case r < 10:
		e := d.entry()
		_, err := d.b.Set(e)
		d.allowed("Set", err)
	case r < 20:
		es := entries()
		unchanged(d, "SetMany", es, func() error { _, err := d.b.SetMany(es); return err })
	case r < 30:
		e := d.entry()
		_, err := d.b.Best(e)
		d.allowed("Best", err)
	case r < 38:
		es := entries()
		unchanged(d, "BestMany", es, func() error { _, err := d.b.BestMany(es); return err })
	case r < 60:
		ops := d.updatable()
		id := d.id()
		_, err := d.b.Update(id, d.fieldOp(ops[d.rng.IntN(len(ops))], id))
		d.allowed("Update", err)
	case r < 72:
		ops := d.updatable()
		kind := ops[d.rng.IntN(len(ops))]
		ids, batch := make([]string, 1+d.rng.IntN(6)), make([]boardmodel.Update, 0, 6)
		for i := range ids {
			ids[i] = d.id()
			batch = append(batch, d.fieldOp(kind, ids[i]))
		}
		res, err := d.b.UpdateMany(ids, batch)
		d.allowedResults("UpdateMany", res, err)
	case r < 84:
		ids, lists := make([]string, 1+d.rng.IntN(4)), make([][]boardmodel.Update, 0, 4)
		for i := range ids {
			ids[i] = d.id()
			lists = append(lists, d.changeList(ids[i]))
		}
		res, err := d.b.ChangesMany(ids, lists)
		d.allowedResults("UpdateMany (change lists)", res, err)
	case r < 95:
		_, err := d.b.Remove(d.id(), d.id())
		d.allowed("Remove", err)
	default:
		_, err := d.b.Trim(int64(d.rng.IntN(len(d.ids))))
		d.allowed("Trim", err)
	}
}

// allowed checks that err is nil or an error a Board gives a write it refuses.
func (d *diff) allowed(what string, err error) {
	d.t.Helper()
	for _, s := range []error{rankgenrt.ErrOutOfRange, rankgenrt.ErrOverflow, rankgenrt.ErrSeasonClosed, rankgenrt.ErrBadChange} {
		if err == nil || errors.Is(err, s) {
			return
		}
	}
	d.errorf("%s: %v", what, err)
}

// allowedResults checks a batch's call error and every item's.
func (d *diff) allowedResults(what string, res []boardmodel.Result, err error) {
	d.t.Helper()
	if err != nil {
		d.errorf("%s: %v", what, err)
	}
	for i, r := range res {
		d.allowed(fmt.Sprintf("%s[%d]", what, i), r.Err)
	}
}

// unchanged runs a batch write of es and checks that, when it fails, the entries of its ids
// are those before it on every shard: it validated every entry before any shard wrote.
func unchanged(d *diff, what string, es []layout.Entry, write func() error) {
	d.t.Helper()
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	before, err := d.b.GetMany(ids...)
	if err != nil {
		d.errorf("GetMany: %v", err)
		return
	}
	err = write()
	d.allowed(what, err)
	if err == nil {
		return
	}
	after, _ := d.b.GetMany(ids...)
	if !reflect.DeepEqual(fmt.Sprint(before), fmt.Sprint(after)) {
		d.errorf("%s failed (%v) but changed the board: %v, then %v", what, err, before, after)
	}
}

// shardEntries returns a model holding exactly the entries of the shards of sharded, read
// shard by shard.
func shardEntries(d *diff, sharded any) *boardmodel.Model {
	d.t.Helper()
	m := boardmodel.New(d.l)
	boards := reflect.ValueOf(sharded).MethodByName("Shards").Call(nil)[0]
	for i := range boards.Len() {
		top, err := boardmodel.NewBoard(d.l, boards.Index(i).Interface()).Top(1 << 40)
		if err != nil {
			d.t.Fatalf("shard %d: Top: %v", i, err)
		}
		for _, r := range top {
			if _, err := m.Set(r.Entry); err != nil {
				d.t.Fatalf("shard %d holds %v, which the model refuses: %v", i, r.Entry, err)
			}
		}
	}
	return m
}

// A sharded season's shards are the season's Boards: each is named after the season's key
// under its own hash tag, expires with the season (keepSeasons after it), and refuses writes
// outside the season — a season-anchored value beyond the week before anything is sent (a
// batch with one such entry writes nothing on any shard), and a server stamp in a past week in
// every shard's own script. A base holding a brace cannot name shards.
func TestShardedSeasonGuards(t *testing.T) {
	for _, tg := range shardTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			base := redistest.Key(t, "weekly")
			ss := weekly.NewSeasons(tg.c, base)
			week := ss.Current()
			b, err := ss.Sharded(week, tg.shards)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := rankgenrt.ShardKeys(rankgenrt.SeasonKey(base, week), tg.shards)
			for i, shard := range b.Shards() {
				if shard.Key() != want[i] || shard.Season() != week {
					t.Errorf("shard %d: key %q, season %v; want %q, %v", i, shard.Key(), shard.Season(), want[i], week)
				}
			}
			ids := idsOnEveryShard(tg.shards)
			late := weekly.Entry{PlayerID: ids[0], Points: 1, ReachedAt: week.Len()}
			batch := []weekly.Entry{{PlayerID: ids[1], Points: 5}, late}
			if _, err := b.SetMany(ctx, batch); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
				t.Errorf("SetMany with an entry past the week: %v, want ErrSeasonClosed", err)
			}
			if n, err := b.Count(ctx); n != 0 || err != nil {
				t.Errorf("after a refused batch: Count = %d, %v; want 0", n, err)
			}
			for _, id := range ids {
				if _, err := b.AddPoints(ctx, id, 3); err != nil {
					t.Fatalf("AddPoints(%q): %v", id, err)
				}
			}
			checkShardExpiry(t, tg.c, b, ss.Next(ss.Next(ss.Next(ss.Next(week)))).End)
			past, err := ss.Sharded(ss.Previous(1), tg.shards)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if _, err := past.AddPoints(ctx, id, 1); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
					t.Errorf("last week's AddPoints(%q) (shard %d): %v, want ErrSeasonClosed", id, rankgenrt.ShardOf(id, tg.shards), err)
				}
			}
			if _, err := weekly.NewSeasons(tg.c, "lb{x}").Sharded(week, 2); !errors.Is(err, rankgenrt.ErrBadKey) {
				t.Errorf("Sharded under a base with braces: %v, want ErrBadKey", err)
			}
		})
	}
}

// idsOnEveryShard returns an id for each of shards, in shard order.
func idsOnEveryShard(shards int) []string {
	ids := make([]string, shards)
	for n, found := 0, 0; found < shards; n++ {
		id := "p" + fmt.Sprint(n)
		if s := rankgenrt.ShardOf(id, shards); ids[s] == "" {
			ids[s], found = id, found+1
		}
	}
	return ids
}

// checkShardExpiry checks that every key of every shard that exists expires at end.
func checkShardExpiry(t *testing.T, c redis.UniversalClient, b *weekly.ShardedBoard, end time.Time) {
	t.Helper()
	for _, shard := range b.Shards() {
		for _, k := range shard.Keys() {
			if strings.Contains(k, ":ack") {
				continue // the write tokens expire with the dedup window
			}
			at, err := c.PExpireTime(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			if at == -2 { // no such key
				continue
			}
			if got := time.UnixMilli(int64(at / time.Millisecond)); !got.Equal(end) {
				t.Errorf("%s expires at %v, want %v (keepSeasons after the week)", k, got, end)
			}
		}
	}
}

// TestShardedSeasonsExisting: ExistingSharded lists the seasons of which a shard of the sharded
// board still exists (any shard: a season whose entries all hash to one shard counts), and
// Existing the one-key boards only, on one server and on the cluster.
func TestShardedSeasonsExisting(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC) // coming weeks: no board expires during the test
		ss := weekly.NewSeasons(tg.Client, redistest.Key(t, "weeks"), weekly.WithClock(func() time.Time { return now }))
		for _, s := range []weekly.Season{ss.Previous(1), ss.Previous(3)} {
			sb, err := ss.Sharded(s, 3)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sb.Set(ctx, weekly.Entry{PlayerID: "ann", Points: 1}); err != nil { // one shard only
				t.Fatal(err)
			}
		}
		if _, err := ss.Board(ss.Current()).Set(ctx, weekly.Entry{PlayerID: "bob", Points: 2}); err != nil {
			t.Fatal(err)
		}
		sharded, err := ss.ExistingSharded(ctx, 3)
		if err != nil || !slices.Equal(sharded, []weekly.Season{ss.Previous(1), ss.Previous(3)}) {
			t.Errorf("ExistingSharded = %v, %v; want the last week and the one 3 weeks ago", sharded, err)
		}
		one, err := ss.Existing(ctx)
		if err != nil || !slices.Equal(one, []weekly.Season{ss.Current()}) {
			t.Errorf("Existing = %v, %v; want this week's one-key board", one, err)
		}
		if _, err := ss.ExistingSharded(ctx, 0); !errors.Is(err, rankgenrt.ErrOutOfRange) {
			t.Errorf("ExistingSharded(0): %v; want ErrOutOfRange", err)
		}
	})
}
