package layout_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// randomKey draws a key in the field's range, often at or next to an edge.
func randomKey(rng *rand.Rand, f *layout.Field) uint64 {
	span := f.Span()
	switch rng.IntN(6) {
	case 0:
		return f.Lo
	case 1:
		return f.Hi
	case 2:
		return f.Lo + min(span, 1)
	case 3:
		return f.Hi - min(span, 1)
	}
	if span == math.MaxUint64 {
		return rng.Uint64()
	}
	return f.Lo + rng.Uint64N(span+1)
}

// randomID draws an id the layout accepts: bytes of every kind (separators, NUL, 0xff) for
// string ids, canonical decimals for uint64 ids.
func randomID(rng *rand.Rand, l *layout.Layout) string {
	if l.IDType == layout.IDUint64 {
		switch rng.IntN(4) {
		case 0:
			return "0"
		case 1:
			return strconv.FormatUint(math.MaxUint64, 10)
		case 2:
			return strconv.FormatUint(rng.Uint64N(1000), 10)
		}
		return strconv.FormatUint(rng.Uint64()>>rng.IntN(64), 10)
	}
	n := 1 + rng.IntN(min(l.MaxBytes, 12))
	if rng.IntN(20) == 0 {
		n = l.MaxBytes
	}
	alphabet := []byte("ab:|/#-.~>\x00\xff0129Zz")
	b := make([]byte, n)
	for i := range b {
		if rng.IntN(3) == 0 {
			b[i] = byte(rng.IntN(256))
		} else {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
	}
	return string(b)
}

// randomEntries draws n entries, with many ties on fields (so ids and later fields decide).
func randomEntries(rng *rand.Rand, l *layout.Layout, n int) []layout.Entry {
	out := make([]layout.Entry, 0, n)
	for len(out) < n {
		e := layout.Entry{ID: randomID(rng, l), Keys: make([]uint64, len(l.Fields))}
		for i, f := range l.Fields {
			e.Keys[i] = randomKey(rng, f)
		}
		if len(out) > 0 && rng.IntN(3) == 0 { // a near copy of an earlier entry
			prev := out[rng.IntN(len(out))]
			copy(e.Keys, prev.Keys)
			if len(e.Keys) > 0 && rng.IntN(2) == 0 {
				i := rng.IntN(len(e.Keys))
				e.Keys[i] = randomKey(rng, l.Fields[i])
			}
		}
		out = append(out, e)
	}
	return out
}

// reference orders entries by the fields' values (desc: higher first, asc: lower first), then
// by id bytes, higher first: the order a board is meant to have, stated without digits.
func reference(l *layout.Layout, a, b layout.Entry) int {
	for i, f := range l.Fields {
		ka, kb := a.Keys[i], b.Keys[i]
		if ka == kb {
			continue
		}
		first := ka > kb // keys order like values
		if f.Order == layout.Asc {
			first = !first
		}
		if first {
			return -1
		}
		return 1
	}
	if l.IDOrder == layout.Asc { // the smaller id first: a uint64 id by value
		if l.IDType == layout.IDUint64 {
			x, _ := strconv.ParseUint(a.ID, 10, 64)
			y, _ := strconv.ParseUint(b.ID, 10, 64)
			return cmpU(x, y)
		}
		return bytes.Compare([]byte(a.ID), []byte(b.ID))
	}
	return -bytes.Compare([]byte(a.ID), []byte(b.ID))
}

func cmpU(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

type encoded struct {
	score  float64
	member string
}

// redisOrder is ZREVRANGE's order: score descending, then member bytes descending.
func redisOrder(a, b encoded) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	}
	return -strings.Compare(a.member, b.member)
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func entryEqual(a, b layout.Entry) bool { return a.ID == b.ID && slices.Equal(a.Keys, b.Keys) }

// TestCodecProperties runs the interpreted codec over random entries of random schemas (and
// every golden schema): Decode inverts Encode, Compare agrees with Redis's order and with the
// reference order of the fields, and out-of-range input is refused with ErrOutOfRange.
func TestCodecProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var layouts []*layout.Layout
	for _, src := range goldenSchemas(t) {
		layouts = append(layouts, mustParse(t, string(src)))
	}
	for i := 0; i < 400; i++ {
		layouts = append(layouts, mustParse(t, string(oracle.RandomSchema(rng, "p"))))
	}
	for i := 0; i < 200; i++ {
		layouts = append(layouts, mustParse(t, string(oracle.RandomBits62Schema(rng, "p"))))
	}
	for _, l := range layouts {
		entries := randomEntries(rng, l, 40)
		enc := make([]encoded, len(entries))
		for i, e := range entries {
			score, member, err := l.Encode(e)
			if err != nil {
				t.Fatalf("%s\nEncode(%v): %v", l.Canonical, e, err)
			}
			if math.IsNaN(score) || score < 0 || math.Signbit(score) || math.IsInf(score, 0) {
				t.Fatalf("Encode(%v) score %v", e, score)
			}
			if !l.HasPrefix() && member != e.ID || member[min(len(member), l.PrefixLen):] != l.IDText(e.ID) || len(member) > l.MaxMemberBytes() ||
				l.IDOrder == layout.Desc && l.IDText(e.ID) != e.ID {
				t.Fatalf("Encode(%v) member %q (prefix %d)", e, member, l.PrefixLen)
			}
			back, err := l.Decode(score, member)
			if err != nil || !entryEqual(back, e) {
				t.Fatalf("%s\nDecode(Encode(%v)) = %v, %v (score %v member %q)", l.Canonical, e, back, err, score, member)
			}
			enc[i] = encoded{score, member}
		}
		for i := range entries {
			for j := range entries {
				c := sign(l.Compare(entries[i], entries[j]))
				if r := sign(redisOrder(enc[i], enc[j])); c != r {
					t.Fatalf("%s\nCompare(%v, %v) = %d but Redis orders (%v %q) vs (%v %q) as %d", l.Canonical, entries[i], entries[j], c, enc[i].score, enc[i].member, enc[j].score, enc[j].member, r)
				}
				if r := reference(l, entries[i], entries[j]); c != r {
					t.Fatalf("%s\nCompare(%v, %v) = %d, reference order %d", l.Canonical, entries[i], entries[j], c, r)
				}
			}
		}
		checkOutOfRange(t, l, entries[0])
	}
}

// checkOutOfRange: a key just outside any field's range, a wrong number of keys, or a bad id
// is refused by Encode with an error matching ErrOutOfRange.
func checkOutOfRange(t *testing.T, l *layout.Layout, good layout.Entry) {
	t.Helper()
	refuse := func(e layout.Entry, what string) {
		t.Helper()
		if s, m, err := l.Encode(e); !errors.Is(err, rankgenrt.ErrOutOfRange) {
			t.Fatalf("%s\nEncode with %s = %v %q, %v; want ErrOutOfRange", l.Canonical, what, s, m, err)
		}
	}
	for i, f := range l.Fields {
		for _, k := range []uint64{f.Lo - 1, f.Hi + 1, 0, math.MaxUint64} {
			if k >= f.Lo && k <= f.Hi || k == f.Lo-1 && f.Lo == 0 || k == f.Hi+1 && f.Hi == math.MaxUint64 {
				continue
			}
			e := layout.Entry{ID: good.ID, Keys: slices.Clone(good.Keys)}
			e.Keys[i] = k
			refuse(e, fmt.Sprintf("%s key %d outside [%d, %d]", f.Name, k, f.Lo, f.Hi))
			var re *rankgenrt.RangeError
			if _, _, err := l.Encode(e); !errors.As(err, &re) || re.Field != f.Name {
				t.Fatalf("Encode error %v does not name field %s", err, f.Name)
			}
		}
	}
	refuse(layout.Entry{ID: good.ID, Keys: good.Keys[:len(good.Keys)-1]}, "one key short")
	refuse(layout.Entry{ID: good.ID, Keys: append(slices.Clone(good.Keys), 0)}, "one key too many")
	var bad []string
	if l.IDType == layout.IDUint64 {
		bad = []string{"", "01", "-1", "+1", " 1", "1 ", "1e3", "0x10", "18446744073709551616", "abc"}
	} else {
		bad = []string{"", strings.Repeat("x", l.MaxBytes+1)}
	}
	for _, id := range bad {
		refuse(layout.Entry{ID: id, Keys: good.Keys}, fmt.Sprintf("id %q", id))
	}
}

// TestDecodeGarbage: scores and members this layout cannot have produced are refused with
// ErrBadScore or ErrBadMember, never a panic; and whatever Decode accepts re-encodes to exactly
// its input, so a layout never reads a pair it would not write.
func TestDecodeGarbage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var layouts []*layout.Layout
	for _, src := range goldenSchemas(t) {
		layouts = append(layouts, mustParse(t, string(src)))
	}
	for i := 0; i < 300; i++ {
		layouts = append(layouts, mustParse(t, string(oracle.RandomSchema(rng, "p"))))
	}
	for i := 0; i < 150; i++ {
		layouts = append(layouts, mustParse(t, string(oracle.RandomBits62Schema(rng, "p"))))
	}
	for _, l := range layouts {
		for _, e := range randomEntries(rng, l, 10) {
			score, member, err := l.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			checkGarbage(t, l, score, member)
			for i := 0; i < 30; i++ {
				s, m := mutate(rng, l, score, member)
				decodeStrict(t, l, s, m)
			}
		}
	}
}

// decodeStrict decodes (s, m): an error must be typed; a success must re-encode to (s, m).
func decodeStrict(t *testing.T, l *layout.Layout, s float64, m string) (layout.Entry, error) {
	t.Helper()
	e, err := l.Decode(s, m)
	if err != nil {
		if !errors.Is(err, rankgenrt.ErrBadScore) && !errors.Is(err, rankgenrt.ErrBadMember) {
			t.Fatalf("Decode(%v, %q) error %v is neither ErrBadScore nor ErrBadMember", s, m, err)
		}
		return e, err
	}
	s2, m2, err2 := l.Encode(e)
	if err2 != nil || s2 != s || m2 != m {
		t.Fatalf("%s\nDecode(%v, %q) accepted %v, which encodes to %v %q, %v", l.Canonical, s, m, e, s2, m2, err2)
	}
	return e, nil
}

// checkGarbage tries the named kinds of bad input around one good encoding.
func checkGarbage(t *testing.T, l *layout.Layout, score float64, member string) {
	t.Helper()
	badScore := func(s float64, what string) {
		t.Helper()
		if _, err := decodeStrict(t, l, s, member); !errors.Is(err, rankgenrt.ErrBadScore) {
			t.Fatalf("%s\nDecode of %s (%v) = %v; want ErrBadScore", l.Canonical, what, s, err)
		}
	}
	badMember := func(m, what string) {
		t.Helper()
		if _, err := decodeStrict(t, l, score, m); !errors.Is(err, rankgenrt.ErrBadMember) {
			t.Fatalf("%s\nDecode of %s (%q) = %v; want ErrBadMember", l.Canonical, what, m, err)
		}
	}
	badScore(math.NaN(), "NaN")
	badScore(math.Inf(1), "+Inf")
	badScore(math.Inf(-1), "-Inf")
	badScore(-1, "a negative score")
	badScore(-math.SmallestNonzeroFloat64, "a tiny negative score")
	badScore(l.ScoreOf(l.ScoreRadix-1)*2+1, "a score beyond the radix")
	if l.ScoreRadix < 1<<53 || l.Score == layout.ScoreBits62 {
		badScore(l.ScoreOf(l.ScoreRadix), "the first score beyond the radix")
	}
	if l.Score == layout.ScoreInteger && score < 1<<51 {
		badScore(score+0.5, "a non-integer score")
	}
	if l.Score == layout.ScoreDecimal {
		p, _ := l.POf(score)
		if up := math.Nextafter(score, math.Inf(1)); p+1 >= l.ScoreRadix || up != l.ScoreOf(p+1) {
			badScore(up, "a score between two decimal values")
		}
	}
	// A score digit beyond its field's span (the radix is wider than the range).
	if p, err := l.POf(score); err == nil {
		for _, f := range l.ScoreFields() {
			if f.Span() < f.MaxDigit {
				d := p / f.Weight % (f.MaxDigit + 1)
				q := p - d*f.Weight + (f.Span()+1)*f.Weight
				badScore(l.ScoreOf(q), fmt.Sprintf("%s digit %d beyond span %d", f.Name, f.Span()+1, f.Span()))
			}
		}
	}

	// Member garbage.
	if l.PrefixLen > 0 {
		badMember(member[:l.PrefixLen-1], "a member shorter than the prefix")
		badMember(member[:l.PrefixLen], "a member with an empty id")
	}
	if l.IDType == layout.IDUint64 {
		id := member[l.PrefixLen:]
		for _, bad := range []string{"0" + id, id + "x", "-" + id, "18446744073709551616"} {
			badMember(member[:l.PrefixLen]+bad, "a bad uint64 id")
		}
	} else {
		badMember(member[:l.PrefixLen]+strings.Repeat("y", l.MaxBytes+1), "an id over max_bytes")
	}
	if !l.HasPrefix() {
		return
	}
	for _, f := range l.MemberFields() {
		text := member[f.Offset : f.Offset+f.TextWidth]
		with := func(t string) string { return member[:f.Offset] + t + member[f.Offset+f.TextWidth:] }
		if len(l.Separator) > 0 {
			end := f.Offset + f.TextWidth
			badMember(member[:end]+strings.Repeat("\x01", len(l.Separator))+member[end+len(l.Separator):], "a missing separator after "+f.Name)
		}
		for _, c := range []byte{' ', '+', '-', 'g', 'G', '/', ':', 0, 0xff} {
			badMember(with(string(c)+text[1:]), fmt.Sprintf("%q in %s", c, f.Name))
		}
		if f.Hex {
			badMember(with("A"+text[1:]), "upper-case hex in "+f.Name)
		} else {
			badMember(with("a"+text[1:]), "a hex digit in decimal "+f.Name)
		}
		// Beyond the span: the largest text the width holds, when it is not a digit of the range.
		base := uint64(10)
		if f.Hex {
			base = 16
		}
		if top := strings.Repeat(map[bool]string{true: "f", false: "9"}[f.Hex], f.TextWidth); f.TextWidth < 16 || base == 10 {
			if v, _ := strconv.ParseUint(top, int(base), 64); v > f.Span() {
				badMember(with(top), "the largest text of "+f.Name+" beyond its span")
			}
		}
		if f.Span() < f.MaxDigit {
			s := strconv.FormatUint(f.Span()+1, int(base))
			if len(s) <= f.TextWidth {
				badMember(with(strings.Repeat("0", f.TextWidth-len(s))+s), f.Name+" digit beyond its span")
			}
		}
	}
}

// mutate derives a nearby (score, member) pair: perturbed score, flipped, cut or inserted bytes.
func mutate(rng *rand.Rand, l *layout.Layout, score float64, member string) (float64, string) {
	switch rng.IntN(8) {
	case 0:
		score = math.Nextafter(score, math.Inf(1))
	case 1:
		score = math.Nextafter(score, math.Inf(-1))
	case 2:
		score += float64(rng.IntN(5) - 2)
	case 3:
		score = math.Float64frombits(rng.Uint64())
	case 4:
		score = l.ScoreOf(rng.Uint64N(l.ScoreRadix))
	}
	b := []byte(member)
	switch rng.IntN(6) {
	case 0:
		if len(b) > 0 {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
	case 1:
		if len(b) > 0 {
			b[rng.IntN(len(b))] = "0123456789abcdefABCDEF:|"[rng.IntN(24)]
		}
	case 2:
		b = b[:rng.IntN(len(b)+1)]
	case 3:
		i := rng.IntN(len(b) + 1)
		b = append(b[:i:i], append([]byte{"09af:"[rng.IntN(5)]}, b[i:]...)...)
	}
	return score, string(b)
}

// TestFingerprint: stable across parses and spellings; changes with every property that
// decides the stored encoding; unchanged by names, docs and update operations.
func TestFingerprint(t *testing.T) {
	const base = `
package: arena
doc: Weekly.
id: {name: PlayerID, max_bytes: 64}
fields:
  - {name: Points, type: uint, bits: 20, order: desc, update: [add]}
  - {name: Tier, type: enum, values: [bronze, silver, gold], order: desc}
  - {name: Level, type: uint, digits: 3, order: desc}
  - {name: ReachedAt, type: time, unit: s, epoch: 2026-01-01T00:00:00Z, bits: 24, order: asc, stamp: server}
  - {name: Wins, type: uint, bits: 12, order: desc, in: member}
`
	fp := mustParse(t, base).Fingerprint
	if len(fp) != 16 || strings.Trim(fp, "0123456789abcdef") != "" {
		t.Fatalf("fingerprint %q is not 16 hex digits", fp)
	}
	if again := mustParse(t, base).Fingerprint; again != fp {
		t.Fatalf("two parses differ: %s %s", fp, again)
	}
	edit := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("%q not in the base schema", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	same := map[string]string{
		"package":                    edit("package: arena", "package: ladder"),
		"doc":                        edit("doc: Weekly.", "doc: Monthly."),
		"field name":                 edit("name: Points", "name: Score"),
		"enum type name":             edit("name: Tier", "name: League"),
		"id name":                    edit("name: PlayerID", "name: UserID"),
		"max_bytes":                  edit("max_bytes: 64", "max_bytes: 100"),
		"update ops":                 edit("update: [add]", "update: [add, max, set]"),
		"overflow":                   edit("update: [add]", "update: [add], overflow: saturate"),
		"stamp":                      edit("stamp: server", "stamp: client"),
		"comments":                   "# a comment\n" + base,
		"key order":                  edit("{name: Points, type: uint, bits: 20, order: desc", "{order: desc, bits: 20, type: uint, name: Points"),
		"epoch zone":                 edit("epoch: 2026-01-01T00:00:00Z", "epoch: 2026-01-01T02:00:00+02:00"),
		"min for epoch":              edit("epoch: 2026", "min: 2026"),
		"score digits as a range":    edit("digits: 3", "max: 999"),
		"explicit default":           edit("order: desc, update: [add]}", "order: desc, update: [add], in: score}"),
		"sharded":                    "sharded: true\n" + base,
		"id order desc, the default": edit("{name: PlayerID, max_bytes: 64}", "{name: PlayerID, max_bytes: 64, order: desc}"),
	}
	if !mustParse(t, same["sharded"]).Sharded || mustParse(t, base).Sharded || mustParse(t, "sharded: false\n"+base).Sharded {
		t.Error("sharded: true does not set Layout.Sharded, or its absence or false does")
	}
	for what, src := range same {
		if got := mustParse(t, src).Fingerprint; got != fp {
			t.Errorf("changing only the %s changed the fingerprint", what)
		}
	}
	differ := map[string]string{
		"width":              edit("bits: 20", "bits: 21"),
		"order":              edit("bits: 20, order: desc", "bits: 20, order: asc"),
		"epoch":              edit("epoch: 2026-01-01T00:00:00Z", "epoch: 2026-01-01T00:00:01Z"),
		"unit":               edit("unit: s", "unit: ms"),
		"placement":          edit("digits: 3, order: desc}", "digits: 3, order: desc, in: member}"),
		"separator":          "separator: \"|\"\n" + base,
		"score kind":         "score: decimal\ndecimal_places: 3\n" + base,
		"enum count":         edit("[bronze, silver, gold]", "[bronze, silver, gold, platinum]"),
		"enum order":         edit("[bronze, silver, gold]", "[bronze, gold, silver]"),
		"id type":            edit("{name: PlayerID, max_bytes: 64}", "{name: PlayerID, type: uint64}"),
		"id order":           edit("{name: PlayerID, max_bytes: 64}", "{name: PlayerID, max_bytes: 64, order: asc}"),
		"range":              edit("bits: 20, order", "bits: 20, max: 1000, order"),
		"member width kind":  edit("bits: 12, order: desc, in: member", "max: 4095, order: desc, in: member"),
		"time anchor at end": edit("epoch: 2026-01-01T00:00:00Z", "max: 2026-01-01T00:00:00Z"),
		"a field more":       base + "  - {name: Paid, type: bool, order: desc}\n",
		"field kind":         edit("{name: Level, type: uint, digits: 3, order: desc}", "{name: Level, type: int, digits: 3, min: 0, order: desc}"),
	}
	seen := map[string]string{fp: "base"}
	for what, src := range differ {
		got := mustParse(t, src).Fingerprint
		if prev, dup := seen[got]; dup {
			t.Errorf("changing the %s gives the fingerprint of %s", what, prev)
		}
		seen[got] = what
	}
	// Decimal places alone.
	d3 := mustParse(t, "score: decimal\ndecimal_places: 3\n"+base).Fingerprint
	d4 := mustParse(t, "score: decimal\ndecimal_places: 4\n"+base).Fingerprint
	if d3 == d4 {
		t.Error("decimal_places 3 and 4 have one fingerprint")
	}
}
