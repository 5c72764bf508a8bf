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
