package runtime

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Coalescing: single writes that many goroutines make at the same time, combined into one
// batch call.
//
// A script call costs the server a fixed 30 µs or so (reading the command, running the
// function, the exactly-once token's GET and SET, writing the reply) before its
// first entry; an entry more in a batch costs a few. A Coalescer collects the writes of
// concurrent callers and sends them as one call of the batch operation (AddPointsMany for
// AddPoints, SetMany's function for Set): when the batch is full (MaxBatch), when its first
// write has waited Linger, or, when fewer than InFlight batches of its own are on their way,
// once it holds as many writes as the last batch answered (whose callers, writing in a loop,
// come back with their next writes; a lone caller waits for nothing), whichever comes first. Several batches on their
// way keep the server busy while an answered batch's callers come back. Each caller gets its own item's result
// and the call's error.
//
// One write's refusal is its caller's alone where the Coalescer can send a write on its own (a
// board's WithCoalescing, see UpdateCoalescer): a batch the server refused before writing
// anything, for a reason that may concern one of its writes rather than the board (a stored
// entry this layout cannot have written: ErrBadScore, ErrBadMember, …; see splits), is sent
// again write by write, each under a token of its own, and each caller gets its own write's
// result or refusal. A refusal of the whole board (the migration fence, another layout, a key
// of another type) is every caller's, as is any error of a Coalescer made by NewCoalescer,
// whose batch method may have applied part of a batch it failed (a ShardedBoard's).
//
// Exactly once: a batch is one write call with one token, so the server applies it once
// however often go-redis resends it. A caller whose batch ended without a reply, or who
// stopped waiting for it once it was sent, gets an *UncertainError whose Token names the batch
// and the caller's place in it ("<batch token>#<i>"; a *ReplicationError names it too);
// resending with WithIdempotencyKey(ctx, Token) through the same Coalescer resends the whole
// batch under the batch's token, which the server answers with the first reply if it was
// applied (and applies once if it was not), and returns that caller's item. A resend waits for
// the batch's first send to be answered, and resends of one batch go one at a time: once the
// batch is known refused (its token never applied), it is never sent again, and each resend
// sends its own write on its own, under the one token that write has for that.
// A batch is sent under a context of its own (the client's timeouts bound it): a caller's
// context decides only how long that caller waits, and whether a write not yet sent goes.

// Coalescing configures a Coalescer.
type Coalescing struct {
	// Linger is the longest a write waits for others to join its batch (at least 1 µs).
	Linger time.Duration
	// MaxBatch is the most writes in one call (at least 1): a full batch is sent at once.
	MaxBatch int
	// InFlight is how many batches may be on their way when a batch goes because it holds as
	// many writes as the last one answered (0 means 1): more keep the server busy while the
	// callers of an answered batch come back. A full batch, or one whose linger ended, goes
	// whatever is on its way.
	InFlight int
}

// DefaultCoalescing is a linger of 1 ms (a few loopback round trips), batches of at most 100
// writes, and up to 4 on their way.
var DefaultCoalescing = Coalescing{Linger: time.Millisecond, MaxBatch: 100, InFlight: 4}

// ErrResendForgotten: a resend named a coalesced batch this Coalescer no longer remembers
// (older than DefaultDedupWindow, or sent by another Coalescer). It is not sent: the batch
// may have been applied, and a write under a new token would apply it again.
var ErrResendForgotten = errors.New("rankgen: coalesced batch no longer remembered")

// Coalescer combines the single writes of concurrent callers into calls of a batch write
// (see Coalescing above). U is one write (an Update, an Entry), R its result; flush is the
// board's batch method (AddPointsMany), which gets the batch's token in its context. Safe for
// concurrent use; create one per board and operation and share it.
type Coalescer[U, R any] struct {
	flush func(ctx context.Context, batch []U) ([]R, error)
	// alone sends one write on its own under the context's token, nil when the Coalescer
	// cannot (NewCoalescer's): then a batch's refusal is every caller's.
	alone  func(ctx context.Context, u U) (R, error)
	cfg    Coalescing
	tokens *Tokens

	mu        sync.Mutex
	open      *coalesced[U, R]            // the batch collecting writes, nil when none
	inFlight  int                         // batches sent and not yet answered
	expect    int                         // writes the open batch waits for: as many as the last batch answered
	uncertain map[string]*coalesced[U, R] // batches that ended without a reply, by token
}

// coalesced is one batch: its writes, and once answered its results.
type coalesced[U, R any] struct {
	token string
	items []U
	left  []bool // left[i]: item i's caller stopped waiting before the batch was sent
	timer *time.Timer

	sent  []U   // the items sent, in order (those whose callers were still waiting)
	place []int // place[i]: item i's index in sent, -1 when not sent
	since time.Time
	done  chan struct{} // closed when res, err and split are set
	res   []R           // one per sent item
	err   error
	split bool // err refused the batch for one of its writes: each goes on its own

	resending sync.Mutex // held while the batch is resent under its token
	refused   bool       // a resend was refused as split says (read and set under resending)
	own       []string   // own[j]: the token sent item j goes on its own under, once it has one (under Coalescer.mu)
}

// NewCoalescer returns a Coalescer that sends batches through flush. A Coalescing outside
// its bounds is an error matching ErrOutOfRange.
func NewCoalescer[U, R any](flush func(ctx context.Context, batch []U) ([]R, error), cfg Coalescing) (*Coalescer[U, R], error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Coalescer[U, R]{flush: flush, cfg: cfg, tokens: NewTokens(), uncertain: map[string]*coalesced[U, R]{}}, nil
}

// check returns the error of a Coalescing outside its bounds.
func (cfg Coalescing) check() error {
	if cfg.Linger < time.Microsecond {
		return &RangeError{Field: "coalescing linger", Value: cfg.Linger.String(), Min: "1µs", Max: "none"}
	}
	if cfg.MaxBatch < 1 {
		return IntRangeError("coalescing batch size", int64(cfg.MaxBatch), 1, int64(^uint(0)>>1))
	}
	if cfg.InFlight < 0 {
		return IntRangeError("coalescing batches in flight", int64(cfg.InFlight), 0, int64(^uint(0)>>1))
	}
	return nil
}

// inFlight is how many batches may be on their way when one goes for holding as many writes as
// the last one answered.
func (cfg Coalescing) inFlight() int { return max(cfg.InFlight, 1) }

// Do writes u in a batch with the writes of other callers and returns its result. The error
// is the batch call's (connection, a refused layout: the same for every write of the batch;
// where the Coalescer sends a write on its own, a refusal of one write's entry is u's own, see
// splits),
// an *UncertainError naming u's place in a batch whose reply was lost, or ctx's error when
// ctx ended before u was sent (then u was not written). A context with an idempotency key
// is a resend of a write this Coalescer made uncertain (one it does not remember is refused
// with ErrResendForgotten, nothing sent), or else a write of its own under that key, sent
// alone.
func (c *Coalescer[U, R]) Do(ctx context.Context, u U) (R, error) {
	if key, ok := IdempotencyKey(ctx); ok {
		return c.resend(ctx, key, u)
	}
	c.mu.Lock()
	b := c.open
	if b == nil {
		b = &coalesced[U, R]{done: make(chan struct{})}
		c.open = b
		b.timer = time.AfterFunc(c.cfg.Linger, func() { c.sendOpen(b) })
	}
	i := len(b.items)
	b.items = append(b.items, u)
	b.left = append(b.left, false)
	if len(b.items) >= c.cfg.MaxBatch || (c.inFlight < c.cfg.inFlight() && len(b.items) >= c.expect) {
		c.sendLocked(b)
	}
	c.mu.Unlock()

	select {
	case <-b.done:
	case <-ctx.Done():
		c.mu.Lock()
		if b.place == nil { // not sent yet: leave the batch, nothing written
			b.left[i] = true
			c.mu.Unlock()
			var zero R
			return zero, ctx.Err()
		}
		c.rememberLocked(b) // sent, its reply still to come: a resend must find it
		c.mu.Unlock()
		var zero R
		return zero, &UncertainError{Token: itemToken(b.token, b.place[i]), Err: ctx.Err()}
	}
	if b.split {
		return c.sendAlone(ctx, b, b.place[i])
	}
	return b.result(i)
}

// sendAlone sends the sent item j of b on its own, under the token it has for that (made on
// its first such send, so that every send of it is one write).
func (c *Coalescer[U, R]) sendAlone(ctx context.Context, b *coalesced[U, R], j int) (R, error) {
	c.mu.Lock()
	if b.own == nil {
		b.own = make([]string, len(b.sent))
	}
	if b.own[j] == "" {
		b.own[j], _ = c.tokens.Next(context.Background()) // a fresh token cannot fail
	}
	token := b.own[j]
	c.mu.Unlock()
	return c.alone(WithIdempotencyKey(ctx, token), b.sent[j])
}

// splits reports whether a batch of n writes that failed with err is sent again write by
// write: the Coalescer can send one on its own, and the server refused the batch call, which
// then wrote nothing, for a reason that may concern one of its writes rather than the board.
// A refusal of the whole board (ErrMigrating, ErrLayoutMismatch, ErrWrongType, …), an outcome
// unknown and any other error are every caller's, as is any error of a batch of one.
func (c *Coalescer[U, R]) splits(err error, n int) bool {
	if c.alone == nil || n < 2 || err == nil || resendable(err) {
		return false
	}
	for _, entry := range entryRefusals {
		if errors.Is(err, entry) {
			return true
		}
	}
	return false
}

// entryRefusals are the refusals that may concern one write of a batch: its stored entry (a
// score, member or data this layout cannot have written), its value, its id.
var entryRefusals = []error{ErrBadScore, ErrBadMember, ErrBadData, ErrOutOfRange, ErrOverflow, ErrNotFound, ErrSeasonClosed, ErrBadChange}

// result is item i's result in an answered batch.
func (b *coalesced[U, R]) result(i int) (R, error) {
	var zero R
	j := b.place[i]
	switch {
	case b.err != nil:
		return zero, itemError(b.err, itemToken(b.token, j))
	case j >= len(b.res):
		return zero, batchShapeError(len(b.res), len(b.sent))
	}
	return b.res[j], nil
}

// sendOpen sends b if it is still the batch collecting writes (its linger ended).
func (c *Coalescer[U, R]) sendOpen(b *coalesced[U, R]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open == b {
		c.sendLocked(b)
	}
}

// sendLocked sends the open batch b (c.mu held): the items whose callers still wait, under
// a fresh token, in a goroutine of its own.
func (c *Coalescer[U, R]) sendLocked(b *coalesced[U, R]) {
	c.open = nil
	b.timer.Stop()
	b.place = make([]int, len(b.items))
	for i, u := range b.items {
		b.place[i] = -1
		if !b.left[i] {
			b.place[i] = len(b.sent)
			b.sent = append(b.sent, u)
		}
	}
	if len(b.sent) == 0 {
		close(b.done)
		return
	}
	token, _ := c.tokens.Next(context.Background()) // a fresh token cannot fail
	b.token, b.since = token, time.Now()
	c.inFlight++
	go c.run(b)
}

// run calls flush for b, records its answer and, when no batch is left on its way, sends the
// one collecting writes meanwhile.
func (c *Coalescer[U, R]) run(b *coalesced[U, R]) {
	b.res, b.err = c.flush(WithIdempotencyKey(context.Background(), b.token), b.sent)
	b.split = c.splits(b.err, len(b.sent))
	c.mu.Lock()
	if resendable(b.err) {
		c.rememberLocked(b)
	}
	c.inFlight--
	// The callers answered now come back with their next writes (a loop of writes, as under
	// load): the open batch waits for as many (or its linger) before it goes, and goes then
	// when fewer than InFlight batches are on their way.
	c.expect = len(b.sent)
	if c.inFlight < c.cfg.inFlight() && c.open != nil && len(c.open.items) >= c.expect {
		c.sendLocked(c.open)
	}
	c.mu.Unlock()
	close(b.done)
}

// rememberLocked keeps an uncertain batch for its callers' resends, for a dedup window, and
// forgets those older than that.
func (c *Coalescer[U, R]) rememberLocked(b *coalesced[U, R]) {
	for token, old := range c.uncertain {
		if time.Since(old.since) > DefaultDedupWindow {
			delete(c.uncertain, token)
		}
	}
	c.uncertain[b.token] = b
}

// resend answers a write whose context carries key: a coalesced write's token
// ("<batch>#<i>") resends its batch under the batch's token and returns item i's result, or,
// once the batch is known refused for one of its writes, sends item i on its own; any other
// key is a write of the caller's own, sent alone under it.
func (c *Coalescer[U, R]) resend(ctx context.Context, key string, u U) (R, error) {
	var zero R
	batch, index, coalesced := parseItemToken(key)
	if !coalesced {
		res, err := c.flush(ctx, []U{u})
		if err != nil {
			return zero, err
		}
		if len(res) != 1 {
			return zero, batchShapeError(len(res), 1)
		}
		return res[0], nil
	}
	c.mu.Lock()
	b := c.uncertain[batch]
	c.mu.Unlock()
	if b == nil || index >= len(b.sent) {
		return zero, &UncertainError{Token: key, Err: ErrResendForgotten}
	}
	// The batch's first send decides what a resend may send: wait for its answer.
	select {
	case <-b.done:
	case <-ctx.Done():
		return zero, &UncertainError{Token: key, Err: ctx.Err()}
	}
	if b.split {
		return c.sendAlone(ctx, b, index)
	}
	b.resending.Lock()
	if b.refused {
		b.resending.Unlock()
		return c.sendAlone(ctx, b, index)
	}
	res, err := c.flush(WithIdempotencyKey(ctx, b.token), b.sent)
	if c.splits(err, len(b.sent)) {
		// Refused under the batch's token: the batch was never applied, and is never sent again.
		b.refused = true
		b.resending.Unlock()
		return c.sendAlone(ctx, b, index)
	}
	b.resending.Unlock()
	if err != nil {
		return zero, itemError(err, key)
	}
	if index >= len(res) {
		return zero, batchShapeError(len(res), len(b.sent))
	}
	return res[index], nil
}

// resendable reports whether a batch that failed with err is resent under its token: its
// reply was lost (ErrUncertain), or it was applied and too few replicas acknowledged it
// (ErrNotReplicated: a resend waits again).
func resendable(err error) bool {
	return errors.Is(err, ErrUncertain) || errors.Is(err, ErrNotReplicated)
}

// itemError is a batch's error err as one of its writes sees it: an error that names the
// batch's token names the write's own (token) instead, the one to resend it under.
func itemError(err error, token string) error {
	var ue *UncertainError
	if errors.As(err, &ue) {
		return &UncertainError{Token: token, Err: ue.Err}
	}
	var re *ReplicationError
	if errors.As(err, &re) {
		item := *re
		item.Token = token
		return &item
	}
	return err
}

// batchShapeError is the error of a batch write that gave got results for want writes.
func batchShapeError(got, want int) error {
	return &ReplyShapeError{Reply: "coalesced batch", Want: strconv.Itoa(want) + " results", Got: strconv.Itoa(got)}
}

// itemToken is the token of the i-th write of the batch under token.
func itemToken(token string, i int) string { return token + "#" + strconv.Itoa(i) }

// parseItemToken splits the token of a coalesced write ("<batch token>#<i>", the batch's
// token one that a Coalescer made) into the batch's token and the write's index; coalesced is
// false for any other key. It knows the tokens of every Coalescer, so that a resend through
// another one (a Board made anew) is refused with ErrResendForgotten, never applied again
// under a token of its own.
func parseItemToken(key string) (batch string, index int, coalesced bool) {
	batch, i, found := strings.Cut(key, "#")
	n, err := strconv.Atoi(i)
	if !found || err != nil || n < 0 || itemToken(batch, n) != key || !freshToken(batch) {
		return "", 0, false
	}
	return batch, n, true
}
