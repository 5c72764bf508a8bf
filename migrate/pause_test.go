package migrate_test

import (
	"context"
	"encoding/json"
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

// TestPauseChild migrates the board "addr key [finish]" names, as rankgen migrate would in a
// process of its own: until killed, or with finish to the end, its report on stdout as JSON.
func TestPauseChild(t *testing.T) {
	arg := os.Getenv(pauseChildEnv)
	if arg == "" {
		t.Skip("run by TestMigrationPause in a child process")
	}
	parts := strings.Fields(arg)
	c := redis.NewClient(&redis.Options{Addr: parts[0]})
	rep, err := migrate.Run(context.Background(), c, duelPlan(t), migrate.Options{Key: parts[1]})
	if len(parts) < 3 {
		t.Fatalf("the child finished (%v) before it was killed", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("report %s\n", out)
}

// migrateInChild runs TestPauseChild on key: finished, it returns the run's report.
func migrateInChild(t *testing.T, c *redis.Client, key string, finish bool) (*exec.Cmd, func() migrate.Report) {
	arg := c.Options().Addr + " " + key
	if finish {
		arg += " finish"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPauseChild$", "-test.v")
	cmd.Env = append(os.Environ(), pauseChildEnv+"="+arg, "REDIS_URL=redis://"+c.Options().Addr)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, func() migrate.Report {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v\n%s", err, out.String())
		}
		var rep migrate.Report
		for _, line := range strings.Split(out.String(), "\n") {
			if js, ok := strings.CutPrefix(line, "report "); ok {
				if err := json.Unmarshal([]byte(js), &rep); err != nil {
					t.Fatal(err)
				}
				return rep
			}
		}
		t.Fatalf("the child reported nothing:\n%s", out.String())
		return rep
	}
}

// pauseWriter is one writer's acknowledged writes: the Points each of its ids was last Set to.
type pauseWriter struct {
	acked       map[string]uint32
	writes      int
	refused     int           // refusals matching rankgenrt.ErrRetry
	longest     time.Duration // the longest a write took, from its first attempt to its acknowledgement
	longestAt   time.Time     // when that write began
	unrefused   time.Duration // the longest a write took that was never refused
	refusedLong time.Duration // the longest a write took that was refused at least once
	first, last time.Time     // its first and last refusal
	err         error
	switchedAt  time.Time
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

	// Redis's slow log names what took it 50 ms or more: a script of the migration, a write,
	// or any command on a machine too busy to run Redis.
	was, err := c.ConfigGet(ctx, "slowlog-log-slower-than").Result()
	if err != nil {
		t.Fatal(err)
	}
	defer c.ConfigSet(ctx, "slowlog-log-slower-than", was["slowlog-log-slower-than"])
	if err := errors.Join(c.ConfigSet(ctx, "slowlog-log-slower-than", "50000").Err(), c.SlowLogReset(ctx).Err()); err != nil {
		t.Fatal(err)
	}

	// The migration runs in processes of its own, as rankgen migrate does: the first one is
	// killed halfway through its copy, the second runs to the switch.
	prog := rankgenrt.SideKey(rankgenrt.SideKey(key, "migrate:board"), "migrate")
	cmd, _ := migrateInChild(t, c, key, false)
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

	_, report := migrateInChild(t, c, key, true)
	rep := report()
	if !rep.Switched || !rep.Resumed {
		t.Fatalf("the run after the kill: %+v; want resumed and switched", rep)
	}
	elapsed := time.Since(start)
	time.Sleep(300 * time.Millisecond) // the writers go on with the new code
	close(stop)
	wg.Wait()
	slow, err := c.SlowLogGet(ctx, 20).Result()
	if err != nil {
		t.Fatal(err)
	}
	var slowest []string
	for _, e := range slow {
		what := e.Args[0]
		if len(e.Args) > 2 && strings.EqualFold(what, "evalsha") {
			what += " (" + e.Args[2] + " keys)" // the migration's scripts: 7 keys read, 8 replay
		}
		slowest = append(slowest, fmt.Sprintf("%s %v", what, e.Duration.Round(time.Millisecond)))
	}

	want := make(map[string]uint32, n)
	for i := range n {
		want[entry(i, 0).PlayerID] = uint32(i)
	}
	var writes, refused int
	var longest, unrefused, refusedLong time.Duration
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
		refusedLong = max(refusedLong, pw.refusedLong)
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
	t.Logf("%d entries, %d writers of the old layout, migrate killed (SIGKILL) after copying %d and run again: %d writes acknowledged, 0 lost; %d refused (ErrRetry) over %v; the longest write took %v (begun %v before the switch; the longest refused at least once %v, never refused %v); the fence stood %v, closed for %v; %d ids replayed from the change log, all %d verified; %v from the start to the switch; Redis's commands of 50 ms or more: %v",
		n, pauseWriters, killed, writes, refused, span.Round(time.Millisecond), longest.Round(time.Millisecond),
		rep.SwitchedAt.Sub(longestAt).Round(time.Millisecond), refusedLong.Round(time.Millisecond), unrefused.Round(time.Millisecond), rep.Fenced.Round(time.Millisecond), rep.Closed.Round(time.Millisecond), rep.Replayed, rep.Verified, elapsed.Round(time.Millisecond), slowest)
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
				} else {
					pw.refusedLong = max(pw.refusedLong, time.Since(began))
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
