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
	for _, cfg := range []Coalescing{{Linger: 0, MaxBatch: 10}, {Linger: time.Millisecond, MaxBatch: 0}} {
		if _, err := NewCoalescer(g.flush, cfg); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("NewCoalescer(%+v) = %v, want ErrOutOfRange", cfg, err)
		}
	}
}

// TestCoalescerWaitsForReturningCallers: once a batch of three is answered and none is on its
// way, the next batch waits for three writes (the callers coming back) and goes as soon as it
// has them, not at the linger; fewer go when the linger ends.
func TestCoalescerWaitsForReturningCallers(t *testing.T) {
	const linger = 50 * time.Millisecond
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
