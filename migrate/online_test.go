package migrate_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

var (
	onlineEntries = flag.Int("online.entries", 100_000, "TestOnlineMigration: entries of the migrated board")
	onlineKills   = flag.Int("online.kills", 3, "TestOnlineMigration: runs of migrate cancelled at a random point before the one let finish")
	onlineAfter   = flag.Duration("online.after", 300*time.Millisecond, "TestOnlineMigration: how long the writers go on after the switch")
)

// onlineWriters is the 16 writers of each layout.
const onlineWriters = 16

// ledger is one writer's acknowledged writes: the Points each of its ids was last Set to.
type ledger struct {
	acked    map[string]uint32
	writes   int           // acknowledged
	refused  int           // refusals matching rankgenrt.ErrRetry
	longest  time.Duration // the longest a write waited, from its first refusal to its acknowledgement
	switched bool          // an old-layout writer moved to the new code after ErrLayoutMismatch
}

// TestOnlineMigration migrates a board of duel's layout (bits62, bare ids) to duelint's (an
// integer score with a member prefix and an id index) in place while 16 writers of each layout
// Set their own ids, cancelling migrate at random points and running it again until it
// switches; every write acknowledged by either layout's code is on the new board afterwards,
// and every refusal matched rankgenrt.ErrRetry.
func TestOnlineMigration(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	old := exampleSchema(t, "duel.yaml", same)
	new := exampleSchema(t, "duel_integer.yaml", same)
	if old.Fingerprint != duel.Fingerprint || new.Fingerprint != duelint.Fingerprint {
		t.Fatal("duel.yaml or duel_integer.yaml differs from its generated package: regenerate")
	}
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	n := *onlineEntries
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	entry := func(i int, points uint32) duel.Entry {
		return duel.Entry{PlayerID: fmt.Sprintf("p%06d", i), Points: points, Wins: uint8(i), Tier: duel.Tier(i % 3), ReachedAt: at}
	}
	oldBoard := duel.NewBoard(c, key)
	for i := 0; i < n; i += 2000 {
		batch := make([]duel.Entry, 0, 2000)
		for j := i; j < min(i+2000, n); j++ {
			batch = append(batch, entry(j, uint32(j)))
		}
		if _, err := oldBoard.SetMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}

	// Writer w owns the ids i with i % 32 == w; writers 0–15 start with the old code, 16–31 with
	// the new one once the first run has raised the fence (before it, the new code would find a
	// board without an index: ErrNotIndexed). Points a writer sets are unique to it.
	stop := make(chan struct{})
	fenced := make(chan struct{})
	var fencedOnce sync.Once
	ledgers := make([]*ledger, 2*onlineWriters)
	var wg sync.WaitGroup
	var failed atomic.Value
	for w := range ledgers {
		l := &ledger{acked: map[string]uint32{}}
		ledgers[w] = l
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w >= onlineWriters {
				select {
				case <-fenced:
				case <-stop:
					return
				}
			}
			if err := l.write(ctx, c, key, w, n, w < onlineWriters, stop); err != nil {
				failed.Store(err)
			}
		}()
	}

	progress := func(pr migrate.Progress) {
		if pr.Phase == "check" {
			fencedOnce.Do(func() { close(fenced) })
		}
	}
	var rep migrate.Report
	for run := 0; ; run++ {
		runCtx, cancel := context.WithCancel(ctx)
		if run < *onlineKills {
			time.AfterFunc(time.Duration(100+rand.IntN(1500))*time.Millisecond, cancel)
		}
		rep, err = migrate.Run(runCtx, c, p, migrate.Options{Key: key, Progress: progress})
		cancel()
		if err == nil && (rep.Switched || rep.AlreadyDone) {
			t.Logf("run %d: %+v", run+1, rep)
			break
		}
		if run >= *onlineKills || !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: %+v, %v", run+1, rep, err)
		}
		t.Logf("run %d cancelled: %v", run+1, err)
	}
	fencedOnce.Do(func() { close(fenced) })
	time.Sleep(*onlineAfter)
	close(stop)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}

	// Every id reads, on the new board, the Points of its last acknowledged write, or its start.
	want := make(map[string]uint32, n)
	for i := range n {
		want[entry(i, 0).PlayerID] = uint32(i)
	}
	var writes, refused int
	var longest time.Duration
	for _, l := range ledgers {
		for id, pts := range l.acked {
			want[id] = pts
		}
		writes, refused, longest = writes+l.writes, refused+l.refused, max(longest, l.longest)
	}
	lost := 0
	newBoard := duelint.NewBoard(c, key)
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	for i := 0; i < len(ids); i += 1000 {
		rs, err := newBoard.GetMany(ctx, ids[i:min(i+1000, len(ids))]...)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range rs {
			if r.Err != nil || r.Entry.Points != want[ids[i+j]] {
				lost++
				if lost <= 5 {
					t.Errorf("id %s reads %d (%v); its last acknowledged write set %d", ids[i+j], r.Entry.Points, r.Err, want[ids[i+j]])
				}
			}
		}
	}
	if card := c.ZCard(ctx, key).Val(); card != int64(n) || lost > 0 {
		t.Fatalf("%d of %d acknowledged writes lost; the board holds %d entries, want %d", lost, writes, card, n)
	}
	t.Logf("%d entries, %d writers of each layout: %d writes acknowledged, 0 lost; %d refused (ErrRetry), the longest wait %v; the fence stood %v and counted %d refusals over all runs",
		n, onlineWriters, writes, refused, longest.Round(time.Millisecond), rep.Fenced.Round(time.Millisecond), rep.Refused)
}

// write Sets random ids of writer w until stop, each time to a Points value of its own,
// recording the acknowledged ones; a refusal matching rankgenrt.ErrRetry is retried (after a
// *MigratingError's Wait, at most 50 ms), an old-layout writer moving to the new code when the
// board has switched (ErrLayoutMismatch). Any other error ends it.
func (l *ledger) write(ctx context.Context, c *redis.Client, key string, w, n int, oldCode bool, stop <-chan struct{}) error {
	oldBoard, newBoard := duel.NewBoard(c, key), duelint.NewBoard(c, key)
	rng := rand.New(rand.NewPCG(uint64(w), 7))
	for seq := uint32(1); ; seq++ {
		select {
		case <-stop:
			return nil
		default:
		}
		i := rng.IntN(n/32)*32 + w
		if i >= n {
			continue
		}
		id := fmt.Sprintf("p%06d", i)
		points := uint32(w)<<19 | seq&(1<<19-1) // unique per writer while seq < 2^19
		var first time.Time
		for {
			var err error
			if oldCode {
				_, err = oldBoard.Set(ctx, duel.Entry{PlayerID: id, Points: points, Wins: uint8(i), Tier: duel.Tier(i % 3), ReachedAt: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
			} else {
				_, err = newBoard.Set(ctx, duelint.Entry{PlayerID: id, Points: points, Wins: uint8(i), Tier: duelint.Tier(i % 3), ReachedAt: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
			}
			if err == nil {
				l.acked[id], l.writes = points, l.writes+1
				if !first.IsZero() {
					l.longest = max(l.longest, time.Since(first))
				}
				break
			}
			if !errors.Is(err, rankgenrt.ErrRetry) {
				return fmt.Errorf("writer %d: Set %s: %w", w, id, err)
			}
			l.refused++
			if first.IsZero() {
				first = time.Now()
			}
			if oldCode && errors.Is(err, rankgenrt.ErrLayoutMismatch) {
				oldCode, l.switched = false, true // redeployed with the new code
				continue
			}
			wait := 2 * time.Millisecond
			var me *rankgenrt.MigratingError
			if errors.As(err, &me) {
				wait = min(max(me.Wait, wait), 50*time.Millisecond)
			}
			time.Sleep(wait)
		}
	}
}

// TestFenceOfKilledRunLapses: a run cancelled during its copy leaves the fence, which lets the
// old layout's writes through, logged, and refuses the new layout's (a *MigratingError with the
// time it has left) until its expiry, and then lets them meet the board; a rerun finds its
// copy unfenced, copies again (Restarted) and keeps the writes made under the fence and after.
func TestFenceOfKilledRunLapses(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	p, err := migrate.NewPlan(exampleSchema(t, "duel.yaml", same), exampleSchema(t, "duel_integer.yaml", same), migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	b := duel.NewBoard(c, key)
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	batch := make([]duel.Entry, 3000)
	for i := range batch {
		batch[i] = duel.Entry{PlayerID: fmt.Sprintf("p%04d", i), Points: uint32(i), ReachedAt: at}
	}
	if _, err := b.SetMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// Renewed every third of it: the renewals may stall 2 s before the fence lapses under the run
	// (400 ms lapsed on a loaded machine: the cancelled run then failed with ErrChanged). The run is
	// cancelled after its first batch, so that only one batch's renewal can stall.
	const ttl = 3 * time.Second
	runCtx, cancel := context.WithCancel(ctx)
	_, err = migrate.Run(runCtx, c, p, migrate.Options{Key: key, Batch: 10, FenceTTL: ttl, Progress: func(pr migrate.Progress) {
		if pr.Phase == "copy" && pr.Done >= 10 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if _, err := b.Set(ctx, duel.Entry{PlayerID: "p0007", Points: 99999, ReachedAt: at}); err != nil {
		t.Fatalf("an old-layout write under the fence of a killed run: %v; want it written", err)
	}
	if logged, err := c.SIsMember(ctx, rankgenrt.ChangeLogKey(key), "p0007").Result(); err != nil || !logged {
		t.Fatalf("the write under the fence is not in the change log (%v)", err)
	}
	write := func() error {
		_, err := duelint.NewBoard(c, key).Set(ctx, duelint.Entry{PlayerID: "p0008", Points: 88888, ReachedAt: at})
		return err
	}
	err = write()
	var me *rankgenrt.MigratingError
	if !errors.As(err, &me) || !errors.Is(err, rankgenrt.ErrMigrating) || !errors.Is(err, rankgenrt.ErrRetry) || me.Wait <= 0 || me.Wait > 100*time.Millisecond || me.Layout != duelint.Fingerprint {
		t.Fatalf("a new-layout write under the fence of a killed run: %v; want a *MigratingError (ErrMigrating, ErrRetry) waiting at most 100ms for layout %s", err, duelint.Fingerprint)
	}
	// Retried after each Wait, the write meets the board once the fence has expired: a board of
	// the old layout still.
	for deadline := time.Now().Add(30 * time.Second); errors.As(err, &me); err = write() {
		if time.Now().After(deadline) {
			t.Fatalf("the fence of a killed run (expiry %v) still refuses writes after 30 s: %v", ttl, err)
		}
		time.Sleep(me.Wait)
	}
	if !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Fatalf("a new-layout write after the fence's expiry: %v; want ErrLayoutMismatch", err)
	}
	if _, err := b.Set(ctx, duel.Entry{PlayerID: "p0008", Points: 88888, ReachedAt: at}); err != nil {
		t.Fatalf("an old-layout write after the fence's expiry: %v", err)
	}
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, FenceTTL: ttl})
	if err != nil || !rep.Switched || !rep.Restarted || rep.Verified != 3000 {
		t.Fatalf("rerun: %+v, %v; want the copy restarted, 3000 verified and switched", rep, err)
	}
	for id, want := range map[string]uint32{"p0007": 99999, "p0008": 88888} {
		got, err := duelint.NewBoard(c, key).Get(ctx, id)
		if err != nil || got.Points != want {
			t.Errorf("%s reads %+v, %v after the migration; want the write made under the fence or after it", id, got, err)
		}
	}
	if n := c.Exists(ctx, rankgenrt.FenceKey(key)).Val(); n != 0 {
		t.Errorf("the fence is still there after the switch")
	}
}

// TestRerunResumesTheLogOfAKilledRun: a run killed with the fence standing leaves its change
// log, which a rerun within the fence's expiry replays: a write logged under the fence of the
// killed run, and then refused while that fence stands closed (as a run killed during its last
// catch-up leaves it), is on the board after the rerun, which opens the fence again to writers.
func TestRerunResumesTheLogOfAKilledRun(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	p, err := migrate.NewPlan(exampleSchema(t, "duel.yaml", same), exampleSchema(t, "duel_integer.yaml", same), migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	b := duel.NewBoard(c, key)
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	batch := make([]duel.Entry, 3000)
	for i := range batch {
		batch[i] = duel.Entry{PlayerID: fmt.Sprintf("p%04d", i), Points: uint32(i), ReachedAt: at}
	}
	if _, err := b.SetMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	const ttl = time.Minute // no lapse on a loaded machine: this test is about the log
	runCtx, cancel := context.WithCancel(ctx)
	_, err = migrate.Run(runCtx, c, p, migrate.Options{Key: key, Batch: 10, FenceTTL: ttl, Progress: func(pr migrate.Progress) {
		if pr.Phase == "copy" && pr.Done >= 2000 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	// p0007 was copied before the cancel; p2999 may not have been.
	for _, e := range []duel.Entry{{PlayerID: "p0007", Points: 99999, ReachedAt: at}, {PlayerID: "p2999", Points: 77777, ReachedAt: at}} {
		if _, err := b.Set(ctx, e); err != nil {
			t.Fatalf("Set %s under the logging fence: %v", e.PlayerID, err)
		}
	}
	fence := rankgenrt.FenceKey(key)
	if err := errors.Join(c.HDel(ctx, fence, "logged").Err(), c.HSet(ctx, fence, "closed", time.Now().UnixMilli()).Err()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Set(ctx, duel.Entry{PlayerID: "p0008", Points: 88888, ReachedAt: at}); !errors.Is(err, rankgenrt.ErrMigrating) {
		t.Fatalf("Set under the closed fence: %v; want ErrMigrating", err)
	}
	rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, FenceTTL: ttl})
	if err != nil || !rep.Switched || !rep.Resumed || rep.Restarted || rep.Replayed < 1 || rep.Verified != 3000 {
		t.Fatalf("rerun: %+v, %v; want resumed (not restarted), the log replayed, 3000 verified and switched", rep, err)
	}
	nb := duelint.NewBoard(c, key)
	for id, want := range map[string]uint32{"p0007": 99999, "p2999": 77777, "p0008": 8} {
		got, err := nb.Get(ctx, id)
		if err != nil || got.Points != want {
			t.Errorf("%s reads %+v, %v after the rerun; want Points %d", id, got, err, want)
		}
	}
	if n := c.Exists(ctx, fence, rankgenrt.ChangeLogKey(key)).Val(); n != 0 {
		t.Errorf("%d of the fence and the change log are still there after the switch", n)
	}
}
