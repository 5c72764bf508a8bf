package boardtest

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b01"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r32"
	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/pits"
	"github.com/rankgen/rankgen/examples/generated/quiz"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// shardedBoards are the NewShardedBoard functions of the examples whose schema asks for one
// (sharded: true), by example name; TestShardedExamplesListed keeps the list whole.
var shardedBoards = map[string]any{
	"duel": duel.NewShardedBoard, "season": season.NewShardedBoard,
	"laps": laps.NewShardedBoard, "pits": pits.NewShardedBoard, "weekly": weekly.NewShardedBoard,
	"seed002decimal": seed002decimal.NewShardedBoard, "quiz": quiz.NewShardedBoard,
	"r32": r32.NewShardedBoard, "b01": b01.NewShardedBoard,
}

// TestShardedExamplesListed: an example is in shardedBoards exactly when its schema says
// sharded: true, so that every generated ShardedBoard runs in the sharded suites.
func TestShardedExamplesListed(t *testing.T) {
	for _, ex := range withPeriodic() {
		if _, listed := shardedBoards[ex.name]; listed != parse(t, ex.schema).Sharded {
			t.Errorf("%s: listed in shardedBoards %v, its schema's sharded: %v", ex.name, listed, !listed)
		}
	}
}

// shardedExamples are the examples (not periodic) that have a ShardedBoard.
func shardedExamples() []example {
	var out []example
	for _, ex := range examples {
		if shardedBoards[ex.name] != nil {
			out = append(out, ex)
		}
	}
	return out
}

// newSharded calls the example's NewShardedBoard; a periodic example's board holds the season
// of the example's one-key board (its NewBoard).
func newSharded(tb testing.TB, ex example, c redis.UniversalClient, key string, shards int) any {
	tb.Helper()
	fn, ok := shardedBoards[ex.name]
	if !ok {
		tb.Fatalf("no NewShardedBoard listed for example %s", ex.name)
	}
	args := []reflect.Value{reflect.ValueOf(c), reflect.ValueOf(key)}
	if reflect.TypeOf(fn).NumIn() == 5 { // a periodic layout's: the season comes before the count
		args = append(args, reflect.ValueOf(ex.newBoard(c, key)).MethodByName("Season").Call(nil)[0])
	}
	out := reflect.ValueOf(fn).Call(append(args, reflect.ValueOf(shards)))
	if err := boardmodel.ErrOf(out[1]); err != nil {
		tb.Fatalf("NewShardedBoard(%q, %d): %v", key, shards, err)
	}
	return out[0].Interface()
}

// shardTarget is a deployment a sharded test runs on, and the shard count it uses there.
type shardTarget struct {
	name   string
	c      redis.UniversalClient
	shards int
}

// shardTargets are the two kinds of server every sharded test runs on (redistest.Targets): a
// single server (4 shards side by side) and the private 3-master cluster (6 shards spread over
// the masters; not under -short).
func shardTargets(t *testing.T) []shardTarget {
	var out []shardTarget
	for _, tg := range redistest.Targets(t) {
		shards := 4
		if tg.Cluster {
			shards = 6
		}
		out = append(out, shardTarget{tg.Name, tg.Client, shards})
	}
	return out
}

// TestShardedDifferential applies random operations (those of TestDifferential: writes, field
// updates single and batch, change lists (Update, UpdateMany), Remove, Trim, and the reads) to
// every sharded example's ShardedBoard and to the in-memory model, on a single server and on the real
// cluster, and every few steps compares every merged read of the ShardedBoard — Count, Top,
// Page, Rank and Get of every id, GetMany, RankMany, RankedMany, Around, AroundFilled, Percentile, PageOf,
// a whole walk of After pages, Count<Lead>Between, PageFromEnd, Bottom, CompetitionRank,
// CompetitionRankTuple, and Between, CountBetween, AroundScore on random bands and places
// (offsets and windows that overflow included) — with the same read of a one-key Board
// holding the same entries, with their Data on a layout with data fields (laps, pits). It
// also checks that every entry lives on its id's shard. The periodic example (weekly) runs in
// TestShardedSeasonDifferential.
func TestShardedDifferential(t *testing.T) {
	for _, tg := range shardTargets(t) {
		for _, ex := range shardedExamples() {
			t.Run(tg.name+"/"+ex.name, func(t *testing.T) {
				runShardedDifferential(t, tg.c, ex, tg.shards, 42, shortSize(160, 60))
			})
		}
	}
}

// shortSize is full, or short under go test -short (the sharded tests' counts are the same on
// both targets, so redistest.Target.Size does not apply).
func shortSize(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

func runShardedDifferential(t *testing.T, c redis.UniversalClient, ex example, shards int, seed uint64, steps int) {
	l := parse(t, ex.schema)
	sharded := newSharded(t, ex, c, redistest.Key(t, "sharded"), shards)
	d := &diff{t: t, l: l, b: boardmodel.NewBoard(l, sharded), m: boardmodel.New(l), rng: newRand(t, seed)}
	one := boardmodel.NewBoard(l, ex.newBoard(c, redistest.Key(t, "one")))
	if l.NumScore > 0 {
		roots := bandRoots[ex.name]
		d.b.WithBands(roots[0], roots[1])
		one.WithBands(roots[0], roots[1])
	}
	if err := d.b.UseChanges(changeFuncs(ex.name)); err != nil {
		t.Fatal(err)
	}
	for range 24 {
		d.ids = append(d.ids, oracle.RandomID(l, d.rng))
	}
	d.useCatalogue(true)
	for d.step = 1; d.step <= steps; d.step++ {
		d.randomOp()
		if d.step%5 == 0 {
			syncOneKey(t, one, d.m.Sorted())
			compareSharded(d, one)
			checkPlacement(d, sharded, shards)
		}
		if t.Failed() {
			t.Fatalf("stopped at step %d", d.step)
		}
	}
	d.checkDriven()
}

// syncOneKey makes one hold exactly the entries es.
func syncOneKey(t *testing.T, one *boardmodel.Board, es []layout.Entry) {
	if _, err := one.Trim(0); err != nil {
		t.Fatal(err)
	}
	if len(es) > 0 {
		if _, err := one.SetMany(es); err != nil {
			t.Fatal(err)
		}
	}
}

// compareSharded compares the merged reads of the sharded board d.b with those of one.
func compareSharded(d *diff, one *boardmodel.Board) {
	n := len(d.m.Entries)
	same := func(name string, args ...any) {
		d.t.Helper()
		got, want := d.b.Call(name, args...), one.Call(name, args...)
		for i := range got {
			if !sameResult(got[i], want[i]) {
				d.errorf("%s%v: sharded %v; one-key board %v", name, args, got[i], want[i])
			}
		}
	}
	same("Count")
	same("Top", int64(d.rng.IntN(n+3)))
	same("Page", int64(d.rng.IntN(n+2)), int64(1+d.rng.IntN(6)))
	ids := make([]any, len(d.ids))
	for i, id := range d.ids {
		ids[i] = boardmodel.ID(d.l, id)
		same("Rank", ids[i])
		same("Get", ids[i])
	}
	same("GetMany", ids...)
	same("RankMany", ids...)
	same("RankedMany", ids...)
	for range 4 {
		id := boardmodel.ID(d.l, d.id())
		before, after := int64(d.rng.IntN(5)), int64(d.rng.IntN(5))
		same("Around", id, before, after)
		same("AroundFilled", id, before, after)
		same("Percentile", id)
		same("PageOf", id, int64(1+d.rng.IntN(5)))
	}
	if name := "Count" + d.l.Fields[0].Name + "Between"; d.b.V.MethodByName(name).IsValid() {
		f := d.l.Fields[0]
		lo, hi := d.b.FieldValue(0, oracle.RandomKey(f, d.rng)), d.b.FieldValue(0, oracle.RandomKey(f, d.rng))
		same(name, lo, hi)
	}
	walkAfterBoth(d, one, int64(1+d.rng.IntN(5)))
	same("PageFromEnd", int64(d.rng.IntN(n+3)-1), int64(d.rng.IntN(6)-1))
	same("Bottom", int64(d.rng.IntN(n+3)))
	same("PageFromEnd", int64(d.rng.IntN(3)), int64(math.MaxInt64)) // offset + limit overflows
	if d.l.NumScore > 0 {
		for range 4 {
			id := boardmodel.ID(d.l, d.id())
			same("CompetitionRank", id)
			same("CompetitionRankTuple", id)
		}
		compareShardedBands(d, same)
	}
}

// compareShardedBands compares the band reads: Between and CountBetween on random bands (often
// around stored entries), AroundScore at score prefixes and at whole entries.
func compareShardedBands(d *diff, same func(name string, args ...any)) {
	for range 3 {
		keys := d.scoreKeys()
		k := d.rng.IntN(d.l.NumScore)
		f := d.l.Fields[k]
		s := boardmodel.BandSpec{Eq: keys[:k], Lo: d.nearKey(f, keys[k]), Hi: d.nearKey(f, keys[k])}
		if s.Lo > s.Hi && d.rng.IntN(4) > 0 {
			s.Lo, s.Hi = s.Hi, s.Lo
		}
		band := d.b.BandValue(s)
		same("CountBetween", band)
		same("Between", band, int64(d.rng.IntN(4)-1), int64(d.rng.IntN(len(d.m.Entries)+3)-1))
		same("Between", band, int64(d.rng.IntN(3)), int64(math.MaxInt64))
		before, after := int64(d.rng.IntN(5)-1), int64(d.rng.IntN(5)-1)
		same("AroundScore", d.b.Prefix(d.scoreKeys()[:1+d.rng.IntN(d.l.NumScore)]), before, after)
		e := d.entry()
		if keys, ok := d.m.Entries[e.ID]; ok && d.rng.IntN(3) == 0 {
			e.Keys = slices.Clone(keys) // the stored entry itself
		}
		same("AroundScore", d.b.Entry(e), before, after)
		same("AroundScore", d.b.Entry(e), int64(math.MaxInt64), int64(math.MaxInt64))
	}
}

// walkAfterBoth pages through both boards with After and compares every page and cursor.
func walkAfterBoth(d *diff, one *boardmodel.Board, limit int64) {
	cur := reflect.Zero(d.b.V.MethodByName("After").Type().In(1))
	for page := 0; page <= len(d.m.Entries); page++ {
		got, want := d.b.Call("After", cur, limit), one.Call("After", cur, limit)
		for i := range got {
			if !sameResult(got[i], want[i]) {
				d.errorf("After page %d (limit %d): sharded %v; one-key board %v", page, limit, got[i], want[i])
				return
			}
		}
		if got[0].Len() == 0 {
			return
		}
		cur = got[1]
	}
	d.errorf("After(limit %d) never reached the end of %d entries", limit, len(d.m.Entries))
}

// sameResult compares two results: errors by sentinel, empty slices whether nil or not, the rest
// deeply.
func sameResult(a, b reflect.Value) bool {
	if a.Type().Implements(reflect.TypeFor[error]()) {
		return boardmodel.SameError(boardmodel.ErrOf(a), boardmodel.ErrOf(b))
	}
	if a.Kind() == reflect.Slice && a.Len() == 0 && b.Len() == 0 {
		return true
	}
	if a.Kind() == reflect.Slice && strings.HasSuffix(a.Type().Elem().Name(), "Result") {
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			ra, rb := a.Index(i), b.Index(i)
			if !sameResult(ra.Field(1), rb.Field(1)) || (boardmodel.ErrOf(ra.Field(1)) == nil && !reflect.DeepEqual(ra.Field(0).Interface(), rb.Field(0).Interface())) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// checkPlacement checks that shard i holds exactly the model's entries whose id ShardOf maps
// to i.
func checkPlacement(d *diff, sharded any, shards int) {
	d.t.Helper()
	boards := reflect.ValueOf(sharded).MethodByName("Shards").Call(nil)[0]
	want := make([]int, shards)
	for id := range d.m.Entries {
		want[rankgenrt.ShardOf(id, shards)]++
	}
	for i := range boards.Len() {
		shard := boardmodel.NewBoard(d.l, boards.Index(i).Interface())
		top, err := shard.Top(1 << 40)
		if err != nil {
			d.errorf("shard %d: Top: %v", i, err)
			return
		}
		for _, r := range top {
			if s := rankgenrt.ShardOf(r.Entry.ID, shards); s != i {
				d.errorf("shard %d holds %q, whose shard is %d", i, r.Entry.ID, s)
			}
		}
		if len(top) != want[i] {
			d.errorf("shard %d holds %d entries; the model has %d of its ids", i, len(top), want[i])
		}
	}
}

// On the 3-master cluster, the 6 shards of a board land on every master.
func TestShardedSpread(t *testing.T) {
	c := redistest.StartCluster(t)
	b, err := seed002decimal.NewShardedBoard(c, redistest.Key(t, "spread"), 6)
	if err != nil {
		t.Fatal(err)
	}
	masters := map[string]int{}
	for _, shard := range b.Shards() {
		m, err := c.MasterForKey(ctx, shard.Key())
		if err != nil {
			t.Fatal(err)
		}
		masters[m.Options().Addr]++
	}
	if len(masters) != 3 {
		t.Errorf("6 shards on %d masters (%v); want all 3", len(masters), masters)
	}
	for m, n := range masters {
		if n != 2 {
			t.Errorf("master %s holds %d shards; want 2 each (%v)", m, n, masters)
		}
	}
}

func TestShardedConstructorErrors(t *testing.T) {
	c := redistest.Client(t)
	for _, shards := range []int{0, -3, rankgenrt.MaxShards + 1} {
		if _, err := seed002decimal.NewShardedBoard(c, "lb", shards); !errors.Is(err, rankgenrt.ErrOutOfRange) {
			t.Errorf("NewShardedBoard(lb, %d): %v, want ErrOutOfRange", shards, err)
		}
	}
	if _, err := seed002decimal.NewShardedBoard(c, "lb{x}", 2); !errors.Is(err, rankgenrt.ErrBadKey) {
		t.Errorf("NewShardedBoard(lb{x}): %v, want ErrBadKey", err)
	}
}

// Reshard moves a board to another shard count: interrupted after two pages and resumed from
// its progress, it copies every entry once, to its new shard; a source written during the copy
// is reported (ErrReshardDrift).
func TestReshard(t *testing.T) {
	for _, tg := range shardTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			key := redistest.Key(t, "lb")
			src, err := seed002decimal.NewShardedBoard(tg.c, key, 3)
			if err != nil {
				t.Fatal(err)
			}
			dst, err := seed002decimal.NewShardedBoard(tg.c, key, tg.shards)
			if err != nil {
				t.Fatal(err)
			}
			var es []seed002decimal.Entry
			for i := range 200 {
				es = append(es, seed002decimal.Entry{Player: strconv.Itoa(i * 7919), Points: uint32(i % 13), ReachedAt: reachedAt(i * 31 % 1000)})
			}
			if _, err := src.SetMany(ctx, es); err != nil {
				t.Fatal(err)
			}
			stop, cancel := context.WithCancel(ctx)
			pages := 0
			at, err := src.Reshard(stop, dst, seed002decimal.ReshardProgress{}, 16, func(seed002decimal.ReshardProgress) {
				if pages++; pages == 2 {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) || at.Copied != 32 {
				t.Fatalf("interrupted Reshard: %+v, %v; want 32 copied and context.Canceled", at, err)
			}
			at, err = src.Reshard(ctx, dst, at, 16, nil)
			if err != nil || at.Copied != 200 || at.Shard != 3 {
				t.Fatalf("resumed Reshard: %+v, %v", at, err)
			}
			want, _ := src.Top(ctx, 1000)
			got, err := dst.Top(ctx, 1000)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("resharded Top: %v (%d entries), want the source's %d", err, len(got), len(want))
			}
			for i, shard := range dst.Shards() {
				top, _ := shard.Top(ctx, 1000)
				for _, r := range top {
					if s := rankgenrt.ShardOf(r.Player, tg.shards); s != i {
						t.Errorf("player %s copied to shard %d; its shard is %d", r.Player, i, s)
					}
				}
			}
			// A write to the source during a copy (here: removing an entry already copied)
			// is caught by the final count.
			dst2, _ := seed002decimal.NewShardedBoard(tg.c, redistest.Key(t, "lb2"), 2)
			once := false
			_, err = src.Reshard(ctx, dst2, seed002decimal.ReshardProgress{}, 64, func(at seed002decimal.ReshardProgress) {
				if !once {
					once = true
					player := at.After.Member // the member is the bare id
					if n, err := src.Remove(ctx, player); n != 1 || err != nil {
						t.Errorf("Remove(%s) = %d, %v", player, n, err)
					}
				}
			})
			if !errors.Is(err, rankgenrt.ErrReshardDrift) {
				t.Errorf("Reshard of a source written during the copy: %v, want ErrReshardDrift", err)
			}
		})
	}
}

// Long runs of equal scores: every shard holds more than one band (256) of entries tied with
// the one ranked, so counting the ties ahead reads the run on; ranks and windows still equal
// the one-key board's.
func TestShardedLongTies(t *testing.T) {
	for _, tg := range shardTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			sharded, err := seed002decimal.NewShardedBoard(tg.c, redistest.Key(t, "ties"), 3)
			if err != nil {
				t.Fatal(err)
			}
			one := seed002decimal.NewBoard(tg.c, redistest.Key(t, "one"))
			var es []seed002decimal.Entry
			for i := range 3000 { // about 500 of each score per shard
				es = append(es, seed002decimal.Entry{Player: strconv.Itoa(i), Points: 7, ReachedAt: reachedAt(1000 + i%2)}) // two scores only
			}
			for _, b := range []interface {
				SetMany(context.Context, []seed002decimal.Entry) ([]seed002decimal.Written, error)
			}{sharded, one} {
				if _, err := b.SetMany(ctx, es); err != nil {
					t.Fatal(err)
				}
			}
			for i := 0; i < 3000; i += 71 {
				player := strconv.Itoa(i)
				got, err := sharded.Rank(ctx, player)
				want, werr := one.Rank(ctx, player)
				if err != nil || werr != nil || got != want {
					t.Errorf("Rank(%s) = %d, %v; the one-key board's %d, %v", player, got, err, want, werr)
				}
				gw, err := sharded.AroundFilled(ctx, player, 3, 2)
				ww, werr := one.AroundFilled(ctx, player, 3, 2)
				if err != nil || werr != nil || !reflect.DeepEqual(gw, ww) {
					t.Errorf("AroundFilled(%s) = %v, %v; the one-key board's %v, %v", player, gw, err, ww, werr)
				}
			}
		})
	}
}

// reachedAt is a ReachedAt of the sharded suites' seed002decimal entries: s seconds into 2027.
func reachedAt(s int) time.Time { return time.Date(2027, 1, 1, 0, 0, s, 0, time.UTC) }
