package boardtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// brokenCar is the car whose stored entry the coalescing tests below write by hand: a score
// no racing layout writes.
const brokenCar = 666

// breakEntry stores brokenCar on b's board with the score 0.5, as another program might, after
// a first write has claimed the board for racing's layout.
func breakEntry(t *testing.T, c redis.UniversalClient, b *racing.Board) {
	t.Helper()
	if _, err := racing.NewBoard(c, b.Key()).AddLaps(ctx, 1, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.ZAdd(ctx, b.Key(), redis.Z{Score: 0.5, Member: fmt.Sprint(brokenCar)}).Err(); err != nil {
		t.Fatal(err)
	}
}

// checkBrokenRefused fails unless err is the refusal of brokenCar's stored score, and the score
// is still there.
func checkBrokenRefused(t *testing.T, c redis.UniversalClient, b *racing.Board, what string, err error) {
	t.Helper()
	if !errors.Is(err, rankgenrt.ErrBadScore) || errors.Is(err, rankgenrt.ErrUncertain) {
		t.Errorf("%s of car %d: %v; want ErrBadScore", what, brokenCar, err)
	}
	if s, err := c.ZScore(ctx, b.Key(), fmt.Sprint(brokenCar)).Result(); err != nil || s != 0.5 {
		t.Errorf("car %d's score is %v, %v; want the 0.5 written by hand", brokenCar, s, err)
	}
}

// refusedBatches counts the calls of batch forms the server refused with a bad score, and how
// many updates they carried.
type refusedBatches struct {
	mu      sync.Mutex
	updates []int
}

func (h *refusedBatches) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *refusedBatches) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *refusedBatches) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() != "fcall" || err == nil {
			return err
		}
		if name, _ := cmd.Args()[1].(string); strings.HasSuffix(name, rankgenrt.BatchSuffix) && strings.HasPrefix(err.Error(), "RANKGEN_BAD_SCORE") {
			numKeys, _ := cmd.Args()[2].(int)
			h.mu.Lock()
			h.updates = append(h.updates, (len(cmd.Args())-3-numKeys-5)/2) // FCALL name numkeys keys…, 5 head arguments, then id, value pairs
			h.mu.Unlock()
		}
		return err
	}
}

// TestCoalescedBrokenEntry: on a board made WithCoalescing whose car 666 was stored by hand
// with a score no racing layout writes, single AddLaps of other cars that share a batch with
// car 666's are applied, each once, and each caller gets its own result; car 666's caller
// alone gets ErrBadScore (the batch used to fail every caller with car 666's error). The batch
// is refused before anything is written, and each caller's update is then sent on its own.
// The same holds after the batch lost its reply and every caller resends under its token.
func TestCoalescedBrokenEntry(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		refused := &refusedBatches{}
		lose := &replyLoser{}
		c.AddHook(refused)
		c.AddHook(lose)

		// Six updates, car 666's among them, fill a batch of six (MaxBatch) while the first
		// write is held on its way: they go as one call.
		b := racing.NewBoard(c, redistest.Key(t, "broken"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: 6}))
		breakEntry(t, c, b)
		hold, first := holdFirstBatch(t, c, func() error { _, err := b.AddLaps(ctx, 1, 1); return err })
		cars := []uint64{10, 11, brokenCar, 12, 13, 14}
		errs := make([]error, len(cars))
		var wg sync.WaitGroup
		for i, car := range cars {
			wg.Go(func() {
				w, err := b.AddLaps(ctx, car, int64(i+1))
				if err == nil && w.Laps != uint16(i+1) {
					err = fmt.Errorf("told Laps %d, want %d", w.Laps, i+1)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		close(hold.release)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		for i, car := range cars {
			if car == brokenCar {
				checkBrokenRefused(t, c, b, "AddLaps", errs[i])
			} else if errs[i] != nil {
				t.Errorf("AddLaps of car %d, in a batch with car %d: %v; want it applied", car, brokenCar, errs[i])
			}
		}
		if len(refused.updates) != 1 || refused.updates[0] != len(cars) {
			t.Fatalf("batches refused for a bad score, by their updates: %v; want one of %d", refused.updates, len(cars))
		}
		checkLaps(t, b, map[uint64]int{1: 2, 10: 1, 11: 2, 12: 4, 13: 5, 14: 6})

		// The same batch loses its request: each caller is uncertain, and resends under its
		// token, twice; the batch is refused again and each update goes on its own, once.
		b = racing.NewBoard(c, redistest.Key(t, "resent"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: 100}))
		breakEntry(t, c, b)
		tokens := lostBatchTokens(t, c, lose, loseRequest, len(cars), func(i int) error {
			if i < 0 {
				_, err := b.AddLaps(ctx, 1, 1)
				return err
			}
			_, err := b.AddLaps(ctx, cars[i], int64(i+1))
			return err
		})
		for round := range 2 {
			for i, token := range tokens {
				w, err := b.AddLaps(rankgenrt.WithIdempotencyKey(ctx, token), cars[i], int64(i+1))
				switch {
				case cars[i] == brokenCar:
					checkBrokenRefused(t, c, b, fmt.Sprint("resend ", round), err)
				case err != nil || w.Laps != uint16(i+1):
					t.Errorf("resend %d of car %d's update: %+v, %v; want Laps %d", round, cars[i], w, err, i+1)
				}
			}
		}
		checkLaps(t, b, map[uint64]int{1: 2, 10: 1, 11: 2, 12: 4, 13: 5, 14: 6})
	})
}

// checkLaps fails unless the board holds the Laps want says for each car.
func checkLaps(t *testing.T, b *racing.Board, want map[uint64]int) {
	t.Helper()
	for car, laps := range want {
		if e, err := b.Get(ctx, car); err != nil || int(e.Laps) != laps {
			t.Errorf("car %d: %+v, %v; want Laps %d, each update applied once", car, e, err, laps)
		}
	}
}

// TestCoalescedBrokenEntryConcurrent: 16 goroutines make single AddLaps on a board made
// WithCoalescing (the default Coalescing), each on cars of its own and, every fourth update,
// on car 666, whose stored score was written by hand. Every update of another car is applied,
// each exactly once (each car's Laps is the sum of the deltas its callers were told were
// applied), and every update of car 666 is refused with ErrBadScore, nothing written.
func TestCoalescedBrokenEntryConcurrent(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.WithPoolSize(t, 32)
		b := racing.NewBoard(c, redistest.Key(t, "broken"), racing.WithCoalescing(rankgenrt.DefaultCoalescing))
		breakEntry(t, c, b)
		const goroutines, each, ids = 16, 60, 3
		applied := make([]map[uint64]int, goroutines)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []string
		for g := range goroutines {
			applied[g] = map[uint64]int{}
			wg.Go(func() {
				for i := range each {
					car, delta := uint64(100+g*ids+i%ids), int64(1+(g+i)%3)
					if i%4 == 3 {
						car = brokenCar
					}
					w, err := b.AddLaps(ctx, car, delta)
					switch {
					case car == brokenCar && (!errors.Is(err, rankgenrt.ErrBadScore) || errors.Is(err, rankgenrt.ErrUncertain)):
						err = fmt.Errorf("want ErrBadScore, got %w", err)
					case car == brokenCar:
						err = nil
					case err == nil:
						applied[g][car] += int(delta)
						if int(w.Laps) != applied[g][car] {
							err = fmt.Errorf("told Laps %d, want %d", w.Laps, applied[g][car])
						}
					}
					if err != nil {
						mu.Lock()
						failures = append(failures, fmt.Sprintf("goroutine %d, update %d (car %d): %v", g, i, car, err))
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if len(failures) > 0 {
			t.Errorf("%d of %d updates failed, first: %s", len(failures), goroutines*each, failures[0])
		}
		for g := range applied {
			checkLaps(t, b, applied[g])
		}
		_, err := b.AddLaps(ctx, brokenCar, 1)
		checkBrokenRefused(t, c, b, "AddLaps", err)
	})
}
