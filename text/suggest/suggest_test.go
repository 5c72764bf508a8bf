package suggest

import (
	"strings"
	"testing"
	"time"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"package", "package", 0},
		{"pakage", "package", 1},   // deletion
		{"packagee", "package", 1}, // insertion
		{"packege", "package", 1},  // substitution
		{"pakcage", "package", 1},  // transposition of neighbours
		{"ab", "ba", 1},
		{"ca", "abc", 3}, // optimal string alignment: a transposed pair is not edited again
		{"kitten", "sitting", 3},
		{"gnerate", "generate", 1},
		{"explian", "explain", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"package", "doc", "id", "separator", "score", "decimal_places", "fields"}
	for _, c := range []struct {
		s     string
		known []string
		want  string
	}{
		{"pakcage", keys, "package"},
		{"PACKAGE", keys, "package"},   // case-insensitive
		{"fieldz", keys, "fields"},     // two edits allowed above 4 bytes
		{"sepratr", keys, "separator"}, // two deletions
		{"dc", keys, "doc"},            // one edit at 4 bytes or fewer
		{"dx", keys, ""},               // two edits at 2 bytes is no typo
		{"banana", keys, ""},
		{"Pointz", []string{"PlayerID", "Points"}, "Points"}, // the known spelling is returned
		{"ab", []string{"aa", "bb"}, "aa"},                   // ties: the earlier word
		{"", keys, ""},
	} {
		if got := Closest(c.s, c.known); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}

// TestClosestHugeInput: a megabyte of input costs no quadratic work and suggests nothing.
func TestClosestHugeInput(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	start := time.Now()
	if got := Closest(huge, []string{"package", "fields"}); got != "" {
		t.Errorf("Closest(1 MB) = %q", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Closest(1 MB) took %v", d)
	}
}
