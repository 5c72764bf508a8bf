package runtime

import "errors"

// ErrBadChange: a change list of Board.Update or UpdateMany that the board cannot apply as one
// write: it names a field twice, or holds a zero Change (one not made by a constructor).
// Nothing was sent. Changes of distinct fields never depend on their order; two changes of one
// field would (add then set is not set then add), so they are refused rather than guessed.
var ErrBadChange = errors.New("rankgen: bad change list")

// ChangeError reports a change list that names a field twice or holds a zero Change. It
// matches ErrBadChange.
type ChangeError struct {
	Field  string // the field named twice; "" for a zero Change
	Reason string
}

func (e *ChangeError) Error() string {
	if e.Field == "" {
		return "rankgen: bad change list: " + e.Reason
	}
	return "rankgen: bad change list: " + e.Field + " " + e.Reason
}

// Is makes errors.Is(err, ErrBadChange) true.
func (e *ChangeError) Is(target error) bool { return target == ErrBadChange }

// FieldTwiceError reports a change list with two changes of field: combine them into one.
func FieldTwiceError(field string) error {
	return &ChangeError{Field: field, Reason: "is changed twice; give each field at most one change per id (sum the deltas)"}
}

// ZeroChangeError reports a zero Change in a change list: changes are made by the generated
// constructors (AddPoints(3), …), never as a literal.
func ZeroChangeError() error {
	return &ChangeError{Reason: "a zero Change; make changes with the generated constructors"}
}

// Change is one field update of a change list (a generated Board's Update and UpdateMany),
// made by the generated package's functions named after it (AddPoints(3), SetData(d), …),
// over the package's Entry, so that a list of one layout's changes cannot reach another's
// board. A zero Change is refused.
type Change[E any] struct {
	field string   // the field it updates: a list changes each field at most once
	slot  int      // the place of its value among its id's arguments; 0 = a zero Change
	value any      // the delta or the new digit, as the changes function takes it
	err   error    // a value outside the field's range, returned by Update
	entry func(*E) // what the list's result entry takes of it (SetData: its data), or nil

	// previous is the same change in the layout E's replaces (a Change of its Entry), or nil;
	// previousErr, why that layout cannot hold its value.
	previous    any
	previousErr error
}

// NewChange is the change of field at slot of an id's arguments, sending value; err, when not
// nil, refuses the list it is in before anything is sent.
func NewChange[E any](field string, slot int, value any, err error) Change[E] {
	return Change[E]{field: field, slot: slot, value: value, err: err}
}

// ChangeTo is NewChange of a set, max or min to v: its value is v's digit, by digit (the
// package's digitOf<Field>), or, out of range, the error that refuses its list.
func ChangeTo[E, V any](field string, slot int, digit func(V) (uint64, error), v V) Change[E] {
	d, err := digit(v)
	return NewChange[E](field, slot, d, err)
}

// NewEntryChange is NewChange for a change that also sets what the list's result entry holds
// of it (SetData: the data, which the changes function does not return).
func NewEntryChange[E any](field string, slot int, value any, entry func(*E)) Change[E] {
	return Change[E]{field: field, slot: slot, value: value, entry: entry}
}

// changeGroup lays one id's change list out as the changes function takes it: the id, then
// per field update (slots of them in all, the id's included) its value, or "" where the list
// lacks it. A value out of range, a field changed twice or a zero Change refuses the list.
func changeGroup[E any](id any, slots int, changes []Change[E]) ([]any, error) {
	g := make([]any, slots)
	g[0] = id
	for k := 1; k < slots; k++ {
		g[k] = ""
	}
	for j, c := range changes {
		switch {
		case c.err != nil:
			return nil, c.err
		case c.slot == 0:
			return nil, ZeroChangeError()
		}
		for _, prev := range changes[:j] {
			if prev.field == c.field {
				return nil, FieldTwiceError(c.field)
			}
		}
		g[c.slot] = c.value
	}
	return g, nil
}

// WithPrevious is c carrying the same change in the layout its layout replaces (previous, a
// Change of that layout's Entry), or why that layout cannot take it (err): what a generated
// Update sends where the board still holds the previous layout.
func (c Change[E]) WithPrevious(previous any, err error) Change[E] {
	c.previous, c.previousErr = previous, err
	if err != nil {
		c.previous = nil
	}
	return c
}

// ChangesIn is changes as the previous layout's (P's) changes, or an error matching
// ErrNotInPreviousLayout for the first one that layout cannot apply alike (layout: its
// fingerprint) or whose value it cannot hold.
func ChangesIn[P, E any](layout string, changes []Change[E]) ([]Change[P], error) {
	out := make([]Change[P], 0, len(changes))
	for _, c := range changes {
		if c.err != nil {
			return nil, c.err
		}
		if c.previousErr != nil {
			return nil, NotInPrevious(layout, c.previousErr)
		}
		p, ok := c.previous.(Change[P])
		if !ok {
			return nil, &PreviousLayoutError{Layout: layout, Field: c.field, Value: "(this change)", Why: "the previous layout applies this update otherwise (another range, stamp or zero entry), or lacks it"}
		}
		out = append(out, p)
	}
	return out, nil
}
