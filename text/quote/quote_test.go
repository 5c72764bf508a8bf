package quote

import (
	"strings"
	"testing"
)

func TestShort(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"alice", `"alice"`},
		{"a\x00\xff\n", `"a\x00\xff\n"`},
		{strings.Repeat("x", MaxShown), `"` + strings.Repeat("x", MaxShown) + `"`},
		{strings.Repeat("x", MaxShown+1), `"` + strings.Repeat("x", Cut) + `"… (65 bytes)`},
		// A cut inside "é" (2 bytes at 39…40) backs off to its start.
		{strings.Repeat("x", Cut-1) + "é" + strings.Repeat("y", 40), `"` + strings.Repeat("x", Cut-1) + `"… (81 bytes)`},
		// Invalid bytes are cut where they fall and shown escaped.
		{strings.Repeat("x", Cut-1) + "\xff\xfe" + strings.Repeat("y", 40), `"` + strings.Repeat("x", Cut-1) + `\xff"… (81 bytes)`},
	} {
		if got := Short(c.in); got != c.want {
			t.Errorf("Short(%.80q) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := Short(strings.Repeat("x", 50<<20)); len(got) > 100 {
		t.Errorf("Short(50 MB) is %d bytes", len(got))
	}
}
