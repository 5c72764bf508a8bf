package runtime

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/rankgen/rankgen/text/quote"
)

// ErrRetry: nothing was written, and the same write can succeed later. It is matched by
// ErrMigrating (the board is being migrated: retry after MigratingError.Wait) and by
// ErrLayoutMismatch (the board has another layout: retry with the code of the board's layout,
// or once a migration to this code's layout has switched in).
var ErrRetry = errors.New("rankgen: nothing written; retry")

// ErrMigrating: rankgen migrate is moving the board to another layout and holds its fence;
// the write was refused before anything (its token's record included) was written. A
// *MigratingError says when to retry. Matches ErrRetry.
var ErrMigrating error = &retryable{"rankgen: the board is being migrated"}

// retryable is a sentinel that also matches ErrRetry.
type retryable struct{ msg string }

func (e *retryable) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrRetry) hold for every error that matches the sentinel.
func (e *retryable) Unwrap() error { return ErrRetry }

// FenceKey is the key rankgen migrate holds while it moves the board key to another layout
// (a hash: the migration's plan, the target layout, the layout whose writers may still write
// while it copies the board, logging what they change (ChangeLogKey), refusals counted, when
// it was raised and closed), with an expiry the migration renews: the write scripts refuse
// every other write while it exists, and every write once it is closed for the final catch-up
// and the switch, so one a killed migration leaves behind lifts by itself. It lives beside the
// board's index and meta key.
func FenceKey(key string) string { return SideKey(key, "migrate:fence") }

// ChangeLogKey is the change log of a migration of the board key (a set of ids, beside its
// FenceKey): while rankgen migrate copies the board, its fence lets the old layout's writes
// through and each adds the ids it changes there, so that the migration copies them again
// before it switches. It expires a minute after the fence would.
func ChangeLogKey(key string) string { return SideKey(key, "migrate:log") }

// MigratingError is a write refused by a board's migration fence. It matches ErrMigrating and
// ErrRetry.
type MigratingError struct {
	// Wait is when to retry: the time until the switch the migration expects (from its
	// progress; a few milliseconds once the fence is closed for the final catch-up), at most
	// 100 ms, so that a writer retrying after each Wait writes within about 100 ms of the
	// switch, sooner where the estimate holds. Retried while the fence stands, the write is
	// refused again, with a new Wait.
	Wait   time.Duration
	Layout string // the fingerprint of the layout the board is being migrated to
}

func (e *MigratingError) Error() string {
	return "rankgen: the board is being migrated to layout " + quote.Short(e.Layout) +
		"; nothing written, retry in " + e.Wait.String() + " (once it has switched, with the code of that layout)"
}

// Unwrap returns ErrMigrating (and through it ErrRetry).
func (e *MigratingError) Unwrap() error { return ErrMigrating }

// migrating reads a script's "wait=<ms>ms layout=<fingerprint>" into a *MigratingError.
func migrating(detail string) *MigratingError {
	var e MigratingError
	for _, part := range strings.Fields(detail) {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "wait":
			ms, err := strconv.ParseInt(strings.TrimSuffix(v, "ms"), 10, 64)
			if err != nil {
				return nil
			}
			e.Wait = time.Duration(max(ms, 0)) * time.Millisecond
		case "layout":
			e.Layout = v
		}
	}
	return &e
}
