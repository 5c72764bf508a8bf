package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/redis/go-redis/v9"
)

// Exactly-once writes.
//
// go-redis resends a command when the connection fails before its reply arrives (MaxRetries,
// 3 by default). A write script whose reply was lost has already run, so the resend would
// apply it twice. Every write call therefore carries a token, unique per call and the same in
// each resend, and the script records the token with its reply in the token's own ack key
// (AckKey), in the board's hash slot: a script that finds its token already recorded answers
// with the recorded reply and writes nothing. Each record expires one dedup window after its
// write, by itself, so memory stays bounded by the write rate and no write ever frees a
// window's worth of records at once. The reply is recorded with what identifies the call that
// made it: its operation (its script's name), its layout's fingerprint and a digest of its
// arguments, so that a token names one write: any other call under it (another operation, other
// arguments, another layout's code) is refused (ErrTokenReused) before it writes.

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
// fresh one. A write under the same key on the same board within the dedup window as an
// earlier one, the same call (the same operation with the same arguments, by code of the same
// layout), is not applied again and gets the first one's reply; any other call under it is
// refused (ErrTokenReused), nothing written. Use it to resend a write that
// failed with ErrUncertain (key = its UncertainError.Token), or to make a write of your own
// idempotent across processes. A key must be 1 to 128 bytes, plus a season binding
// (InSeason); use each key for one write.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, key)
}

// IdempotencyKey returns the context's idempotency key (WithIdempotencyKey), if it has one.
func IdempotencyKey(ctx context.Context) (key string, ok bool) {
	key, ok = ctx.Value(idempotencyKey{}).(string)
	return key, ok
}

// InSeason binds key to the season whose ID is id: key@id. The board of that season uses it
// as it is; Seasons.Live sends a write under it to that season's board and to no other, so
// that a resend across a season boundary reaches the board the write was first sent to.
func InSeason(key string, id int64) string { return key + "@" + strconv.FormatInt(id, 10) }

// KeySeason returns the id of the season key is bound to (InSeason): ok is false for a key
// that does not end with "@" and a season id in canonical decimal.
func KeySeason(key string) (id int64, ok bool) {
	at := strings.LastIndexByte(key, '@')
	if at < 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(key[at+1:], 10, 64)
	return id, err == nil && InSeason(key[:at], id) == key
}

// Tokens hands out the tokens of a Board's write calls: a random prefix per Tokens, then a
// counter, so tokens never repeat across processes or calls. A season's board binds each of
// its tokens to its season (NewSeasonTokens).
type Tokens struct {
	prefix string
	bind   string // "@<season id>" ending every token of a season's board; "" elsewhere
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

// freshToken reports whether s is a token Next made without an idempotency key and without a
// season: the prefix of 18 hex digits and a dot, then the counter in base 36.
func freshToken(s string) bool {
	const prefix = 19
	if len(s) <= prefix || s[prefix-1] != '.' {
		return false
	}
	if _, err := hex.DecodeString(s[:prefix-1]); err != nil {
		return false
	}
	_, err := strconv.ParseUint(s[prefix:], 36, 64)
	return err == nil
}

// NewSeasonTokens returns the token source of the board of season id: every token it hands
// out, the caller's idempotency keys included, is bound to that season (InSeason), so that
// an UncertainError's Token names the board that may have applied the write.
func NewSeasonTokens(id int64) *Tokens {
	t := NewTokens()
	t.bind = InSeason("", id)
	return t
}

// Next returns the token of one write call: the context's idempotency key when it has one
// (a coalesced write's token, which only its Coalescer can resend, is refused with
// ErrResendForgotten), else a fresh token; on a season's board, bound to its season (a key
// bound to it already is kept as it is).
func (t *Tokens) Next(ctx context.Context) (string, error) {
	if key, ok := IdempotencyKey(ctx); ok {
		if _, _, coalesced := parseItemToken(key); coalesced {
			// A coalesced write's token names its place in a batch, which only the Coalescer
			// that sent it can resend: sent alone under it, the write could apply twice.
			return "", &UncertainError{Token: key, Err: ErrResendForgotten}
		}
		key = strings.TrimSuffix(key, t.bind)
		if len(key) == 0 || len(key) > maxIdempotencyKey {
			return "", &RangeError{Field: "idempotency key", Value: strconv.Itoa(len(key)) + " bytes", Min: "1 byte", Max: strconv.Itoa(maxIdempotencyKey) + " bytes"}
		}
		return key + t.bind, nil
	}
	return t.prefix + strconv.FormatUint(t.n.Add(1), 36) + t.bind, nil
}

// AckBase is the base of the board's ack keys, in the board's hash slot: a board passes it to
// its scripts among its keys, and a write call under a token passes AckKey(base, token).
func AckBase(key string) string { return SideKey(key, "ack") }

// AckKey is the key where a write call under token records its operation and reply (a string
// expiring after the board's dedup window): base (AckBase), ":", the token. A write script
// refuses an ack key that does not end with ":" and its token.
func AckKey(base, token string) string { return base + ":" + token }

// WriteKeys are the keys of a write call under token: keys (the board's, AckBase third) with
// the ack key of the token in AckBase's place.
func WriteKeys(keys []string, token string) []string {
	if len(keys) < 3 {
		return keys // not a board's keys: the script refuses the call
	}
	w := append([]string(nil), keys...)
	w[2] = AckKey(w[2], token)
	return w
}

// Dedup is a board's dedup window (WithDedupWindow) as its write scripts take it.
type Dedup struct {
	arg string // whole seconds, rounded up; "0" = off
	err error  // a window no board can have (a negative one): every write is refused with it
}

// DedupWindow is the dedup window d (a board's WithDedupWindow): how long, at least, the board
// remembers each write call's token, so that a resend of the call (go-redis's own after a lost
// reply, or yours with WithIdempotencyKey) is applied once. Tokens are remembered for at least
// d, in whole seconds (rounded up; the largest Duration is 9223372037 s, which the scripts
// compute with exactly), and 0 turns exactly-once writes off. A negative window is none: the
// board's writes are refused with a *RangeError (ErrOutOfRange), never run without their token.
func DedupWindow(d time.Duration) Dedup {
	if d < 0 {
		return Dedup{arg: "0", err: &RangeError{Field: "dedup window", Value: d.String(), Min: "0s", Max: time.Duration(math.MaxInt64).String()}}
	}
	secs := d / time.Second
	if d%time.Second != 0 {
		secs++ // rounded up without adding to d, which may be the largest Duration
	}
	return Dedup{arg: strconv.FormatInt(int64(secs), 10)}
}

// Arg is the window as a write script's argument: whole seconds, "0" when off.
func (d Dedup) Arg() string { return d.arg }

// Err is the error every write of a board with this window is refused with, nil for a valid
// window.
func (d Dedup) Err() error { return d.err }

// ErrTokenReused: a write's idempotency key was recorded, within the dedup window, by another
// call on the board: another operation (a Set, then a Remove under the same key), the same
// operation with other arguments (Set(ann 100), then Set(ann 555)), or code of another layout
// (a resend after a schema change). That write was applied; this one was not, and nothing was
// written: a key names one write, and a record answers only a resend of that very call.
var ErrTokenReused = errors.New("rankgen: idempotency key already used by another call")

// Reuse says how the write that recorded a token differs from a call refused under it
// (TokenReusedError.Why).
type Reuse string

const (
	// ReusedByOperation: another operation recorded the token.
	ReusedByOperation Reuse = "operation"
	// ReusedWithArguments: the same operation recorded it with other arguments, so its reply
	// does not answer this call (the result is built from the call's arguments and the reply).
	ReusedWithArguments Reuse = "arguments"
	// ReusedByLayout: code of another layout (TokenReusedError.Layout) recorded it, before or
	// after a schema change: its reply is in that layout's terms, which this code cannot read.
	ReusedByLayout Reuse = "layout"
	// ReusedUnknown: an earlier rankgen version recorded it, keeping neither the layout nor the
	// arguments of its write, so nothing shows that its reply answers this call.
	ReusedUnknown Reuse = "unknown"
)

// TokenReusedError is a write refused because its token was recorded by another call. It
// matches ErrTokenReused. The write that recorded the token was applied, once; if the refused
// call is a resend of it (a queue redelivering a message across a deploy that changed the
// schema: Why is ReusedByLayout or ReusedUnknown), treat it as done; to apply a new write, use
// a new key.
type TokenReusedError struct {
	Key    string // the token (idempotency key)
	First  string // the operation that recorded it: its script's name ("set", "add_points_many")
	Op     string // the operation refused
	Why    Reuse  // how the recorded write differs from this call
	Layout string // with ReusedByLayout, the fingerprint of the layout whose code recorded it
}

func (e *TokenReusedError) Error() string {
	key := quote.Short(e.Key)
	switch e.Why {
	case ReusedWithArguments:
		return fmt.Sprintf("rankgen: idempotency key %s was used by %s with other arguments: that write was applied, this one not; nothing written (use each key for one write)", key, e.First)
	case ReusedByLayout:
		return fmt.Sprintf("rankgen: idempotency key %s was used by %s of layout %s, whose reply this code's layout cannot read: that write was applied once; nothing written (a resend of it across the schema change: treat it as done; a new write: use a new key)", key, e.First, quote.Short(e.Layout))
	case ReusedUnknown:
		return fmt.Sprintf("rankgen: idempotency key %s was used by %s, recorded by an earlier rankgen version without its layout and arguments: that write was applied once; nothing written (a resend of it across the upgrade: treat it as done; a new write: use a new key)", key, e.First)
	}
	return fmt.Sprintf("rankgen: idempotency key %s was used by %s, not %s: nothing written (use each key for one write)", key, e.First, e.Op)
}

// Is makes errors.Is(err, ErrTokenReused) true.
func (e *TokenReusedError) Is(target error) bool { return target == ErrTokenReused }

// RunWrite calls a write function (as Call does) whose token is token, with keys the board's
// (AckBase third; the call passes the token's AckKey there, WriteKeys): its script answers a
// resend, after a lost reply, with its first reply and writes nothing again. A failure without a
// reply becomes an *UncertainError (ErrUncertain) carrying the token, and a token first used by
// another operation a *TokenReusedError (ErrTokenReused); every other error reply of the server
// (a refusal of the script, WRONGTYPE, OOM: the function did not run to completion) is typed as
// Call types it, and is never uncertain.
func RunWrite(ctx context.Context, c redis.Cmdable, f *Function, keys []string, token string, args ...any) (any, error) {
	v, err := f.send(ctx, c, false, WriteKeys(keys, token), args)
	if err != nil {
		return nil, writeError(err, token)
	}
	return v, nil
}

// writeError is the error of a write script under token that failed with err, as go-redis
// returned it: uncertain without a reply; with one, the reply typed by ReplyError (a
// *TokenReusedError for the scripts' RANKGEN_TOKEN_REUSED reply, "first=<op> op=<op>
// why=<Reuse>[ layout=<fingerprint>]"; an earlier library's has no why: another operation).
// The question is asked of the untyped error, so that no typed refusal, whatever its type, can
// be taken for a lost reply.
func writeError(err error, token string) error {
	if !isReply(err) {
		return &UncertainError{Token: token, Err: err}
	}
	err = ReplyError(err)
	var se *ScriptError
	if !errors.As(err, &se) || se.Code != "TOKEN_REUSED" {
		return err
	}
	re := &TokenReusedError{Key: token, Why: ReusedByOperation}
	for _, part := range strings.Fields(se.Detail) {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "first":
			re.First = v
		case "op":
			re.Op = v
		case "why":
			re.Why = Reuse(v)
		case "layout":
			re.Layout = v
		}
	}
	return re
}

// isReply reports whether err, as go-redis returned it, is the server's answer (an error reply:
// a script's refusal, WRONGTYPE, OOM), as opposed to a failure to get one (a network error, a
// timeout, a context that ended).
func isReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}
