package runtime

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/rankgen/rankgen/text/quote"
)

// Sentinel errors. Every error returned by generated code or by the interpreted codec matches
// exactly one of them with errors.Is (and ErrRetry too when nothing was written and a retry
// can succeed: ErrLayoutMismatch, ErrMigrating).
var (
	// ErrOutOfRange: a field value (or an id) lies outside what the layout can store.
	ErrOutOfRange = errors.New("rankgen: value out of range")
	// ErrBadScore: a score that this layout cannot have produced.
	ErrBadScore = errors.New("rankgen: score not produced by this layout")
	// ErrBadMember: a member that this layout cannot have produced.
	ErrBadMember = errors.New("rankgen: member not produced by this layout")
	// ErrOverflow: an update would move a field past its range (overflow: error).
	ErrOverflow = errors.New("rankgen: update overflows field range")
	// ErrNotFound: the board has no entry for the id.
	ErrNotFound = errors.New("rankgen: entry not found")
	// ErrLayoutMismatch: the board was written by a different layout (fingerprint differs).
	// It matches ErrRetry: nothing was written, and the write succeeds with the code of the
	// board's layout (after a migration switched in, the new one).
	ErrLayoutMismatch error = &retryable{"rankgen: board written by a different layout"}
	// ErrNotIndexed: a board whose members carry a prefix has entries but no index: it was
	// written by other code, and writing before Reindex would give an id a second member.
	ErrNotIndexed = errors.New("rankgen: board has entries but no index; run Reindex first")
	// ErrBadReply: the server answered with a reply of a shape that rankgen's commands and
	// scripts never produce (another program's script under the same name, a proxy in the
	// way); nothing is read from it.
	ErrBadReply = errors.New("rankgen: unexpected reply")
	// ErrWrongType: a board key holds a value of another type (a string where the board's
	// sorted set is, …), so other code uses the key; nothing was written. The server's reply
	// (WRONGTYPE) stays reachable with errors.As as a redis.Error.
	ErrWrongType = errors.New("rankgen: a board key holds another type of value")
	// ErrServerFull: the server refused a write because it reached maxmemory under the
	// noeviction policy (an OOM reply); nothing was written. Free memory or raise maxmemory.
	// The server's reply stays reachable with errors.As as a redis.Error.
	ErrServerFull = errors.New("rankgen: the server is out of memory")
)

// ServerError is a server's error reply that callers branch on: it matches its sentinel
// (ErrWrongType, ErrServerFull) with errors.Is, and the server's reply itself (go-redis's
// redis.Error) with errors.As.
type ServerError struct {
	Code  string // the reply's code word: WRONGTYPE, OOM
	Reply error  // the server's error reply, as go-redis returned it
	kind  error
}

func (e *ServerError) Error() string {
	return e.kind.Error() + ": " + e.Reply.Error()
}

// Unwrap returns the sentinel and the server's reply, so that both errors.Is(err, ErrWrongType)
// and errors.As(err, &redisErr) hold.
func (e *ServerError) Unwrap() []error { return []error{e.kind, e.Reply} }

// serverCodes are the codes of server error replies that become a ServerError, and the
// sentinel each one matches. The code word is protocol; the words after it are prose that
// changes between releases, and are never read.
var serverCodes = map[string]error{
	"WRONGTYPE": ErrWrongType,
	"OOM":       ErrServerFull,
}

// ReplyShapeError reports a reply of a shape rankgen never produces. It matches ErrBadReply.
type ReplyShapeError struct {
	Reply string // the command or script that replied: "update", "reindex", "ZRANGE", …
	Want  string // the shape expected
	Got   string // what came instead: its type and length, or a short quote of its text
}

func (e *ReplyShapeError) Error() string {
	return fmt.Sprintf("rankgen: %s reply: want %s, got %s", e.Reply, e.Want, e.Got)
}

// Is makes errors.Is(err, ErrBadReply) true.
func (e *ReplyShapeError) Is(target error) bool { return target == ErrBadReply }

// badReply builds a ReplyShapeError, describing got without ever quoting more than a short
// prefix of it.
func badReply(reply, want string, got any) error {
	return &ReplyShapeError{Reply: reply, Want: want, Got: describe(got)}
}

// describe names a reply value short: a quoted prefix of text, the length of an array, or the
// Go type of anything else.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case string:
		return quote.Short(v)
	case []any:
		return fmt.Sprintf("an array of %d", len(v))
	}
	return fmt.Sprintf("%T", v)
}

// RangeError reports a value outside a field's range, or (Unit set) a time finer than the
// field's unit, which the field cannot hold either. It matches ErrOutOfRange.
type RangeError struct {
	Field    string // schema name of the field, or of the id
	Value    string // the offending value, formatted
	Min, Max string // the accepted range, formatted
	Unit     string // a time's value finer than the field's unit: the unit in words ("seconds")
	Reason   string // where the range comes from and what to do, when it is not the field's own
}

func (e *RangeError) Error() string {
	if e.Unit != "" {
		return fmt.Sprintf("rankgen: %s = %s is not a whole number of %s (the field's unit); truncate or round it first", e.Field, e.Value, e.Unit)
	}
	msg := fmt.Sprintf("rankgen: %s = %s is out of range [%s, %s]", e.Field, e.Value, e.Min, e.Max)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Is makes errors.Is(err, ErrOutOfRange) true.
func (e *RangeError) Is(target error) bool { return target == ErrOutOfRange }

// UintRangeError builds a RangeError for an unsigned value.
func UintRangeError(field string, v, min, max uint64) error {
	return &RangeError{Field: field, Value: strconv.FormatUint(v, 10), Min: strconv.FormatUint(min, 10), Max: strconv.FormatUint(max, 10)}
}

// NilPlaceError is the RangeError of a nil place given to AroundScore: a place is a prefix of
// the score fields (prefix names its type) or an Entry.
func NilPlaceError(prefix string) error {
	return &RangeError{Field: "place", Value: "nil", Min: "a " + prefix, Max: "an Entry"}
}

// IntRangeError builds a RangeError for a signed value.
func IntRangeError(field string, v, min, max int64) error {
	return &RangeError{Field: field, Value: strconv.FormatInt(v, 10), Min: strconv.FormatInt(min, 10), Max: strconv.FormatInt(max, 10)}
}

// IDLengthError reports a string id that is empty or longer than the layout allows.
func IDLengthError(field string, n, max int) error {
	return &RangeError{Field: field, Value: strconv.Itoa(n) + " bytes", Min: "1 byte", Max: strconv.Itoa(max) + " bytes"}
}

// DecodeError reports a score or member that the layout cannot have produced. It matches
// ErrBadScore or ErrBadMember.
type DecodeError struct {
	Member bool   // false: the score is bad; true: the member is bad
	Input  string // the score or member, formatted
	Reason string // why, in words
}

func (e *DecodeError) Error() string {
	what := "score"
	if e.Member {
		what = "member"
	}
	return fmt.Sprintf("rankgen: bad %s %s: %s", what, e.Input, e.Reason)
}

// Is makes errors.Is match ErrBadScore or ErrBadMember.
func (e *DecodeError) Is(target error) bool {
	if e.Member {
		return target == ErrBadMember
	}
	return target == ErrBadScore
}

// BadScore builds a DecodeError for a score.
func BadScore(score float64, reason string) error {
	return &DecodeError{Input: strconv.FormatFloat(score, 'g', -1, 64), Reason: reason}
}

// BadMember builds a DecodeError for a member.
func BadMember(member string, reason string) error {
	return &DecodeError{Member: true, Input: quote.Short(member), Reason: reason}
}
