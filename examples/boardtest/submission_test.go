package boardtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/boards/relay"
	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// relayBoards is one set of the relay package's boards, under one hash tag.
type relayBoards struct {
	prefix       string // what every key starts with
	best, latest *relay.BestBoard
	total        *relay.TotalBoard
	week         *relay.WeekBoard
}

func newRelay(c redis.UniversalClient, tag string, s rankgenrt.Season) relayBoards {
	return relayBoards{
		prefix: tag,
		best:   relay.NewBestBoard(c, tag+":best"),
		latest: relay.NewBestBoard(c, tag+":latest"),
		total:  relay.NewTotalBoard(c, tag+":total"),
		week:   relay.NewWeekBoard(c, tag+":week", s),
	}
}

func (r relayBoards) race() relay.Race {
	return relay.Race{Best: r.best, Latest: r.latest, Total: r.total, Week: r.week}
}

// keys are every key the boards hold.
func (r relayBoards) keys() []string {
	var ks []string
	for _, b := range []interface{ Keys() []string }{r.best, r.latest, r.total, r.week} {
		ks = append(ks, b.Keys()...)
	}
	return ks
}

// contents reads what every key of the boards holds, keyed by the key without its prefix: a sorted
// set's members and scores, a hash's fields, a string.
func (r relayBoards) contents(t *testing.T, c redis.UniversalClient) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	for _, k := range r.keys() {
		name := strings.TrimPrefix(k, r.prefix)
		typ, err := c.Type(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		switch typ {
		case "zset":
			zs, err := c.ZRangeWithScores(ctx, k, 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			out[name] = fmt.Sprint(zs)
		case "hash":
			h, err := c.HGetAll(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			out[name] = fmt.Sprint(h) // fmt prints maps sorted by key
		case "string":
			out[name], _ = c.Get(ctx, k).Result()
		case "none":
		default:
			t.Fatalf("%s is a %s", k, typ)
		}
	}
	return out
}

// raw is what the boards' keys hold, to put back (DUMP; nil: the key is absent).
func (r relayBoards) raw(t *testing.T, c redis.UniversalClient) map[string]*string {
	out := map[string]*string{}
	for _, k := range r.keys() {
		v, err := c.Dump(context.Background(), k).Result()
		switch {
		case errors.Is(err, redis.Nil):
			out[k] = nil
		case err != nil:
			t.Fatal(err)
		default:
			out[k] = &v
		}
	}
	return out
}

func (r relayBoards) restore(t *testing.T, c redis.UniversalClient, raw map[string]*string) {
	ctx := context.Background()
	for k, v := range raw {
		var err error
		if v == nil {
			err = c.Del(ctx, k).Err()
		} else {
			err = c.RestoreReplace(ctx, k, 0, *v).Err()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// randomRace is a race's input: now and then one that a step refuses (an entry out of range,
// refused before anything is sent; an add that overflows or a set out of range, refused by the
// script).
func randomRace(rng *rand.Rand) relay.RaceInput {
	driver := func() string { return string(rune('a' + rng.IntN(5))) }
	entry := func() relay.BestEntry {
		e := relay.BestEntry{Driver: driver(), BestLap: uint32(60000 + rng.IntN(30000)), Laps: uint32(rng.IntN(100)),
			Speed: uint16(rng.IntN(400)), Data: relay.BestData{Car: relay.BestCar(rng.IntN(3))}}
		if rng.IntN(30) == 0 {
			e.BestLap = 1 << 24 // out of range
		}
		return e
	}
	points := int64(rng.IntN(1 << 30))
	if rng.IntN(12) == 0 {
		points = 1 << 40 // overflows whatever the total holds
	}
	in := relay.RaceInput{
		Best:   entry(),
		Latest: entry(),
		Total:  relay.TotalChanges{Car: uint64(1 + rng.IntN(4)), Apply: []relay.TotalChange{relay.TotalAddPoints(points)}},
		Week:   relay.WeekChanges{Driver: driver(), Apply: []relay.WeekChange{relay.WeekAddWins(int64(rng.IntN(3))), relay.WeekAddRaces(1)}},
	}
	if rng.IntN(20) == 0 {
		in.Week.Apply = append(in.Week.Apply, relay.WeekAddWins(70000)) // beyond Wins's range
	}
	return in
}

// raceAlone runs a race's steps one by one through each board's own method, as the submission's
// oracle: what each replies, or the first step that refuses and its error.
func raceAlone(ctx context.Context, r relayBoards, in relay.RaceInput) (w relay.RaceWritten, step string, err error) {
	if w.Best, err = r.best.Best(ctx, in.Best); err != nil {
		return w, "Best", err
	}
	if w.Latest, err = r.latest.Set(ctx, in.Latest); err != nil {
		return w, "Latest", err
	}
	if w.Total, err = r.total.Update(ctx, in.Total.Car, in.Total.Apply...); err != nil {
		return w, "Total", err
	}
	if w.Week, err = r.week.Update(ctx, in.Week.Driver, in.Week.Apply...); err != nil {
		return w, "Week", err
	}
	return w, "", nil
}

// TestSubmissionsDifferential: random race submissions, on one server and on the cluster, each
// compared with its steps written one by one through the boards' own methods on a second set of
// boards. A submission that succeeds replies, for every step, what that write alone replies, and
// leaves every board as the writes alone leave theirs; one that is refused names the step that
// refuses alone first, with the same error, and leaves every board as it was.
func TestSubmissionsDifferential(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c, ctx := tg.Client, context.Background()
		s := exampleboards.LiveSeason(t, c, relay.NewWeekSeasons(nil, "").At, 2*time.Minute)
		tag := redistest.Key(t, "race")
		sub := newRelay(c, "{"+tag+"}:sub", s)
		alone := newRelay(c, "{"+tag+"}:alone", s)
		rng := rand.New(rand.NewPCG(29, 11))
		applied, refused := 0, map[string]int{}
		for i := range tg.Size(160, 80) {
			in := randomRace(rng)
			before := sub.contents(t, c)
			rawAlone := alone.raw(t, c)
			got, err := sub.race().Submit(ctx, in)
			want, step, werr := raceAlone(ctx, alone, in)
			if werr == nil {
				if err != nil {
					t.Fatalf("race %d: %v; its writes alone succeed", i, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("race %d replied\n%+v\nits writes alone\n%+v", i, got, want)
				}
				applied++
			} else {
				var se *rankgenrt.SubmissionError
				if !errors.As(err, &se) || se.Step != step || se.Err.Error() != werr.Error() || !errors.Is(err, rankgenrt.ErrSubmission) {
					t.Fatalf("race %d: %v; want step %s's refusal: %v", i, err, step, werr)
				}
				if after := sub.contents(t, c); !reflect.DeepEqual(after, before) {
					t.Fatalf("race %d was refused by %s but changed the boards:\n%v\nwere\n%v", i, step, after, before)
				}
				alone.restore(t, c, rawAlone)
				refused[step]++
			}
			if a, b := sub.contents(t, c), alone.contents(t, c); !reflect.DeepEqual(a, b) {
				t.Fatalf("after race %d the boards differ:\n%v\nwritten alone:\n%v", i, a, b)
			}
		}
		t.Logf("%d races applied, refused by step: %v", applied, refused)
		if applied == 0 || refused["Best"]+refused["Latest"] == 0 || refused["Total"] == 0 || refused["Week"] == 0 {
			t.Errorf("the run did not drive every kind of outcome: %d applied, refused %v", applied, refused)
		}
	})
}

// TestSubmissionResendOnce: a race whose reply is lost (the call ran) or whose request is lost
// (it never ran) fails uncertain; resent under its token it is applied exactly once and gets
// the first reply.
func TestSubmissionResendOnce(t *testing.T) {
	c := redistest.Client(t)
	lose := &replyLoser{}
	c.AddHook(lose)
	ctx := context.Background()
	s := exampleboards.LiveSeason(t, c, relay.NewWeekSeasons(nil, "").At, time.Minute)
	// Loaded first: on a server without it, the first call the hook loses would be the one
	// that finds the library missing, not the submission.
	if err := relay.Library().Load(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []int32{loseReply, loseRequest} {
		r := newRelay(c, fmt.Sprintf("{%s}", redistest.Key(t, fmt.Sprint("resend", mode))), s)
		in := relay.RaceInput{
			Best:   relay.BestEntry{Driver: "ann", BestLap: 61000, Laps: 1},
			Latest: relay.BestEntry{Driver: "ann", BestLap: 61000, Laps: 1},
			Total:  relay.TotalChanges{Car: 7, Apply: []relay.TotalChange{relay.TotalAddPoints(10)}},
			Week:   relay.WeekChanges{Driver: "ann", Apply: []relay.WeekChange{relay.WeekAddWins(1)}},
		}
		lose.mode.Store(mode)
		_, err := r.race().Submit(ctx, in)
		var ue *rankgenrt.UncertainError
		if !errors.As(err, &ue) || ue.Token == "" {
			t.Fatalf("mode %d: %v; want an uncertain error with a token", mode, err)
		}
		first, err := r.race().Submit(rankgenrt.WithIdempotencyKey(ctx, ue.Token), in)
		if err != nil {
			t.Fatalf("mode %d: the resend: %v", mode, err)
		}
		again, err := r.race().Submit(rankgenrt.WithIdempotencyKey(ctx, ue.Token), in)
		if err != nil || !reflect.DeepEqual(first, again) {
			t.Fatalf("mode %d: a second resend got %+v, %v; want the first reply %+v", mode, again, err, first)
		}
		if e, err := r.total.Get(ctx, 7); err != nil || e.Points != 10 {
			t.Errorf("mode %d: total %+v, %v; want 10 points, added once", mode, e, err)
		}
		if e, err := r.week.Get(ctx, "ann"); err != nil || e.Wins != 1 {
			t.Errorf("mode %d: week %+v, %v; want 1 win, added once", mode, e, err)
		}
		// The token names this submission's call: other arguments under it are refused.
		in.Total.Apply = []relay.TotalChange{relay.TotalAddPoints(11)}
		if _, err := r.race().Submit(rankgenrt.WithIdempotencyKey(ctx, ue.Token), in); !errors.Is(err, rankgenrt.ErrTokenReused) {
			t.Errorf("mode %d: other arguments under the token: %v; want ErrTokenReused", mode, err)
		}
	}
}

// TestSubmissionKillStormTotals: concurrent races under a storm of killed connections, each
// resent under its token until acknowledged: every total is the sum of the acknowledged adds.
// On one server and on the cluster (the storm on the master of the boards' slot).
func TestSubmissionKillStormTotals(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		srv := redistest.Start(t)
		c := redis.NewClient(&redis.Options{Addr: srv.Addr, PoolSize: 8})
		defer c.Close()
		submissionKillStorm(t, c, "{"+redistest.Key(t, "storm")+"}", srv.Addr)
	})
	t.Run("cluster", func(t *testing.T) {
		c := redistest.StartClusterWith(t, func(o *redis.ClusterOptions) { o.PoolSize = 8 })
		tag := "{" + redistest.Key(t, "storm") + "}"
		// The storm hits the master of the boards' slot.
		submissionKillStorm(t, c, tag, redistest.SlotMaster(t, c, c.ClusterKeySlot(context.Background(), tag).Val()))
	})
}

// submissionKillStorm races under a storm of killed connections at addr, the server of the
// boards under tag.
func submissionKillStorm(t *testing.T, c redis.UniversalClient, tag, addr string) {
	ctx := context.Background()
	s := exampleboards.LiveSeason(t, c, relay.NewWeekSeasons(nil, "").At, time.Minute)
	r := newRelay(c, tag, s)
	stop := make(chan struct{})
	storm := killStorm(addr, time.Millisecond, stop)
	const workers = 4
	var resent atomic.Int64
	sums := make([][5]int64, workers)
	races := make([]int, workers)
	errs := make(chan error, workers)
	deadline := time.Now().Add(5 * time.Second)
	for w := range workers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 5))
			// 60 races, and on until a killed connection has made some race resend (a few
			// seconds at most), so that resending is tested.
			for ; races[w] < 60 || resent.Load() == 0 && time.Now().Before(deadline); races[w]++ {
				car := 1 + rng.IntN(4)
				pts := int64(1 + rng.IntN(1000))
				in := relay.RaceInput{
					Best:   relay.BestEntry{Driver: fmt.Sprint("d", w), BestLap: uint32(60000 + rng.IntN(1000))},
					Latest: relay.BestEntry{Driver: fmt.Sprint("d", w), BestLap: 60000},
					Total:  relay.TotalChanges{Car: uint64(car), Apply: []relay.TotalChange{relay.TotalAddPoints(pts)}},
					Week:   relay.WeekChanges{Driver: fmt.Sprint("d", w), Apply: []relay.WeekChange{relay.WeekAddRaces(1)}},
				}
				cctx := ctx
				for attempt := 0; ; attempt++ {
					_, err := r.race().Submit(cctx, in)
					var ue *rankgenrt.UncertainError
					if errors.As(err, &ue) && attempt < 200 {
						resent.Add(1)
						cctx = rankgenrt.WithIdempotencyKey(ctx, ue.Token)
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
				sums[w][car] += pts
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	storm.Wait()
	t.Logf("%d races, %d resends after a killed connection", races[0]+races[1]+races[2]+races[3], resent.Load())
	for car := 1; car <= 4; car++ {
		var want int64
		for w := range workers {
			want += sums[w][car]
		}
		e, err := r.total.Get(ctx, uint64(car))
		if want == 0 {
			continue
		}
		if err != nil || int64(e.Points) != want {
			t.Errorf("car %d: %d points (%v); the acknowledged adds sum to %d", car, e.Points, err, want)
		}
	}
	for w := range workers {
		if e, err := r.week.Get(ctx, fmt.Sprint("d", w)); err != nil || int(e.Races) != races[w] {
			t.Errorf("driver d%d: %d races (%v); want %d, one per acknowledged race", w, e.Races, err, races[w])
		}
	}
}

// TestSubmissionRefusals: a board of another layout, boards in two hash slots and one board
// written twice are refused, naming the step, with nothing written; a board whose migration's
// fence logs its layout's writes gets the submission's ids in its change log.
func TestSubmissionRefusals(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	s := exampleboards.LiveSeason(t, c, relay.NewWeekSeasons(nil, "").At, time.Minute)
	in := relay.RaceInput{
		Best:   relay.BestEntry{Driver: "ann", BestLap: 61000},
		Latest: relay.BestEntry{Driver: "ann", BestLap: 61000},
		Total:  relay.TotalChanges{Car: 7, Apply: []relay.TotalChange{relay.TotalAddPoints(10)}},
		Week:   relay.WeekChanges{Driver: "ann", Apply: []relay.WeekChange{relay.WeekAddWins(1)}},
	}
	tag := "{" + redistest.Key(t, "refusals") + "}"
	r := newRelay(c, tag, s)

	// The total's key holds a board of the week's layout.
	if _, err := relay.NewWeekBoard(c, tag+":total", s).Update(ctx, "x", relay.WeekAddWins(1)); err != nil {
		t.Fatal(err)
	}
	before := r.contents(t, c)
	_, err := r.race().Submit(ctx, in)
	var se *rankgenrt.SubmissionError
	if !errors.As(err, &se) || se.Step != "Total" || se.Board != "total" || !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Fatalf("a race onto another layout's board: %v; want step Total refused with ErrLayoutMismatch", err)
	}
	if after := r.contents(t, c); !reflect.DeepEqual(after, before) {
		t.Errorf("the refused race wrote:\n%v\nwas\n%v", after, before)
	}

	// A key of another type at a step's board: the server's refusal, typed, naming the step.
	wrong := newRelay(c, tag+":wrong", s)
	if err := c.Set(ctx, wrong.week.Key(), "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.race().Submit(ctx, in); !errors.Is(err, rankgenrt.ErrWrongType) || !errors.As(err, &se) || se.Step != "Week" {
		t.Errorf("a string at the week board's key: %v; want ErrWrongType naming step Week", err)
	}
	if n, _ := c.Exists(ctx, wrong.best.Key(), wrong.total.Key()).Result(); n != 0 {
		t.Errorf("a refused race wrote %d boards", n)
	}

	// Boards in two hash slots, and one board twice: refused before anything is sent.
	other := newRelay(c, "{"+redistest.Key(t, "elsewhere")+"}", s)
	race := newRelay(c, tag+":2", s).race()
	race.Week = other.week
	if _, err := race.Submit(ctx, in); !errors.Is(err, rankgenrt.ErrStepsCrossSlot) || !errors.As(err, &se) || se.Step != "Week" {
		t.Errorf("boards in two slots: %v; want ErrStepsCrossSlot naming step Week", err)
	}
	race = newRelay(c, tag+":3", s).race()
	race.Latest = race.Best
	if _, err := race.Submit(ctx, in); !errors.As(err, &se) || se.Step != "Latest" || !strings.Contains(err.Error(), "writes each board once") {
		t.Errorf("one board twice: %v; want step Latest refused", err)
	}
	for _, k := range append(other.keys(), newRelay(c, tag+":2", s).keys()...) {
		if n, _ := c.Exists(ctx, k).Result(); n != 0 {
			t.Errorf("a refused race wrote %s", k)
		}
	}

	// A migration copying the best board logs the ids its layout's writes change.
	r = newRelay(c, tag+":4", s)
	fence := rankgenrt.FenceKey(r.best.Key())
	if err := c.HSet(ctx, fence, "logged", relay.BestFingerprint).Err(); err != nil {
		t.Fatal(err)
	}
	c.PExpire(ctx, fence, time.Minute)
	if _, err := r.race().Submit(ctx, in); err != nil {
		t.Fatal(err)
	}
	logKey := strings.TrimSuffix(fence, "fence") + "log"
	if ids, err := c.SMembers(ctx, logKey).Result(); err != nil || !slices.Equal(ids, []string{"ann"}) {
		t.Errorf("the best board's change log holds %v (%v); want [ann]", ids, err)
	}
	if n, _ := c.Exists(ctx, strings.TrimSuffix(rankgenrt.FenceKey(r.latest.Key()), "fence")+"log").Result(); n != 0 {
		t.Errorf("the latest board, under no fence, got a change log")
	}

	// Boards that coalesce their own single writes still write a submission's steps in its call.
	co := relay.WithCoalescing(rankgenrt.DefaultCoalescing)
	race = relay.Race{Best: relay.NewBestBoard(c, tag+":5:best", co), Latest: relay.NewBestBoard(c, tag+":5:latest", co),
		Total: relay.NewTotalBoard(c, tag+":5:total", co), Week: relay.NewWeekBoard(c, tag+":5:week", s, co)}
	w, err := race.Submit(ctx, in)
	if err != nil || w.Total.Points != 10 || w.Week.Wins != 1 {
		t.Errorf("a race over coalescing boards: %+v, %v", w, err)
	}
}

// TestRelayFresh: the relay package is what rankgen generates from its package file today.
func TestRelayFresh(t *testing.T) {
	dir := filepath.Join("internal", "boards", "relay")
	src, err := os.ReadFile(filepath.Join(dir, "relay.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := layout.ParseBoards(filepath.Join(dir, "relay.yaml"), src, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	files, err := generator.GenerateBoards(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s is stale (%v): rankgen generate -o %s %s", f.Name, err, dir, filepath.Join(dir, "relay.yaml"))
		}
	}
}

// TestRemovalEverywhere: a cheater removed from boards of three layouts and from every season
// of a weekly family that may hold entries, in one call: each board's count, nothing left; a
// resend under the call's key answers the first counts and removes nothing twice; a board of
// another layout refuses the whole call, removing nothing; boards in two hash slots (a
// Cluster) are one call per slot.
func TestRemovalEverywhere(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c, ctx := tg.Client, context.Background()
		tag := "{" + redistest.Key(t, "removal") + "}"
		family := relay.NewWeekSeasons(c, tag+":week")
		now := exampleboards.LiveSeason(t, c, relay.NewWeekSeasons(nil, "").At, time.Minute)
		if family.Current() != now {
			t.Fatalf("the family's season %v is not the live one %v", family.Current(), now)
		}
		r := newRelay(c, tag, now)
		in := relay.RaceInput{
			Best:   relay.BestEntry{Driver: "cheat", BestLap: 1000},
			Latest: relay.BestEntry{Driver: "cheat", BestLap: 1000},
			Total:  relay.TotalChanges{Car: 7, Apply: []relay.TotalChange{relay.TotalAddPoints(10)}},
			Week:   relay.WeekChanges{Driver: "cheat", Apply: []relay.WeekChange{relay.WeekAddWins(1)}},
		}
		race := r.race()
		race.Week = family.Board(now)
		if _, err := race.Submit(ctx, in); err != nil {
			t.Fatal(err)
		}
		if _, err := family.Board(family.Previous(1)).Update(ctx, "cheat", relay.WeekAddWins(2)); err != nil {
			t.Fatal(err)
		}
		if _, err := r.best.Best(ctx, relay.BestEntry{Driver: "fair", BestLap: 2000}); err != nil {
			t.Fatal(err)
		}
		removal := func() *relay.Removal {
			return (&relay.Removal{}).Best(r.best, r.latest).Total(r.total).WeekSeasons(family)
		}
		key := rankgenrt.WithIdempotencyKey(ctx, "ban-cheat")
		got, err := removal().Remove(key, "cheat", "7")
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int64{}
		for _, rm := range got {
			counts[strings.TrimPrefix(rm.Key, tag)] = rm.Count
		}
		want := map[string]int64{":best": 1, ":latest": 1, ":total": 1,
			":week:" + fmt.Sprint(now.ID): 1, ":week:" + fmt.Sprint(family.Previous(1).ID): 1, ":week:" + fmt.Sprint(family.Next(now).ID): 0}
		if !reflect.DeepEqual(counts, want) {
			t.Fatalf("removed %v; want %v", counts, want)
		}
		for _, b := range []*relay.BestBoard{r.best, r.latest} {
			if _, err := b.Get(ctx, "cheat"); !errors.Is(err, rankgenrt.ErrNotFound) {
				t.Errorf("%s still holds the cheater: %v", b.Key(), err)
			}
		}
		if _, err := r.best.Get(ctx, "fair"); err != nil {
			t.Errorf("the fair driver was removed too: %v", err)
		}
		// A resend of the call answers its counts and removes nothing written since.
		if _, err := r.best.Best(ctx, relay.BestEntry{Driver: "cheat", BestLap: 1500}); err != nil {
			t.Fatal(err)
		}
		again, err := removal().Remove(key, "cheat", "7")
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("the resend answered %v, %v; want the first counts %v", again, err, got)
		}
		if _, err := r.best.Get(ctx, "cheat"); err != nil {
			t.Errorf("the resend removed an entry written after the call: %v", err)
		}
		// A board of another layout refuses the call: nothing is removed.
		if _, err := relay.NewWeekBoard(c, tag+":other", now).Update(ctx, "x", relay.WeekAddWins(1)); err != nil {
			t.Fatal(err)
		}
		_, err = (&relay.Removal{}).Best(r.best, relay.NewBestBoard(c, tag+":other")).Remove(ctx, "cheat")
		var se *rankgenrt.SubmissionError
		if !errors.As(err, &se) || se.Board != "best" || !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Fatalf("a removal over another layout's board: %v; want ErrLayoutMismatch naming board best", err)
		}
		if _, err := r.best.Get(ctx, "cheat"); err != nil {
			t.Errorf("a refused removal removed: %v", err)
		}
		// Boards in another hash slot are removed from too.
		far := relay.NewBestBoard(c, "{"+redistest.Key(t, "far")+"}:best")
		if _, err := far.Best(ctx, relay.BestEntry{Driver: "cheat", BestLap: 900}); err != nil {
			t.Fatal(err)
		}
		got, err = (&relay.Removal{}).Best(r.best, far).Remove(ctx, "cheat")
		if err != nil || len(got) != 2 || got[0].Count != 1 || got[1].Count != 1 {
			t.Errorf("a removal over two hash slots: %v, %v; want 1 and 1", got, err)
		}
	})
}

// TestPackageShardedBoard: a board of a package whose schema says sharded: true has its
// ShardedBoard, renamed as the rest of the board's names (NewBestShardedBoard): it writes and
// reads across its shards, and a Removal takes its shards, one call per shard's hash slot.
func TestPackageShardedBoard(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c, ctx := tg.Client, context.Background()
		sb, err := relay.NewBestShardedBoard(c, redistest.Key(t, "sharded"), 3)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range []string{"ann", "bo", "cy", "dee", "eve"} {
			if _, err := sb.Best(ctx, relay.BestEntry{Driver: d, BestLap: uint32(60000 + 1000*i), Laps: 1}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := sb.AddLaps(ctx, "cy", 2); err != nil {
			t.Fatal(err)
		}
		top, err := sb.Top(ctx, 2)
		if err != nil || len(top) != 2 || top[0].Driver != "ann" || top[1].Driver != "bo" {
			t.Fatalf("Top(2) = %+v, %v; want ann, bo", top, err)
		}
		removed, err := (&relay.Removal{}).Best(sb.Shards()...).Remove(ctx, "cy", "eve")
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, r := range removed {
			n += r.Count
		}
		if count, err := sb.Count(ctx); n != 2 || err != nil || count != 3 {
			t.Errorf("removed %d across %d shards, %d left (%v); want 2 removed, 3 left", n, len(removed), count, err)
		}
	})
}

// TestRemovalSkipsExpiredSeasons: a Removal given the board of a season whose expiry has passed
// counts 0 there and removes from the other boards of its call, rather than refusing the call.
func TestRemovalSkipsExpiredSeasons(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c, ctx := tg.Client, context.Background()
		tag := "{" + redistest.Key(t, "expired") + "}"
		family := relay.NewWeekSeasons(c, tag+":week")
		long := family.Previous(4) // keep is 1: its board expired two seasons ago
		live := relay.NewBestBoard(c, tag+":best")
		if _, err := live.Best(ctx, relay.BestEntry{Driver: "cheat", BestLap: 1000}); err != nil {
			t.Fatal(err)
		}
		got, err := (&relay.Removal{}).Week(family.Board(long)).Best(live).Remove(ctx, "cheat")
		if err != nil || len(got) != 2 || got[0].Count != 0 || got[1].Count != 1 {
			t.Fatalf("removal over an expired season's board and a live one: %+v, %v; want 0 and 1", got, err)
		}
		if _, err := live.Get(ctx, "cheat"); !errors.Is(err, rankgenrt.ErrNotFound) {
			t.Errorf("the live board still holds the id: %v", err)
		}
	})
}
