package runtime

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedFlush is a batch write for the Coalescer's own tests (no server is involved in how
// writes are grouped): it records every batch with its token, waits for the gate when one is
// set, and answers each write x with x*10, or with err when set.
type gatedFlush struct {
	mu      sync.Mutex
	batches [][]int
	tokens  []string
	gate    chan struct{} // when not nil, every call waits for a receive
	sentAt  []time.Time
	err     error
}

func (g *gatedFlush) flush(ctx context.Context, batch []int) ([]int, error) {
	token, _ := IdempotencyKey(ctx)
	g.mu.Lock()
	g.batches = append(g.batches, append([]int{}, batch...))
	g.tokens = append(g.tokens, token)
	g.sentAt = append(g.sentAt, time.Now())
	gate, err := g.gate, g.err
	g.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if err != nil {
		return nil, err
	}
	out := make([]int, len(batch))
	for i, x := range batch {
		out[i] = x * 10
	}
	return out, nil
}

func (g *gatedFlush) sent() [][]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]int{}, g.batches...)
}

// waitSent waits until n batches were sent.
func (g *gatedFlush) waitSent(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); len(g.sent()) < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d batches sent, want %d: %v", len(g.sent()), n, g.sent())
		}
	}
}

func newTestCoalescer(t *testing.T, g *gatedFlush, cfg Coalescing) *Coalescer[int, int] {
	t.Helper()
	c, err := NewCoalescer(g.flush, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type outcome struct {
	x, got int
	err    error
}

// doAll calls Do for every x at once and returns the outcomes once all returned.
func doAll(ctx context.Context, c *Coalescer[int, int], xs ...int) chan outcome {
	out := make(chan outcome, len(xs))
	for _, x := range xs {
		go func() {
			got, err := c.Do(ctx, x)
			out <- outcome{x, got, err}
		}()
	}
	return out
}

// TestCoalescerGroupsWhileBusy: a lone write goes at once; the writes made while it is on
// its way wait for it (not for the linger, an hour here) and go together in the next call,
// and every caller gets its own item's result.
func TestCoalescerGroupsWhileBusy(t *testing.T) {
	g := &gatedFlush{gate: make(chan struct{})}
	c := newTestCoalescer(t, g, Coalescing{Linger: time.Hour, MaxBatch: 100})
	first := doAll(context.Background(), c, 1)
	g.waitSent(t, 1)
	rest := doAll(context.Background(), c, 2, 3, 4, 5, 6)
	time.Sleep(20 * time.Millisecond) // the five join the open batch
	g.gate <- struct{}{}              // the first call answers; the open batch goes
	if o := <-first; o.err != nil || o.got != 10 {
		t.Fatalf("first write: %+v, want 10", o)
	}
	g.waitSent(t, 2)
	g.gate <- struct{}{}
	for range 5 {
		o := <-rest
		if o.err != nil || o.got != o.x*10 {
			t.Errorf("write %d: got %d, %v; want %d", o.x, o.got, o.err, o.x*10)
		}
	}
	if b := g.sent(); len(b) != 2 || len(b[1]) != 5 {
		t.Errorf("batches %v, want [1] then the five others", b)
	}
	if g.tokens[0] == g.tokens[1] || g.tokens[0] == "" {
		t.Errorf("batch tokens %q: want one fresh token per batch", g.tokens)
	}
}

// TestCoalescerInFlight: with InFlight 2, a write goes at once while one batch is on its way
// (two on their way keep the server busy while the first one's callers come back); the writes
// made while two are on their way wait for an answer (the linger is an hour) and go together.
func TestCoalescerInFlight(t *testing.T) {
	g := &gatedFlush{gate: make(chan struct{})}
	c := newTestCoalescer(t, g, Coalescing{Linger: time.Hour, MaxBatch: 100, InFlight: 2})
	first := doAll(context.Background(), c, 1)
	g.waitSent(t, 1)
	second := doAll(context.Background(), c, 2)
	g.waitSent(t, 2) // beside the first, not after it
	rest := doAll(context.Background(), c, 3, 4, 5)
	time.Sleep(20 * time.Millisecond) // the three join the open batch
	if n := len(g.sent()); n != 2 {
		t.Fatalf("batches %v while two were on their way; want the three to wait", g.sent())
	}
	g.gate <- struct{}{} // one answers: the open batch goes
	g.waitSent(t, 3)
	close(g.gate)
	for _, ch := range []<-chan outcome{first, second} {
		if o := <-ch; o.err != nil || o.got != o.x*10 {
			t.Errorf("write %d: got %d, %v; want %d", o.x, o.got, o.err, o.x*10)
		}
	}
	for range 3 {
		if o := <-rest; o.err != nil || o.got != o.x*10 {
			t.Errorf("write %d: got %d, %v; want %d", o.x, o.got, o.err, o.x*10)
		}
	}
	if b := g.sent(); len(b) != 3 || len(b[2]) != 3 {
		t.Errorf("batches %v, want [1], [2], then the three others", b)
	}
}

// TestCoalescerMaxBatch: a full batch goes at once, without waiting for the linger or for
// the batch on its way.
func TestCoalescerMaxBatch(t *testing.T) {
	g := &gatedFlush{gate: make(chan struct{})}
	c := newTestCoalescer(t, g, Coalescing{Linger: time.Hour, MaxBatch: 3})
	defer close(g.gate)
	doAll(context.Background(), c, 1)
	g.waitSent(t, 1)
	doAll(context.Background(), c, 2, 3, 4, 5, 6, 7)
	g.waitSent(t, 3)
	for _, b := range g.sent()[1:] {
		if len(b) != 3 {
			t.Errorf("batches %v: want two full batches of 3 after the first", g.sent())
		}
	}
}

// TestCoalescerLinger: while a batch is on its way (never answered here), a write waits at
// most the linger before its own batch goes.
func TestCoalescerLinger(t *testing.T) {
	const linger = 30 * time.Millisecond
	g := &gatedFlush{gate: make(chan struct{})}
	c := newTestCoalescer(t, g, Coalescing{Linger: linger, MaxBatch: 100})
	defer close(g.gate)
	doAll(context.Background(), c, 1)
	g.waitSent(t, 1)
	start := time.Now()
	doAll(context.Background(), c, 2)
	g.waitSent(t, 2)
	if waited := g.sentAt[1].Sub(start); waited < linger || waited > linger+time.Second {
		t.Errorf("the second batch went after %v, want the linger %v (and not much more)", waited, linger)
	}
}

// TestCoalescerCancel: a caller whose context ends before its batch goes is left out of it
// and gets the context's error (nothing written); one whose context ends after its batch went
// gets an *UncertainError naming its place in the batch.
func TestCoalescerCancel(t *testing.T) {
	g := &gatedFlush{gate: make(chan struct{})}
	c := newTestCoalescer(t, g, Coalescing{Linger: time.Hour, MaxBatch: 100})
	doAll(context.Background(), c, 1)
	g.waitSent(t, 1)
	early, cancelEarly := context.WithCancel(context.Background())
	left := doAll(early, c, 2)
	stays := doAll(context.Background(), c, 3)
	time.Sleep(20 * time.Millisecond)
	cancelEarly()
	if o := <-left; !errors.Is(o.err, context.Canceled) || errors.Is(o.err, ErrUncertain) {
		t.Fatalf("write cancelled before its batch went: %v, want context.Canceled alone", o.err)
	}
	late, cancelLate := context.WithCancel(context.Background())
	g.gate <- struct{}{} // the first batch answers; the open one ([3]) goes
	g.waitSent(t, 2)
	if b := g.sent()[1]; len(b) != 1 || b[0] != 3 {
		t.Fatalf("second batch %v, want [3]: the cancelled write is not sent", b)
	}
	// A write joining while [3] is on its way, cancelled after its own batch went.
	lateOut := doAll(late, c, 4)
	g.gate <- struct{}{}
	g.waitSent(t, 3)
	cancelLate()
	o := <-lateOut
	var ue *UncertainError
	if !errors.As(o.err, &ue) || !errors.Is(o.err, context.Canceled) || !strings.HasSuffix(ue.Token, "#0") {
		t.Fatalf("write cancelled after its batch went: %v, want an UncertainError naming item 0", o.err)
	}
	g.gate <- struct{}{}
	if o := <-stays; o.err != nil || o.got != 30 {
		t.Errorf("write kept: %+v", o)
	}
}

// TestCoalescerErrors: an error of the batch call reaches every caller of that batch; a
// lost reply is an *UncertainError per caller, naming its own place, and a resend under that
// token resends the whole batch under the batch's token and returns that caller's item. A
// token of this Coalescer it no longer remembers is refused, never sent under a new token;
// any other key is a write of its own, sent alone under it.
func TestCoalescerErrors(t *testing.T) {
	refused := errors.New("refused")
	g := &gatedFlush{err: refused}
	c := newTestCoalescer(t, g, Coalescing{Linger: time.Millisecond, MaxBatch: 100})
	if _, err := c.Do(context.Background(), 1); !errors.Is(err, refused) {
		t.Fatalf("Do = %v, want the batch's error", err)
	}

	g.err = &UncertainError{Token: "whatever", Err: &net.OpError{Op: "read", Err: errors.New("reset")}}
	g.gate = make(chan struct{})
	first := doAll(context.Background(), c, 1)
	g.waitSent(t, 2)
	rest := doAll(context.Background(), c, 7, 8)
	time.Sleep(20 * time.Millisecond)
	close(g.gate)
	<-first
	tokens := map[int]string{}
	for range 2 {
		o := <-rest
		var ue *UncertainError
		if !errors.As(o.err, &ue) {
			t.Fatalf("write %d: %v, want an UncertainError", o.x, o.err)
		}
		tokens[o.x] = ue.Token
	}
	batch := g.tokens[2]
	if tokens[7] == tokens[8] || !strings.HasPrefix(tokens[7], batch+"#") || !strings.HasPrefix(tokens[8], batch+"#") {
		t.Fatalf("tokens %v: want the batch's token %q and each caller's place", tokens, batch)
	}

	g.err = nil
	for _, x := range []int{7, 8} {
		got, err := c.Do(WithIdempotencyKey(context.Background(), tokens[x]), x)
		if err != nil || got != x*10 {
			t.Errorf("resend of %d: %d, %v; want %d", x, got, err, x*10)
		}
		last := len(g.tokens) - 1
		if g.tokens[last] != batch || len(g.batches[last]) != 2 {
			t.Errorf("resend of %d sent %v under %q, want the whole batch under %q", x, g.batches[last], g.tokens[last], batch)
		}
	}

	n := len(g.sent())
	if _, err := c.Do(WithIdempotencyKey(context.Background(), c.tokens.prefix+"zz#0"), 5); !errors.Is(err, ErrResendForgotten) || !errors.Is(err, ErrUncertain) {
		t.Errorf("resend of a forgotten batch: %v, want ErrResendForgotten", err)
	}
	if len(g.sent()) != n {
		t.Errorf("a forgotten batch's resend was sent")
	}
	if got, err := c.Do(WithIdempotencyKey(context.Background(), "order-1"), 5); err != nil || got != 50 || g.tokens[len(g.tokens)-1] != "order-1" {
		t.Errorf("own key: %d, %v under %q; want 50 sent alone under order-1", got, err, g.tokens[len(g.tokens)-1])
	}
}

// TestCoalescingBounds: a linger under 1 µs or a batch under 1 write is refused.
func TestCoalescingBounds(t *testing.T) {
	g := &gatedFlush{}
	for _, cfg := range []Coalescing{{Linger: 0, MaxBatch: 10}, {Linger: time.Millisecond, MaxBatch: 0}, {Linger: time.Millisecond, MaxBatch: 10, InFlight: -1}} {
		if _, err := NewCoalescer(g.flush, cfg); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("NewCoalescer(%+v) = %v, want ErrOutOfRange", cfg, err)
		}
	}
}

// TestCoalescerWaitsForReturningCallers: once a batch of three is answered and none is on its
// way, the next batch waits for three writes (the callers coming back) and goes as soon as it
// has them, not at the linger; fewer go when the linger ends.
//
// The linger is long, so that no stall of a loaded machine between the steps can outlast it
// and send a write alone where the test expects it to wait.
func TestCoalescerWaitsForReturningCallers(t *testing.T) {
	const linger = 2 * time.Second
	g := &gatedFlush{gate: make(chan struct{})}
	c := newTestCoalescer(t, g, Coalescing{Linger: linger, MaxBatch: 100})
	doAll(context.Background(), c, 1)
	g.waitSent(t, 1)
	three := doAll(context.Background(), c, 2, 3, 4)
	time.Sleep(10 * time.Millisecond)
	g.gate <- struct{}{} // [1] answered: [2 3 4] goes
	g.waitSent(t, 2)
	g.gate <- struct{}{} // [2 3 4] answered
	for range 3 {
		<-three
	}
	start := time.Now()
	doAll(context.Background(), c, 5)
	time.Sleep(10 * time.Millisecond)
	if n := len(g.sent()); n != 2 {
		t.Fatalf("a write went alone (batches %v) while the last batch's callers may come back", g.sent())
	}
	doAll(context.Background(), c, 6, 7)
	g.waitSent(t, 3)
	if b := g.sent()[2]; len(b) != 3 || time.Since(start) >= linger {
		t.Errorf("batch %v after %v: want the three writes at once, before the linger", b, time.Since(start))
	}
	g.gate <- struct{}{}
	start = time.Now()
	doAll(context.Background(), c, 8)
	g.waitSent(t, 4)
	if waited := g.sentAt[3].Sub(start); waited < linger-time.Millisecond {
		t.Errorf("a lone write went after %v, want the linger %v", waited, linger)
	}
	close(g.gate)
}

// entryServer stands in for a board's batch and single forms in the splitting tests: a call
// holding a write x < 0 (an entry the layout cannot have written) is refused whole with
// ErrBadScore, nothing applied, as the script refuses it; any other call applies each x once
// per token (a call under a recorded token gets the first reply) and answers x*10. Single sends
// are an operation of their own (their records apart).
type entryServer struct {
	mu      sync.Mutex
	applied map[int]int
	records map[string][]int
	calls   []entryCall
	refuse  error         // when set, every call is refused with it
	lose    bool          // the next call of several writes loses its request (nothing applied, uncertain)
	gate    chan struct{} // when not nil, every call waits for a receive
}

// entryCall is one call: its token, its writes, and whether it was a single send.
type entryCall struct {
	token  string
	xs     []int
	single bool
}

func newEntryServer() *entryServer {
	return &entryServer{applied: map[int]int{}, records: map[string][]int{}}
}

func (s *entryServer) call(ctx context.Context, xs []int, single bool) ([]int, error) {
	token, _ := IdempotencyKey(ctx)
	s.mu.Lock()
	s.calls = append(s.calls, entryCall{token, append([]int{}, xs...), single})
	gate, lose := s.gate, s.lose && len(xs) > 1
	if lose {
		s.lose = false
	}
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if lose {
		return nil, &UncertainError{Token: token, Err: &net.OpError{Op: "write", Err: errors.New("reset")}}
	}
	if s.refuse != nil {
		return nil, s.refuse
	}
	record := token
	if single {
		record = "single:" + token
	}
	if r, ok := s.records[record]; ok {
		return r, nil
	}
	out := make([]int, len(xs))
	for i, x := range xs {
		if x < 0 {
			return nil, &ScriptError{Code: "BAD_SCORE", Detail: "0.5 is not a score of layout x", kind: ErrBadScore}
		}
		out[i] = x * 10
	}
	for _, x := range xs {
		s.applied[x]++
	}
	s.records[record] = out
	return out, nil
}

func (s *entryServer) batch(ctx context.Context, xs []int) ([]int, error) {
	return s.call(ctx, xs, false)
}

func (s *entryServer) one(ctx context.Context, x int) (int, error) {
	r, err := s.call(ctx, []int{x}, true)
	if err != nil {
		return 0, err
	}
	return r[0], nil
}

// sentCalls is a copy of the calls made so far.
func (s *entryServer) sentCalls() []entryCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]entryCall{}, s.calls...)
}

// waitCalls waits until s has seen n calls.
func (s *entryServer) waitCalls(n int) {
	for len(s.sentCalls()) < n {
		time.Sleep(time.Millisecond)
	}
}

// hold holds the calls to s at a gate, and has c count a batch on its way meanwhile (as if
// one were held there), so that the writes made next gather into one batch, which goes when
// full (MaxBatch); release lets every call through.
func (s *entryServer) hold(c *Coalescer[int, int]) (release func()) {
	s.mu.Lock()
	gate := make(chan struct{})
	s.gate = gate
	s.mu.Unlock()
	c.mu.Lock()
	c.inFlight++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.inFlight--
		c.mu.Unlock()
		s.mu.Lock()
		s.gate = nil
		s.mu.Unlock()
		close(gate)
	}
}

// together sends xs through c as one batch (c's MaxBatch is len(xs)) and returns their
// outcomes.
func (s *entryServer) together(c *Coalescer[int, int], xs ...int) map[int]outcome {
	release := s.hold(c)
	n := len(s.sentCalls())
	out := doAll(context.Background(), c, xs...)
	s.waitCalls(n + 1)
	release()
	outs := map[int]outcome{}
	for range xs {
		o := <-out
		outs[o.x] = o
	}
	return outs
}

// splitting returns a Coalescer over s that can send a write on its own, as a board's
// WithCoalescing does.
func splitting(t *testing.T, s *entryServer, cfg Coalescing) *Coalescer[int, int] {
	t.Helper()
	c, err := NewCoalescer(s.batch, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.alone = s.one
	return c
}

// checkOutcomes fails unless each write x > 0 got x*10 and each x < 0 ErrBadScore, and the
// server applied each x > 0 once.
func checkOutcomes(t *testing.T, s *entryServer, outs map[int]outcome) {
	t.Helper()
	for x, o := range outs {
		switch {
		case x < 0 && (!errors.Is(o.err, ErrBadScore) || errors.Is(o.err, ErrUncertain)):
			t.Errorf("write %d: %v; want its own ErrBadScore", x, o.err)
		case x > 0 && (o.err != nil || o.got != x*10):
			t.Errorf("write %d: %d, %v; want %d", x, o.got, o.err, x*10)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for x := range outs {
		if want := map[bool]int{true: 1, false: 0}[x > 0]; s.applied[x] != want {
			t.Errorf("write %d applied %d times; want %d", x, s.applied[x], want)
		}
	}
}

// TestCoalescerSplitsEntryRefusal: a batch refused for one write's entry (ErrBadScore) is sent
// again write by write, each caller told its own result or refusal, each write applied once;
// a refusal of the board is every caller's, sent nowhere again; a Coalescer that cannot send a
// write on its own (NewCoalescer's) gives every caller the batch's error.
func TestCoalescerSplitsEntryRefusal(t *testing.T) {
	s := newEntryServer()
	c := splitting(t, s, Coalescing{Linger: time.Hour, MaxBatch: 4})
	n := len(s.sentCalls())
	checkOutcomes(t, s, s.together(c, 2, -1, 3, 4))
	calls := s.sentCalls()[n:]
	if len(calls) != 5 || len(calls[0].xs) != 4 || calls[0].single {
		t.Fatalf("calls %+v: want the batch of four, then each of its writes on its own", calls)
	}
	tokens := map[string]bool{calls[0].token: true}
	for _, call := range calls[1:] {
		if !call.single || len(call.xs) != 1 || tokens[call.token] {
			t.Errorf("call %+v after the refused batch: want a write on its own under a token of its own", call)
		}
		tokens[call.token] = true
	}

	// A refusal of the board: every caller's, nothing sent again.
	s = newEntryServer()
	c = splitting(t, s, Coalescing{Linger: time.Hour, MaxBatch: 3})
	s.refuse = &MigratingError{Wait: time.Second, Layout: "x"}
	n = len(s.sentCalls())
	for x, o := range s.together(c, 5, -6, 7) {
		if !errors.Is(o.err, ErrMigrating) || errors.Is(o.err, ErrUncertain) {
			t.Errorf("write %d under a fence: %v; want ErrMigrating", x, o.err)
		}
	}
	if calls := s.sentCalls()[n:]; len(calls) != 1 {
		t.Errorf("calls %+v: a board's refusal was sent again", calls)
	}

	// NewCoalescer's: the batch method may have applied part of a failed batch.
	s = newEntryServer()
	plain, err := NewCoalescer(s.batch, Coalescing{Linger: time.Hour, MaxBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	n = len(s.sentCalls())
	for x, o := range s.together(plain, 8, -9) {
		if !errors.Is(o.err, ErrBadScore) {
			t.Errorf("write %d of NewCoalescer's refused batch: %v; want the batch's ErrBadScore", x, o.err)
		}
	}
	if calls := s.sentCalls()[n:]; len(calls) != 1 {
		t.Errorf("calls %+v: NewCoalescer's refused batch was sent again", calls)
	}
}

// TestCoalescerSplitsOnResend: a batch that lost its request leaves each caller uncertain;
// resent through the Coalescer under their tokens (every caller twice, at once), the batch is
// refused for one write's entry and sent under its token no more: each write goes on its own,
// under one token however often it is resent, and is applied once. A caller who stopped
// waiting after its batch went, which was then refused, resends its write on its own too.
func TestCoalescerSplitsOnResend(t *testing.T) {
	s := newEntryServer()
	c := splitting(t, s, Coalescing{Linger: time.Hour, MaxBatch: 3}) // a batch goes when full

	// Lose the request of a batch of three, one write refused: resend each, twice, at once.
	s.lose = true
	tokens := map[int]string{}
	for x, o := range s.together(c, 5, -6, 7) {
		var ue *UncertainError
		if !errors.As(o.err, &ue) {
			t.Fatalf("write %d of the lost batch: %v; want an UncertainError", x, o.err)
		}
		tokens[x] = ue.Token
	}
	n := len(s.sentCalls())
	resends := make(chan outcome, 6)
	for x, token := range tokens {
		for range 2 {
			go func() {
				got, err := c.Do(WithIdempotencyKey(context.Background(), token), x)
				resends <- outcome{x, got, err}
			}()
		}
	}
	outs := map[int]outcome{}
	for range 6 {
		o := <-resends
		if prev, ok := outs[o.x]; ok && (prev.got != o.got || (prev.err == nil) != (o.err == nil)) {
			t.Errorf("write %d resent twice: %+v and %+v", o.x, prev, o)
		}
		outs[o.x] = o
	}
	checkOutcomes(t, s, outs)
	batches, own := 0, map[int]map[string]bool{}
	for _, call := range s.sentCalls()[n:] {
		if !call.single {
			batches++
			continue
		}
		if own[call.xs[0]] == nil {
			own[call.xs[0]] = map[string]bool{}
		}
		own[call.xs[0]][call.token] = true
	}
	if batches != 1 {
		t.Errorf("the lost batch was resent %d times under its token; want once, until it was refused", batches)
	}
	for x, ts := range own {
		if len(ts) != 1 {
			t.Errorf("write %d went on its own under %d tokens; want one", x, len(ts))
		}
	}

	// A caller who stops waiting once its batch went (held at the gate); the batch is then
	// refused and split.
	release := s.hold(c)
	n = len(s.sentCalls())
	late, cancel := context.WithCancel(context.Background())
	leaving := doAll(late, c, 9)
	staying := doAll(context.Background(), c, -10, 11)
	s.waitCalls(n + 1)
	cancel()
	o := <-leaving
	var ue *UncertainError
	if !errors.As(o.err, &ue) {
		t.Fatalf("write 9, cancelled after its batch went: %v; want an UncertainError", o.err)
	}
	release()
	outs = map[int]outcome{}
	for range 2 {
		o := <-staying
		outs[o.x] = o
	}
	for range 2 {
		got, err := c.Do(WithIdempotencyKey(context.Background(), ue.Token), 9)
		outs[9] = outcome{9, got, err}
		checkOutcomes(t, s, outs)
	}
}
