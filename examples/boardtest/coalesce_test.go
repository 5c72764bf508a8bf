package boardtest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// coalescedLaps is a Coalescer of racing's AddLaps over AddLapsMany.
func coalescedLaps(t *testing.T, b *racing.Board, cfg rankgenrt.Coalescing) *rankgenrt.Coalescer[racing.Update[int64], racing.Result] {
	t.Helper()
	c, err := rankgenrt.NewCoalescer(b.AddLapsMany, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCoalescedUpdates: 16 goroutines adding laps through one Coalescer on a real server get
// each its own result: for one car, the Laps they were told are exactly 1..n, each once, and
// the board holds n; an update that overflows is refused to its caller alone, in a batch
// whose other updates are applied.
func TestCoalescedUpdates(t *testing.T) {
	c := redistest.Client(t)
	b := racing.NewBoard(c, redistest.Key(t, "coalesced"))
	co := coalescedLaps(t, b, rankgenrt.DefaultCoalescing)
	const goroutines, each = 16, 40
	var mu sync.Mutex
	var told []int
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				r, err := co.Do(ctx, racing.Update[int64]{Car: 7, Value: 1})
				if err == nil {
					err = r.Err
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				told = append(told, int(r.Entry.Laps))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(told)
	for i, laps := range told {
		if laps != i+1 {
			t.Fatalf("callers were told Laps %v…, want 1..%d each once", told[:min(len(told), i+3)], goroutines*each)
		}
	}
	if e, err := b.Get(ctx, 7); err != nil || e.Laps != goroutines*each {
		t.Fatalf("board holds %+v, %v; want Laps %d", e, err, goroutines*each)
	}

	// One overflowing update among good ones, all in flight together.
	var results [8]racing.Result
	var errs [8]error
	for i := range results {
		wg.Go(func() {
			delta := int64(1)
			if i == 3 {
				delta = 1000 // beyond Laps's 999
			}
			results[i], errs[i] = co.Do(ctx, racing.Update[int64]{Car: uint64(100 + i), Value: delta})
		})
	}
	wg.Wait()
	for i := range results {
		switch {
		case errs[i] != nil:
			t.Errorf("update %d: call error %v", i, errs[i])
		case i == 3 && !errors.Is(results[i].Err, rankgenrt.ErrOverflow):
			t.Errorf("overflowing update: %+v, want ErrOverflow", results[i])
		case i != 3 && (results[i].Err != nil || results[i].Entry.Laps != 1):
			t.Errorf("update %d: %+v, want Laps 1", i, results[i])
		}
	}
	if _, err := b.Get(ctx, 103); !errors.Is(err, rankgenrt.ErrNotFound) {
		t.Errorf("the overflowing update wrote its entry: %v", err)
	}
}

// TestCoalescedResendOnce: a batch whose reply is lost (after the server applied it, or
// before it reached it) leaves each caller an *UncertainError naming its place in the batch;
// resent through the Coalescer under that token, each caller gets its own result and the
// board has every update exactly once, however many callers resend.
func TestCoalescedResendOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode int32
	}{{"applied", loseReply}, {"never applied", loseRequest}} {
		t.Run(tc.name, func(t *testing.T) {
			c := redistest.Client(t)
			lose := &replyLoser{}
			c.AddHook(lose)
			b := racing.NewBoard(c, redistest.Key(t, "resend"))
			if err := b.Load(ctx); err != nil {
				t.Fatal(err)
			}
			// A first write keeps a batch on its way while the three below gather into one (the
			// linger, an hour, never ends it).
			co := coalescedLaps(t, b, rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: 100})
			tokens := lostBatchTokens(t, c, lose, tc.mode, 3, func(i int) error {
				if i < 0 {
					_, err := co.Do(ctx, racing.Update[int64]{Car: 1, Value: 1})
					return err
				}
				_, err := co.Do(ctx, racing.Update[int64]{Car: uint64(10 + i), Value: int64(i + 1)})
				return err
			})
			for round := range 2 { // every caller resends, twice
				for i, token := range tokens {
					r, err := co.Do(rankgenrt.WithIdempotencyKey(ctx, token), racing.Update[int64]{Car: uint64(10 + i), Value: int64(i + 1)})
					if err != nil || r.Err != nil || r.Entry.Laps != uint16(i+1) {
						t.Errorf("resend %d of update %d: %+v, %v; want Laps %d", round, i, r, err, i+1)
					}
				}
			}
			for i := range tokens {
				if e, err := b.Get(ctx, uint64(10+i)); err != nil || e.Laps != uint16(i+1) {
					t.Errorf("car %d: %+v, %v; want Laps %d, applied once", 10+i, e, err, i+1)
				}
			}
		})
	}
}

// holdingHook holds the first FCALL it sees after being armed until release is closed.
type holdingHook struct {
	armed, holding atomic.Bool
	release        chan struct{}
}

func (h *holdingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *holdingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *holdingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "fcall" && h.armed.CompareAndSwap(true, false) {
			h.holding.Store(true)
			<-h.release
		}
		return next(ctx, cmd)
	}
}
