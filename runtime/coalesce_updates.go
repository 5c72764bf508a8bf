package runtime

import (
	"context"
	"strconv"
	"sync"
)

// Coalescing inside a generated board (its WithCoalescing option): every single write of the
// board that has a batch form goes through a Coalescer of its own function: a single field
// update (AddPoints, SetWins, …), whose batches are calls of the function's batch form (see
// BatchSuffix), and a single Set, Best, Insert, Update (a change list) or Touch, whose function
// is its own batch form (it takes any number of entries, lists or ids after one head:
// Core.WriteOne). The board's batch methods, its other writes and its reads are sent as they
// are.

// updateItem is how many of a single field update's arguments are its update (the id, the
// value); the ones before it are the call's head, the same for every update of a board.
const updateItem = 2

// UpdateCoalescer combines the single writes of one board's concurrent callers into calls of
// their batch forms, one Coalescer per function. A generated Board makes one for
// WithCoalescing; it is safe for concurrent use.
type UpdateCoalescer struct {
	cfg  Coalescing
	err  error // cfg out of its bounds: every write is refused with it
	send func(ctx context.Context, f *Function, args []any) (any, error)

	mu     sync.Mutex
	queues map[*Function]*updateQueue
}

// updateQueue coalesces the single writes of one function whose head is head and whose own
// arguments are width wide.
type updateQueue struct {
	head  []any
	width int
	c     *Coalescer[[]any, []any]
}

// NewUpdateCoalescer returns the coalescer of a board whose writes send runs (the board's own
// write: token, exactly once, replicas; it calls Write first, which leaves the batch forms to
// it). A Coalescing outside its bounds has every write
// refused with an error matching ErrOutOfRange, as NewCoalescer would return.
func NewUpdateCoalescer(cfg Coalescing, send func(ctx context.Context, f *Function, args []any) (any, error)) *UpdateCoalescer {
	return &UpdateCoalescer{cfg: cfg, err: cfg.check(), send: send, queues: map[*Function]*updateQueue{}}
}

// Write coalesces the write of f with args when f is a single field update: it joins a batch
// with the same update's other callers and returns its own share of the batch's reply (the
// reply f itself gives), coalesced true, and Coalescer.Do's errors. Any other write is left to
// the caller (coalesced false): a batch form (or a function without one), an update under an idempotency key no Coalescer
// handed out (a write of the caller's own), one whose head differs from the first update's (a
// client stamp's clock: combining them would change a stamp), and every write of a nil
// UpdateCoalescer (a board without WithCoalescing).
func (u *UpdateCoalescer) Write(ctx context.Context, f *Function, args []any) (reply any, coalesced bool, err error) {
	if u == nil {
		return nil, false, nil
	}
	if u.err != nil {
		return nil, true, u.err
	}
	many := f.batchForm()
	if many == nil {
		return nil, false, nil
	}
	return u.write(ctx, f, many, args, updateItem)
}

// WriteOne coalesces the single write of f, a function that is its own batch form (set, best,
// insert, changes, touch), whose own arguments are the last width of args: it joins a batch
// with f's other single writes, as Write does with a field update's, and returns its own
// share of the batch's reply (the reply f gives a call of it alone). It is left to the caller
// as Write says; a Coalescing out of its bounds refuses every write, as there.
func (u *UpdateCoalescer) WriteOne(ctx context.Context, f *Function, args []any, width int) (reply any, coalesced bool, err error) {
	if u == nil {
		return nil, false, nil
	}
	return u.write(ctx, f, f, args, width)
}

// write coalesces the single write of f with args, whose last width are its own, into calls of
// many.
func (u *UpdateCoalescer) write(ctx context.Context, f, many *Function, args []any, width int) (reply any, coalesced bool, err error) {
	if u.err != nil {
		return nil, true, u.err
	}
	if width < 1 || len(args) < width {
		return nil, false, nil
	}
	q := u.queue(f, many, args, width)
	split := len(args) - width
	if q.width != width || !sameArgs(q.head, args[:split]) {
		return nil, false, nil
	}
	if key, ok := IdempotencyKey(ctx); ok {
		if _, _, resend := parseItemToken(key); !resend {
			return nil, false, nil
		}
	}
	v, err := q.c.Do(ctx, args[split:])
	if err != nil {
		return nil, true, err
	}
	return v, true, nil
}

// queue is f's queue, made on f's first write, whose head and width it keeps.
func (u *UpdateCoalescer) queue(f, many *Function, args []any, width int) *updateQueue {
	u.mu.Lock()
	defer u.mu.Unlock()
	if q := u.queues[f]; q != nil {
		return q
	}
	head := append([]any{}, args[:len(args)-width]...)
	flush := func(ctx context.Context, batch [][]any) ([][]any, error) {
		call := append(make([]any, 0, len(head)+width*len(batch)), head...)
		for _, item := range batch {
			call = append(call, item...)
		}
		v, err := u.send(ctx, many, call)
		if err != nil {
			return nil, err
		}
		return splitReply(v, len(batch))
	}
	c, _ := NewCoalescer(flush, u.cfg) // cfg was checked by NewUpdateCoalescer
	// A batch is one script call, which writes nothing when refused: a batch refused for one
	// write's entry is sent again write by write, each through the single form f (so that a
	// resend under its token, through the board's own method, is the same operation).
	c.alone = func(ctx context.Context, item []any) ([]any, error) {
		v, err := u.send(ctx, f, append(append(make([]any, 0, len(head)+width), head...), item...))
		if err != nil {
			return nil, err
		}
		values, ok := v.([]any)
		if !ok {
			return nil, badReply("write", "an array", v)
		}
		return values, nil
	}
	q := &updateQueue{head: head, width: width, c: c}
	u.queues[f] = q
	return q
}

// splitReply cuts a batch form's reply v into the n single replies it holds, in order.
func splitReply(v any, n int) ([][]any, error) {
	values, ok := v.([]any)
	if !ok || len(values)%n != 0 {
		return nil, badReply("coalesced batch", "a multiple of "+strconv.Itoa(n)+" values", v)
	}
	width := len(values) / n
	out := make([][]any, n)
	for i := range out {
		out[i] = values[i*width : (i+1)*width : (i+1)*width]
	}
	return out, nil
}

// sameArgs reports whether two heads of script arguments are equal (the generated heads hold
// strings and integers only).
func sameArgs(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
