package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Exactly-once writes.
//
// go-redis resends a command when the connection fails before its reply arrives (MaxRetries,
// 3 by default). A write script whose reply was lost has already run, so the resend would
// apply it twice. Every write call therefore carries a token, unique per call and the same in
// each resend, and the script records the token with its reply in the board's ack keys: a
// script that finds its token already recorded answers with the recorded reply and writes
// nothing. The ack keys are two hashes in the board's hash slot that take turns, one per
// dedup window of Redis's clock, each expiring two windows after it was started, so a token
// is remembered for at least one window and memory stays bounded by the write rate.

// DefaultDedupWindow is how long, at least, a write's token is remembered by default: longer
// than go-redis's own resends take with default timeouts (4 tries of at most 3 s read timeout
// plus 512 ms backoff each), and long enough for a caller to resend a write that failed.
const DefaultDedupWindow = time.Minute

// ErrUncertain: a write failed without a reply (connection lost, timeout, context ended), so
// it may or may not have been applied. Resend it with the same token (see UncertainError)
// within the dedup window to have it applied exactly once and learn its result.
var ErrUncertain = errors.New("rankgen: write outcome unknown")

// UncertainError is the error of a write that may or may not have been applied. It matches
// ErrUncertain with errors.Is, and its cause (a network error, context.DeadlineExceeded, …)
// with errors.Is and errors.As.
type UncertainError struct {
	Token string // the write's idempotency key: resend with WithIdempotencyKey(ctx, Token)
	Err   error  // what the client saw
}

func (e *UncertainError) Error() string {
	return fmt.Sprintf("rankgen: write outcome unknown (resend with idempotency key %q): %v", e.Token, e.Err)
}

// Unwrap returns ErrUncertain and the cause.
func (e *UncertainError) Unwrap() []error { return []error{ErrUncertain, e.Err} }

type idempotencyKey struct{}

// maxIdempotencyKey bounds a caller's key: it is stored with every write for a window.
const maxIdempotencyKey = 128

// WithIdempotencyKey returns a context whose write call uses key as its token instead of a
// fresh one. Writes with the same key on the same board within the dedup window are applied
// once; the others get the first one's reply. Use it to resend a write that failed with
// ErrUncertain (key = its UncertainError.Token), or to make a write of your own idempotent
// across processes. A key must be 1 to 128 bytes; use each key for one write.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// Tokens hands out the tokens of a Board's write calls: a random prefix per Tokens, then a
// counter, so tokens never repeat across processes or calls.
type Tokens struct {
	prefix string
	n      atomic.Uint64
}

// NewTokens returns a token source with a fresh random prefix.
func NewTokens() *Tokens {
	var b [9]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("rankgen: no randomness for write tokens: " + err.Error())
	}
	return &Tokens{prefix: hex.EncodeToString(b[:]) + "."}
}

// Next returns the token of one write call: the context's idempotency key when it has one,
// else a fresh token.
func (t *Tokens) Next(ctx context.Context) (string, error) {
	if key, ok := ctx.Value(idempotencyKey{}).(string); ok {
		if len(key) == 0 || len(key) > maxIdempotencyKey {
			return "", &RangeError{Field: "idempotency key", Value: strconv.Itoa(len(key)) + " bytes", Min: "1 byte", Max: strconv.Itoa(maxIdempotencyKey) + " bytes"}
		}
		return key, nil
	}
	return t.prefix + strconv.FormatUint(t.n.Add(1), 36), nil
}

// AckKeys are the board's two ack hashes (recorded write tokens and their replies), in the
// board's hash slot.
func AckKeys(key string) [2]string { return [2]string{SideKey(key, "ack0"), SideKey(key, "ack1")} }

// DedupArg is the dedup window as a write script's argument: whole seconds, "0" when off.
func DedupArg(window time.Duration) string {
	if window <= 0 {
		return "0"
	}
	return strconv.FormatInt(int64((window+time.Second-1)/time.Second), 10)
}

// RunWrite calls a write function (as Call does) whose token is token, and turns a failure
// without a reply into an *UncertainError carrying the token; error replies of the server
// mean the function did not run to completion and are returned as Call returns them.
func RunWrite(ctx context.Context, c redis.Cmdable, f *Function, keys []string, token string, args ...any) (any, error) {
	v, err := Call(ctx, c, f, keys, args...)
	if err != nil && !isReply(err) {
		return nil, &UncertainError{Token: token, Err: err}
	}
	return v, err
}

// isReply reports whether err is the server's answer (a script error reply, a typed rankgen
// error), as opposed to a failure to get one.
func isReply(err error) bool {
	var re redis.Error
	if errors.As(err, &re) {
		return true
	}
	var se *ScriptError
	var rg *RangeError
	return errors.As(err, &se) || errors.As(err, &rg)
}
