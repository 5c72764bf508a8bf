package boardtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// killStorm kills every normal client connection but its own, again and again, until stop is
// closed: replies of scripts that ran are lost, and go-redis retries the command.
func killStorm(addr string, every time.Duration, stop <-chan struct{}) *sync.WaitGroup {
	killer := redis.NewClient(&redis.Options{Addr: addr})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer killer.Close()
		for {
			select {
			case <-stop:
				return
			case <-time.After(every):
			}
			_ = killer.Do(context.Background(), "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes").Err()
		}
	}()
	return &wg
}

// stormAdds is what the kill storm needs of a board: add +1 to an id's Points, alone or as a
// batch of the same +1 twice (a batch call moves the id by 2), and read an id's Points.
type stormAdds struct {
	add    func(ctx context.Context, id string) error
	addTwo func(ctx context.Context, id string) error
	points func(ctx context.Context, id string) (int64, error)
}

func arenaAdds(b *arena.Board) stormAdds {
	return stormAdds{
		add: func(ctx context.Context, id string) error { _, err := b.AddPoints(ctx, id, 1); return err },
		addTwo: func(ctx context.Context, id string) error {
			res, err := b.AddPointsMany(ctx, []arena.Update[int64]{{PlayerID: id, Value: 1}, {PlayerID: id, Value: 1}})
			return batchErr(res, err, func(r arena.Result) error { return r.Err })
		},
		points: func(ctx context.Context, id string) (int64, error) {
			e, err := b.Get(ctx, id)
			return int64(e.Points), err
		},
	}
}

func seasonAdds(b *season.Board) stormAdds {
	return stormAdds{
		add: func(ctx context.Context, id string) error { _, err := b.AddPoints(ctx, id, 1); return err },
		addTwo: func(ctx context.Context, id string) error {
			res, err := b.AddPointsMany(ctx, []season.Update[int64]{{UserID: id, Value: 1}, {UserID: id, Value: 1}})
			return batchErr(res, err, func(r season.Result) error { return r.Err })
		},
		points: func(ctx context.Context, id string) (int64, error) {
			e, err := b.Get(ctx, id)
			return int64(e.Points), err
		},
	}
}

// batchErr is the call's error, else the first update's.
func batchErr[R any](res []R, err error, errOf func(R) error) error {
	if err != nil {
		return err
	}
	for _, r := range res {
		if err := errOf(r); err != nil {
			return err
		}
	}
	return nil
}

// stormWorker counts one worker's calls of one kind: acknowledged, and the tokens of those that
// failed with ErrUncertain.
type stormWorker struct {
	acked  int64
	failed []string
}

// TestKillStormAddsOnce: concurrent single and batch adds under a CLIENT KILL storm, with the
// client's default retries. The stored total of every id equals its acknowledged adds plus a
// subset of its failed ones, never more; resending every failed call with its token then makes
// it exactly the number of calls. RANKGEN_LONG=1 runs the long storm of the issue (250 calls per
// worker and kind, a kill every 200µs). On a private server ("single"), and on the cluster
// ("cluster"), where the storm hits the master of each board's slot.
func TestKillStormAddsOnce(t *testing.T) {
	calls, every := 40, time.Millisecond
	if os.Getenv("RANKGEN_LONG") == "1" {
		calls, every = 250, 200*time.Microsecond
	}
	t.Run("single", func(t *testing.T) {
		srv := redistest.Start(t)
		c := redis.NewClient(&redis.Options{Addr: srv.Addr, PoolSize: 8})
		defer c.Close()
		killStormBoards(t, c, "storm:", func(string) string { return srv.Addr }, calls, every)
	})
	t.Run("cluster", func(t *testing.T) {
		c := redistest.StartClusterWith(t, func(o *redis.ClusterOptions) { o.PoolSize = 8 })
		master := func(key string) string { return redistest.SlotMaster(t, c, c.ClusterKeySlot(ctx, key).Val()) }
		killStormBoards(t, c, redistest.Prefix(t), master, calls, every)
	})
}

// killStormBoards runs the storm on an arena, a season and a weekly board (of the present week)
// under prefix, killing the connections of the node master(key) names.
func killStormBoards(t *testing.T, c redis.UniversalClient, prefix string, master func(key string) string, calls int, every time.Duration) {
	// A token is remembered for one to two dedup windows, and the resends come after the whole
	// storm: the long storm outlasts the default minute, so the window covers it.
	window := 10 * time.Minute
	week := liveSeason(t, c, weeklyAt)
	for name, board := range map[string]func(key string) stormAdds{
		"arena":  func(key string) stormAdds { return arenaAdds(arena.NewBoard(c, key, arena.WithDedupWindow(window))) },
		"season": func(key string) stormAdds { return seasonAdds(season.NewBoard(c, key, season.WithDedupWindow(window))) },
		"weekly": func(key string) stormAdds {
			return weeklyAdds(weekly.NewBoard(c, key, week, weekly.WithDedupWindow(window)))
		},
	} {
		key := prefix + name
		t.Run(name, func(t *testing.T) { killStormAdds(t, master(key), board(key), calls, every) })
	}
}

func killStormAdds(t *testing.T, addr string, b stormAdds, calls int, every time.Duration) {
	const workers = 4
	ctx := context.Background()
	var single, batch [workers]stormWorker
	stop := make(chan struct{})
	storm := killStorm(addr, every, stop)
	var uncertain atomic.Int64
	call := func(w *stormWorker, f func(context.Context, string) error, id string) {
		err := f(ctx, id)
		var ue *rankgenrt.UncertainError
		switch {
		case err == nil:
			w.acked++
		case errors.As(err, &ue):
			w.failed = append(w.failed, ue.Token)
			uncertain.Add(1)
		default:
			t.Errorf("%s: %v, want success or ErrUncertain", id, err)
		}
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Until some call has failed too (a few seconds at most), so that resending is tested.
			deadline := time.Now().Add(5 * time.Second)
			for i := 0; i < calls || (uncertain.Load() == 0 && time.Now().Before(deadline)); i++ {
				call(&single[w], b.add, fmt.Sprintf("p%d", w))
				call(&batch[w], b.addTwo, fmt.Sprintf("b%d", w))
			}
		}()
	}
	wg.Wait()
	close(stop)
	storm.Wait()

	check := func(id string, w stormWorker, per int64, want func(stored, acked, failed int64) bool) {
		stored, err := b.points(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		a, f := w.acked*per, int64(len(w.failed))*per
		t.Logf("%s: stored %d, acknowledged %d, failed %d", id, stored, a, f)
		if !want(stored, a, f) || stored%per != 0 {
			t.Errorf("%s: stored %d; acknowledged %d, failed %d", id, stored, a, f)
		}
	}
	subset := func(stored, a, f int64) bool { return stored >= a && stored <= a+f }
	total := func(stored, a, f int64) bool { return stored == a+f }
	failures := 0
	for w := range workers {
		check(fmt.Sprintf("p%d", w), single[w], 1, subset)
		check(fmt.Sprintf("b%d", w), batch[w], 2, subset)
		failures += len(single[w].failed) + len(batch[w].failed)
	}
	if failures == 0 {
		t.Errorf("no call failed: the storm tested nothing")
	}
	// Resending each failed call with its token finishes it: applied once in all. A resend
	// that is itself uncertain (a connection the storm left dead) is resent again, as a
	// caller would.
	resend := func(f func(context.Context, string) error, tok, id string) {
		err := rankgenrt.ErrUncertain
		for try := 0; try < 5 && errors.Is(err, rankgenrt.ErrUncertain); try++ {
			err = f(rankgenrt.WithIdempotencyKey(ctx, tok), id)
		}
		if err != nil {
			t.Fatalf("resending %s with token %s: %v", id, tok, err)
		}
	}
	for w := range workers {
		for _, tok := range single[w].failed {
			resend(b.add, tok, fmt.Sprintf("p%d", w))
		}
		for _, tok := range batch[w].failed {
			resend(b.addTwo, tok, fmt.Sprintf("b%d", w))
		}
		check(fmt.Sprintf("p%d", w), single[w], 1, total)
		check(fmt.Sprintf("b%d", w), batch[w], 2, total)
	}
}
