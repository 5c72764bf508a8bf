package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// The dual-write recipe of docs/migration.md on a daily puzzle board written by Best: v1 ranks
// by Score; v2 adds HintsUsed (fewer first) after it, which v1 never knew, so migrated entries
// get -default HintsUsed=0.
var (
	puzzleScore = field("Score", "uint", "bits: 20", "order: desc")
	puzzleHints = field("HintsUsed", "uint", "bits: 3", "order: asc")
	hintsZero   = migrate.Mapping{Defaults: map[string]string{"HintsUsed": "0"}}
)

func puzzleLayouts(t testing.TB) (old, new *layout.Layout) {
	return schema(t, "puzzle1.yaml", "", puzzleScore), schema(t, "puzzle2.yaml", "", puzzleScore+puzzleHints)
}

// submitBest is Best of one entry on a board whose members are bare ids: ZADD GT keeps the
// higher score, the entry that ranks first.
func submitBest(ctx context.Context, c redis.UniversalClient, l *layout.Layout, key string, e layout.Entry) error {
	score, member, err := l.Encode(e)
	if err != nil {
		return err
	}
	return c.ZAddGT(ctx, key, redis.Z{Score: score, Member: member}).Err()
}

// puzzleGame is the players' submissions and what each acknowledged one was, as an entry of
// the new layout: one submitted before the deploy carries HintsUsed=0 (the default every
// migrated entry gets), one dual-written its real HintsUsed.
type puzzleGame struct {
	old, new *layout.Layout
	key, to  string
	players  int

	mu    sync.Mutex
	real  map[string][]layout.Entry // acknowledged submissions by player
	used  map[string]map[uint64]bool
	acked atomic.Int64 // acknowledged dual writes
}

func newPuzzleGame(t testing.TB, key, to string, players int) *puzzleGame {
	old, new := puzzleLayouts(t)
	return &puzzleGame{old: old, new: new, key: key, to: to, players: players,
		real: map[string][]layout.Entry{}, used: map[string]map[uint64]bool{}}
}

// draw picks a player and a score that player never submitted: each submission has a score of
// its own, so that a player's best real submission is one entry, not a tie.
func (g *puzzleGame) draw(rng *rand.Rand) (string, uint64) {
	id := fmt.Sprintf("p%04d", rng.IntN(g.players+g.players/10)) // a tenth are new in the window
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.used[id] == nil {
		g.used[id] = map[uint64]bool{}
	}
	for {
		if s := rng.Uint64N(1 << 20); !g.used[id][s] {
			g.used[id][s] = true
			return id, s
		}
	}
}

func (g *puzzleGame) record(e layout.Entry) {
	g.mu.Lock()
	g.real[e.ID] = append(g.real[e.ID], e)
	g.mu.Unlock()
}

// submitOld is a submission of the old code, before the deploy.
func (g *puzzleGame) submitOld(ctx context.Context, c redis.UniversalClient, rng *rand.Rand) error {
	id, score := g.draw(rng)
	if err := submitBest(ctx, c, g.old, g.key, layout.Entry{ID: id, Keys: []uint64{score}}); err != nil {
		return err
	}
	g.record(layout.Entry{ID: id, Keys: []uint64{score, 0}})
	return nil
}

// submitDual is a submission of the deployed v2 code, as the recipe says: the new board
// first, then the old one, each with Best.
func (g *puzzleGame) submitDual(ctx context.Context, c redis.UniversalClient, rng *rand.Rand) error {
	id, score := g.draw(rng)
	hints := 1 + rng.Uint64N(2) // 1–2 hints: the default (0) would rank ahead of it
	if err := submitBest(ctx, c, g.new, g.to, layout.Entry{ID: id, Keys: []uint64{score, hints}}); err != nil {
		return err
	}
	if err := submitBest(ctx, c, g.old, g.key, layout.Entry{ID: id, Keys: []uint64{score}}); err != nil {
		return err
	}
	g.record(layout.Entry{ID: id, Keys: []uint64{score, hints}})
	g.acked.Add(1)
	return nil
}

// dualWriters starts writers that dual-write until stop is closed; wait waits for them.
func (g *puzzleGame) dualWriters(t *testing.T, c redis.UniversalClient, n int, stop <-chan struct{}) (wait func()) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := g.submitDual(context.Background(), c, rng); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	return wg.Wait
}

// awaitWrites waits until the writers have acknowledged n more dual writes (or failed).
func (g *puzzleGame) awaitWrites(t *testing.T, n int64) {
	for target := g.acked.Load() + n; g.acked.Load() < target && !t.Failed(); {
		time.Sleep(100 * time.Microsecond)
	}
}

// check compares every player's entry on the new board with their best acknowledged
// submission: invented is an entry that is none of the player's submissions, lost a player
// whose entry is another submission than the best, or who has none.
func (g *puzzleGame) check(t *testing.T, c redis.UniversalClient) (invented, lost int) {
	t.Helper()
	zs, err := c.ZRangeWithScores(context.Background(), g.to, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]layout.Entry{}
	for _, z := range zs {
		e, err := g.new.Decode(z.Score, z.Member.(string))
		if err != nil {
			t.Fatal(err)
		}
		shown[e.ID] = e
	}
	report := func(what, id string, got layout.Entry, want layout.Entry) {
		if invented+lost <= 5 {
			t.Errorf("%s: %s shows %s, best submission %s", what, id, entryText(g.new, got), entryText(g.new, want))
		}
	}
	for id, subs := range g.real {
		best := subs[0]
		for _, s := range subs[1:] {
			if g.new.Compare(s, best) < 0 {
				best = s
			}
		}
		got, ok := shown[id]
		switch {
		case !ok:
			lost++
			report("lost", id, layout.Entry{ID: id, Keys: make([]uint64, 2)}, best)
		case !containsEntry(g.new, subs, got):
			invented++
			report("invented", id, got, best)
		case g.new.Compare(got, best) != 0:
			lost++
			report("not the best", id, got, best)
		}
	}
	if len(shown) != len(g.real) {
		t.Errorf("the new board holds %d players, %d submitted", len(shown), len(g.real))
	}
	return invented, lost
}

func containsEntry(l *layout.Layout, subs []layout.Entry, e layout.Entry) bool {
	for _, s := range subs {
		if l.Compare(s, e) == 0 {
			return true
		}
	}
	return false
}

// TestDualWriteRecipeDefaultedField runs docs/migration.md's dual-write recipe on a daily
// board written by Best whose new field the old board lacks (-default HintsUsed=0): 3,000
// players submit to the old board; v2 code is deployed and submits each score to both boards,
// the new one first; migrate -to-key runs while those dual writes go on (each batch waits for
// more of them). Every player then holds exactly their best acknowledged submission: KEY's copy
// of a dual write, with the default, never beats KEY2's, with the real HintsUsed, and a
// player's earlier, better submission on KEY still wins. The run needs no rerun.
func TestDualWriteRecipeDefaultedField(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	g := newPuzzleGame(t, redistest.Key(t, "old"), redistest.Key(t, "new"), 3000)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2 * g.players {
		if err := g.submitOld(ctx, c, rng); err != nil {
			t.Fatal(err)
		}
	}
	p, err := migrate.NewPlan(g.old, g.new, hintsZero)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	wait := g.dualWriters(t, c, 3, stop)
	g.awaitWrites(t, 500) // deployed: both boards are written
	before := g.acked.Load()
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: g.key, ToKey: g.to, Batch: 50, Progress: func(pr migrate.Progress) {
		if pr.Phase == "copy" {
			g.awaitWrites(t, 10)
		}
	}})
	during := g.acked.Load() - before
	close(stop)
	wait()
	if err != nil || rep.Merge != migrate.MergeBest {
		t.Fatalf("migrate -to-key with dual writers: %+v, %v; want merged by best, no error", rep, err)
	}
	invented, lost := g.check(t, c)
	t.Logf("%d dual writes acknowledged (%d during the run); %d copied, %d kept, %d replaced; %d players: %d invented, %d lost",
		g.acked.Load(), during, rep.Copied, rep.Kept, rep.Replaced, len(g.real), invented, lost)
	if rep.Kept == 0 || rep.Replaced == 0 {
		t.Errorf("the copy kept %d of KEY2's entries and replaced %d: the test did not reach both sides of the rule", rep.Kept, rep.Replaced)
	}
	if invented > 0 || lost > 0 {
		t.Errorf("%d players show an entry they never submitted, %d not their best", invented, lost)
	}
}

// The killed variant runs migrate in a child process (this test binary), kills it with
// SIGKILL in the middle of the copy while the dual writers go on, and reruns it here.
const dualChildEnv = "RANKGEN_DUALWRITE_CHILD"

func TestDualWriteChild(t *testing.T) {
	arg := os.Getenv(dualChildEnv)
	if arg == "" {
		t.Skip("run by TestDualWriteRecipeKilled in a child process")
	}
	parts := strings.Fields(arg)
	c := redis.NewClient(&redis.Options{Addr: parts[0]})
	old, new := puzzleLayouts(t)
	p, err := migrate.NewPlan(old, new, hintsZero)
	if err != nil {
		t.Fatal(err)
	}
	_, err = migrate.Run(context.Background(), c, p, migrate.Options{Key: parts[1], ToKey: parts[2], Batch: 20, Progress: func(migrate.Progress) {
		time.Sleep(2 * time.Millisecond) // slow enough to be killed mid-copy
	}})
	t.Fatalf("the child finished (%v) before it was killed", err)
}

// TestDualWriteRecipeKilled is the recipe with migrate killed (kill -9) mid-copy and run
// again, the dual writers writing throughout: every player holds exactly their best
// acknowledged submission.
func TestDualWriteRecipeKilled(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	g := newPuzzleGame(t, redistest.Key(t, "old"), redistest.Key(t, "new"), 3000)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2 * g.players {
		if err := g.submitOld(ctx, c, rng); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	wait := g.dualWriters(t, c, 3, stop)
	stopWriters := sync.OnceFunc(func() { close(stop); wait() })
	defer stopWriters()
	g.awaitWrites(t, 500)

	prog := rankgenrt.SideKey(g.to, "migrate")
	cmd := exec.Command(os.Args[0], "-test.run=^TestDualWriteChild$")
	cmd.Env = append(os.Environ(), dualChildEnv+"="+c.Options().Addr+" "+g.key+" "+g.to)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for done := 0; done < 1000; done, _ = strconv.Atoi(c.HGet(ctx, prog, "done").Val()) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child copied nothing in 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	done, _ := strconv.Atoi(c.HGet(ctx, prog, "done").Val())
	g.awaitWrites(t, 200) // writes between the kill and the rerun

	p, err := migrate.NewPlan(g.old, g.new, hintsZero)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: g.key, ToKey: g.to, Batch: 50, Progress: func(pr migrate.Progress) {
		if pr.Phase == "copy" {
			g.awaitWrites(t, 10)
		}
	}})
	if err != nil || !rep.Resumed {
		t.Fatalf("rerun after the kill: %+v, %v; want resumed, no error", rep, err)
	}
	stopWriters()
	invented, lost := g.check(t, c)
	t.Logf("killed after %d entries; %d dual writes acknowledged; rerun: %d copied, %d kept, %d replaced; %d players: %d invented, %d lost",
		done, g.acked.Load(), rep.Copied, rep.Kept, rep.Replaced, len(g.real), invented, lost)
	if invented > 0 || lost > 0 {
		t.Errorf("%d players show an entry they never submitted, %d not their best", invented, lost)
	}
}

// TestMergeBestDefaultedField: under -merge best with a defaulted field, KEY's entry takes
// KEY2's place only when it ranks first on the fields KEY has: a tie (KEY's copy of a dual
// write) keeps KEY2's real HintsUsed, an earlier better Score wins with the default.
func TestMergeBestDefaultedField(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	old, new := puzzleLayouts(t)
	p, err := migrate.NewPlan(old, new, hintsZero)
	if err != nil {
		t.Fatal(err)
	}
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	writeBoard(t, c, old, key, []string{"ann Score=10", "bob Score=20", "cy Score=5", "dan Score=7"})
	writeBoard(t, c, new, to, []string{"ann Score=10 HintsUsed=2", "bob Score=15 HintsUsed=1", "dan Score=9 HintsUsed=3", "eve Score=1 HintsUsed=1"})
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to})
	if err != nil || rep.Copied != 1 || rep.Replaced != 1 || rep.Kept != 2 {
		t.Fatalf("%+v, %v; want cy copied, bob replaced, ann and dan kept", rep, err)
	}
	want := []string{"ann Score=10 HintsUsed=2", "bob Score=20 HintsUsed=0", "cy Score=5 HintsUsed=0", "dan Score=9 HintsUsed=3", "eve Score=1 HintsUsed=1"}
	if got := readBoard(t, c, new, to); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the copy reads %q\nwant %q", got, want)
	}
}

// TestMergeRefusesDefaultAhead: where a defaulted field ranks ahead of one the old board has,
// KEY's entry for an id KEY2 holds cannot be told from KEY's copy of a dual write: -merge best
// refuses before anything is written, naming both fields and saying what to do; -merge new
// (KEY2's entry kept) goes through.
func TestMergeRefusesDefaultAhead(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	old := schema(t, "old.yaml", "", puzzleScore+when)
	new := schema(t, "new.yaml", "", puzzleScore+puzzleHints+when)
	p, err := migrate.NewPlan(old, new, hintsZero)
	if err != nil {
		t.Fatal(err)
	}
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	writeBoard(t, c, old, key, []string{"ann Score=10 At=2026-01-01T00:00:03Z", "bob Score=4 At=2026-01-01T00:00:03Z"})
	writeBoard(t, c, new, to, []string{"ann Score=10 HintsUsed=2 At=2026-01-01T00:00:09Z"})
	for _, merge := range []migrate.Merge{"", migrate.MergeBest} {
		_, err = migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Merge: merge})
		msg := fmt.Sprint(err)
		if !errors.Is(err, migrate.ErrConflict) || !strings.Contains(msg, "field HintsUsed, given by -default, ranks ahead of field At") ||
			!strings.Contains(msg, "migrate "+key+" in place") || strings.Contains(msg, "write both boards") {
			t.Errorf("-merge %q: %v; want ErrConflict naming HintsUsed and At, saying to migrate in place", merge, err)
		}
		if got := readBoard(t, c, new, to); len(got) != 1 {
			t.Errorf("-merge %q: the refused copy wrote: KEY2 reads %q", merge, got)
		}
	}
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to, Merge: migrate.MergeNew})
	if err != nil || rep.Copied != 1 || rep.Kept != 1 {
		t.Errorf("-merge new: %+v, %v; want bob copied, ann kept", rep, err)
	}
}
