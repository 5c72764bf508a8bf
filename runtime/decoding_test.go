package runtime

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodingIDs: text ids are checked against the layout's length, every integer is an id,
// and both are written as the board's members write them.
func TestDecodingIDs(t *testing.T) {
	text := &Decoding[struct{}, string, struct{}, struct{}, struct{}]{IDName: "PlayerID", IDMaxBytes: 4}
	for _, id := range []string{"a", "abcd"} {
		if err := text.CheckID(id); err != nil {
			t.Errorf("CheckID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{"", "abcde"} {
		err := text.CheckID(id)
		var re *RangeError
		if !errors.Is(err, ErrOutOfRange) || !errors.As(err, &re) || !strings.Contains(err.Error(), "PlayerID") {
			t.Errorf("CheckID(%q) = %v, want a *RangeError naming PlayerID", id, err)
		}
	}
	num := &Decoding[struct{}, uint64, struct{}, struct{}, struct{}]{}
	if err := num.CheckID(0); err != nil {
		t.Errorf("CheckID(0) = %v, want nil: every integer is an id", err)
	}
	if got := IDText(uint64(18446744073709551615)); got != "18446744073709551615" {
		t.Errorf("IDText(max uint64) = %q", got)
	}
	if got := IDText("ann"); got != "ann" {
		t.Errorf("IDText(ann) = %q", got)
	}
}
