package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestChangeErrors: a change list refused in Go matches ErrBadChange and no other sentinel,
// and says which field and how to fix it.
func TestChangeErrors(t *testing.T) {
	twice, zero := FieldTwiceError("Laps"), ZeroChangeError()
	for _, err := range []error{twice, zero} {
		if !errors.Is(err, ErrBadChange) {
			t.Errorf("%v does not match ErrBadChange", err)
		}
		for _, other := range []error{ErrOutOfRange, ErrOverflow, ErrNotFound, ErrLayoutMismatch, ErrBadScore, ErrBadMember} {
			if errors.Is(err, other) {
				t.Errorf("%v matches %v too", err, other)
			}
		}
	}
	var ce *ChangeError
	if !errors.As(twice, &ce) || ce.Field != "Laps" || !strings.Contains(twice.Error(), "Laps is changed twice") {
		t.Errorf("FieldTwiceError = %v; want a *ChangeError naming Laps", twice)
	}
	if !strings.Contains(zero.Error(), "constructors") {
		t.Errorf("ZeroChangeError = %q; want it to say how changes are made", zero)
	}
}
