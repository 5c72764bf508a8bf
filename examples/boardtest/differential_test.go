package boardtest

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/boardtest/internal/season/daily"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestDifferential applies the same random sequence of operations to every example's generated
// Board on the real server and to the in-memory model over the interpreted codec: every kind
// of operation of the board's catalogue, each by its driver (drivers: Set, SetMany, Best,
// BestMany, every declared field update (single and batch, with overflow, out-of-range values
// and repeated ids), change lists (Update and UpdateMany: several fields at once, all or none,
// a field twice refused), Remove, Trim, and every read). After every operation the results agree (errors by sentinel) and the stored state is identical: the same
// (score, member) pairs bit for bit in the same order, and the same id → member index.
//
// Periodic examples run three times: on the board of the present season and on those of the
// seasons before and after it (…/past, …/next). Their season-anchored values are drawn inside
// the season (its first and last instants often) and now and then just outside it, which the
// board must refuse with ErrSeasonClosed and no change; stamps are checked against Redis's
// clock read around each write, so the past and next seasons refuse every write that stamps.
//
// It runs on the single server and on the cluster (fewer steps there unless -cluster.full).
// -diff.seeds N runs N sequences per example instead of one (seeds 42, 43, …).
func TestDifferential(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		for _, ex := range append(withPeriodic(), blitzExample, dailyExample) {
			for seed := uint64(42); seed < 42+uint64(*diffSeeds); seed++ {
				name := ex.name
				if *diffSeeds > 1 {
					name = fmt.Sprintf("%s/seed=%d", ex.name, seed)
				}
				t.Run(name, func(t *testing.T) { runDifferential(t, tg.Client, ex, seed, tg.Size(400, 150)) })
			}
			if ex.seasonAt != nil {
				t.Run(ex.name+"/past", func(t *testing.T) { runOtherSeason(t, tg.Client, ex, -1, tg.Size(150, 60)) })
				t.Run(ex.name+"/next", func(t *testing.T) { runOtherSeason(t, tg.Client, ex, +1, tg.Size(100, 40)) })
			}
		}
	})
}

var diffSeeds = flag.Int("diff.seeds", 1, "random operation sequences per example in TestDifferential")

// blitzExample is the blitz board (internal/season), whose seasons last 2 seconds: its run
// crosses season ends, with server and client stamps and a season-anchored field that
// updates set. Too short-lived for the suites without a model of the season's end.
// Its boards would expire one season after their own, within seconds, which a run on a busy
// machine outlasts: here they live a minute (expiry has its own test, TestSeasonExpiry).
var blitzExample = func() example {
	seasonAt := blitz.NewSeasons(nil, "").At
	ex := fromList([]exampleboards.Example{{Name: "blitz", Schema: "internal/season/blitz/blitz.yaml",
		Codec: exampleboards.CodecOf(blitz.Entry.Encode, blitz.Decode, blitz.Compare), NewBoard: blitz.NewBoard, SeasonAt: seasonAt}})[0]
	ttl := blitz.WithTTL(time.Minute)
	ex.newBoard = func(c redis.UniversalClient, k string) any { return blitz.NewBoard(c, k, seasonAt(time.Now()), ttl) }
	ex.boardIn = func(c redis.UniversalClient, k string, s rankgenrt.Season) any { return blitz.NewBoard(c, k, s, ttl) }
	return ex
}()

// dailyExample is the daily board (internal/season): a periodic layout with signed fields,
// one in the member spanning ±2^52, and entry data.
var dailyExample = fromList([]exampleboards.Example{{Name: "daily", Schema: dailySchema,
	Codec: exampleboards.CodecOf(daily.Entry.Encode, daily.Decode, daily.Compare), NewBoard: daily.NewBoard, SeasonAt: daily.NewSeasons(nil, "").At}})[0]

// runDifferential drives the example's board: for a periodic example, that of the present
// season. Its season may end during the run (a test at Monday 00:00 in Paris): the model then
// expects exactly what the board must do, from Redis's clock read around each write (see
// boardmodel.Model.SeasonStamp): stamps while the clock is inside the season, ErrSeasonClosed
// once it is past the end, either for a write that straddles it. No run fails or is skipped
// for the calendar, and every run checks the stamps of the season that holds Redis's clock.
func runDifferential(t *testing.T, c redis.UniversalClient, ex example, seed uint64, steps int) {
	runDifferentialOn(t, c, ex, ex.newBoard(c, redistest.Key(t, "board")), seed, steps)
}

// runOtherSeason drives the board of the season before (dir −1) or after (+1) the present one:
// Redis's clock is outside it, so every write that must stamp a season-anchored field is
// refused with ErrSeasonClosed and changes nothing, while Set, Best and the updates that
// change nothing work as in any season.
func runOtherSeason(t *testing.T, c redis.UniversalClient, ex example, dir int, steps int) {
	now := ex.seasonAt(serverNow(t, c))
	s := ex.seasonAt(now.Start.Add(-time.Nanosecond))
	if dir > 0 {
		s = ex.seasonAt(now.End)
	}
	runDifferentialOn(t, c, ex, ex.boardIn(c, redistest.Key(t, "other"), s), uint64(7+dir), steps)
}

// runDifferentialOn drives board; given watch, it also checks what the writes log.
func runDifferentialOn(t *testing.T, c redis.UniversalClient, ex example, board any, seed uint64, steps int, watch ...*logWatch) {
	l := parse(t, ex.schema)
	d := &diff{
		t:   t,
		c:   c,
		l:   l,
		b:   boardmodel.NewBoard(l, board),
		rng: newRand(t, seed),
	}
	if len(watch) > 0 {
		d.watch = watch[0]
	}
	d.m = boardmodel.For(d.b)
	if d.m.Season != nil {
		t.Logf("%v", *d.m.Season)
	}
	if l.NumScore > 0 {
		roots, ok := bandRoots[ex.name]
		if !ok {
			t.Fatalf("%s has score fields but no band constructors in bandRoots", ex.name)
		}
		d.b.WithBands(roots[0], roots[1])
	}
	for range 24 {
		d.ids = append(d.ids, oracle.RandomID(l, d.rng))
	}
	if err := d.b.UseChanges(changeFuncs(ex.name)); err != nil {
		t.Fatal(err)
	}
	d.useCatalogue(false)
	for d.step = 1; d.step <= steps; d.step++ {
		before := d.watch.snapshot(d)
		d.randomOp()
		d.checkState()
		d.watch.check(d, before)
		if t.Failed() {
			t.Fatalf("stopped at step %d", d.step)
		}
	}
	d.checkDriven()
}

type diff struct {
	t    *testing.T
	c    redis.UniversalClient
	l    *layout.Layout
	b    *boardmodel.Board
	m    *boardmodel.Model
	rng  *rand.Rand
	ids  []string
	step int

	watch         *logWatch             // nil, or the change log the writes must fill
	op            string                // the operation driven last
	writes, reads []catalog.Op          // the operations it drives, one per kind (useCatalogue)
	driven        map[catalog.Kind]bool // the kinds it has driven
}

func (d *diff) errorf(format string, args ...any) {
	d.t.Helper()
	d.t.Errorf("step %d: "+format, append([]any{d.step}, args...)...)
}

func (d *diff) id() string { return d.ids[d.rng.IntN(len(d.ids))] }

// entry returns a random entry for a pool id: random, or the current entry moved by one digit
// in one field (near ties, for Best), or with one field out of range.
func (d *diff) entry() layout.Entry {
	e := oracle.RandomEntry(d.l, d.rng)
	e.ID = d.id()
	for i, f := range d.l.Fields {
		if f.Season && d.m.Season != nil {
			e.Keys[i] = d.seasonKey(f)
		}
	}
	if old, ok := d.m.Entries[e.ID]; ok && d.rng.IntN(3) == 0 {
		e.Keys = slices.Clone(old)
		i := d.rng.IntN(len(d.l.Fields))
		f := d.l.Fields[i]
		if e.Keys[i] < f.Hi && (e.Keys[i] == f.Lo || d.rng.IntN(2) == 0) {
			e.Keys[i]++
		} else if e.Keys[i] > f.Lo {
			e.Keys[i]--
		}
	}
	if d.rng.IntN(12) == 0 {
		i := d.rng.IntN(len(d.l.Fields))
		if bad := oracle.OutOfRange(d.l.Fields[i]); len(bad) > 0 {
			e.Keys[i] = bad[d.rng.IntN(len(bad))]
		}
	}
	if d.l.HasData() && d.rng.IntN(8) > 0 { // else no data given: the zero Data
		e.Data = d.data()
	}
	return e
}

// data returns random data for an entry, now and then a value its field refuses: a string one
// byte over max_bytes, a key out of range.
func (d *diff) data() []layout.DataValue {
	vals := oracle.RandomData(d.l, d.rng)
	if d.rng.IntN(12) == 0 {
		i := d.rng.IntN(len(d.l.Data))
		f := d.l.Data[i]
		if f.Kind == layout.String {
			vals[i].Text = strings.Repeat("x", f.MaxBytes+1)
		} else if bad := oracle.OutOfRange(f); len(bad) > 0 {
			vals[i].Key = bad[d.rng.IntN(len(bad))]
		}
	}
	return vals
}

// updatable lists the (field, op) pairs the board offers.
func (d *diff) updatable() []boardmodel.Update {
	var ops []boardmodel.Update
	for i, f := range d.l.Fields {
		for _, k := range f.Updates {
			ops = append(ops, boardmodel.Update{Field: i, Op: k})
		}
	}
	return ops
}

// fieldOp returns a random update of kind o for id: deltas small, to the edge, past it, or
// huge; values in range, at the edges, or out of range.
func (d *diff) fieldOp(o boardmodel.Update, id string) boardmodel.Update {
	f := d.l.Fields[o.Field]
	if o.Op != layout.OpAdd && f.Season && d.m.Season != nil {
		o.Key = d.seasonKey(f)
		return o
	}
	if o.Op != layout.OpAdd {
		o.Key = oracle.RandomKey(f, d.rng)
		if bad := oracle.OutOfRange(f); len(bad) > 0 && d.rng.IntN(8) == 0 {
			o.Key = bad[d.rng.IntN(len(bad))]
		}
		return o
	}
	cur := boardmodel.Zero(d.l)[o.Field]
	if keys, ok := d.m.Entries[id]; ok {
		cur = keys[o.Field]
	}
	span := int64(min(f.Span(), math.MaxInt64/4))
	val := func(k uint64) int64 { return boardmodel.Value(f, k).Int64() }
	switch d.rng.IntN(7) {
	case 0: // exactly to an edge
		if d.rng.IntN(2) == 0 {
			o.Delta = val(f.Hi) - val(cur)
		} else {
			o.Delta = val(f.Lo) - val(cur)
		}
	case 1: // one past an edge
		if d.rng.IntN(2) == 0 {
			o.Delta = val(f.Hi) - val(cur) + 1
		} else {
			o.Delta = val(f.Lo) - val(cur) - 1
		}
	case 2: // anywhere in ±span
		o.Delta = d.rng.Int64N(2*span+1) - span
	case 3: // huge
		o.Delta = []int64{math.MaxInt64, math.MinInt64, 1 << 53, -(1 << 53), 1<<53 + 1}[d.rng.IntN(5)]
	default: // small
		o.Delta = d.rng.Int64N(11) - 5
	}
	return o
}

// clocks are readings of the clocks a write's stamps may come from: the client's, and on a
// periodic board Redis's (TIME), which decides the season of server stamps.
type clocks struct{ local, server time.Time }

// clocks reads them; around a write, once before the call and once after its reply.
func (d *diff) clocks() clocks {
	if d.m.Season == nil {
		return clocks{local: time.Now()}
	}
	return clocks{server: serverNow(d.t, d.c), local: time.Now()}
}

// stampsFrom returns a Stamper that takes stamped values from the board's entry after checking
// them against the clock window of the call.
func (d *diff) stampsFrom(got layout.Entry, before, after clocks) boardmodel.Stamper {
	return func(i int) (uint64, error) {
		f := d.l.Fields[i]
		if f.Season && d.m.Season != nil {
			w := boardmodel.Window{Before: before.server, After: after.server}
			if f.Stamp == layout.StampClient {
				w = boardmodel.Window{Before: before.local, After: after.local}
			}
			return d.m.SeasonStamp(i, got, w)
		}
		if got.Keys == nil {
			// The board refused the update: right when the clock was outside the stamped
			// field's range during the whole call.
			lo, _ := layout.TimeUnits(before.local, f.Unit)
			hi, _ := layout.TimeUnits(after.local, f.Unit)
			if hi < f.MinInt() || lo > f.MaxInt() {
				return 0, &rankgenrt.RangeError{Field: f.Name}
			}
			return 0, errors.New("the board returned no entry")
		}
		k := got.Keys[i]
		return k, boardmodel.StampWindow(f, k, before.local, after.local)
	}
}

// seasonKey returns a key of season-anchored field f for the model's season: mostly inside
// it, its first and last instants often, and now and then just outside it (its length, a
// negative offset, the field's widest value), which the board refuses with ErrSeasonClosed.
func (d *diff) seasonKey(f *layout.Field) uint64 {
	n := int64(d.m.Season.Len() / f.Unit.Duration()) // offsets 0 … n−1
	var off int64
	switch r := d.rng.IntN(16); {
	case r == 0:
		off = []int64{n, n + 1, -1, layout.IntOf(f.Hi)}[d.rng.IntN(4)]
	case r < 3:
		off = 0
	case r < 5:
		off = n - 1
	default:
		off = d.rng.Int64N(n)
	}
	return layout.IntKey(off)
}

func (d *diff) compareErr(what string, got, want error) {
	d.t.Helper()
	if !boardmodel.SameError(got, want) {
		d.errorf("%s: board error %v; the model's %v", what, got, want)
	}
}

func (d *diff) compareEntry(what string, got, want layout.Entry) {
	d.t.Helper()
	if got.ID != want.ID || !slices.Equal(got.Keys, want.Keys) || !slices.Equal(got.Data, want.Data) {
		d.errorf("%s: board entry %s; the model's %s", what, d.fmt(got), d.fmt(want))
	}
}

func (d *diff) fmt(e layout.Entry) string {
	parts := []string{fmt.Sprintf("%q", e.ID)}
	for i, f := range d.l.Fields {
		if i < len(e.Keys) {
			parts = append(parts, f.Name+"="+f.Format(e.Keys[i]))
		}
	}
	if e.Data != nil {
		parts = append(parts, fmt.Sprintf("data=%+v", e.Data))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// checkState compares everything stored under the board's keys with the model: the sorted set
// pair by pair (scores by their bits) in board order, and the index or meta key.
func (d *diff) checkState() {
	d.t.Helper()
	keys := d.b.Keys()
	zs, err := d.c.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: keys[0], Start: 0, Stop: -1, Rev: true}).Result()
	if err != nil {
		d.errorf("ZRANGE: %v", err)
		return
	}
	want, err := d.m.Pairs()
	if err != nil {
		d.errorf("%v", err)
		return
	}
	if len(zs) != len(want) {
		d.errorf("the board holds %d members; the model %d", len(zs), len(want))
		return
	}
	members := map[string]string{}
	for i, z := range zs {
		w := want[i]
		if math.Float64bits(z.Score) != math.Float64bits(w.Score) || z.Member != w.Member {
			d.errorf("position %d holds (%v, %q); the model (%v, %q) = %s", i, z.Score, z.Member, w.Score, w.Member, d.fmt(w.Entry))
			return
		}
		members[w.Entry.ID] = w.Member
	}
	if d.l.HasPrefix() {
		idx, err := d.c.HGetAll(ctx, keys[1]).Result()
		if err != nil {
			d.errorf("HGETALL %s: %v", keys[1], err)
			return
		}
		if fp, ok := idx[""]; ok {
			if fp != d.l.Fingerprint {
				d.errorf("index fingerprint %q; want %q", fp, d.l.Fingerprint)
			}
			delete(idx, "")
		}
		if len(idx) != len(members) {
			d.errorf("the index has %d ids; the board %d", len(idx), len(members))
		}
		for id, m := range members {
			if idx[id] != m {
				d.errorf("the index maps %q to %q; the board holds %q", id, idx[id], m)
			}
		}
	} else {
		fp, err := d.c.Get(ctx, keys[1]).Result()
		if err != redis.Nil && (err != nil || fp != d.l.Fingerprint) {
			d.errorf("meta key %s = %q, %v; want %q", keys[1], fp, err, d.l.Fingerprint)
		}
	}
	if d.l.HasData() {
		d.checkData(keys[2])
	}
}

// checkData compares the board's data hash with the model: the stored-format fingerprint,
// and the data of exactly the entries Set or Best gave data, byte for byte.
func (d *diff) checkData(key string) {
	d.t.Helper()
	got, err := d.c.HGetAll(ctx, key).Result()
	if err != nil {
		d.errorf("HGETALL %s: %v", key, err)
		return
	}
	if fp, want := got[""], strings.Join(d.l.DataChain, ","); fp != "" && fp != want {
		d.errorf("data format %q; want %q", fp, want)
	}
	delete(got, "")
	if len(got) != len(d.m.Data) {
		d.errorf("the data hash has %d ids; the model %d", len(got), len(d.m.Data))
	}
	for id, vals := range d.m.Data {
		want, err := d.l.EncodeData(vals)
		if err != nil || got[id] != want {
			d.errorf("the data of %q is %q; the model's %q (%v)", id, got[id], want, err)
		}
	}
}
