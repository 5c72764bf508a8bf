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
// struct reads straight from the pattern's eight bytes. The scripts spell the digits out one by
// one with the radices as constants: this arithmetic is most of a bits62 update's own work.
type bits62Plan struct {
	Radices string // Lua table of the score digits' radices, most significant first
	High    string // the product of the leading digits' radices: every valid Q is below it (≤ 2^53)
	Limbs   string // struct format of the pattern as three unsigned limbs, most significant first
	Base    string // 2^(8·bytes) of the two lower limbs
	Wide    []planDigit
	Below   []planDigit // the leading digits but the first, least significant first
	Horner  string      // Lua expression of Q from the digits p[i]
	Checks  string      // Lua condition that some digit d<i> is beyond its field's span, or ""
	Digits  string      // Lua table constructor of the digits d1, d2, …
}

// planDigit is one score digit: its index in the table of digits (1-based) and its radix.
type planDigit struct {
	Index int
	Radix string
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
	p := bits62Plan{High: num(high), Horner: "p[1]"}
	widest := uint64(1)
	var checks, digits, radices []string
	for i, f := range fields {
		d := planDigit{Index: i + 1, Radix: num(f.MaxDigit + 1)}
		switch {
		case i >= narrow:
			p.Wide = append([]planDigit{d}, p.Wide...)
			widest = max(widest, f.MaxDigit+1)
		case i > 0:
			p.Below = append([]planDigit{d}, p.Below...)
			p.Horner = fmt.Sprintf("%s * %s + p[%d]", parenthesized(p.Horner), d.Radix, d.Index)
		}
		if f.Span() < f.MaxDigit { // a radix wider than the range: the digit is checked
			checks = append(checks, fmt.Sprintf("d%d > %d", i+1, f.Span()))
		}
		digits = append(digits, fmt.Sprintf("d%d", i+1))
		radices = append(radices, d.Radix)
	}
	bytes := 3
	for bytes > 1 && widest > 1<<(53-8*bytes) {
		bytes--
	}
	p.Limbs = fmt.Sprintf("'>I%dI%dI%d'", 8-2*bytes, bytes, bytes)
	p.Base = num(1 << (8 * bytes))
	p.Checks = strings.Join(checks, " or ")
	p.Digits = "{" + strings.Join(digits, ", ") + "}"
	p.Radices = "{" + strings.Join(radices, ", ") + "}"
	return p
}

// parenthesized wraps a sum in parentheses before it is multiplied.
func parenthesized(e string) string {
	if strings.Contains(e, " + ") {
		return "(" + e + ")"
	}
	return e
}

// WideUp is the wide digits most significant first: the order pattern multiplies them in.
func (p bits62Plan) WideUp() []planDigit {
	up := make([]planDigit, len(p.Wide))
	for i, d := range p.Wide {
		up[len(p.Wide)-1-i] = d
	}
	return up
}
