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
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// pauseChildEnv runs TestPauseChild: "addr key", the board it migrates until killed.
const pauseChildEnv = "RANKGEN_MIGRATE_PAUSE_CHILD"

// pauseWriters is how many writers of the old layout write through TestMigrationPause.
const pauseWriters = 16

func duelPlan(t testing.TB) *migrate.Plan {
	p, err := migrate.NewPlan(exampleSchema(t, "duel.yaml", same), exampleSchema(t, "duel_integer.yaml", same), migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPauseChild(t *testing.T) {
	arg := os.Getenv(pauseChildEnv)
	if arg == "" {
		t.Skip("run by TestMigrationPause in a child process")
	}
	addr, key, _ := strings.Cut(arg, " ")
	c := redis.NewClient(&redis.Options{Addr: addr})
	_, err := migrate.Run(context.Background(), c, duelPlan(t), migrate.Options{Key: key})
	t.Fatalf("the child finished (%v) before it was killed", err)
}

// pauseWriter is one writer's acknowledged writes: the Points each of its ids was last Set to.
type pauseWriter struct {
	acked         map[string]uint32
	writes        int
	refused       int           // refusals matching rankgenrt.ErrRetry
	longest       time.Duration // the longest a write took, from its first attempt to its acknowledgement
	longestAt     time.Time     // when that write began
	unrefused     time.Duration // the longest a write took that was never refused
	first, last   time.Time     // its first and last refusal
	err           error
	switchedAfter time.Duration // from migrate's switch to the writer's first write with the new code
	switchedAt    time.Time
}

// TestMigrationPause migrates a board of 100,000 duel entries (RANKGEN_LONG=1: 1,000,000) in
// place to duelint's layout while 16 writers of the old layout Set their own ids as fast as they
// can, each moving to the new code when the board has switched (ErrLayoutMismatch). The
// migration runs in a child process killed with SIGKILL halfway through its copy, then again
// here until it switches. Every write acknowledged by either code is on the new board
// afterwards; the test reports the longest any write took (first attempt to acknowledgement,
// retries included), how long writes were refused, and the fence's times.
func TestMigrationPause(t *testing.T) {
	n := 100_000
	if os.Getenv("RANKGEN_LONG") == "1" {
		n = 1_000_000
	}
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	entry := func(i int, points uint32) duel.Entry {
		return duel.Entry{PlayerID: fmt.Sprintf("p%07d", i), Points: points, Wins: uint8(i), Tier: duel.Tier(i % 3), ReachedAt: at}
	}
	oldBoard := duel.NewBoard(c, key)
	for i := 0; i < n; i += 5000 {
		batch := make([]duel.Entry, 0, 5000)
		for j := i; j < min(i+5000, n); j++ {
			batch = append(batch, entry(j, uint32(j)))
		}
		if _, err := oldBoard.SetMany(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}

	// Both codes' libraries are loaded first, as a deployed writer's would be.
	if err := errors.Join(oldBoard.Load(ctx), duelint.NewBoard(c, key).Load(ctx)); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	ws := make([]*pauseWriter, pauseWriters)
	var wg sync.WaitGroup
	for w := range ws {
		ws[w] = &pauseWriter{acked: map[string]uint32{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws[w].err = ws[w].write(ctx, c, key, w, n, stop)
		}()
	}

	// The first run, in a child, is killed halfway through its copy.
	prog := rankgenrt.SideKey(rankgenrt.SideKey(key, "migrate:board"), "migrate")
	cmd := exec.Command(os.Args[0], "-test.run=^TestPauseChild$")
	cmd.Env = append(os.Environ(), pauseChildEnv+"="+c.Options().Addr+" "+key, "REDIS_URL=redis://"+c.Options().Addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for done := 0; done < n/2; done, _ = strconv.Atoi(c.HGet(ctx, prog, "done").Val()) {
		if time.Since(start) > 10*time.Minute {
			cmd.Process.Kill()
			t.Fatal("the child copied less than half the board in 10 minutes")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	killed, _ := strconv.Atoi(c.HGet(ctx, prog, "done").Val())

	rep, err := migrate.Run(ctx, c, duelPlan(t), migrate.Options{Key: key})
	if err != nil || !rep.Switched || !rep.Resumed {
		t.Fatalf("the run after the kill: %+v, %v; want resumed and switched", rep, err)
	}
	elapsed := time.Since(start)
	time.Sleep(300 * time.Millisecond) // the writers go on with the new code
	close(stop)
	wg.Wait()

	want := make(map[string]uint32, n)
	for i := range n {
		want[entry(i, 0).PlayerID] = uint32(i)
	}
	var writes, refused int
	var longest, unrefused time.Duration
	var longestAt, first, last time.Time
	for w, pw := range ws {
		if pw.err != nil {
			t.Fatal(pw.err)
		}
		if pw.switchedAt.IsZero() {
			t.Fatalf("writer %d never wrote with the new code", w)
		}
		for id, pts := range pw.acked {
			want[id] = pts
		}
		writes, refused, unrefused = writes+pw.writes, refused+pw.refused, max(unrefused, pw.unrefused)
		if pw.longest > longest {
			longest, longestAt = pw.longest, pw.longestAt
		}
		if !pw.first.IsZero() && (first.IsZero() || pw.first.Before(first)) {
			first = pw.first
		}
		if pw.last.After(last) {
			last = pw.last
		}
	}
	lost := 0
	newBoard := duelint.NewBoard(c, key)
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	for i := 0; i < len(ids); i += 5000 {
		rs, err := newBoard.GetMany(ctx, ids[i:min(i+5000, len(ids))]...)
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
	var span time.Duration
	if !first.IsZero() {
		span = last.Sub(first)
	}
	t.Logf("%d entries, %d writers of the old layout, migrate killed (SIGKILL) after copying %d and run again: %d writes acknowledged, 0 lost; %d refused (ErrRetry) over %v; the longest write took %v (begun %v before the switch; the longest never refused %v); the fence stood %v, closed for %v; %d ids replayed from the change log, all %d verified; %v from the start to the switch",
		n, pauseWriters, killed, writes, refused, span.Round(time.Millisecond), longest.Round(time.Millisecond),
		rep.SwitchedAt.Sub(longestAt).Round(time.Millisecond), unrefused.Round(time.Millisecond), rep.Fenced.Round(time.Millisecond), rep.Closed.Round(time.Millisecond), rep.Replayed, rep.Verified, elapsed.Round(time.Millisecond))
}

// write Sets random ids of writer w's (i % pauseWriters == w) until stop, each time to Points
// of its own, with the old code until the board has switched (ErrLayoutMismatch), then with the
// new; a refusal matching rankgenrt.ErrRetry is retried after a *MigratingError's Wait (at
// most 50 ms), any other error ends it.
func (pw *pauseWriter) write(ctx context.Context, c *redis.Client, key string, w, n int, stop <-chan struct{}) error {
	oldBoard, newBoard := duel.NewBoard(c, key), duelint.NewBoard(c, key)
	oldCode := true
	rng := rand.New(rand.NewPCG(uint64(w), 11))
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for seq := uint32(1); ; seq++ {
		select {
		case <-stop:
			return nil
		default:
		}
		i := rng.IntN(n/pauseWriters)*pauseWriters + w
		id := fmt.Sprintf("p%07d", i)
		points := uint32(w)<<20 | seq&(1<<20-1) // unique per writer while seq < 2^20
		began, refusedBefore := time.Now(), pw.refused
		for {
			var err error
			if oldCode {
				_, err = oldBoard.Set(ctx, duel.Entry{PlayerID: id, Points: points, Wins: uint8(i), Tier: duel.Tier(i % 3), ReachedAt: at})
			} else {
				_, err = newBoard.Set(ctx, duelint.Entry{PlayerID: id, Points: points, Wins: uint8(i), Tier: duelint.Tier(i % 3), ReachedAt: at})
			}
			if err == nil {
				pw.acked[id], pw.writes = points, pw.writes+1
				if took := time.Since(began); took > pw.longest {
					pw.longest, pw.longestAt = took, began
				}
				if refusedBefore == pw.refused {
					pw.unrefused = max(pw.unrefused, time.Since(began))
				}
				if !oldCode && pw.switchedAt.IsZero() {
					pw.switchedAt = time.Now()
				}
				break
			}
			if !errors.Is(err, rankgenrt.ErrRetry) {
				return fmt.Errorf("writer %d: Set %s: %w", w, id, err)
			}
			pw.refused++
			if pw.first.IsZero() {
				pw.first = time.Now()
			}
			pw.last = time.Now()
			if oldCode && errors.Is(err, rankgenrt.ErrLayoutMismatch) {
				oldCode = false // redeployed with the new code
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
