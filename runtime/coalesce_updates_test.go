package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// oneFormServer is a function that is its own batch form, as the set function is: a call is
// a head (two arguments) then two arguments per write, and it replies one value per write, the
// write's first argument; a call of several writes one of which is "bad" is refused whole with
// ErrBadScore, as a script refuses a batch before writing anything.
type oneFormServer struct {
	mu    sync.Mutex
	calls [][]any
	gate  chan struct{} // the first call waits for it to close
}

func (s *oneFormServer) send(ctx context.Context, f *Function, args []any) (any, error) {
	s.mu.Lock()
	s.calls = append(s.calls, append([]any{}, args...))
	first := len(s.calls) == 1
	s.mu.Unlock()
	if first {
		<-s.gate
	}
	var out []any
	for i := 2; i < len(args); i += 2 {
		if args[i] == "bad" {
			return nil, &ScriptError{Code: "BAD_SCORE", Detail: "0.5 is not a score of layout x", kind: ErrBadScore}
		}
		out = append(out, args[i])
	}
	return out, nil
}

// TestWriteOneCoalesces: single writes of a function that is its own batch form (Set's, an
// Update's) join one call of it, head once and each write's arguments after it; each caller
// gets its own share of the reply. A batch refused for one write's entry is sent again write
// by write, and that write's caller alone gets the refusal. A write whose head differs from
// the first's is left to its caller, as is one under a key of the caller's own.
func TestWriteOneCoalesces(t *testing.T) {
	s := &oneFormServer{gate: make(chan struct{})}
	u := NewUpdateCoalescer(Coalescing{Linger: time.Hour, MaxBatch: 3}, s.send)
	f := NewLibrary("#!lua name=t\n").Function(OpSet)
	write := func(ctx context.Context, id string) (any, bool, error) {
		return u.WriteOne(ctx, f, []any{"head", 1, id, "x"}, 2)
	}
	first := make(chan error, 1)
	go func() { _, _, err := write(context.Background(), "first"); first <- err }()
	for {
		s.mu.Lock()
		n := len(s.calls)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// Held behind the first call, three writes fill a batch (MaxBatch) and go as one call;
	// "bad" refuses it, and each goes again on its own.
	ids := []string{"a", "bad", "c"}
	replies, errs := make([]any, len(ids)), make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			var coalesced bool
			replies[i], coalesced, errs[i] = write(context.Background(), id)
			if !coalesced {
				errs[i] = fmt.Errorf("write %s left to its caller", id)
			}
		})
	}
	wg.Wait()
	close(s.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		switch {
		case id == "bad" && !errors.Is(errs[i], ErrBadScore):
			t.Errorf("write %s: %v, want ErrBadScore", id, errs[i])
		case id != "bad" && (errs[i] != nil || !slices.Equal(replies[i].([]any), []any{id})):
			t.Errorf("write %s: %v, %v; want its own reply", id, replies[i], errs[i])
		}
	}
	s.mu.Lock()
	calls := s.calls
	s.mu.Unlock()
	if len(calls) != 5 || len(calls[1]) != 2+2*len(ids) || !slices.Equal(calls[1][:2], []any{"head", 1}) {
		t.Fatalf("calls %v; want the first, the batch of three under one head, then each alone", calls)
	}
	for _, c := range calls[2:] {
		if len(c) != 4 {
			t.Errorf("call %v after the refused batch; want one write alone", c)
		}
	}
	// Another head (a client clock that moved), and a key of the caller's own: not coalesced.
	if _, coalesced, _ := u.WriteOne(context.Background(), f, []any{"head", 2, "d", "x"}, 2); coalesced {
		t.Error("a write with another head was coalesced")
	}
	if _, coalesced, _ := write(WithIdempotencyKey(context.Background(), "own-key"), "e"); coalesced {
		t.Error("a write under a key of the caller's own was coalesced")
	}
	// A board without WithCoalescing has no UpdateCoalescer: everything is left to the caller.
	var none *UpdateCoalescer
	if _, coalesced, _ := none.WriteOne(context.Background(), f, []any{"head", 1, "f", "x"}, 2); coalesced {
		t.Error("a nil UpdateCoalescer coalesced a write")
	}
}
