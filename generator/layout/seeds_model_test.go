package layout_test

import (
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// A bool may take a width: seed 002's decimal split writes the paid flag as one decimal digit
// (100.1290072179), so the flag's radix is 10, not 2.
func TestBoolWithDigits(t *testing.T) {
	src := `
package: flags
id: {name: ID}
fields:
  - {name: Points, type: uint, digits: 3, order: desc}
  - {name: Paid, type: bool, digits: 1, order: desc}
  - {name: Late, type: bool, bits: 2, order: asc, in: member}
`
	l, err := layout.Parse("flags.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	paid, late := l.Field("Paid"), l.Field("Late")
	if paid.MaxDigit != 9 || paid.Weight != 1 || l.Field("Points").Weight != 10 {
		t.Fatalf("Paid radix %d weight %d, Points weight %d; want 10, 1, 10", paid.MaxDigit+1, paid.Weight, l.Field("Points").Weight)
	}
	if late.MaxDigit != 3 || !late.Hex || late.TextWidth != 1 {
		t.Fatalf("Late radix %d hex %t width %d; want 4, true, 1", late.MaxDigit+1, late.Hex, late.TextWidth)
	}
	score, member, err := l.Encode(layout.Entry{ID: "a", Keys: []uint64{123, 1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if score != 1231 || member != "1:a" {
		t.Fatalf("Encode = %v %q; want 1231 \"1:a\"", score, member)
	}
	// A digit the flag cannot hold (2…9) is refused on decode.
	if _, err := l.Decode(1232, "1:a"); err == nil {
		t.Fatal("Decode(1232) accepted a Paid digit of 2")
	}
}

// When the score overflows, the message gives the radix product and the widest the leading
// field may be: seed 003 (raw × 10^13) and seed 004 (score << 32).
func TestScoreOverflowNamesTheFix(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`
package: s3
id: {name: ID}
fields:
  - {name: Raw, type: uint, digits: 3, order: desc, in: score}
  - {name: At, type: time, unit: s, digits: 13, min: 1970-01-01T00:00:00Z, max: 2038-01-19T03:14:07Z, order: asc, in: score}
`, "the radices multiply to 10000000000000000, above 9007199254740992) but a float64 score holds 53.0 bits exactly (2^53); narrow a field (e.g. Raw to max: 899,"},
		{`
package: s4
id: {name: ID}
fields:
  - {name: Points, type: uint, bits: 32, order: desc, in: score}
  - {name: At, type: time, unit: s, bits: 32, min: 1970-01-01T00:00:00Z, max: 2038-01-19T03:14:07Z, order: asc, in: score}
`, "(e.g. Points to bits: 21,"},
	} {
		_, err := layout.Parse("s.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse error = %v; want it to contain %q", err, c.want)
		}
	}
}
