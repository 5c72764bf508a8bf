package boardtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/quiz"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// The single whole-entry writes (Set, Best, Insert) and change lists (Update) of a board made
// WithCoalescing: their functions are their own batch forms, and a board combines their
// single calls as it combines the single field updates (coalesce_board_test.go).

// TestCoalescedEntriesDifferential: 16 goroutines make random single Set, Best, Insert and
// Update calls (entries out of range, overflowing and refused change lists, ids written twice
// in a row among them) on a board made WithCoalescing; each caller's every result and error
// equals what the same sequence gets from a board without it, both boards end equal, and the
// writes went out in fewer calls than there were writes. Racing has bare ids, quiz a member
// prefix and an index.
func TestCoalescedEntriesDifferential(t *testing.T) {
	cfg := rankgenrt.Coalescing{Linger: 2 * time.Millisecond, MaxBatch: 8}
	t.Run("racing", func(t *testing.T) {
		c, calls := redistest.Client(t), &fcallCounter{}
		c.AddHook(calls)
		boards := [2]*racing.Board{
			racing.NewBoard(c, redistest.Key(t, "coalesced"), racing.WithCoalescing(cfg)),
			racing.NewBoard(redistest.Client(t), redistest.Key(t, "plain")),
		}
		coalescedDifferential(t, func(rng *rand.Rand, id uint64) singleUpdate {
			// Laps above 999 is out of range, refused before anything is sent.
			e := racing.Entry{Car: id, Laps: uint16(rng.IntN(1010)), RaceTime: uint32(rng.Int64N(1_000_000_000))}
			delta := rng.Int64N(900) - 300
			switch rng.IntN(5) {
			case 0:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].Set(ctx, e)) }
			case 1:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].Best(ctx, e)) }
			case 2:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].Insert(ctx, e)) }
			case 3: // an add that overflows Laps, refused by the script for this list alone
				return func(ctx context.Context, i int) outcome {
					return outcomeOf(boards[i].Update(ctx, id, racing.AddLaps(delta), racing.MinRaceTime(e.RaceTime)))
				}
			}
			// A field changed twice: refused before anything is sent (ErrBadChange).
			changes := []racing.Change{racing.SetLaps(e.Laps % 1000)}
			if rng.IntN(4) == 0 {
				changes = append(changes, racing.AddLaps(1))
			}
			return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].Update(ctx, id, changes...)) }
		}, func() (any, any) { return topOf(t, boards[0].Top), topOf(t, boards[1].Top) })
		calls.fewer(t, 16*60, rankgenrt.OpSet, rankgenrt.OpBest, rankgenrt.OpInsert, "changes")
	})
	t.Run("quiz", func(t *testing.T) {
		c, calls := redistest.Client(t), &fcallCounter{}
		c.AddHook(calls)
		boards := [2]*quiz.Board{
			quiz.NewBoard(c, redistest.Key(t, "coalesced"), quiz.WithCoalescing(cfg)),
			quiz.NewBoard(redistest.Client(t), redistest.Key(t, "plain")),
		}
		coalescedDifferential(t, func(rng *rand.Rand, id uint64) singleUpdate {
			// Millis above 16777215 is out of range, refused before anything is sent.
			e := quiz.Entry{PlayerID: id, Correct: uint8(rng.IntN(256)), Millis: uint32(rng.Int64N(17_000_000))}
			delta := rng.Int64N(300) - 100
			switch rng.IntN(4) {
			case 0:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].Set(ctx, e)) }
			case 1:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].Best(ctx, e)) }
			case 2:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].Insert(ctx, e)) }
			}
			return func(ctx context.Context, i int) outcome {
				return outcomeOf(boards[i].Update(ctx, id, quiz.AddCorrect(delta), quiz.MinMillis(e.Millis)))
			}
		}, func() (any, any) { return topOf(t, boards[0].Top), topOf(t, boards[1].Top) })
		calls.fewer(t, 16*60, rankgenrt.OpSet, rankgenrt.OpBest, rankgenrt.OpInsert, "changes")
	})
}

// fewer fails t unless the writes went out in fewer FCALLs than there were writes and, for
// each op, some call of its function carried more arguments than another: more than one
// write (a call holds one head and the same number of arguments per write).
func (h *fcallCounter) fewer(t *testing.T, writes int, ops ...string) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.calls >= writes {
		t.Errorf("%d FCALLs for %d single writes: nothing was combined", h.calls, writes)
	}
	for _, op := range ops {
		combined := false
		for name, n := range h.args {
			if strings.HasSuffix(name, "_"+op) && n[1] > n[0] {
				combined = true
			}
		}
		if !combined {
			t.Errorf("no call of %s carried more than one write: %v", op, h.args)
		}
	}
	t.Logf("%d single writes in %d FCALLs", writes, h.calls)
}

// refusedCalls records the argument counts of the FCALLs the server refused with code, in
// order.
type refusedCalls struct {
	code string
	mu   sync.Mutex
	args []int
}

func (h *refusedCalls) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *refusedCalls) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *refusedCalls) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == "fcall" && err != nil && strings.HasPrefix(err.Error(), h.code) {
			numKeys, _ := cmd.Args()[2].(int)
			h.mu.Lock()
			h.args = append(h.args, len(cmd.Args())-3-numKeys)
			h.mu.Unlock()
		}
		return err
	}
}

// batchThenOne fails t unless the server refused exactly a batch and then a single write of
// it (fewer arguments): the batch refused for one write's entry, that write sent again alone.
func (h *refusedCalls) batchThenOne(t *testing.T) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.args) != 2 || h.args[0] <= h.args[1] {
		t.Errorf("calls refused with %s, by their arguments: %v; want a batch, then one write of it alone", h.code, h.args)
	}
}

// together holds a first write (write(-1)) on its way while writes 0..n-1 fill a batch of n
// (the board's MaxBatch), which goes as one call, and returns each write's error.
func together(t *testing.T, c redis.UniversalClient, n int, write func(i int) error) []error {
	t.Helper()
	hold, first := holdFirstBatch(t, c, func() error { return write(-1) })
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = write(i) })
	}
	wg.Wait()
	close(hold.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	return errs
}

// TestCoalescedEntryRefusedAlone: a single write whose own entry the script refuses fails its
// caller alone; the other single writes of its batch are applied, each caller told its own
// result. Best and Update of racing's car 666, whose stored score was written by hand, are
// refused with ErrBadScore (the script refuses the batch before writing anything, and each
// write is sent again on its own); a weekly Set whose ReachedAt lies past the week is refused
// with ErrSeasonClosed before it joins a batch.
func TestCoalescedEntryRefusedAlone(t *testing.T) {
	cars := []uint64{10, 11, brokenCar, 12, 13, 14}
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		t.Run("best", func(t *testing.T) {
			refused := &refusedCalls{code: "RANKGEN_BAD_SCORE"}
			c.AddHook(refused)
			b := racing.NewBoard(c, redistest.Key(t, "best"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: len(cars)}))
			breakEntry(t, c, b)
			ws := make([]racing.Written, len(cars))
			errs := together(t, c, len(cars), func(i int) error {
				if i < 0 {
					_, err := b.Best(ctx, racing.Entry{Car: 1, Laps: 3})
					return err
				}
				var err error
				ws[i], err = b.Best(ctx, racing.Entry{Car: cars[i], Laps: uint16(i + 1)})
				return err
			})
			for i, car := range cars {
				switch {
				case car == brokenCar:
					checkBrokenRefused(t, c, b, "Best", errs[i])
				case errs[i] != nil || !ws[i].Changed || ws[i].Existed || ws[i].Laps != uint16(i+1):
					t.Errorf("Best of car %d, in a batch with car %d: %+v, %v; want it stored", car, brokenCar, ws[i], errs[i])
				}
			}
			refused.batchThenOne(t)
			checkLaps(t, b, map[uint64]int{1: 3, 10: 1, 11: 2, 12: 4, 13: 5, 14: 6})
		})
		t.Run("update", func(t *testing.T) {
			refused := &refusedCalls{code: "RANKGEN_BAD_SCORE"}
			c.AddHook(refused)
			b := racing.NewBoard(c, redistest.Key(t, "update"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: len(cars)}))
			breakEntry(t, c, b)
			ws := make([]racing.Written, len(cars))
			errs := together(t, c, len(cars), func(i int) error {
				if i < 0 {
					_, err := b.Update(ctx, 1, racing.AddLaps(2))
					return err
				}
				var err error
				ws[i], err = b.Update(ctx, cars[i], racing.AddLaps(int64(i+1)), racing.SetRaceTime(7))
				return err
			})
			for i, car := range cars {
				switch {
				case car == brokenCar:
					checkBrokenRefused(t, c, b, "Update", errs[i])
				case errs[i] != nil || ws[i].Laps != uint16(i+1) || ws[i].RaceTime != 7:
					t.Errorf("Update of car %d, in a batch with car %d: %+v, %v; want it applied", car, brokenCar, ws[i], errs[i])
				}
			}
			refused.batchThenOne(t)
			checkLaps(t, b, map[uint64]int{1: 3, 10: 1, 11: 2, 12: 4, 13: 5, 14: 6})
		})
		t.Run("set past the season", func(t *testing.T) {
			week := liveSeason(t, c, weeklyAt)
			const players = 4
			// The Set past the season is refused before it joins a batch: the other three fill one.
			b := weekly.NewBoard(c, redistest.Key(t, "weekly"), week, weekly.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: players - 1}))
			ws := make([]weekly.Written, players)
			entry := func(i int) weekly.Entry {
				e := weekly.Entry{PlayerID: fmt.Sprint("p", i), Points: uint32(10 * (i + 1)), ReachedAt: time.Duration(i) * time.Hour}
				if i == 2 {
					e.ReachedAt = 8 * 24 * time.Hour // inside ReachedAt's range, past the week's end
				}
				return e
			}
			errs := together(t, c, players, func(i int) error {
				if i < 0 {
					_, err := b.Set(ctx, weekly.Entry{PlayerID: "first", Points: 1})
					return err
				}
				var err error
				ws[i], err = b.Set(ctx, entry(i))
				return err
			})
			for i := range players {
				switch {
				case i == 2 && (!errors.Is(errs[i], rankgenrt.ErrSeasonClosed) || errors.Is(errs[i], rankgenrt.ErrUncertain)):
					t.Errorf("Set past the season: %v, want ErrSeasonClosed", errs[i])
				case i != 2 && (errs[i] != nil || ws[i].Entry != entry(i) || !ws[i].Changed):
					t.Errorf("Set of player %d, beside one past the season: %+v, %v; want it stored", i, ws[i], errs[i])
				}
			}
			for i := range players {
				got, err := b.Get(ctx, entry(i).PlayerID)
				switch {
				case i == 2 && !errors.Is(err, rankgenrt.ErrNotFound):
					t.Errorf("the entry past the season was stored: %+v, %v", got, err)
				case i != 2 && (err != nil || got != entry(i)):
					t.Errorf("player %d: %+v, %v; want %+v", i, got, err, entry(i))
				}
			}
		})
	})
}

// TestCoalescedEntriesBrokenConcurrent: 16 goroutines, on a board made WithCoalescing (the
// default Coalescing), each add laps to a car of its own with single Update calls and store
// ever better entries of another with single Best calls; every fourth write of each kind
// names car 666, whose stored score was written by hand. Every other write is applied exactly
// once (each car's Laps is the sum its caller was told was applied, or its last best), and
// every write of car 666 is refused with ErrBadScore, nothing written.
func TestCoalescedEntriesBrokenConcurrent(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.WithPoolSize(t, 32)
		b := racing.NewBoard(c, redistest.Key(t, "broken"), racing.WithCoalescing(rankgenrt.DefaultCoalescing))
		breakEntry(t, c, b)
		const goroutines, each = 16, 40
		want := make([]map[uint64]int, goroutines)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []string
		for g := range goroutines {
			want[g] = map[uint64]int{}
			wg.Go(func() {
				summed, best := uint64(1000+2*g), uint64(1001+2*g)
				for i := range each {
					var w racing.Written
					var err error
					car, laps := summed, 0
					if i%2 == 0 {
						delta := int64(1 + (g+i)%3)
						if i%8 == 6 {
							car = brokenCar
						}
						w, err = b.Update(ctx, car, racing.AddLaps(delta))
						laps = want[g][summed] + int(delta)
					} else {
						car, laps = best, i
						if i%8 == 7 {
							car = brokenCar
						}
						w, err = b.Best(ctx, racing.Entry{Car: car, Laps: uint16(laps)})
					}
					switch {
					case car == brokenCar && (!errors.Is(err, rankgenrt.ErrBadScore) || errors.Is(err, rankgenrt.ErrUncertain)):
						err = fmt.Errorf("want ErrBadScore, got %w", err)
					case car == brokenCar:
						err = nil
					case err == nil && int(w.Laps) != laps:
						err = fmt.Errorf("told Laps %d, want %d", w.Laps, laps)
					case err == nil:
						want[g][car] = laps
					}
					if err != nil {
						mu.Lock()
						failures = append(failures, fmt.Sprintf("goroutine %d, write %d (car %d): %v", g, i, car, err))
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if len(failures) > 0 {
			t.Errorf("%d of %d writes failed, first: %s", len(failures), goroutines*each, failures[0])
		}
		for g := range want {
			checkLaps(t, b, want[g])
		}
		_, err := b.Best(ctx, racing.Entry{Car: brokenCar, Laps: 1})
		checkBrokenRefused(t, c, b, "Best", err)
	})
}

// TestCoalescedEntriesResendOnce: a batch of single Set, Best or Update calls whose reply is
// lost (after the server applied it, or before it reached it) leaves each caller an
// *UncertainError naming its place in the batch; resent through the board's own method under
// that token, twice, each caller gets the reply of the first application (a Set applied again
// would find its entry there: Existed, not Changed) and every write is applied exactly once.
// The same tokens through another board, or through the batch method, are refused with
// ErrResendForgotten, and a key of the caller's own is a write of its own, sent alone.
func TestCoalescedEntriesResendOnce(t *testing.T) {
	type write func(b *racing.Board, ctx context.Context, car uint64, laps int) (racing.Written, error)
	for _, w := range []struct {
		name  string
		write write
		many  func(b *racing.Board, ctx context.Context, car uint64, laps int) error
	}{
		{"set", func(b *racing.Board, ctx context.Context, car uint64, laps int) (racing.Written, error) {
			return b.Set(ctx, racing.Entry{Car: car, Laps: uint16(laps)})
		}, func(b *racing.Board, ctx context.Context, car uint64, laps int) error {
			_, err := b.SetMany(ctx, []racing.Entry{{Car: car, Laps: uint16(laps)}})
			return err
		}},
		{"best", func(b *racing.Board, ctx context.Context, car uint64, laps int) (racing.Written, error) {
			return b.Best(ctx, racing.Entry{Car: car, Laps: uint16(laps)})
		}, func(b *racing.Board, ctx context.Context, car uint64, laps int) error {
			_, err := b.BestMany(ctx, []racing.Entry{{Car: car, Laps: uint16(laps)}})
			return err
		}},
		{"update", func(b *racing.Board, ctx context.Context, car uint64, laps int) (racing.Written, error) {
			return b.Update(ctx, car, racing.AddLaps(int64(laps)))
		}, func(b *racing.Board, ctx context.Context, car uint64, laps int) error {
			_, err := b.UpdateMany(ctx, []racing.Changes{{Car: car, Apply: []racing.Change{racing.AddLaps(int64(laps))}}})
			return err
		}},
	} {
		for _, mode := range []struct {
			name string
			mode int32
		}{{"applied", loseReply}, {"never applied", loseRequest}} {
			t.Run(w.name+"/"+mode.name, func(t *testing.T) {
				c := redistest.Client(t)
				lose := &replyLoser{}
				c.AddHook(lose)
				b := racing.NewBoard(c, redistest.Key(t, "resend"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: 100}))
				if err := b.Load(ctx); err != nil {
					t.Fatal(err)
				}
				tokens := lostBatchTokens(t, c, lose, mode.mode, 3, func(i int) error {
					if i < 0 {
						_, err := w.write(b, ctx, 1, 1)
						return err
					}
					_, err := w.write(b, ctx, uint64(10+i), i+1)
					return err
				})
				for round := range 2 {
					for i, token := range tokens {
						got, err := w.write(b, rankgenrt.WithIdempotencyKey(ctx, token), uint64(10+i), i+1)
						if err != nil || got.Laps != uint16(i+1) || got.Existed || !got.Changed {
							t.Errorf("resend %d of write %d: %+v, %v; want Laps %d, new and changed", round, i, got, err, i+1)
						}
					}
				}
				again := racing.NewBoard(c, b.Key(), racing.WithCoalescing(rankgenrt.DefaultCoalescing))
				plain := racing.NewBoard(c, b.Key())
				for i, token := range tokens {
					resend := rankgenrt.WithIdempotencyKey(ctx, token)
					_, err1 := w.write(again, resend, uint64(10+i), i+1)
					_, err2 := w.write(plain, resend, uint64(10+i), i+1)
					err3 := w.many(b, resend, uint64(10+i), i+1)
					for _, err := range []error{err1, err2, err3} {
						if !errors.Is(err, rankgenrt.ErrResendForgotten) || !errors.Is(err, rankgenrt.ErrUncertain) {
							t.Errorf("resend of write %d elsewhere: %v, want ErrResendForgotten", i, err)
						}
					}
				}
				checkLaps(t, b, map[uint64]int{1: 1, 10: 1, 11: 2, 12: 3})
				for round := range 2 {
					got, err := w.write(b, rankgenrt.WithIdempotencyKey(ctx, "own-key-"+w.name), 50, 5)
					if err != nil || got.Laps != 5 || got.Existed || !got.Changed {
						t.Fatalf("own key, round %d: %+v, %v; want Laps 5, new", round, got, err)
					}
				}
			})
		}
	}
}

// TestCoalescedEntriesCancel: a Set whose caller's context ends while it waits for its batch
// is left out of it, nothing written, and the others of the batch are stored; a Set whose
// caller stopped waiting after its batch was sent is uncertain, and its resend gets the first
// reply. On another layout's board every coalesced Set, Best and Update is refused with
// ErrLayoutMismatch, and on a board whose Coalescing is out of its bounds with ErrOutOfRange,
// nothing written.
func TestCoalescedEntriesCancel(t *testing.T) {
	c := redistest.Client(t)
	b := racing.NewBoard(c, redistest.Key(t, "cancel"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: 100}))
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	hold, first := holdFirstBatch(t, c, func() error { _, err := b.Set(cancelled, racing.Entry{Car: 1, Laps: 1}); return err })
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			callCtx := ctx
			if i == 1 {
				callCtx = cancelled
			}
			_, errs[i] = b.Set(callCtx, racing.Entry{Car: uint64(20 + i), Laps: uint16(i + 1)})
		})
	}
	time.Sleep(20 * time.Millisecond)
	cancel()
	time.Sleep(10 * time.Millisecond)
	close(hold.release)
	wg.Wait()
	var ue *rankgenrt.UncertainError
	if err := <-first; !errors.As(err, &ue) || !errors.Is(err, context.Canceled) {
		t.Fatalf("caller cancelled after its batch was sent: %v, want an UncertainError", err)
	}
	for range 2 {
		if w, err := b.Set(rankgenrt.WithIdempotencyKey(ctx, ue.Token), racing.Entry{Car: 1, Laps: 1}); err != nil || w.Existed || !w.Changed {
			t.Errorf("resend of the cancelled sent Set: %+v, %v; want the first reply (new, changed)", w, err)
		}
	}
	for i, err := range errs {
		if i == 1 && !errors.Is(err, context.Canceled) || i != 1 && err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if _, err := b.Get(ctx, 21); !errors.Is(err, rankgenrt.ErrNotFound) {
		t.Errorf("the cancelled Set was written: %v", err)
	}
	checkLaps(t, b, map[uint64]int{1: 1, 20: 1, 22: 3})

	other := season.NewBoard(c, redistest.Key(t, "other"))
	if _, err := other.AddPoints(ctx, "p1", 5); err != nil {
		t.Fatal(err)
	}
	wrong := racing.NewBoard(c, other.Key(), racing.WithCoalescing(rankgenrt.DefaultCoalescing))
	bad := racing.NewBoard(c, redistest.Key(t, "bad"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Millisecond}))
	for _, tc := range []struct {
		board *racing.Board
		want  error
	}{{wrong, rankgenrt.ErrLayoutMismatch}, {bad, rankgenrt.ErrOutOfRange}} {
		errs := make([]error, 6)
		for i := range errs {
			wg.Go(func() {
				e := racing.Entry{Car: uint64(i), Laps: 1}
				switch i % 3 {
				case 0:
					_, errs[i] = tc.board.Set(ctx, e)
				case 1:
					_, errs[i] = tc.board.Best(ctx, e)
				default:
					_, errs[i] = tc.board.Update(ctx, e.Car, racing.AddLaps(1))
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if !errors.Is(err, tc.want) {
				t.Errorf("caller %d on %s: %v, want %v", i, tc.board.Key(), err, tc.want)
			}
		}
	}
	if n, err := c.Exists(ctx, bad.Key()).Result(); err != nil || n != 0 {
		t.Errorf("a refused Coalescing wrote the board: %d, %v", n, err)
	}
	if top, err := other.Top(ctx, 10); err != nil || len(top) != 1 {
		t.Errorf("another layout's board after refused writes: %+v, %v; want its one entry", top, err)
	}
}

// TestCoalescedTouch: single Touch calls of 16 goroutines on a weekly board made
// WithCoalescing go out in fewer calls than touches, each caller told its own entry (created
// by its first touch, found by the others); a batch of touches whose reply is lost, resent
// under each caller's token, gets the first application's reply (the entry new), applied once.
func TestCoalescedTouch(t *testing.T) {
	c, calls := redistest.Client(t), &fcallCounter{}
	c.AddHook(calls)
	week := liveSeason(t, c, weeklyAt)
	b := weekly.NewBoard(c, redistest.Key(t, "touch"), week, weekly.WithCoalescing(rankgenrt.Coalescing{Linger: 2 * time.Millisecond, MaxBatch: 8}))
	const goroutines, each = 16, 10
	var wg sync.WaitGroup
	errs := make([]error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			id := fmt.Sprint("toucher", g)
			for i := range each {
				w, err := b.Touch(ctx, id)
				if err == nil && (w.PlayerID != id || w.Existed != (i > 0)) {
					err = fmt.Errorf("touch %d told %+v", i, w)
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
	calls.fewer(t, goroutines*each, "touch")

	lose := &replyLoser{}
	c.AddHook(lose)
	b = weekly.NewBoard(c, redistest.Key(t, "touch-resend"), week, weekly.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: 100}))
	tokens := lostBatchTokens(t, c, lose, loseReply, 3, func(i int) error {
		_, err := b.Touch(ctx, fmt.Sprint("p", i))
		return err
	})
	for round := range 2 {
		for i, token := range tokens {
			w, err := b.Touch(rankgenrt.WithIdempotencyKey(ctx, token), fmt.Sprint("p", i))
			if err != nil || w.Existed || !w.Changed {
				t.Errorf("resend %d of touch %d: %+v, %v; want the first reply, a new entry", round, i, w, err)
			}
		}
	}
}
