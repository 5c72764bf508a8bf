package luaemit

import (
	"fmt"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
)

// bits62Plan is how a bits62 script does exact arithmetic on the 62-bit pattern P in doubles,
// which hold 53 bits. The leading (most significant) score digits make a quotient Q = P div G
// below 2^53, computed with plain doubles; the remaining (wide) digits, whose radices multiply
// to G, are divided out of P, or multiplied into it, by long arithmetic on three limbs that
// struct reads straight from the pattern's eight bytes. Few wide digits and large limbs keep
// the scripts' work per update to a handful of operations.
type bits62Plan struct {
	Narrow int    // how many leading score digits Q holds
	High   string // the product of their radices: every valid Q is below it (at most 2^53)
	Limbs  string // struct format of the pattern as three unsigned limbs, most significant first
	Base   string // 2^(8·bytes) of the two lower limbs
	Slots  string // a Lua table literal with one slot per score digit
}

// planBits62 takes as many leading digits into Q as 2^53 allows, and sizes the lower limbs as
// large as the widest remaining radix R allows: long division keeps remainder·Base + limb
// below R·Base, and long multiplication limb·R + carry below R·Base, so R·Base ≤ 2^53 keeps
// every step exact. The top limb (at most 6 bytes, so below 2^48) takes the rest.
func planBits62(l *layout.Layout) bits62Plan {
	fields := l.ScoreFields()
	narrow, high := 0, uint64(1)
	for _, f := range fields {
		r := f.MaxDigit + 1
		if r > (1<<53)/high {
			break
		}
		narrow, high = narrow+1, high*r
	}
	widest := uint64(1)
	for _, f := range fields[narrow:] {
		widest = max(widest, f.MaxDigit+1)
	}
	bytes := 3
	for bytes > 1 && widest > 1<<(53-8*bytes) {
		bytes--
	}
	return bits62Plan{
		Narrow: narrow,
		High:   num(high),
		Limbs:  fmt.Sprintf("'>I%dI%dI%d'", 8-2*bytes, bytes, bytes),
		Base:   num(1 << (8 * bytes)),
		Slots:  "{" + strings.TrimSuffix(strings.Repeat("0, ", len(fields)), ", ") + "}",
	}
}
