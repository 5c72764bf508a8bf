package runtime

import (
	"errors"
	"testing"
)

// TestRollupLine: a line RollupLine writes reads back as its season and key (a key with
// spaces included); any other line is a reply rankgen never writes (ErrBadReply).
func TestRollupLine(t *testing.T) {
	s := Season{ID: -3600}
	key := RollupKey("{lb} weekly", "Points", RollupSum, 7, s)
	if id, got, err := ParseRollupLine(RollupLine(key, s)); err != nil || id != s.ID || got != key {
		t.Fatalf("ParseRollupLine(RollupLine(%q)) = %d, %q, %v", key, id, got, err)
	}
	for _, bad := range []string{"", "12", "12 ", "x key", " key"} {
		if _, _, err := ParseRollupLine(bad); !errors.Is(err, ErrBadReply) {
			t.Errorf("ParseRollupLine(%q) = %v; want ErrBadReply", bad, err)
		}
	}
	for op, want := range map[RollupOp]string{RollupSum: "sum", RollupMax: "max", RollupMin: "min", 0: "RollupOp(0)"} {
		if op.String() != want {
			t.Errorf("RollupOp(%d).String() = %q; want %q", int(op), op.String(), want)
		}
	}
}
