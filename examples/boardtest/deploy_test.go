package boardtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/p1"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/p2"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v1"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v3"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestRollingDeployLayoutChange runs the documented procedure for a change of layout, with
// writers counting every acknowledged write: a board filled by v1's code; v3's code (Points
// widened, a ranking field Class added; previous: v1) deployed beside v1's, both writing and
// reading the board, which stays in v1's layout; then v3's alone while rankgen migrate moves
// the board to v3's layout; then v3's on the new layout. Nothing is refused but what v1's
// layout cannot hold exactly (before the switch) and what the migration's final fence holds
// back; nothing is lost, though connections are killed every few milliseconds during the
// migration (writers resend under their idempotency keys; the killed migration runs again and
// resumes). 10,000 entries; RANKGEN_LONG=1 fills 100,000.
func TestRollingDeployLayoutChange(t *testing.T) {
	n := 10_000
	if os.Getenv("RANKGEN_LONG") == "1" {
		n = 100_000
	}
	t.Run("quiet", func(t *testing.T) { rollingDeploy(t, n, false) })
	t.Run("kill storm", func(t *testing.T) { rollingDeploy(t, n, true) })
}

// rollingDeploy runs TestRollingDeployLayoutChange on n entries, with a storm of killed
// connections during the migration or without.
func rollingDeploy(t *testing.T, n int, storm bool) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	key := redistest.Key(t, "deploy")
	b1, b3 := v1.NewBoard(c, key), v3.NewBoard(c, key)
	id := func(i int) string { return fmt.Sprintf("p%06d", i) }

	// want is each entry as last acknowledged, in v3's terms.
	want := make([]v3.Entry, n)
	fill := make([]v1.Entry, 0, 1000)
	for i := range n {
		want[i] = v3.Entry{PlayerID: id(i), Points: uint64(i), Class: v3.ClassKart, Data: v3.Data{Nick: "n" + id(i), Level: uint8(i)}}
		fill = append(fill, v1.Entry{PlayerID: id(i), Points: uint32(i), Data: v1.Data{Nick: "n" + id(i), Level: uint8(i)}})
		if len(fill) == cap(fill) || i == n-1 {
			if _, err := b1.SetMany(ctx, fill); err != nil {
				t.Fatalf("filling with v1: %v", err)
			}
			fill = fill[:0]
		}
	}
	var (
		mu       sync.Mutex
		failures []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	check := func(phase string) {
		t.Helper()
		if len(failures) > 0 {
			t.Fatalf("%s: (first %d)\n%s", phase, len(failures), strings.Join(failures, "\n"))
		}
	}

	// The deploy: four writers, each on every 40th id from its own, run both versions' code on
	// them in turn, each reading back what the other wrote.
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 10 * g; i < n; i += 40 {
				deployRound(b1, b3, &want[i], i, fail)
			}
		}()
	}
	wg.Wait()
	check("during the deploy")
	if _, err := b1.Top(ctx, 10); err != nil {
		t.Fatalf("v1 reads the board after the deploy: %v; want it still in v1's layout", err)
	}

	// v3 alone, while the migration runs: eight writers set their ids' entries again and again,
	// retrying a write the fence refuses after its Wait.
	var (
		stop            = make(chan struct{})
		acked, fenced   atomic.Int64
		heldBack        atomic.Int64 // refusals of writes of values only v3's layout holds
		heldByFence     atomic.Int64 // of which the migration's fence made (ErrMigrating, with Wait)
		rallyAcked      atomic.Int64
		resent          atomic.Int64
		longest         atomic.Int64 // nanoseconds from a write's first attempt to its acknowledgement
		switched        atomic.Bool
		newLayoutWrites atomic.Int64
		writers         sync.WaitGroup
		stopped         = func() bool {
			select {
			case <-stop:
				return true
			default:
				return false
			}
		}
	)
	for g := range 8 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for round := 0; !stopped() || round < 1; round++ {
				for i := g; i < n && !stopped(); i += 8 * 7 {
					w := want[i]
					w.Points += 3
					after := switched.Load()
					// Writer 7 sets Class rally, which only v3's layout holds: refused until
					// the switch, then written. The others do so once it has switched.
					rally := g == 7 || after && i%2 == 0
					if rally {
						w.Class = v3.ClassRally
					}
					add := round%2 == 1 && !rally // every other round adds instead, as v1's code did
					if add {
						w = want[i]
						w.Points += 7
					}
					start, wctx := time.Now(), ctx
					for attempt := 0; ; attempt++ {
						var err error
						if add {
							_, err = b3.AddPoints(wctx, w.PlayerID, 7)
						} else {
							_, err = b3.Set(wctx, w)
						}
						var me *rankgenrt.MigratingError
						if rally && (errors.As(err, &me) || errors.Is(err, rankgenrt.ErrNotInPreviousLayout)) {
							heldBack.Add(1) // until the switch: during the migration, told when by Wait
							if me != nil {
								heldByFence.Add(1)
								time.Sleep(me.Wait)
							} else {
								time.Sleep(5 * time.Millisecond)
							}
							continue
						}
						if errors.As(err, &me) {
							fenced.Add(1)
							time.Sleep(me.Wait)
							continue
						}
						var ue *rankgenrt.UncertainError
						if errors.As(err, &ue) && attempt < 1000 {
							resent.Add(1) // a killed connection: the same write again under its key
							wctx = rankgenrt.WithIdempotencyKey(ctx, ue.Token)
							continue
						}
						if err != nil {
							fail("v3 write %s during the migration: %v", w.PlayerID, err)
							return
						}
						break
					}
					if d := int64(time.Since(start)); !rally && d > longest.Load() { // the pause: writes the old layout holds
						longest.Store(d)
					}
					want[i] = w
					acked.Add(1)
					if rally {
						rallyAcked.Add(1)
					}
					if after {
						newLayoutWrites.Add(1)
					}
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	storming := make(chan struct{})
	killer := &sync.WaitGroup{}
	if storm {
		killer = killStorm(srv.Addr, 3*time.Millisecond, storming)
	}
	var (
		rep  migrate.Report
		runs int
		err  error
	)
	for runs = 1; ; runs++ { // a run whose connection is killed is run again: it resumes
		rep, err = migrate.Run(context.Background(), c, previousPlan(t, "internal/compat/v3/v3.yaml"), migrate.Options{Key: key})
		if err == nil || runs == 500 {
			break
		}
	}
	if err != nil || !rep.Switched {
		close(storming)
		close(stop)
		writers.Wait()
		t.Fatalf("migrate, %d runs: %+v, %v", runs, rep, err)
	}
	switched.Store(true)
	time.Sleep(100 * time.Millisecond)
	close(storming)
	killer.Wait()
	close(stop)
	writers.Wait()
	check("during the migration")
	if newLayoutWrites.Load() == 0 {
		t.Fatal("no write reached the board after the switch")
	}
	if rallyAcked.Load() == 0 {
		t.Fatal("no write of Class rally was acknowledged after the switch")
	}
	t.Logf("%d entries: %d writes acknowledged during and after the migration, %d resent after a killed connection, %d refused by the fence's final catch-up (it stood %v, closed %v; the migration counts %d refusals in all), longest write %v; the migration ran %d times; writes of Class rally refused until the switch %d times (%d by the fence, with a Wait), %d acknowledged after it",
		n, acked.Load(), resent.Load(), fenced.Load(), rep.Fenced, rep.Closed, rep.Refused, time.Duration(longest.Load()), runs, heldBack.Load(), heldByFence.Load(), rallyAcked.Load())

	// After the switch: v1's code is refused (nothing written), its reads too (this Board read
	// the board in v1's layout before: nothing it remembers lets it misread v3's entries), and
	// v3's code writes v3's layout.
	if _, err := b1.Set(ctx, v1.Entry{PlayerID: id(1), Points: 1}); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("v1 Set after the switch: %v; want ErrLayoutMismatch", err)
	}
	if top, err := b1.Top(ctx, 3); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("v1 Top after the switch: %+v, %v; want ErrLayoutMismatch", top, err)
	}
	top := want[3]
	top.Points, top.Class = 1<<39, v3.ClassTouring
	if _, err := b3.Set(ctx, top); err != nil {
		t.Fatalf("v3 Set of a value only its layout holds, after the switch: %v", err)
	}
	want[3] = top

	// Nothing lost: every entry as last acknowledged, and the board in v3's order.
	live := make([]v3.Entry, 0, n)
	ids := make([]string, n)
	for i := range n {
		ids[i] = id(i)
	}
	for at := 0; at < n; at += 1000 {
		got, err := b3.GetMany(ctx, ids[at:min(at+1000, n)]...)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range got {
			if i := at + j; r.Err != nil || r.Entry != want[i] {
				t.Fatalf("%s reads %+v (%v); want %+v", id(i), r.Entry, r.Err, want[i])
			}
		}
		live = append(live, want[at:min(at+1000, n)]...)
	}
	slices.SortFunc(live, v3.Compare)
	page, err := b3.Top(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range page {
		if r.Entry != live[k] {
			t.Fatalf("rank %d is %+v; want %+v", k+1, r.Entry, live[k])
		}
	}
}

// deployRound writes and reads one id with both versions' code while the board holds v1's
// layout, keeping w (the entry in v3's terms) as last acknowledged.
func deployRound(b1 *v1.Board, b3 *v3.Board, w *v3.Entry, i int, fail func(string, ...any)) {
	id := w.PlayerID
	next := v3.Entry{PlayerID: id, Points: w.Points + 1, Class: v3.ClassKart, Data: v3.Data{Nick: "v3", Level: 3}}
	if _, err := b3.Set(ctx, next); err != nil {
		fail("v3 Set %s: %v", id, err)
		return
	}
	*w = next
	if got, err := b1.Get(ctx, id); err != nil || uint64(got.Points) != w.Points || got.Data != (v1.Data{Nick: "v3", Level: 3}) {
		fail("v1 Get %s after v3's Set: %+v, %v", id, got, err)
		return
	}
	if _, err := b1.AddPoints(ctx, id, 2); err != nil {
		fail("v1 AddPoints %s: %v", id, err)
		return
	}
	w.Points += 2
	if got, err := b3.Get(ctx, id); err != nil || got != *w {
		fail("v3 Get %s after v1's AddPoints: %+v, %v; want %+v", id, got, err, *w)
		return
	}
	// What v1's layout cannot hold is refused, typed, and writes nothing.
	rally := *w
	rally.Class = v3.ClassRally
	if _, err := b3.Set(ctx, rally); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) || !errors.Is(err, rankgenrt.ErrRetry) {
		fail("v3 Set of Class rally on v1's layout: %v; want ErrNotInPreviousLayout", err)
		return
	}
	wide := *w
	wide.Points = 1 << 31
	if _, err := b3.Best(ctx, wide); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) || !errors.Is(err, rankgenrt.ErrOutOfRange) {
		fail("v3 Best of Points 2^31 on v1's layout: %v; want ErrNotInPreviousLayout and ErrOutOfRange", err)
		return
	}
	if got, err := b3.Get(ctx, id); err != nil || got != *w {
		fail("v3 Get %s after refused writes: %+v, %v; want %+v", id, got, err, *w)
		return
	}
	if i%3 == 0 { // removed by v3, inserted again by v3, then seen by v1
		if n, err := b3.Remove(ctx, id); err != nil || n != 1 {
			fail("v3 Remove %s: %d, %v", id, n, err)
			return
		}
		if _, err := b1.Get(ctx, id); !errors.Is(err, rankgenrt.ErrNotFound) {
			fail("v1 Get %s after v3's Remove: %v; want ErrNotFound", id, err)
			return
		}
		again := v3.Entry{PlayerID: id, Points: 5, Class: v3.ClassKart, Data: v3.Data{Nick: "again"}}
		if wr, err := b3.Insert(ctx, again); err != nil || !wr.Changed || wr.Existed {
			fail("v3 Insert %s: %+v, %v", id, wr, err)
			return
		}
		*w = again
	}
	// v3's field updates run as v1's where they behave alike.
	if wr, err := b3.AddPoints(ctx, id, 4); err != nil || wr.Points != w.Points+4 || wr.Before.Points != w.Points || wr.Class != w.Class {
		fail("v3 AddPoints %s: %+v, %v", id, wr, err)
		return
	}
	w.Points += 4
	if wr, err := b3.Update(ctx, id, v3.AddPoints(1), v3.SetData(v3.Data{Nick: "list", Level: 8})); err != nil || wr.Points != w.Points+1 || wr.Data != (v3.Data{Nick: "list", Level: 8}) {
		fail("v3 Update %s: %+v, %v", id, wr, err)
		return
	}
	w.Points, w.Data = w.Points+1, v3.Data{Nick: "list", Level: 8}
	if got, err := b1.Get(ctx, id); err != nil || uint64(got.Points) != w.Points || got.Data != (v1.Data{Nick: "list", Level: 8}) {
		fail("v1 Get %s after v3's Update: %+v, %v", id, got, err)
		return
	}
	if rs, err := b3.UpdateMany(ctx, []v3.Changes{{PlayerID: id, Apply: []v3.Change{v3.SetPoints(w.Points + 2)}}}); err != nil || rs[0].Err != nil || rs[0].Points != w.Points+2 {
		fail("v3 UpdateMany %s: %+v, %v", id, rs, err)
		return
	}
	w.Points += 2
	if _, err := b3.Update(ctx, id, v3.SetPoints(1<<33)); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
		fail("v3 Update SetPoints 2^33 on v1's layout: %v; want ErrNotInPreviousLayout", err)
		return
	}
	if _, err := b3.SetPoints(ctx, id, 1<<35); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
		fail("v3 SetPoints 2^35 on v1's layout: %v; want ErrNotInPreviousLayout", err)
		return
	}
	// v3's reads of a range of Points read v1's, over the bounds within v1's range.
	if es, err := b3.RangePoints(ctx, w.Points, w.Points, 0, 1000); err != nil || !slices.Contains(es, *w) {
		fail("v3 RangePoints [%d, %d] does not hold %+v: %d entries, %v", w.Points, w.Points, *w, len(es), err)
		return
	}
	if n, err := b3.CountPointsBetween(ctx, 1<<31, 1<<36); err != nil || n != 0 {
		fail("v3 CountPointsBetween [2^31, 2^36] on v1's layout: %d, %v; want 0 (past v1's range)", n, err)
		return
	}
	if _, err := b3.CountPointsBetween(ctx, 0, 1<<41); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		fail("v3 CountPointsBetween past its own range: %v; want ErrOutOfRange", err)
		return
	}
	if rank3, err := b3.Rank(ctx, id); err != nil || rank3 < 1 {
		fail("v3 Rank %s: %d, %v", id, rank3, err)
	}
}

// TestResendAcrossTheSwitch: a write v3's code made in v1's layout, whose reply was lost, is
// resent under its idempotency key after the migration switched the board: it gets its first
// reply, applied once, whichever layout the resending board tries first.
func TestResendAcrossTheSwitch(t *testing.T) {
	c := redistest.Client(t)
	key := redistest.Key(t, "resend")
	b1 := v1.NewBoard(c, key)
	if _, err := b1.SetMany(ctx, []v1.Entry{{PlayerID: "a", Points: 10}, {PlayerID: "b", Points: 20}}); err != nil {
		t.Fatal(err)
	}
	b3 := v3.NewBoard(c, key)
	set := rankgenrt.WithIdempotencyKey(ctx, "set-a")
	add := rankgenrt.WithIdempotencyKey(ctx, "add-b")
	first, err := b3.Set(set, v3.Entry{PlayerID: "a", Points: 11})
	if err != nil {
		t.Fatal(err)
	}
	firstAdd, err := b3.AddPoints(add, "b", 5)
	if err != nil {
		t.Fatal(err)
	}
	migrateToV3(t, c, key)

	// The same board (it last saw v1's layout), then one that has seen v3's.
	again, err := b3.Set(set, v3.Entry{PlayerID: "a", Points: 11})
	if err != nil || again != first {
		t.Fatalf("resend of Set after the switch: %+v, %v; want the first reply %+v", again, err, first)
	}
	fresh := v3.NewBoard(c, key)
	if _, err := fresh.Set(ctx, v3.Entry{PlayerID: "c", Points: 1, Class: v3.ClassRally}); err != nil {
		t.Fatal(err)
	}
	againAdd, err := fresh.AddPoints(add, "b", 5)
	if err != nil || againAdd != firstAdd {
		t.Fatalf("resend of AddPoints after the switch: %+v, %v; want the first reply %+v", againAdd, err, firstAdd)
	}
	againSet, err := fresh.Set(set, v3.Entry{PlayerID: "a", Points: 11})
	if err != nil || againSet != first {
		t.Fatalf("resend of Set by a board that has seen v3's layout: %+v, %v; want %+v", againSet, err, first)
	}
	for id, points := range map[string]uint64{"a": 11, "b": 25, "c": 1} {
		if e, err := fresh.Get(ctx, id); err != nil || e.Points != points {
			t.Errorf("%s: %+v, %v; want %d points, applied once", id, e, err, points)
		}
	}
	// Another write under a used key is still refused.
	if _, err := fresh.Set(set, v3.Entry{PlayerID: "a", Points: 99}); !errors.Is(err, rankgenrt.ErrTokenReused) {
		t.Errorf("another Set under a used key: %v; want ErrTokenReused", err)
	}
}

// routedBatch runs a batch of updates on the routed board (a board in v1's layout, through
// v3's code) and the items it did not refuse as v1's layout cannot hold them on the native
// one (v3's layout): their results must agree. It returns how many items were refused.
func routedBatch[V any](t *testing.T, step int, name string, routed, native func(context.Context, []v3.Update[V]) ([]v3.Result, error), ups []v3.Update[V]) int {
	t.Helper()
	got, err := routed(ctx, ups)
	if err != nil {
		t.Fatalf("step %d: %s on v1's layout: %v", step, name, err)
	}
	refused := 0
	var kept []v3.Update[V]
	var keptGot []v3.Result
	for i, r := range got {
		if errors.Is(r.Err, rankgenrt.ErrNotInPreviousLayout) {
			refused++
			continue
		}
		kept, keptGot = append(kept, ups[i]), append(keptGot, r)
	}
	want, err := native(ctx, kept)
	if err != nil || !sameResults(keptGot, want) {
		t.Fatalf("step %d: %s on v1's layout %+v; on v3's %+v, %v", step, name, keptGot, want, err)
	}
	return refused
}

// previousPlan is the migration to the schema file from the previous schema it names.
func previousPlan(t *testing.T, file string) *migrate.Plan {
	t.Helper()
	plan, err := migrate.PreviousPlan(previousLayout(t, file))
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// previousLayout is the layout of the schema file, with the previous one it names loaded.
func previousLayout(t *testing.T, file string) *layout.Layout {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.Parse(file, src)
	if err == nil {
		err = layout.LoadPrevious(l, file, os.ReadFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// migrateToV3 migrates key to v3's layout, with the mapping its schema names.
func migrateToV3(t *testing.T, c redis.UniversalClient, key string) migrate.Report {
	t.Helper()
	rep, err := migrate.Run(context.Background(), c, previousPlan(t, "internal/compat/v3/v3.yaml"), migrate.Options{Key: key})
	if err != nil || !rep.Switched {
		t.Fatalf("migrate: %+v, %v", rep, err)
	}
	return rep
}

// TestSeasonsRollingDeploy: on a periodic board, p2's code (previous: p1) writes and reads the
// live season's board in p1's layout beside p1's code, its field updates, change lists and
// touches included; migrate moves the board's live seasons to p2's layout; then p2 writes its
// own.
func TestSeasonsRollingDeploy(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { seasonsRollingDeploy(t, tg.Client) })
}

func seasonsRollingDeploy(t *testing.T, c redis.UniversalClient) {
	base := redistest.Key(t, "{daily}")
	s1, s2 := p1.NewSeasons(c, base), p2.NewSeasons(c, base)
	season := exampleboards.LiveSeason(t, c, s1.At, 30*time.Second)
	b1, b2 := s1.Board(season), s2.Board(season)
	for i := range 50 {
		if _, err := b1.Set(ctx, p1.Entry{PlayerID: fmt.Sprintf("p%02d", i), Points: uint32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b2.AddPoints(ctx, "p01", 10); err != nil {
		t.Fatalf("p2 AddPoints on p1's layout: %v", err)
	}
	if _, err := b2.Update(ctx, "p02", p2.AddPoints(3)); err != nil {
		t.Fatalf("p2 Update on p1's layout: %v", err)
	}
	if _, err := b2.Touch(ctx, "p03"); err != nil {
		t.Fatalf("p2 Touch on p1's layout: %v", err)
	}
	// p1's layout has no Tier: a change of it is refused, as is a value past p1's Points.
	if _, err := b2.Update(ctx, "p04", p2.AddPoints(1), p2.SetTier(p2.TierGold)); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
		t.Fatalf("p2 Update to Tier gold on p1's layout: %v; want ErrNotInPreviousLayout", err)
	}
	if _, err := b2.SetTier(ctx, "p04", p2.TierBronze); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
		t.Fatalf("p2 SetTier, an update p1's layout lacks: %v; want ErrNotInPreviousLayout", err)
	}
	if _, err := b2.SetTierMany(ctx, []p2.Update[p2.Tier]{{PlayerID: "p04", Value: p2.TierGold}}); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
		t.Fatalf("p2 SetTierMany, an update p1's layout lacks: %v; want ErrNotInPreviousLayout", err)
	}
	if _, err := b2.SetPoints(ctx, "p04", 1<<24); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) || !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("p2 SetPoints 2^24 on p1's layout: %v; want ErrNotInPreviousLayout", err)
	}
	// Reads across seasons read each season's board in the layout it holds.
	hist, err := s2.History(ctx, "p01", season, s2.Prev(season))
	if err != nil || hist[0].Err != nil || hist[0].Points != 11 || hist[0].Rank < 1 || !errors.Is(hist[1].Err, rankgenrt.ErrNotFound) {
		t.Fatalf("p2 History on p1's layout: %+v, %v", hist, err)
	}
	for id, points := range map[string]uint32{"p01": 11, "p02": 5, "p03": 3, "p04": 4} {
		e1, err1 := b1.Get(ctx, id)
		e2, err2 := b2.Get(ctx, id)
		if err1 != nil || err2 != nil || e1.Points != points || uint64(e2.Points) != uint64(points) || e2.ReachedAt != e1.ReachedAt || e2.Tier != p2.TierBronze {
			t.Fatalf("%s: p1 reads %+v (%v), p2 %+v (%v); want %d points", id, e1, err1, e2, err2, points)
		}
	}

	// A removal and a rollup across the seasons reach the boards in p1's layout: an all-time
	// board kept beside the seasons (p1's until the migration, which moves the seasons only)
	// and the season's.
	allTime := base + ":alltime"
	for _, id := range []string{"p10", "p11"} {
		if _, err := p1.NewBoard(c, allTime, season).Set(ctx, p1.Entry{PlayerID: id, Points: 500}); err != nil {
			t.Fatal(err)
		}
	}
	a2 := p2.NewBoard(c, allTime, season)
	if held, err := s2.RemoveEverywhere(ctx, []string{"p10", "nobody"}, a2); err != nil || !slices.Equal(held, []int{2, 0}) {
		t.Fatalf("p2 RemoveEverywhere on p1's layout: %v, %v; want [2 0]", held, err)
	}
	rollup, err := s2.Rollup(ctx, p2.RollupSpec{Field: p2.RollupPoints, Op: p2.RollupSum, Last: 2, TTL: time.Minute})
	if err != nil {
		t.Fatalf("p2 Rollup of seasons in p1's layout: %v", err)
	}
	if top, err := rollup.Top(ctx, 2); err != nil || len(top) != 2 || top[0].PlayerID != "p49" || top[0].Points != 49 || top[1].PlayerID != "p48" {
		t.Fatalf("the rollup built in p1's layout reads %+v, %v", top, err)
	}
	// A sum p1's 24-bit Points cannot hold is refused as that layout's (the season before holds
	// a copy of this season's board, its big entry included), and builds nothing.
	if _, err := b1.Set(ctx, p1.Entry{PlayerID: "big", Points: 10_000_000}); err != nil {
		t.Fatal(err)
	}
	prevKeys := s1.Board(s1.Prev(season)).Keys()
	for i, k := range b1.Keys() {
		if err := c.Copy(ctx, k, prevKeys[i], 0, true).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Del(ctx, rollup.Keys()...).Err(); err != nil { // not the cached rollup: a new one
		t.Fatal(err)
	}
	if _, err := s2.Rollup(ctx, p2.RollupSpec{Field: p2.RollupPoints, Op: p2.RollupSum, Last: 2, TTL: time.Minute}); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) || !errors.Is(err, rankgenrt.ErrOverflow) {
		t.Fatalf("p2 Rollup of a sum past p1's Points: %v; want ErrNotInPreviousLayout and ErrOverflow", err)
	}
	if n := c.Exists(ctx, rollup.Keys()...).Val(); n != 0 {
		t.Fatalf("the refused rollup left %d keys", n)
	}
	if _, err := b1.Remove(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if err := c.Del(ctx, prevKeys...).Err(); err != nil {
		t.Fatal(err)
	}
	if rollup, err = s2.Rollup(ctx, p2.RollupSpec{Field: p2.RollupPoints, Op: p2.RollupSum, Last: 2, TTL: time.Minute}); err != nil {
		t.Fatalf("p2 Rollup built again: %v", err)
	}

	plan := previousPlan(t, "internal/compat/p2/p2.yaml")
	now, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.RunBoard(ctx, c, plan, migrate.Options{Key: base, Now: now}); err != nil {
		t.Fatalf("migrate the seasons: %v", err)
	}
	if _, err := b2.SetTier(ctx, "p05", p2.TierBronze); err != nil {
		t.Fatalf("p2 SetTier after the switch: %v", err)
	}
	// The seasons hold p2's layout now, the all-time board still p1's: each is reached in its
	// own, and so is the rollup cached in p1's layout.
	if held, err := s2.RemoveEverywhere(ctx, []string{"p11", "p12"}, a2); err != nil || !slices.Equal(held, []int{3, 2}) {
		t.Fatalf("p2 RemoveEverywhere over both layouts: %v, %v; want [3 2]", held, err)
	}
	for _, b := range []*p2.Board{b2, a2, rollup} {
		if _, err := b.Get(ctx, "p11"); !errors.Is(err, rankgenrt.ErrNotFound) {
			t.Fatalf("p11 on %s after RemoveEverywhere: %v; want ErrNotFound", b.Key(), err)
		}
	}
	if _, err := b2.Update(ctx, "p04", p2.SetTier(p2.TierGold), p2.SetPoints(1<<30)); err != nil {
		t.Fatalf("p2 Update after the switch: %v", err)
	}
	if hist, err := s2.History(ctx, "p04", season); err != nil || hist[0].Err != nil || hist[0].Tier != p2.TierGold || hist[0].Rank != 1 {
		t.Fatalf("p2 History after the switch: %+v, %v", hist, err)
	}
	top, err := b2.Top(ctx, 3)
	if err != nil || len(top) != 3 || top[0].PlayerID != "p04" || top[0].Tier != p2.TierGold || top[1].PlayerID != "p49" || top[2].PlayerID != "p48" {
		t.Fatalf("Top after the switch: %+v, %v", top, err)
	}
	// Seasons of both layouts, as while a migration moves them one by one (here the season
	// before holds a copy of a board of p1's layout): a rollup over both waits for the move.
	scratch, before := p1.NewBoard(c, base+":scratch", season), s1.Board(s1.Prev(season))
	if _, err := scratch.Set(ctx, p1.Entry{PlayerID: "p01", Points: 1}); err != nil {
		t.Fatal(err)
	}
	for i, k := range scratch.Keys() {
		if err := c.Copy(ctx, k, before.Keys()[i], 0, true).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s2.Rollup(ctx, p2.RollupSpec{Field: p2.RollupPoints, Op: p2.RollupMax, Last: 2, TTL: time.Minute}); !errors.Is(err, rankgenrt.ErrMigrating) {
		t.Fatalf("p2 Rollup over seasons of both layouts: %v; want ErrMigrating", err)
	}

	// p1's Board read the board with a plain command before the switch; it reads no entry of
	// p2's layout as its own after it.
	if e, err := b1.Get(ctx, "p01"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Fatalf("p1 reads after the switch: %+v, %v; want ErrLayoutMismatch", e, err)
	}
}

// TestShardedRollingDeploy: v3's ShardedBoard over shards v1's code filled reads and writes
// them in v1's layout, merging the shards' entries in rank order; migrate moves each shard to
// v3's layout (migrate.RunBoard with Shards); then it writes v3's. On one server and on a
// cluster, where the shards lie in other hash slots.
func TestShardedRollingDeploy(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { shardedRollingDeploy(t, tg.Client) })
}

func shardedRollingDeploy(t *testing.T, c redis.UniversalClient) {
	const n, shards = 400, 4
	key := redistest.Key(t, "sharded")
	keys, err := rankgenrt.ShardKeys(key, shards)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]v3.Entry{}
	for i := range n {
		id := fmt.Sprintf("p%04d", i)
		e := v1.Entry{PlayerID: id, Points: uint32(i * 7 % 1000), Data: v1.Data{Nick: id}}
		if _, err := v1.NewBoard(c, keys[rankgenrt.ShardOf(id, shards)]).Set(ctx, e); err != nil {
			t.Fatal(err)
		}
		want[id] = v3.Entry{PlayerID: id, Points: uint64(e.Points), Class: v3.ClassKart, Data: v3.Data{Nick: id}}
	}
	s3, err := v3.NewShardedBoard(c, key, shards)
	if err != nil {
		t.Fatal(err)
	}
	checkTop := func(when string) {
		t.Helper()
		all := make([]v3.Entry, 0, len(want))
		for _, e := range want {
			all = append(all, e)
		}
		slices.SortFunc(all, v3.Compare)
		top, err := s3.Top(ctx, 25)
		if err != nil {
			t.Fatalf("%s: Top: %v", when, err)
		}
		for k, r := range top {
			if r.Entry != all[k] || r.Rank != int64(k+1) {
				t.Fatalf("%s: rank %d is %+v; want %+v", when, k+1, r, all[k])
			}
		}
	}
	checkTop("before")
	for i := 0; i < n; i += 9 {
		id := fmt.Sprintf("p%04d", i)
		w := want[id]
		w.Points += 1000
		if _, err := s3.Set(ctx, w); err != nil {
			t.Fatalf("Set %s on v1's shards: %v", id, err)
		}
		if _, err := s3.AddPoints(ctx, id, 5); err != nil {
			t.Fatalf("AddPoints %s on v1's shards: %v", id, err)
		}
		w.Points += 5
		want[id] = w
		if got, err := s3.Get(ctx, id); err != nil || got != w {
			t.Fatalf("Get %s: %+v, %v; want %+v", id, got, err, w)
		}
	}
	checkTop("during the deploy")

	plan := previousPlan(t, "internal/compat/v3/v3.yaml")
	// Halfway (one shard switched), writes and reads of one id go on; a read that merges
	// shards of two layouts is refused, typed.
	if _, err := migrate.Run(ctx, c, plan, migrate.Options{Key: keys[0]}); err != nil {
		t.Fatalf("migrate shard 0: %v", err)
	}
	if _, err := s3.Top(ctx, 5); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Fatalf("Top over shards of two layouts: %v; want ErrLayoutMismatch", err)
	}
	for i := 2; i < n; i += 9 {
		id := fmt.Sprintf("p%04d", i)
		w := want[id]
		w.Points++
		if _, err := s3.Set(ctx, w); err != nil {
			t.Fatalf("Set %s halfway: %v", id, err)
		}
		want[id] = w
		if got, err := s3.Get(ctx, id); err != nil || got != w {
			t.Fatalf("Get %s halfway: %+v, %v; want %+v", id, got, err, w)
		}
	}
	if _, err := migrate.RunBoard(ctx, c, plan, migrate.Options{Key: key, Shards: shards}); err != nil {
		t.Fatalf("migrate the shards: %v", err)
	}
	for i := 1; i < n; i += 9 {
		id := fmt.Sprintf("p%04d", i)
		w := want[id]
		w.Points, w.Class = 1<<38, v3.ClassRally // only v3's layout holds these
		if _, err := s3.Set(ctx, w); err != nil {
			t.Fatalf("Set %s after the switch: %v", id, err)
		}
		want[id] = w
	}
	checkTop("after the switch")
	if top, err := s3.Top(ctx, 2); err != nil || len(top) != 2 {
		t.Fatalf("Top 2: %+v, %v", top, err)
	} else if r, err := s3.Rank(ctx, top[1].PlayerID); err != nil || r != 2 {
		t.Fatalf("Rank of %s: %d, %v; want 2", top[1].PlayerID, r, err)
	}
	if count, err := s3.Count(ctx); err != nil || count != n {
		t.Fatalf("Count: %d, %v; want %d", count, err, n)
	}
}

// TestNewBoardsLayout: a new key starts in v1's layout, which both versions' code writes during
// the deploy, unless v3's code is told WithNewLayoutFirst (once no v1 code runs); either way
// v3's code reads and writes the key in the layout it holds.
func TestNewBoardsLayout(t *testing.T) {
	c := redistest.Client(t)
	during, after := redistest.Key(t, "during"), redistest.Key(t, "after")
	e := v3.Entry{PlayerID: "ann", Points: 3}
	if _, err := v3.NewBoard(c, during).Set(ctx, e); err != nil {
		t.Fatal(err)
	}
	if got, err := v1.NewBoard(c, during).Get(ctx, "ann"); err != nil || got.Points != 3 {
		t.Fatalf("v1 reads the new board v3 started during the deploy: %+v, %v", got, err)
	}
	if _, err := v3.NewBoard(c, after, v3.WithNewLayoutFirst()).Set(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.NewBoard(c, after).Get(ctx, "ann"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Fatalf("v1 reads the new board v3 started WithNewLayoutFirst: %v; want ErrLayoutMismatch (v3's layout)", err)
	}
	for _, key := range []string{during, after} {
		for _, opts := range [][]v3.Option{nil, {v3.WithNewLayoutFirst()}} {
			b := v3.NewBoard(c, key, opts...)
			if _, err := b.AddPoints(ctx, "ann", 1); err != nil {
				t.Fatalf("%s: AddPoints: %v", key, err)
			}
		}
		if got, err := v3.NewBoard(c, key).Get(ctx, "ann"); err != nil || got.Points != 5 {
			t.Fatalf("%s: %+v, %v; want 5 points", key, got, err)
		}
	}
}

// TestRoutedEqualsNative: random writes and reads of v3's code on a board in v1's layout give
// what the same calls give on a board in v3's own layout (started WithNewLayoutFirst), reply
// for reply, where v1's layout can hold their values; where it cannot, the call is refused with
// ErrNotInPreviousLayout and changes nothing, and the native board is given the same refusal's
// outcome by leaving the call out. Both boards then hold the same entries.
func TestRoutedEqualsNative(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		for seed := range uint64(4) {
			t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { routedEqualsNative(t, tg.Client, seed) })
		}
	})
}

func routedEqualsNative(t *testing.T, c redis.UniversalClient, seed uint64) {
	routed := v3.NewBoard(c, redistest.Key(t, "routed"))
	native := v3.NewBoard(c, redistest.Key(t, "native"), v3.WithNewLayoutFirst())
	if _, err := v1.NewBoard(c, routed.Key()).Set(ctx, v1.Entry{PlayerID: "seed", Points: 1}); err != nil {
		t.Fatal(err) // the routed board holds v1's layout from the start
	}
	if _, err := native.Set(ctx, v3.Entry{PlayerID: "seed", Points: 1}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, seed))
	points := func() uint64 {
		switch rng.IntN(10) {
		case 0:
			return 1<<30 + uint64(rng.IntN(10)) // past v1's range
		case 1:
			return 1<<30 - 1 - uint64(rng.IntN(3)) // v1's edge
		}
		return uint64(rng.IntN(50))
	}
	entry := func() v3.Entry {
		e := v3.Entry{PlayerID: fmt.Sprintf("p%d", rng.IntN(12)), Points: points(), Data: v3.Data{Nick: fmt.Sprint("n", rng.IntN(5)), Level: uint8(rng.IntN(3))}}
		if rng.IntN(6) == 0 {
			e.Class = v3.ClassRally // v1's layout holds only kart
		}
		return e
	}
	type call func(b *v3.Board) (any, error)
	var refused, applied int
	for step := range 600 {
		var f call
		switch rng.IntN(10) {
		case 0:
			e := entry()
			f = func(b *v3.Board) (any, error) { return b.Set(ctx, e) }
		case 1:
			e := entry()
			f = func(b *v3.Board) (any, error) { return b.Best(ctx, e) }
		case 2:
			e := entry()
			f = func(b *v3.Board) (any, error) { return b.Insert(ctx, e) }
		case 3:
			id, d := entry().PlayerID, int64(rng.IntN(40))-10
			f = func(b *v3.Board) (any, error) { return b.AddPoints(ctx, id, d) }
		case 4:
			id, v := entry().PlayerID, points()
			f = func(b *v3.Board) (any, error) { return b.SetPoints(ctx, id, v) }
		case 5:
			id, d, data := entry().PlayerID, int64(rng.IntN(5)), entry().Data
			f = func(b *v3.Board) (any, error) { return b.Update(ctx, id, v3.AddPoints(d), v3.SetData(data)) }
		case 6: // a batch: an item v1's layout cannot hold is refused alone, as the native board's is left out
			ups := []v3.Update[int64]{{PlayerID: entry().PlayerID, Value: 3}, {PlayerID: entry().PlayerID, Value: -100}, {PlayerID: entry().PlayerID, Value: 1 << 29}}
			refused += routedBatch(t, step, "AddPointsMany", routed.AddPointsMany, native.AddPointsMany, ups)
			applied++
			continue
		case 7:
			id := entry().PlayerID
			f = func(b *v3.Board) (any, error) { return b.Remove(ctx, id) }
		case 9: // a batch of sets: a value v3 refuses is its item's error on both; one only v1 cannot hold is refused alone
			ups := []v3.Update[uint64]{{PlayerID: entry().PlayerID, Value: points()}, {PlayerID: entry().PlayerID, Value: 1 << 41}, {PlayerID: entry().PlayerID, Value: points()}}
			refused += routedBatch(t, step, "SetPointsMany", routed.SetPointsMany, native.SetPointsMany, ups)
			applied++
			continue
		case 8: // reads, the score reads included (TestRoutedScoreReads compares them with v1's code)
			lo, hi, id := uint64(rng.IntN(30)), uint64(rng.IntN(1<<31)), entry().PlayerID
			f = func(b *v3.Board) (any, error) {
				es, err := b.RangePoints(ctx, lo, hi, 0, 100)
				if err != nil {
					return nil, err
				}
				n, err := b.CountPointsBetween(ctx, lo, hi)
				if err != nil {
					return nil, err
				}
				band, errs := v3.PointsBetween(lo, hi), []string{}
				rs, err := ranked(b.Between(ctx, band, 0, 100))
				errs = append(errs, errKind(err))
				count, err := b.CountBetween(ctx, band)
				errs = append(errs, errKind(err))
				around, err := ranked(b.AroundScore(ctx, v3.PointsIs(hi), 3, 3))
				errs = append(errs, errKind(err))
				competition, err := b.CompetitionRank(ctx, id)
				errs = append(errs, errKind(err))
				dense, err := b.DenseRank(ctx, id)
				errs = append(errs, errKind(err))
				return []any{es, n, rs, count, around, competition, dense, errs}, nil
			}
		}
		got, gotErr := f(routed)
		if errors.Is(gotErr, rankgenrt.ErrNotInPreviousLayout) {
			refused++
			continue // changed nothing on the routed board (the comparison below), so skip it on the native one
		}
		want, wantErr := f(native)
		applied++
		if errKind(gotErr) != errKind(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: on v1's layout %+v, %v; on v3's %+v, %v", step, got, gotErr, want, wantErr)
		}
		if step%50 == 0 {
			a, err1 := routed.Top(ctx, 100)
			b, err2 := native.Top(ctx, 100)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("step %d: the boards differ:\n%+v (%v)\n%+v (%v)", step, a, err1, b, err2)
			}
		}
	}
	a, err1 := routed.Top(ctx, 100)
	b, err2 := native.Top(ctx, 100)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("the boards differ:\n%+v (%v)\n%+v (%v)", a, err1, b, err2)
	}
	if refused == 0 || applied < 300 {
		t.Fatalf("%d calls applied, %d refused: the run did not drive both", applied, refused)
	}
	t.Logf("%d calls alike on both layouts, %d refused on v1's (nothing changed)", applied, refused)
}

// errKind is the sentinel an error matches, for comparing refusals whose texts name their own
// layout's ranges.
func errKind(err error) string {
	for _, k := range []error{rankgenrt.ErrNotInPreviousLayout, rankgenrt.ErrOverflow, rankgenrt.ErrOutOfRange, rankgenrt.ErrNotFound} {
		if errors.Is(err, k) {
			return k.Error()
		}
	}
	return fmt.Sprint(err)
}

// sameResults: the same entries written, and the same kinds of refusal, item by item.
func sameResults(a, b []v3.Result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Written != b[i].Written || errKind(a[i].Err) != errKind(b[i].Err) {
			return false
		}
	}
	return true
}
