// Package oracle holds test helpers shared by rankgen's property tests: random schemas that
// are valid by construction, so that generated code can be checked against the interpreted
// codec (generator/layout) on layouts nobody wrote by hand.
package oracle

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"time"
)

// RandomSchema returns the YAML text of a random, valid rankgen schema for package pkg. It
// covers every field kind (uint, int, bool, enum, time), every way of giving a width (bits,
// digits, min/max only, enum values), both orders, explicit and default placement (fields
// spill into the member when the score is full, or are put there with "in: member"), custom
// separators, string and uint64 ids with ties by id descending or ascending (id order: asc),
// integer and decimal scores, update operations, overflow and stamps, and the YAML shorthands
// the parser accepts. The same rng state gives the same
// text.
//
// The schema is valid by construction: the generator tracks each field's exact radix and the
// score's capacity (2^53, or the decimal bound for score: decimal) and places fields the way
// the layout engine does, so layout.Parse must accept every result.
func RandomSchema(rng *rand.Rand, pkg string) []byte {
	g := &schemaGen{rng: rng}
	return g.schema(pkg)
}

// RandomBits62Schema is RandomSchema with "score: bits62": a score of up to 62 bits, each
// score field at most 45 bits wide (wider fields spill into the member, as the layout places
// them).
func RandomBits62Schema(rng *rand.Rand, pkg string) []byte {
	g := &schemaGen{rng: rng, bits62: true}
	return g.schema(pkg)
}

type schemaGen struct {
	rng    *rand.Rand
	b      strings.Builder
	bits62 bool
}

// bits62Field is the widest radix a bits62 score field may have (layout.MaxBits62Radix).
var bits62Field = new(big.Int).Lsh(big.NewInt(1), 45)

func (g *schemaGen) line(format string, args ...any) {
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

func (g *schemaGen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *schemaGen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }

// between returns a uniform integer in [lo, hi].
func (g *schemaGen) between(lo, hi int) int { return lo + g.rng.IntN(hi-lo+1) }

// fieldNames is the pool of field and id names: exported, not reserved by the generated code,
// and such that no name equals another name followed by an enum value's CamelCase form.
var fieldNames = []string{
	"Points", "Wins", "Losses", "Kills", "Level", "Rating", "Streak", "Laps", "Elo", "Tier",
	"League", "Rank", "Paid", "Verified", "ReachedAt", "JoinedAt", "UpdatedAt", "Deadline",
	"Balance", "Delta", "Gold", "Gems", "Health", "Combo", "Medal", "Region", "Bonus", "Lap",
	"RaceTime", "Penalty", "Priority", "Season", "Stars", "Xp", "Q",
}

var idNames = []string{"PlayerID", "UserID", "ID", "Car", "Team", "Account", "Handle"}

// enumWords are enum value names; none is a CamelCase prefix clash with a field name above.
var enumWords = []string{
	"bronze", "silver", "platinum", "diamond", "master", "rookie", "pro", "elite", "none",
	"low", "mid", "high", "red", "green", "blue", "north", "south", "east", "west", "a", "b",
	"c", "x1", "x2", "v10", "tier_one", "tier_two", "_hidden", "9lives", "ok",
}

var separators = []string{":", ":", ":", "|", "/", "#", "::", "-", ".", "", "~>"}

// schema writes a random schema: the package, the score kind, the id, then the fields.
func (g *schemaGen) schema(pkg string) []byte {
	if g.chance(0.5) {
		g.line("# random schema")
	}
	g.line("package: %s", pkg)
	if g.chance(0.5) {
		g.line("doc: %q", "Random board number "+fmt.Sprint(g.rng.IntN(1000))+".")
	}
	limit := g.scoreKind()
	names := g.rng.Perm(len(fieldNames)) // drawn before the id: the random stream is part of the committed random boards
	g.id()
	if g.chance(0.5) {
		g.line("separator: %q", g.pick(separators...))
	}
	g.fields(names, limit)
	text := g.b.String()
	if g.chance(0.3) { // drawn last: the draws before it, and so the committed random boards, stay as they were
		text = idAsc(text)
	}
	return []byte(text)
}

// idAsc adds "order: asc" (ties by id ascending) to the id of a schema text written by id.
func idAsc(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "id: {"): // the flow form
			lines[i] = strings.TrimSuffix(line, "}\n") + ", order: asc}\n"
		case line == "id:\n": // the block form: its keys follow
			lines[i] = line + "  order: asc\n"
		case strings.HasPrefix(line, "id: "): // the shorthand, a name alone
			lines[i] = "id: {name: " + strings.TrimSpace(strings.TrimPrefix(line, "id: ")) + ", order: asc}\n"
		default:
			continue
		}
		break
	}
	return strings.Join(lines, "")
}

// scoreKind writes the score kind and returns the score's capacity (an independent statement
// of the bound in layout.scoreLimit: with 2^(m−1) < 10^w < 2^m, every P below 2^(53−m)·10^w
// maps to a double whose spacing is below 10^−w).
func (g *schemaGen) scoreKind() *big.Int {
	limit := new(big.Int).Lsh(big.NewInt(1), 53)
	if g.bits62 {
		g.line("score: bits62")
		limit = new(big.Int).Lsh(big.NewInt(1), 62)
	} else if g.chance(0.25) {
		w := g.between(1, 15)
		g.line("score: decimal")
		g.line("decimal_places: %d", w)
		pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(w)), nil)
		m := pow.BitLen()
		if c := new(big.Int).Mul(new(big.Int).Lsh(big.NewInt(1), uint(53-m)), pow); c.Cmp(limit) < 0 {
			limit = c
		}
	} else if g.chance(0.2) {
		g.line("score: integer")
	}
	return limit
}

// id writes the id, in one of the forms the schema accepts.
func (g *schemaGen) id() {
	idName := idNames[g.rng.IntN(len(idNames))]
	idUint := g.chance(0.3)
	switch {
	case idUint && g.chance(0.5):
		g.line("id: {name: %s, type: uint64}", idName)
	case idUint:
		g.line("id:")
		g.line("  name: %s", idName)
		g.line("  type: uint64")
	case g.chance(0.3):
		g.line("id: %s", idName)
	default:
		g.line("id:")
		g.line("  name: %s", idName)
		if g.chance(0.5) {
			g.line("  type: string")
		}
		if g.chance(0.6) {
			g.line("  max_bytes: %s", g.pick("1", "8", "16", "64", "200", "1000"))
		}
	}
}

// fields writes 1 to 6 fields; those that fit the score's capacity go there (unless drawn
// into the member), the rest spill into the member.
func (g *schemaGen) fields(names []int, limit *big.Int) {
	g.line("fields:")
	n := g.between(1, 6)
	product := big.NewInt(1)
	spilled := false
	for i := 0; i < n; i++ {
		name := fieldNames[names[i]]
		for {
			spec := g.field(name)
			next := new(big.Int).Mul(product, spec.radix)
			fits := !spilled && next.Cmp(limit) <= 0 && (!g.bits62 || spec.radix.Cmp(bits62Field) < 0)
			in, scored, ok := g.place(i, fits, &spilled)
			if !ok {
				continue // the leading field must fit: draw another
			}
			if scored {
				product = next
			}
			g.b.WriteString(spec.text)
			if in != "" {
				g.line("    in: %s", in)
			}
			break
		}
	}
}

// place draws where field i goes ("" = the default placement) given whether it fits the
// score, and reports whether it lands in the score; ok is false when a leading field does
// not fit.
func (g *schemaGen) place(i int, fits bool, spilled *bool) (in string, scored, ok bool) {
	switch {
	case *spilled:
		// After the first member field every field is in the member.
		if g.chance(0.3) {
			in = "member"
		}
	case i > 0 && g.chance(0.15):
		in, *spilled = "member", true
	case i == 0 && g.chance(0.03):
		in, *spilled = "member", true // a member-only layout: the score is always 0
	case fits:
		if g.chance(0.2) {
			in = "score"
		}
		return in, true, true
	case i == 0:
		return "", false, false
	default:
		*spilled = true // default placement spills the rest into the member
	}
	return in, false, true
}

type fieldSpec struct {
	text  string
	radix *big.Int
}

// field draws one field; its radix is exact.
func (g *schemaGen) field(name string) fieldSpec {
	var b strings.Builder
	w := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	w("  - name: %s", name)
	order := g.pick("desc", "asc")
	var radix *big.Int
	var ops []string
	kind := g.pick("uint", "uint", "int", "int", "bool", "enum", "time", "time")
	w("    type: %s", kind)
	switch kind {
	case "uint", "int":
		radix = g.number(w, kind == "int")
		ops = []string{"add", "max", "min", "set"}
	case "bool":
		radix = big.NewInt(2)
		ops = []string{"set"}
	case "enum":
		radix = g.enum(w)
		ops = []string{"max", "min", "set"}
	case "time":
		radix = g.timeField(w)
		ops = []string{"max", "min", "set"}
		if g.chance(0.3) {
			w("    stamp: %s", g.pick("client", "server"))
		}
	}
	w("    order: %s", order)
	if g.chance(0.5) {
		var chosen []string
		for _, i := range g.rng.Perm(len(ops))[:g.between(1, len(ops))] {
			chosen = append(chosen, ops[i])
		}
		if len(chosen) == 1 && g.chance(0.5) {
			w("    update: %s", chosen[0])
		} else {
			w("    update: [%s]", strings.Join(chosen, ", "))
		}
		for _, op := range chosen {
			if op == "add" && g.chance(0.5) {
				w("    overflow: %s", g.pick("error", "saturate"))
			}
		}
	}
	if g.chance(0.2) {
		w("    doc: %q", name+" of the entry.")
	}
	return fieldSpec{text: b.String(), radix: radix}
}

var (
	maxU64 = new(big.Int).SetUint64(^uint64(0))
	minI64 = big.NewInt(-1 << 63)
	maxI64 = big.NewInt(1<<63 - 1)
)

// number writes the width and range of a uint or int field and returns its radix.
func (g *schemaGen) number(w func(string, ...any), signed bool) *big.Int {
	floor, ceil := big.NewInt(0), maxU64
	if signed {
		floor, ceil = minI64, maxI64
	}
	// A value in [floor, ceil], biased towards small magnitudes.
	value := func() *big.Int {
		var v *big.Int
		switch g.rng.IntN(4) {
		case 0:
			v = big.NewInt(int64(g.between(0, 100)))
		case 1:
			v = big.NewInt(int64(g.rng.Uint64() >> g.between(1, 63)))
		case 2:
			v = new(big.Int).SetUint64(g.rng.Uint64())
		default:
			v = big.NewInt(int64(g.between(0, 1<<20)))
		}
		if signed && g.chance(0.5) {
			v.Neg(v)
		}
		if v.Cmp(floor) < 0 {
			v.Set(floor)
		}
		if v.Cmp(ceil) > 0 {
			v.Set(ceil)
		}
		return v
	}
	switch g.rng.IntN(3) {
	case 0: // bits
		n := g.width(64)
		w("    bits: %d", n)
		radix := new(big.Int).Lsh(big.NewInt(1), uint(n))
		g.rangeIn(w, radix, value, floor, ceil, !signed)
		return radix
	case 1: // digits
		n := g.width(19)
		w("    digits: %d", n)
		radix := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
		// An int with digits must be placed by min or max.
		g.rangeIn(w, radix, value, floor, ceil, !signed)
		return radix
	}
	// min/max only: the radix is the range's size (a uint may give max alone: min is 0).
	lo := value()
	span := new(big.Int).Rsh(new(big.Int).SetUint64(g.rng.Uint64()), uint(g.between(0, 64)))
	hi := new(big.Int).Add(lo, span)
	if hi.Cmp(ceil) > 0 {
		hi.Set(ceil)
	}
	if !signed && lo.Sign() == 0 && g.chance(0.5) {
		w("    max: %s", hi)
	} else {
		w("    min: %s", lo)
		w("    max: %s", hi)
	}
	return new(big.Int).Add(new(big.Int).Sub(hi, lo), big.NewInt(1))
}

// width draws a bits or digits count, mostly small so that several fields share the score.
func (g *schemaGen) width(max int) int {
	if g.chance(0.04) {
		return max
	}
	if g.chance(0.15) {
		return g.between(1, max)
	}
	return g.between(1, min(max, 24))
}

// rangeIn optionally writes min and/or max inside the radix. needNone tells whether the field
// may give neither (uint and int with bits may; int with digits may not).
func (g *schemaGen) rangeIn(w func(string, ...any), radix *big.Int, value func() *big.Int, floor, ceil *big.Int, unsigned bool) {
	last := new(big.Int).Sub(radix, big.NewInt(1))
	mayGiveNone := unsigned || isPow2(radix)
	mode := g.rng.IntN(4)
	if mode == 0 && !mayGiveNone {
		mode = 1
	}
	switch mode {
	case 0:
		return
	case 1: // min alone: the range runs R−1 above it (clipped at the type's edge)
		w("    min: %s", value())
	case 2: // max alone
		hi := value()
		if !unsigned {
			// The range runs R−1 below max; it must stay above the type's floor.
			if lowest := new(big.Int).Add(floor, last); hi.Cmp(lowest) < 0 {
				if lowest.Cmp(ceil) > 0 {
					w("    min: %s", floor)
					return
				}
				hi = lowest
			}
		} else if hi.Cmp(last) > 0 {
			hi = new(big.Int).Set(last) // a uint's range starts at 0 when only max is given
		}
		w("    max: %s", hi)
	default: // both, with hi − lo < R
		lo := value()
		span := g.below(radix)
		hi := new(big.Int).Add(lo, span)
		if hi.Cmp(ceil) > 0 {
			hi.Set(ceil)
		}
		w("    min: %s", lo)
		w("    max: %s", hi)
	}
}

func isPow2(x *big.Int) bool {
	return x.Sign() > 0 && new(big.Int).And(x, new(big.Int).Sub(x, big.NewInt(1))).Sign() == 0
}

// below returns a uniform random integer in [0, n), n > 0.
func (g *schemaGen) below(n *big.Int) *big.Int {
	words := (n.BitLen() + 63) / 64
	for {
		x := new(big.Int)
		for i := 0; i < words; i++ {
			x.Lsh(x, 64).Or(x, new(big.Int).SetUint64(g.rng.Uint64()))
		}
		x.Rsh(x, uint(words*64-n.BitLen()))
		if x.Cmp(n) < 0 {
			return x
		}
	}
}

// enum writes the values (and maybe a width that holds them) and returns the radix.
func (g *schemaGen) enum(w func(string, ...any)) *big.Int {
	k := g.between(1, 8)
	perm := g.rng.Perm(len(enumWords))[:k]
	vals := make([]string, k)
	for i, p := range perm {
		vals[i] = enumWords[p]
	}
	if g.chance(0.5) {
		w("    values: [%s]", strings.Join(vals, ", "))
	} else {
		w("    values:")
		for _, v := range vals {
			w("      - %s", v)
		}
	}
	switch {
	case g.chance(0.2):
		n := g.between(bitsFor(k), bitsFor(k)+4)
		w("    bits: %d", n)
		return new(big.Int).Lsh(big.NewInt(1), uint(n))
	case g.chance(0.15):
		n := 1
		if k > 9 {
			n = 2
		}
		w("    digits: %d", n)
		return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	}
	return big.NewInt(int64(k))
}

// bitsFor is the fewest bits that hold k values (at least 1).
func bitsFor(k int) int {
	n := 1
	for 1<<n < k {
		n++
	}
	return n
}

// timeField writes unit, anchor and width of a time field and returns its radix. Ranges stay
// between the years 1900 and 9999 so that every end is an RFC 3339 time.
func (g *schemaGen) timeField(w func(string, ...any)) *big.Int {
	unit := g.pick("s", "ms", "us")
	// per: units per second; maxBits, maxDigits: the widest radix that stays below year 9999.
	per, maxBits, maxDigits := int64(1), 32, 9
	switch unit {
	case "ms":
		per, maxBits, maxDigits = 1000, 42, 12
	case "us":
		per, maxBits, maxDigits = 1000000, 50, 15
	}
	w("    unit: %s", unit)
	at := func(units int64) time.Time {
		return time.Unix(units/per, units%per*(int64(time.Second)/per)).UTC()
	}
	// An instant between 1950 and 2150, in units since 1970.
	instant := func() int64 {
		return g.rng.Int64N(200*365*86400*per) - 20*365*86400*per
	}
	format := func(units int64) string {
		t := at(units)
		if g.chance(0.2) {
			t = t.In(time.FixedZone("", g.between(-12, 12)*3600))
		}
		return t.Format(time.RFC3339Nano)
	}
	var radix *big.Int
	switch g.rng.IntN(5) {
	case 0, 1, 2:
		n := g.between(4, maxBits)
		w("    bits: %d", n)
		radix = new(big.Int).Lsh(big.NewInt(1), uint(n))
	case 3:
		n := g.between(1, maxDigits)
		w("    digits: %d", n)
		radix = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	default: // epoch and max only: the radix is the range's size
		lo := instant()
		span := g.rng.Int64N(1 << uint(g.between(1, maxBits)))
		w("    epoch: %s", format(lo))
		w("    max: %s", format(lo+span))
		return big.NewInt(span + 1)
	}
	switch g.rng.IntN(4) {
	case 0, 1:
		w("    %s: %s", g.pick("epoch", "min"), format(instant()))
	case 2:
		w("    max: %s", format(instant()))
	default: // both ends, inside the radix
		lo := instant()
		span := g.below(radix).Int64()
		w("    epoch: %s", format(lo))
		w("    max: %s", format(lo+span))
	}
	return radix
}
