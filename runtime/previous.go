package runtime

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rankgen/rankgen/text/quote"
)

// A layout that replaces another (previous: in its schema) reads and writes a board in the
// layout the board holds: the previous one until a migration switches the board, its own
// after. Code of both versions then shares every board during a rolling deploy, and the
// previous layout's writes are the ones a migration's fence lets through while it copies.

// ErrNotInPreviousLayout: the board still holds the layout this code's layout replaces, and
// that layout cannot hold the entry exactly (a value past its range, a field it lacks set to
// another value than its default), or cannot answer the read exactly (a band, place or rank it
// has no exact form of). Nothing was written or read: the call succeeds once the board is
// migrated. Matches ErrRetry; a *PreviousLayoutError says which value or read.
var ErrNotInPreviousLayout error = &retryable{"rankgen: the board holds the previous layout, which cannot hold the entry or answer the read exactly"}

// PreviousLayoutError is an entry refused by a board that still holds the previous layout:
// Err says what that layout cannot hold (it matches ErrOutOfRange where a range refuses it).
// Or a read that layout has no exact form of (Read). It matches ErrNotInPreviousLayout and
// ErrRetry.
type PreviousLayoutError struct {
	Layout string // the fingerprint of the layout the board holds
	// Field, Value and Why say what the layout cannot hold, where the conversion refused it;
	// Err, where the layout's own codec did (a *RangeError).
	Field, Value, Why string
	Err               error
	// Read is what a refused read asked for (Why says why the layout cannot answer it
	// exactly): nothing was read, and the read answers once the board is migrated.
	Read string
}

func (e *PreviousLayoutError) Error() string {
	if e.Read != "" {
		return "rankgen: the board still holds the previous layout " + quote.Short(e.Layout) +
			", which cannot answer " + e.Read + " exactly (" + e.Why + "); nothing read: read it again once the board is migrated"
	}
	what := strings.TrimPrefix(fmt.Sprint(e.Err), "rankgen: ")
	if e.Err == nil {
		what = e.Field + " = " + e.Value + ": " + e.Why
	}
	return "rankgen: the board still holds the previous layout " + quote.Short(e.Layout) +
		", which cannot hold the entry exactly (" + what + "); nothing written: write it again once the board is migrated"
}

// Unwrap returns ErrNotInPreviousLayout, and what refused the entry.
func (e *PreviousLayoutError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNotInPreviousLayout}
	}
	return []error{ErrNotInPreviousLayout, e.Err}
}

// NotInPrevious is the error of an entry the previous layout (fingerprint layout) cannot hold:
// err as a *PreviousLayoutError.
func NotInPrevious(layout string, err error) error {
	var pe *PreviousLayoutError
	if err == nil || errors.As(err, &pe) {
		return err
	}
	return &PreviousLayoutError{Layout: layout, Err: err}
}

// NotInPreviousRead is the error of a read (what it asks for) that the previous layout
// (fingerprint layout) cannot answer exactly, why saying why.
func NotInPreviousRead(layout, read, why string) error {
	return &PreviousLayoutError{Layout: layout, Read: read, Why: why}
}

// NewBoardReplacing returns the board whose machinery is core, as NewBoard does, of a layout
// that replaces previous's, a view of the same key in that layout (built on the previous
// layout's Core, its decoding converting this layout's entries): every method of the board
// runs on the view of the layout the key holds and returns this layout's types.
func NewBoardReplacing[E any, I ID, R, W, X any](core *Core, dec *Decoding[E, I, R, W, X], previous *Board[E, I, R, W, X]) *Board[E, I, R, W, X] {
	b := NewBoard(core, dec)
	b.previous = previous
	b.held = heldOf(b.core.Key(), previous.core.spec.Fingerprint, b.core.spec.Fingerprint)
	return b
}

// WithNewLayoutFirst makes a board of a layout that replaces another (previous: in its schema)
// try its own layout first where it has not yet seen the key hold one (a process's first call
// on the key): a new key (the next season's board, a new region's) then starts in this layout,
// not the previous one. Set it once no code of the previous layout writes any more (after the
// rolling deploy); until then, new boards start in the previous layout, which both versions'
// code writes. A key that holds either layout is read and written in it either way.
func WithNewLayoutFirst() Option { return func(c *Core) { c.newLayoutFirst = true } }

// heldLayout is which of two layouts a key was last seen to hold: unknown, the previous, or
// the new one.
type heldLayout struct{ v atomic.Int32 }

const (
	heldUnknown int32 = iota
	heldPrevious
	heldNew
)

// held remembers, per key and pair of layouts, what the key holds, so that a board made anew
// for every call (a season's, a shard's) keeps what earlier boards of its key learnt: after
// the switch, its writes go to the new layout at once. It holds at most heldKeys keys and then
// starts again (a board of a forgotten key learns it again, at the cost of one more call).
var held struct {
	sync.Mutex
	keys map[string]*heldLayout // key + " " + previous + " " + new fingerprint
}

const heldKeys = 1 << 16

func heldOf(key, previous, next string) *heldLayout {
	k := key + " " + previous + " " + next
	held.Lock()
	defer held.Unlock()
	if h := held.keys[k]; h != nil {
		return h
	}
	if held.keys == nil || len(held.keys) >= heldKeys {
		held.keys = map[string]*heldLayout{}
	}
	h := new(heldLayout)
	held.keys[k] = h
	return h
}

// route runs call on the view of the layout b's key holds: first the one it was last seen to
// hold (when unknown, the previous layout, so that a new board is one both versions of the
// code write, or this one WithNewLayoutFirst), then, where that refuses the board as another layout's or could not hold the
// entry, the other view. Only a script's refusal (nothing written) or a client-side refusal
// (nothing sent) leads to the second call, so a write is still made at most once.
func route[E any, I ID, R, W, X, T any](b *Board[E, I, R, W, X], call func(*Board[E, I, R, W, X]) (T, error)) (T, error) {
	if b.previous == nil {
		return call(b)
	}
	first, second := b.previous, b
	if b.newFirst() {
		first, second = b, b.previous
	}
	v, err := call(first)
	if recordedBy(err, second) {
		// A resend whose first call the other layout's view made (before the switch, or after
		// it by another process): that view answers it with the first call's reply.
		return call(second)
	}
	if !errors.Is(err, ErrLayoutMismatch) && !errors.Is(err, ErrNotInPreviousLayout) {
		if err == nil {
			b.held.v.Store(b.heldBy(first))
		}
		return v, err
	}
	v2, err2 := call(second)
	if errors.Is(err2, ErrLayoutMismatch) {
		return v, err // the board holds neither layout, or the one that could not hold the entry
	}
	// Nothing learnt from a submission's step, which only captured both views' calls, nor from a
	// read the first view refused unsent when the second answers: a key that holds nothing yet
	// answers in either layout, and stays one both versions write.
	if !errors.Is(err2, errCaptured) && !readRefused(err) {
		b.held.v.Store(b.heldBy(second))
	}
	return v2, err2
}

// Route runs current, a method of b's own layout, or previous, the same method of the layout
// it replaces, as the key holds one or the other (as b's methods do): a generated Board's
// methods that its layout makes its own. Without a previous layout it runs current.
func Route[E any, I ID, R, W, X, T any](b *Board[E, I, R, W, X], current, previous func() (T, error)) (T, error) {
	return route(b, func(view *Board[E, I, R, W, X]) (T, error) {
		if view == b {
			return current()
		}
		return previous()
	})
}

// OnPrevious is err, an error of a write the previous layout's view made, as this layout's
// code reports it: a value its range cannot hold (ErrOutOfRange, ErrOverflow) is one the
// previous layout cannot hold (ErrNotInPreviousLayout, matching the range error too).
func OnPrevious(layout string, err error) error {
	if errors.Is(err, ErrOutOfRange) || errors.Is(err, ErrOverflow) {
		return NotInPrevious(layout, err)
	}
	return err
}

// OnPreviousAdd is err, an add's refusal by the previous layout's view, as this layout's code
// reports it: an overflow past an edge both layouts share (lowShared: the lowest value; delta
// below 0) is this layout's own; past an edge only the previous layout has, one it cannot hold
// (ErrNotInPreviousLayout). Other errors as OnPrevious says.
func OnPreviousAdd(layout string, err error, delta int64, lowShared, highShared bool) error {
	if errors.Is(err, ErrOverflow) && (delta < 0 && lowShared || delta > 0 && highShared) {
		return err
	}
	return OnPrevious(layout, err)
}

// readRefused says whether err is a read the previous layout's view refused before sending it.
func readRefused(err error) bool {
	var pe *PreviousLayoutError
	return errors.As(err, &pe) && pe.Read != ""
}

// recordedBy says whether err refuses a write because its token was recorded by a call of the
// view's layout.
func recordedBy[E any, I ID, R, W, X any](err error, view *Board[E, I, R, W, X]) bool {
	var te *TokenReusedError
	return errors.As(err, &te) && te.Why == ReusedByLayout && te.Layout == view.core.spec.Fingerprint
}

// newFirst says whether b's calls try its own layout's view first: the key was last seen to
// hold it, or, not seen yet, WithNewLayoutFirst says so.
func (b *Board[E, I, R, W, X]) newFirst() bool {
	h := b.held.v.Load()
	return h == heldNew || h == heldUnknown && b.core.newLayoutFirst
}

func (b *Board[E, I, R, W, X]) heldBy(view *Board[E, I, R, W, X]) int32 {
	if view == b {
		return heldNew
	}
	return heldPrevious
}

// Integer is an integer type of a field.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// ConvertInt returns v as a To, and false when To cannot hold it.
func ConvertInt[To, From Integer](v From) (To, bool) {
	t := To(v)
	return t, From(t) == v && (v < 0) == (t < 0)
}

// NotInPreviousValue is the error of a value of field the previous layout (fingerprint
// layout) cannot hold, why saying why.
func NotInPreviousValue(layout, field string, value any, why string) error {
	return &PreviousLayoutError{Layout: layout, Field: field, Value: quote.Short(fmt.Sprint(value)), Why: why}
}

// Via is how a board's view in the layout its layout replaces reads and writes its entries:
// converted from and to the previous layout's, with that layout's codec (Decoding's fields of
// the same names). DecodeData is nil where the previous layout has no data; ScoreOfP is that
// layout's, which its bands' and updates' P are scores of; TiedPlace, the place of a tie in
// that layout (a ShardedBoard's competition ranks), nil where the layout is not sharded.
type Via[E any] struct {
	Decode     func(score float64, member string) (E, error)
	DecodeData func(e *E, data string) error
	Encode     func(e E) (score float64, member string, _ error)
	EntryArgs  func(season *Season, e E, args []any) ([]any, error)
	ScoreOfP   func(p uint64) float64
	TiedPlace  func(e E, tied int) (float64, string, error)
}

// Via is d with the codec v gives: the decoding of a board's view in the previous layout.
func (d *Decoding[E, I, R, W, X]) Via(v Via[E]) *Decoding[E, I, R, W, X] {
	c := *d
	c.Decode, c.DecodeData, c.Encode, c.EntryArgs, c.ScoreOfP = v.Decode, v.DecodeData, v.Encode, v.EntryArgs, v.ScoreOfP
	c.TiedPlace = v.TiedPlace
	return &c
}

// ClampRange is [lo, hi] (bounds of a field of a layout) within [min, max] (the range of the
// same field in the layout it replaces), as that field's values: the entries of a board in the
// previous layout whose field lies in [lo, hi] are exactly those in the range it returns, and
// false says there are none.
func ClampRange[To, From Integer](lo, hi From, min, max To) (To, To, bool) {
	if less(hi, min) || less(max, lo) || less(hi, lo) {
		return 0, 0, false
	}
	plo, phi := min, max
	if !less(lo, min) {
		plo = To(lo)
	}
	if !less(max, hi) {
		phi = To(hi)
	}
	return plo, phi, true
}

// less compares integers of any two types exactly.
func less[A, B Integer](a A, b B) bool {
	switch {
	case a < 0 && b >= 0:
		return true
	case a >= 0 && b < 0:
		return false
	case a < 0: // both negative: int64 holds both
		return int64(a) < int64(b)
	}
	return uint64(a) < uint64(b)
}
