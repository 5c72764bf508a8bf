package boardtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/quiz"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// outcome is what one single update told its caller: the result, and the error as text (the
// errors compared are the typed errors of the same inputs, so their text is the same).
type outcome struct {
	Result any
	Err    string
}

func outcomeOf(w any, err error) outcome {
	if err != nil {
		return outcome{Err: err.Error()}
	}
	return outcome{Result: w}
}

// singleUpdate is one random single field update of an example board: call runs it on the
// board given (0: coalesced, 1: not).
type singleUpdate func(ctx context.Context, board int) outcome

// TestCoalescedBoardDifferential: 16 goroutines make random single field updates (overflows,
// out-of-range values and ids updated twice in a row among them) on a board made
// WithCoalescing; each caller's every result and error equals what the same update sequence
// gets from a board without it, and both boards end equal. Each goroutine updates ids of its
// own, so its results do not depend on how the goroutines interleave. Racing has bare ids
// (a reply value per update), quiz a member prefix and an index (four).
func TestCoalescedBoardDifferential(t *testing.T) {
	cfg := rankgenrt.Coalescing{Linger: 2 * time.Millisecond, MaxBatch: 8}
	t.Run("racing", func(t *testing.T) {
		c, calls := redistest.Client(t), &fcallCounter{}
		c.AddHook(calls)
		boards := [2]*racing.Board{
			racing.NewBoard(c, redistest.Key(t, "coalesced"), racing.WithCoalescing(cfg)),
			racing.NewBoard(redistest.Client(t), redistest.Key(t, "plain")),
		}
		coalescedDifferential(t, func(rng *rand.Rand, id uint64) singleUpdate {
			delta, v := rng.Int64N(900)-300, uint32(rng.Int64N(1_200_000_000))
			switch rng.IntN(5) {
			case 0:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].AddLaps(ctx, id, delta)) }
			case 1:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].SetLaps(ctx, id, uint16(v%1100))) }
			case 2:
				return func(ctx context.Context, i int) outcome {
					return outcomeOf(boards[i].AddRaceTime(ctx, id, int64(v)-600_000_000))
				}
			case 3:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].MinRaceTime(ctx, id, v)) }
			}
			return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].SetRaceTime(ctx, id, v)) }
		}, func() (any, any) { return topOf(t, boards[0].Top), topOf(t, boards[1].Top) })
		calls.combined(t)
	})
	t.Run("quiz", func(t *testing.T) {
		c, calls := redistest.Client(t), &fcallCounter{}
		c.AddHook(calls)
		boards := [2]*quiz.Board{
			quiz.NewBoard(c, redistest.Key(t, "coalesced"), quiz.WithCoalescing(cfg)),
			quiz.NewBoard(redistest.Client(t), redistest.Key(t, "plain")),
		}
		coalescedDifferential(t, func(rng *rand.Rand, id uint64) singleUpdate {
			delta, v := rng.Int64N(300)-100, uint32(rng.Int64N(20_000_000))
			switch rng.IntN(4) {
			case 0:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].AddCorrect(ctx, id, delta)) }
			case 1:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].SetCorrect(ctx, id, uint8(v))) }
			case 2:
				return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].MinMillis(ctx, id, v)) }
			}
			return func(ctx context.Context, i int) outcome { return outcomeOf(boards[i].SetMillis(ctx, id, v)) }
		}, func() (any, any) { return topOf(t, boards[0].Top), topOf(t, boards[1].Top) })
		calls.combined(t)
	})
}

// fcallCounter counts the FCALLs of a client: all, and those of batch forms; and, by
// function, the fewest and the most arguments a call of it had.
type fcallCounter struct {
	mu          sync.Mutex
	calls, many int
	args        map[string][2]int
}

func (h *fcallCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *fcallCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *fcallCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "fcall" {
			h.mu.Lock()
			h.calls++
			name, _ := cmd.Args()[1].(string)
			if strings.HasSuffix(name, rankgenrt.BatchSuffix) {
				h.many++
			}
			if h.args == nil {
				h.args = map[string][2]int{}
			}
			n, seen := len(cmd.Args()), h.args[name]
			if seen[0] == 0 || n < seen[0] {
				seen[0] = n
			}
			seen[1] = max(seen[1], n)
			h.args[name] = seen
			h.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

// combined fails t unless the single updates went out as batch forms, fewer calls than the
// updates sent (coalescedDifferential's 16 × 60).
func (h *fcallCounter) combined(t *testing.T) {
	t.Helper()
	if h.many == 0 || h.calls >= 16*60 {
		t.Errorf("%d FCALLs, %d of batch forms, for %d updates: nothing was combined", h.calls, h.many, 16*60)
	}
	t.Logf("%d updates in %d FCALLs (%d of batch forms)", 16*60, h.calls, h.many)
}

// topOf is a board's every entry, best first.
func topOf[R any](t *testing.T, top func(context.Context, int64) ([]R, error)) []R {
	t.Helper()
	all, err := top(ctx, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// coalescedDifferential runs the updates that random makes from 16 goroutines on the
// coalesced board, then the same sequences on the plain one, and compares every outcome and
// the two boards (ends gives their entries).
func coalescedDifferential(t *testing.T, random func(rng *rand.Rand, id uint64) singleUpdate, ends func() (any, any)) {
	const goroutines, each, ids = 16, 60, 3
	seqs := make([][]singleUpdate, goroutines)
	for g := range seqs {
		rng := rand.New(rand.NewPCG(uint64(g), 23))
		for range each {
			seqs[g] = append(seqs[g], random(rng, uint64(g*ids+rng.IntN(ids)+1)))
		}
	}
	got := make([][]outcome, goroutines)
	var wg sync.WaitGroup
	for g := range seqs {
		wg.Go(func() {
			for _, u := range seqs[g] {
				got[g] = append(got[g], u(ctx, 0))
			}
		})
	}
	wg.Wait()
	failed := 0
	for g, seq := range seqs {
		for i, u := range seq {
			if want := u(ctx, 1); !reflect.DeepEqual(got[g][i], want) && failed < 5 {
				failed++
				t.Errorf("goroutine %d, update %d: coalesced %+v, plain %+v", g, i, got[g][i], want)
			}
		}
	}
	if a, b := ends(); !reflect.DeepEqual(a, b) {
		t.Errorf("the boards differ:\ncoalesced %+v\nplain     %+v", a, b)
	}
	if t.Failed() {
		return
	}
	errs := 0
	for _, outs := range got {
		for _, o := range outs {
			if o.Err != "" {
				errs++
			}
		}
	}
	if errs == 0 || errs == goroutines*each {
		t.Fatalf("%d of %d updates failed: the sequences test too little", errs, goroutines*each)
	}
}

// TestCoalescedBoardResendOnce: on a board made WithCoalescing, a batch of single updates
// whose reply is lost (after the server applied it, or before it reached it) leaves each
// caller an *UncertainError naming its place in the batch; resent through the board's own
// method under that token, twice, each caller gets its own result and every update is applied
// exactly once.
func TestCoalescedBoardResendOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode int32
	}{{"applied", loseReply}, {"never applied", loseRequest}} {
		t.Run(tc.name, func(t *testing.T) {
			c := redistest.Client(t)
			lose := &replyLoser{}
			c.AddHook(lose)
			// An hour's linger: the batch below goes when the one held on its way is answered.
			b := racing.NewBoard(c, redistest.Key(t, "resend"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: 100}))
			if err := b.Load(ctx); err != nil {
				t.Fatal(err)
			}
			tokens := lostBatchTokens(t, c, lose, tc.mode, 3, func(i int) error {
				if i < 0 {
					_, err := b.AddLaps(ctx, 1, 1)
					return err
				}
				_, err := b.AddLaps(ctx, uint64(10+i), int64(i+1))
				return err
			})
			for round := range 2 {
				for i, token := range tokens {
					w, err := b.AddLaps(rankgenrt.WithIdempotencyKey(ctx, token), uint64(10+i), int64(i+1))
					if err != nil || w.Laps != uint16(i+1) {
						t.Errorf("resend %d of update %d: %+v, %v; want Laps %d", round, i, w, err, i+1)
					}
				}
			}
			for i := range tokens {
				if e, err := b.Get(ctx, uint64(10+i)); err != nil || e.Laps != uint16(i+1) {
					t.Errorf("car %d: %+v, %v; want Laps %d, applied once", 10+i, e, err, i+1)
				}
			}
			// The same tokens through a board made anew, coalescing or not, or through
			// AddLapsMany: refused, nothing applied again (only the Coalescer that sent a batch
			// can resend it).
			again := racing.NewBoard(c, b.Key(), racing.WithCoalescing(rankgenrt.DefaultCoalescing))
			plain := racing.NewBoard(c, b.Key())
			for i, token := range tokens {
				resend := rankgenrt.WithIdempotencyKey(ctx, token)
				update := racing.Update[int64]{Car: uint64(10 + i), Value: int64(i + 1)}
				_, err1 := again.AddLaps(resend, update.Car, update.Value)
				_, err2 := plain.AddLaps(resend, update.Car, update.Value)
				_, err3 := plain.AddLapsMany(resend, []racing.Update[int64]{update})
				for _, err := range []error{err1, err2, err3} {
					if !errors.Is(err, rankgenrt.ErrResendForgotten) || !errors.Is(err, rankgenrt.ErrUncertain) {
						t.Errorf("resend of update %d elsewhere: %v, want ErrResendForgotten", i, err)
					}
				}
			}
			for i := range tokens {
				if e, err := b.Get(ctx, uint64(10+i)); err != nil || e.Laps != uint16(i+1) {
					t.Errorf("car %d after resends elsewhere: %+v, %v; want Laps %d", 10+i, e, err, i+1)
				}
			}
			// A key of the caller's own is a write of its own, sent alone under it: once.
			for range 2 {
				if w, err := b.AddLaps(rankgenrt.WithIdempotencyKey(ctx, "own-key-1"), 50, 5); err != nil || w.Laps != 5 {
					t.Fatalf("own key: %+v, %v; want Laps 5", w, err)
				}
			}
		})
	}
}

// lostBatchTokens holds a first write (update(-1)) on its way while updates 0..n-1 gather into
// one batch behind it, has that batch lose its reply as mode says, and returns the token of
// each update's *UncertainError.
func lostBatchTokens(t *testing.T, c redis.UniversalClient, lose *replyLoser, mode int32, n int, update func(i int) error) []string {
	t.Helper()
	hold, first := holdFirstBatch(t, c, func() error { return update(-1) })
	tokens := make([]string, n)
	var wg sync.WaitGroup
	for i := range tokens {
		wg.Go(func() {
			var ue *rankgenrt.UncertainError
			if err := update(i); !errors.As(err, &ue) {
				t.Errorf("update %d: %v, want an UncertainError", i, err)
				return
			}
			tokens[i] = ue.Token
		})
	}
	time.Sleep(20 * time.Millisecond)
	lose.mode.Store(mode) // the gathered batch loses its reply
	close(hold.release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	return tokens
}

// holdFirstBatch starts write in a goroutine and returns once its FCALL is held on its way
// (until hold.release is closed); first gets write's error.
func holdFirstBatch(t *testing.T, c redis.UniversalClient, write func() error) (*holdingHook, chan error) {
	t.Helper()
	hold := &holdingHook{release: make(chan struct{})}
	c.AddHook(hold)
	hold.armed.Store(true)
	first := make(chan error, 1)
	go func() { first <- write() }()
	for !hold.holding.Load() {
		time.Sleep(time.Millisecond)
	}
	return hold, first
}

// TestCoalescedBoardCancel: a caller whose context ends while its update waits for its batch
// gets the context's error, and its update is not written; the other callers of the same
// batch get their results. One whose context ends after its batch was sent gets an
// *UncertainError whose resend is applied once. A board's errors stay typed when coalesced: a board of another
// layout refuses each caller with ErrLayoutMismatch, a Coalescing out of its bounds every
// write with ErrOutOfRange, an overflow its own update with ErrOverflow.
func TestCoalescedBoardCancel(t *testing.T) {
	c := redistest.Client(t)
	b := racing.NewBoard(c, redistest.Key(t, "cancel"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Hour, MaxBatch: 100}))
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	hold, first := holdFirstBatch(t, c, func() error { _, err := b.AddLaps(cancelled, 1, 1); return err })
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			callCtx, delta := ctx, int64(i+1)
			if i == 1 {
				callCtx = cancelled
			}
			if i == 2 {
				delta = 1000 // beyond Laps's 999
			}
			w, err := b.AddLaps(callCtx, uint64(20+i), delta)
			if err == nil && w.Laps != uint16(delta) {
				err = fmt.Errorf("told Laps %d, want %d", w.Laps, delta)
			}
			errs[i] = err
		})
	}
	time.Sleep(20 * time.Millisecond)
	cancel()
	time.Sleep(10 * time.Millisecond)
	close(hold.release)
	wg.Wait()
	// The first caller stopped waiting after its batch was sent: whether it was applied is
	// unknown to it, and a resend under its token finds the batch and is applied once.
	var ue *rankgenrt.UncertainError
	if err := <-first; !errors.As(err, &ue) || !errors.Is(err, context.Canceled) {
		t.Fatalf("caller cancelled after its batch was sent: %v, want an UncertainError", err)
	}
	for range 2 {
		if w, err := b.AddLaps(rankgenrt.WithIdempotencyKey(ctx, ue.Token), 1, 1); err != nil || w.Laps != 1 {
			t.Errorf("resend of the cancelled sent update: %+v, %v; want Laps 1", w, err)
		}
	}
	for i, err := range errs {
		switch {
		case i == 1 && !errors.Is(err, context.Canceled):
			t.Errorf("cancelled caller: %v, want context.Canceled", err)
		case i == 2 && !errors.Is(err, rankgenrt.ErrOverflow):
			t.Errorf("overflowing caller: %v, want ErrOverflow", err)
		case i != 1 && i != 2 && err != nil:
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if _, err := b.Get(ctx, 21); !errors.Is(err, rankgenrt.ErrNotFound) {
		t.Errorf("the cancelled update was written: %v", err)
	}

	// Another layout's board: every coalesced caller is refused, nothing written.
	other := season.NewBoard(c, redistest.Key(t, "other"))
	if _, err := other.AddPoints(ctx, "p1", 5); err != nil {
		t.Fatal(err)
	}
	wrong := racing.NewBoard(c, other.Key(), racing.WithCoalescing(rankgenrt.DefaultCoalescing))
	for i := range errs {
		wg.Go(func() { _, errs[i] = wrong.AddLaps(ctx, uint64(i), 1) })
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Errorf("caller %d on another layout's board: %v, want ErrLayoutMismatch", i, err)
		}
	}
	bad := racing.NewBoard(c, redistest.Key(t, "bad"), racing.WithCoalescing(rankgenrt.Coalescing{Linger: time.Millisecond}))
	if _, err := bad.AddLaps(ctx, 1, 1); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Errorf("MaxBatch 0: %v, want ErrOutOfRange", err)
	}
	if n, err := c.Exists(ctx, bad.Key()).Result(); err != nil || n != 0 {
		t.Errorf("a refused Coalescing wrote the board: %d, %v", n, err)
	}
}
