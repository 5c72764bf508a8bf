package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/text/quote"
)

// Run runs one of the runtime's own scripts (Reindex, migrate; generated boards call their
// library's functions instead, see Call): EVALSHA, falling back to EVAL (which caches the
// script again) when the server answers NOSCRIPT. Error replies of rankgen's scripts become
// typed errors (see ReplyError); any other error is returned as it is.
func Run(ctx context.Context, c redis.Scripter, s *redis.Script, keys []string, args ...any) (any, error) {
	v, err := s.Run(ctx, c, keys, args...).Result()
	if err != nil {
		return nil, ReplyError(err)
	}
	return v, nil
}

// ReplyPrefix starts every error reply of a rankgen script: RANKGEN_<CODE> <detail>.
const ReplyPrefix = "RANKGEN_"

// Error codes of the scripts' error replies, and the sentinel each one matches.
var replyCodes = map[string]error{
	"OUT_OF_RANGE":    ErrOutOfRange,
	"OVERFLOW":        ErrOverflow,
	"NOT_FOUND":       ErrNotFound,
	"LAYOUT_MISMATCH": ErrLayoutMismatch,
	"NOT_INDEXED":     ErrNotIndexed,
	"BAD_SCORE":       ErrBadScore,
	"BAD_MEMBER":      ErrBadMember,
	"SEASON_CLOSED":   ErrSeasonClosed,
	"SEASON_EXPIRED":  ErrSeasonExpired,
	"TOKEN_REUSED":    ErrTokenReused,
	"MIGRATING":       ErrMigrating,
	"SUBMISSION":      ErrSubmission,
}

// ScriptError is an error reported by a generated script. It matches, with errors.Is, the
// sentinel of its code (ErrOverflow for RANKGEN_OVERFLOW, and so on).
type ScriptError struct {
	Code   string // OVERFLOW, OUT_OF_RANGE, NOT_FOUND, LAYOUT_MISMATCH, NOT_INDEXED, BAD_SCORE, BAD_MEMBER, SEASON_CLOSED, SEASON_EXPIRED, TOKEN_REUSED, MIGRATING
	Detail string // the script's words: field, value, range
	kind   error
}

func (e *ScriptError) Error() string {
	msg := "rankgen: " + e.kind.Error()[len("rankgen: "):] + ": " + e.Detail
	if e.Code == "LAYOUT_MISMATCH" && boardOfLayout(e.Detail) {
		msg += "; " + layoutFix
	}
	return msg
}

// layoutFix is what to do about a board another layout wrote, which a board's own code meets
// (a migration's scripts and Reindex name their keys, and say their own fix).
const layoutFix = "to use this code on it, move the board to this layout with rankgen migrate " +
	"(docs/online-migration.md: writers keep writing meanwhile), or give this layout a new key; " +
	"code of the board's own layout still reads and writes it"

// boardOfLayout reports whether detail is a board's refusal of another layout: "board has
// layout X, this code …" or "the board data has stored format X, this code …".
func boardOfLayout(detail string) bool {
	return strings.HasPrefix(detail, "board has layout ") || strings.HasPrefix(detail, "the board data has stored format ")
}

// Unwrap returns the sentinel the error matches.
func (e *ScriptError) Unwrap() error { return e.kind }

// ParseReply turns the text of a script's error reply, or of a per-entry error in a batch
// reply ("RANKGEN_OVERFLOW field=Points ..."), into a typed error. ok is false when the text
// is not a rankgen error.
func ParseReply(msg string) (err error, ok bool) {
	rest, found := strings.CutPrefix(msg, ReplyPrefix)
	if !found {
		return nil, false
	}
	code, detail, _ := strings.Cut(rest, " ")
	kind, known := replyCodes[code]
	if !known {
		return nil, false
	}
	// A script raising its error with error() gets " script: <sha>, on @user_script:<line>."
	// appended by the server; rankgen's scripts reply with redis.error_reply, but be safe.
	if i := strings.Index(detail, " script: "); i >= 0 {
		detail = detail[:i]
	}
	if code == "LAYOUT_MISMATCH" {
		detail = quoteStored(detail)
	}
	if code == "OUT_OF_RANGE" {
		if re := rangeError(detail); re != nil {
			return re, true
		}
	}
	if code == "MIGRATING" {
		if me := migrating(detail); me != nil {
			return me, true
		}
	}
	if code == "SEASON_EXPIRED" {
		if se := seasonExpired(detail); se != nil {
			return se, true
		}
	}
	if code == "SEASON_CLOSED" {
		if se := seasonClosed(detail); se != nil {
			return se, true
		}
	}
	return &ScriptError{Code: code, Detail: detail, kind: kind}, true
}

// rangeError reads "field=F value=V min=A max=B" into a *RangeError.
func rangeError(detail string) *RangeError {
	var re RangeError
	for _, part := range strings.Fields(detail) {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "field":
			re.Field = v
		case "value":
			re.Value = stampValue(v)
		case "min":
			re.Min = v
		case "max":
			re.Max = v
		}
	}
	if re.Field == "" {
		return nil
	}
	return &re
}

// stampValue formats the value of a stamp the scripts found out of range, which they send as
// whole units since the Unix epoch with the unit's name ("1795384169s", "…ms", "…us"), as RFC
// 3339 like the range's ends (TimeFormat). Any other value (a number, "digit:7") is kept.
func stampValue(v string) string {
	for _, u := range []struct {
		name string
		of   func(int64) time.Time
	}{{"us", time.UnixMicro}, {"ms", time.UnixMilli}, {"s", func(n int64) time.Time { return time.Unix(n, 0) }}} {
		digits, ok := strings.CutSuffix(v, u.name)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return v
		}
		return u.of(n).UTC().Format(TimeFormat)
	}
	return v
}

// ReplyError turns an error reply into a typed error: a rankgen script's RANKGEN_<CODE> reply
// into its ScriptError or RangeError, a WRONGTYPE or OOM reply (of a script or of a plain
// command) into a ServerError. Any other error is returned unchanged, and so is an error that
// is already typed.
func ReplyError(err error) error {
	var re redis.Error
	if err == nil || !errors.As(err, &re) {
		return err
	}
	var typed *ServerError
	if errors.As(err, &typed) {
		return err
	}
	msg := re.Error()
	if typed, ok := ParseReply(msg); ok {
		return typed
	}
	code := replyCode(msg)
	if kind, ok := serverCodes[code]; ok {
		return &ServerError{Code: code, Reply: err, kind: kind}
	}
	return err
}

// replyCode is an error reply's code word (WRONGTYPE, OOM, ERR): protocol, unlike the words
// after it.
func replyCode(msg string) string {
	code, _, _ := strings.Cut(msg, " ")
	return code
}

// TypeError gives a plain read command's error the type a script's error would have
// (ReplyError): generated reads that send one Redis command pass it through here, so that
// WRONGTYPE and OOM replies match ErrWrongType and ErrServerFull whichever way a read went out.
// redis.Nil and transport errors stay as they are.
func TypeError(c redis.Cmder) {
	if err := c.Err(); err != nil {
		c.SetErr(ReplyError(err))
	}
}

// Expiry is a board's expiry, applied by every write script to all of the board's keys in
// the same script as the write (PEXPIRE or PEXPIREAT), so that it can never be lost.
type Expiry struct {
	mode string // "", "px" (TTL) or "pxat" (absolute, Unix milliseconds)
	ms   int64
}

// TTL is an expiry d after every write (rounded up to whole milliseconds, at least 1).
func TTL(d time.Duration) Expiry {
	ms := (d + time.Millisecond - 1) / time.Millisecond
	if ms < 1 {
		ms = 1
	}
	return Expiry{mode: "px", ms: int64(ms)}
}

// ExpireAt is an expiry at the instant t (to the millisecond).
func ExpireAt(t time.Time) Expiry {
	return Expiry{mode: "pxat", ms: t.UnixMilli()}
}

// IsZero reports whether the expiry is unset (the board's keys never expire).
func (e Expiry) IsZero() bool { return e.mode == "" }

// Args are the two leading arguments of every write script: the mode and its milliseconds.
func (e Expiry) Args() (mode string, ms int64) { return e.mode, e.ms }

// String describes the expiry.
func (e Expiry) String() string {
	switch e.mode {
	case "px":
		return fmt.Sprintf("ttl %dms", e.ms)
	case "pxat":
		return "expire at " + time.UnixMilli(e.ms).UTC().Format(time.RFC3339Nano)
	}
	return "no expiry"
}

// quoteStored quotes the stored value a LAYOUT_MISMATCH detail names ("board has layout X,
// this code …"): X is whatever the board's key held, possibly hostile bytes or a huge value,
// so it is quoted and cut as all bad input is.
func quoteStored(detail string) string {
	for _, lead := range []string{"board has layout ", "the board data has stored format "} {
		if rest, ok := strings.CutPrefix(detail, lead); ok {
			if i := strings.LastIndex(rest, ", this code "); i >= 0 {
				return lead + quote.Short(rest[:i]) + rest[i:]
			}
			return lead + quote.Short(rest)
		}
	}
	return detail
}
