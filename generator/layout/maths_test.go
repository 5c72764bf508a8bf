package layout_test

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
	"gopkg.in/yaml.v3"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

func mustParse(t testing.TB, src string) *layout.Layout {
	t.Helper()
	l, err := layout.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse:\n%v\nschema:\n%s", err, src)
	}
	return l
}

func mustFail(t testing.TB, src, want string) {
	t.Helper()
	l, err := layout.Parse("t.yaml", []byte(src))
	if err == nil {
		t.Fatalf("Parse accepted:\n%s\nlayout:\n%s", src, l.Table())
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("Parse error %q does not contain %q", err, want)
	}
}

// radix is R as a big integer (R = 2^64 for a bits: 64 field).
func radix(f *layout.Field) *big.Int {
	return new(big.Int).Add(new(big.Int).SetUint64(f.MaxDigit), big.NewInt(1))
}

// explicitIn reads the "in:" each field of a schema gives, straight from the YAML.
func explicitIn(t testing.TB, src []byte) []string {
	var s struct {
		Fields []struct {
			In string `yaml:"in"`
		} `yaml:"fields"`
	}
	if err := yaml.Unmarshal(src, &s); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.In
	}
	return out
}

// checkMaths checks every derived quantity of a layout against its definition.
func checkMaths(t testing.TB, l *layout.Layout, src []byte) {
	t.Helper()
	limit := new(big.Int).SetUint64(l.ScoreLimit)
	if l.Score == layout.ScoreInteger && l.ScoreLimit != 1<<53 {
		t.Fatalf("integer ScoreLimit = %d, want 2^53", l.ScoreLimit)
	}
	// Score fields first, then member fields.
	for i, f := range l.Fields {
		want := layout.InScore
		if i >= l.NumScore {
			want = layout.InMember
		}
		if f.Place != want {
			t.Fatalf("field %d %s: place %s, NumScore %d", i, f.Name, f.Place, l.NumScore)
		}
	}
	// Weights are products of the later score radices; ScoreRadix is the product of all.
	product := big.NewInt(1)
	for i := l.NumScore - 1; i >= 0; i-- {
		f := l.Fields[i]
		if product.Cmp(new(big.Int).SetUint64(f.Weight)) != 0 {
			t.Fatalf("%s: weight %d, want %s", f.Name, f.Weight, product)
		}
		product.Mul(product, radix(f))
	}
	if product.Cmp(new(big.Int).SetUint64(l.ScoreRadix)) != 0 || !product.IsUint64() {
		t.Fatalf("ScoreRadix %d, want %s", l.ScoreRadix, product)
	}
	if product.Cmp(limit) > 0 {
		t.Fatalf("ScoreRadix %s above ScoreLimit %d", product, l.ScoreLimit)
	}
	// Default placement: the first member field, unless the schema put it there, is there
	// because it did not fit.
	in := explicitIn(t, src)
	if l.HasMemberFields() && in[l.NumScore] != "member" {
		next := new(big.Int).Mul(product, radix(l.Fields[l.NumScore]))
		if next.Cmp(limit) <= 0 {
			t.Fatalf("%s went to the member though the score had room (%s ≤ %s)", l.Fields[l.NumScore].Name, next, limit)
		}
	}
	for i, f := range l.Fields {
		if in[i] == "member" && f.Place != layout.InMember || in[i] == "score" && f.Place != layout.InScore {
			t.Fatalf("%s: in: %s not respected (place %s)", f.Name, in[i], f.Place)
		}
	}
	// Member offsets and widths.
	off := 0
	for _, f := range l.MemberFields() {
		var width int
		switch f.RadixKind {
		case layout.RadixBits:
			width = (f.Width + 3) / 4
		case layout.RadixDigits:
			width = f.Width
		default:
			width = len(strconv.FormatUint(f.MaxDigit, 10))
		}
		if f.TextWidth != width || f.Offset != off || f.Hex != (f.RadixKind == layout.RadixBits) {
			t.Fatalf("%s: offset %d width %d hex %t, want %d %d %t", f.Name, f.Offset, f.TextWidth, f.Hex, off, width, f.RadixKind == layout.RadixBits)
		}
		// The widest digit must fit the text.
		base := 10
		if f.Hex {
			base = 16
		}
		if n := len(strconv.FormatUint(f.MaxDigit, base)); n > f.TextWidth {
			t.Fatalf("%s: digit %d needs %d characters, text is %d", f.Name, f.MaxDigit, n, f.TextWidth)
		}
		off += f.TextWidth + len(l.Separator)
	}
	if l.PrefixLen != off {
		t.Fatalf("PrefixLen %d, want %d", l.PrefixLen, off)
	}
	for _, f := range l.Fields {
		checkField(t, f)
	}
}

// checkField checks a field's range, radix and Go type.
func checkField(t testing.TB, f *layout.Field) {
	t.Helper()
	if f.Hi < f.Lo || f.Span() > f.MaxDigit {
		t.Fatalf("%s: range [%d, %d] does not fit radix %s", f.Name, f.Lo, f.Hi, radix(f))
	}
	switch f.RadixKind {
	case layout.RadixBits:
		if bits.Len64(f.MaxDigit) != f.Width || f.MaxDigit != math.MaxUint64>>(64-f.Width) {
			t.Fatalf("%s: bits %d but MaxDigit %d", f.Name, f.Width, f.MaxDigit)
		}
	case layout.RadixDigits:
		if want := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(f.Width)), nil); radix(f).Cmp(want) != 0 {
			t.Fatalf("%s: digits %d but radix %s", f.Name, f.Width, radix(f))
		}
	default:
		if f.Span() != f.MaxDigit {
			t.Fatalf("%s: a range width must be tight: span %d, MaxDigit %d", f.Name, f.Span(), f.MaxDigit)
		}
	}
	// Digit and Key are inverse and monotone the right way.
	for _, key := range []uint64{f.Lo, f.Hi, f.Lo + f.Span()/2} {
		d := f.Digit(key)
		if d > f.Span() || f.Key(d) != key {
			t.Fatalf("%s: Digit(%d) = %d, Key back = %d", f.Name, key, d, f.Key(d))
		}
	}
	if f.Span() > 0 && (f.Order == layout.Desc) != (f.Digit(f.Hi) > f.Digit(f.Lo)) {
		t.Fatalf("%s: order %s but Digit(Hi) %d, Digit(Lo) %d", f.Name, f.Order, f.Digit(f.Hi), f.Digit(f.Lo))
	}
	if got, want := f.GoType, goTypeOf(f); got != want {
		t.Fatalf("%s: Go type %s, want %s", f.Name, got, want)
	}
	switch f.Kind {
	case layout.Bool:
		if f.Lo != 0 || f.Hi != 1 {
			t.Fatalf("%s: bool range [%d, %d]", f.Name, f.Lo, f.Hi)
		}
	case layout.Enum:
		if f.Lo != 0 || f.Hi != uint64(len(f.Values)-1) {
			t.Fatalf("%s: enum of %d values has range [%d, %d]", f.Name, len(f.Values), f.Lo, f.Hi)
		}
	}
}

// goTypeOf is the narrowest Go type holding the field's range, by definition.
func goTypeOf(f *layout.Field) string {
	switch f.Kind {
	case layout.Bool:
		return "bool"
	case layout.Enum:
		return f.Name
	case layout.Time:
		if f.Season {
			return "time.Duration" // an offset from the season's start
		}
		return "time.Time"
	case layout.Uint:
		for _, n := range []int{8, 16, 32, 64} {
			if n == 64 || f.Hi <= 1<<n-1 {
				return "uint" + strconv.Itoa(n)
			}
		}
	}
	lo, hi := f.MinInt(), f.MaxInt()
	for _, n := range []int{8, 16, 32, 64} {
		if n == 64 || lo >= -1<<(n-1) && hi <= 1<<(n-1)-1 {
			return "int" + strconv.Itoa(n)
		}
	}
	return ""
}

// TestLayoutMathsRandom checks weights, capacity, placement, offsets, widths, ranges and Go
// types on random schemas.
func TestLayoutMathsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		src := oracle.RandomSchema(rng, "m")
		l, err := layout.Parse("m.yaml", src)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		checkMaths(t, l, src)
	}
}

// TestLayoutMathsGolden checks the same on every accepted golden and example schema.
func TestLayoutMathsGolden(t *testing.T) {
	for _, src := range goldenSchemas(t) {
		l := mustParse(t, string(src))
		checkMaths(t, l, src)
	}
}

// TestDefaultPlacement: fields fill the score while they fit; the first that does not spills
// into the member and every later field follows it, even one that would fit.
func TestDefaultPlacement(t *testing.T) {
	l := mustParse(t, `
package: p
id: {name: ID}
fields:
  - {name: Points, type: uint, bits: 40, order: desc}
  - {name: Level, type: uint, bits: 12, order: desc}
  - {name: Wins, type: uint, bits: 8, order: desc}
  - {name: Paid, type: bool, order: desc}
`)
	if l.NumScore != 2 || l.Field("Paid").Place != layout.InMember || l.ScoreRadix != 1<<52 {
		t.Fatalf("NumScore %d, Paid %s, ScoreRadix %d; want 2, member, 2^52", l.NumScore, l.Field("Paid").Place, l.ScoreRadix)
	}
	// in: member is respected even where the score has room.
	l = mustParse(t, `
package: p
id: {name: ID}
fields:
  - {name: Points, type: uint, bits: 10, order: desc}
  - {name: Wins, type: uint, bits: 8, order: desc, in: member}
  - {name: Paid, type: bool, order: desc}
`)
	if l.NumScore != 1 || l.Field("Paid").Place != layout.InMember || l.PrefixLen != 2+1+1+1 {
		t.Fatalf("NumScore %d, Paid %s, PrefixLen %d", l.NumScore, l.Field("Paid").Place, l.PrefixLen)
	}
}

// TestScoreCapacityBoundary: a score of exactly 2^53 distinct values fits; one more does not,
// whether the radices are bits, digits or ranges.
func TestScoreCapacityBoundary(t *testing.T) {
	fits := []string{
		"- {name: A, type: uint, bits: 53, order: desc}",
		"- {name: A, type: uint, max: 9007199254740991, order: desc}",
		"- {name: A, type: uint, bits: 26, order: desc}\n  - {name: B, type: uint, bits: 27, order: desc, in: score}",
		"- {name: A, type: uint, bits: 52, order: desc}\n  - {name: B, type: bool, order: desc, in: score}",
		"- {name: A, type: uint, max: 4503599627370495, order: desc}\n  - {name: B, type: enum, values: [x, y], order: desc, in: score}",
	}
	for _, f := range fits {
		l := mustParse(t, "package: p\nid: {name: ID}\nfields:\n  "+f+"\n")
		if l.HasMemberFields() {
			t.Errorf("%s: spilled into the member", f)
		}
	}
	over := []string{
		"- {name: A, type: uint, bits: 54, order: desc}",
		"- {name: A, type: uint, max: 9007199254740992, order: desc}",
		"- {name: A, type: uint, digits: 16, order: desc}",
		"- {name: A, type: uint, bits: 26, order: desc}\n  - {name: B, type: uint, bits: 28, order: desc, in: score}",
		"- {name: A, type: uint, bits: 52, order: desc}\n  - {name: B, type: enum, values: [x, y, z], order: desc, in: score}",
		"- {name: A, type: uint, min: 1, max: 4503599627370497, order: desc}\n  - {name: B, type: bool, order: desc, in: score}",
	}
	for _, f := range over {
		mustFail(t, "package: p\nid: {name: ID}\nfields:\n  "+f+"\n", "the score needs")
	}
}

// TestScoreOverflowNumbers: the message gives the bits needed and held, correctly rounded,
// and both ways out.
func TestScoreOverflowNumbers(t *testing.T) {
	for _, c := range []struct {
		fields     string
		need, hold float64
	}{
		{"- {name: A, type: uint, bits: 32, order: desc}\n  - {name: B, type: uint, bits: 36, order: desc, in: score}", 68, 53},
		{"- {name: A, type: uint, digits: 16, order: desc}", 16 * math.Log2(10), 53},
		{"- {name: A, type: uint, digits: 12, order: desc}\n  - {name: B, type: enum, values: [a, b, c], order: desc, in: score}\n  - {name: C, type: uint, digits: 4, order: desc, in: score}", 16*math.Log2(10) + math.Log2(3), 53},
	} {
		_, err := layout.Parse("t.yaml", []byte("package: p\nid: {name: ID}\nfields:\n  "+c.fields+"\n"))
		if err == nil {
			t.Fatalf("accepted %s", c.fields)
		}
		msg := err.Error()
		for _, want := range []string{
			fmt.Sprintf("needs %.1f bits", c.need),
			fmt.Sprintf("holds %.1f bits", c.hold),
			"narrow a field", `"in: member"`,
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q lacks %q", msg, want)
			}
		}
	}
}

// TestGoTypes: the narrowest uintN/intN holding the range, at every boundary.
func TestGoTypes(t *testing.T) {
	for _, c := range []struct{ field, want string }{
		{"{type: uint, max: 255}", "uint8"},
		{"{type: uint, max: 256}", "uint16"},
		{"{type: uint, bits: 8}", "uint8"},
		{"{type: uint, bits: 8, min: 250}", "uint16"},
		{"{type: uint, max: 65535}", "uint16"},
		{"{type: uint, max: 65536}", "uint32"},
		{"{type: uint, digits: 9}", "uint32"},
		{"{type: uint, digits: 10}", "uint64"},
		{"{type: uint, max: 4294967295}", "uint32"},
		{"{type: uint, max: 4294967296}", "uint64"},
		{"{type: uint, bits: 64, in: member}", "uint64"},
		{"{type: int, bits: 8}", "int8"},
		{"{type: int, min: -128, max: 127}", "int8"},
		{"{type: int, min: -129, max: 0}", "int16"},
		{"{type: int, min: 0, max: 128}", "int16"},
		{"{type: int, bits: 16}", "int16"},
		{"{type: int, bits: 17}", "int32"},
		{"{type: int, min: -2147483648, max: 2147483647}", "int32"},
		{"{type: int, min: -2147483649, max: 0}", "int64"},
		{"{type: int, digits: 3, min: -500}", "int16"},
		{"{type: int, bits: 64, in: member}", "int64"},
		{"{type: bool}", "bool"},
		{"{type: enum, values: [a, b]}", "F"},
		{"{type: time, unit: s, epoch: 2026-01-01T00:00:00Z, bits: 8}", "time.Time"},
	} {
		l := mustParse(t, "package: p\nid: {name: ID}\nfields:\n  - {name: F, order: desc, "+c.field[1:]+"\n")
		if got := l.Fields[0].GoType; got != c.want {
			t.Errorf("%s: Go type %s, want %s", c.field, got, c.want)
		}
	}
}

// TestIntBitsRange: an int with bits: n alone takes [−2^(n−1), 2^(n−1) − 1].
func TestIntBitsRange(t *testing.T) {
	for n := 1; n <= 64; n++ {
		in := ""
		if n > 53 {
			in = ", in: member"
		}
		l := mustParse(t, fmt.Sprintf("package: p\nid: {name: ID}\nfields:\n  - {name: F, type: int, bits: %d, order: desc%s}\n", n, in))
		f := l.Fields[0]
		lo, hi := -(big.NewInt(1).Lsh(big.NewInt(1), uint(n-1))).Int64(), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(n-1)), big.NewInt(1)).Int64()
		if n == 64 {
			lo, hi = math.MinInt64, math.MaxInt64
		}
		if f.MinInt() != lo || f.MaxInt() != hi || f.Span() != f.MaxDigit {
			t.Errorf("bits %d: range [%d, %d], want [%d, %d]", n, f.MinInt(), f.MaxInt(), lo, hi)
		}
	}
}

// TestEnumBoolRanges: bool is 0…1 in radix 2; an enum is 0…n−1, in radix n or the declared width.
func TestEnumBoolRanges(t *testing.T) {
	l := mustParse(t, `
package: p
id: {name: ID}
fields:
  - {name: Paid, type: bool, order: desc}
  - {name: Tier, type: enum, values: [a, b, c], order: desc}
  - {name: League, type: enum, values: [a, b, c], bits: 3, order: asc}
  - {name: Flag, type: bool, digits: 1, order: desc}
`)
	for _, c := range []struct {
		name          string
		lo, hi, maxD  uint64
		weight        uint64
		formatHi, rng string
	}{
		{"Paid", 0, 1, 1, 3 * 8 * 10, "true", "false … true"},
		{"Tier", 0, 2, 2, 8 * 10, "c", "a < b < c"},
		{"League", 0, 2, 7, 10, "c", "a < b < c"},
		{"Flag", 0, 1, 9, 1, "true", "false … true"},
	} {
		f := l.Field(c.name)
		if f.Lo != c.lo || f.Hi != c.hi || f.MaxDigit != c.maxD || f.Weight != c.weight || f.Format(f.Hi) != c.formatHi || f.Range() != c.rng {
			t.Errorf("%s: [%d, %d] R−1 %d weight %d %q %q", c.name, f.Lo, f.Hi, f.MaxDigit, f.Weight, f.Format(f.Hi), f.Range())
		}
	}
	// asc League: a (key 0) has the largest digit.
	if f := l.Field("League"); f.Digit(0) != 2 || f.Digit(2) != 0 {
		t.Errorf("League asc digits %d %d", f.Digit(0), f.Digit(2))
	}
}

// TestTimeRanges: epoch-anchored ranges end at epoch + (R−1) units, max-anchored ones start at
// max − (R−1) units, and Lifetime says when the range runs out.
func TestTimeRanges(t *testing.T) {
	l := mustParse(t, `
package: p
id: {name: ID}
fields:
  - {name: A, type: time, unit: ms, epoch: 2026-01-01T00:00:00Z, bits: 36, order: asc, in: member}
  - {name: B, type: time, unit: s, max: 2029-01-01T00:00:00+08:00, digits: 9, order: asc}
  - {name: C, type: time, unit: us, min: 2026-01-01T00:00:00.000001Z, max: 2026-01-01T00:00:01Z, order: desc}
  - {name: D, type: time, unit: s, epoch: 1960-01-01T00:00:00Z, bits: 31, order: desc, in: member}
`)
	a, b, c, d := l.Field("A"), l.Field("B"), l.Field("C"), l.Field("D")
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got, want := a.TimeOf(a.Hi), epoch.Add((1<<36-1)*time.Millisecond); !got.Equal(want) {
		t.Errorf("A ends %v, want %v", got, want)
	}
	if got := a.TimeOf(a.Hi).Format(time.RFC3339Nano); got != "2028-03-06T08:44:36.735Z" {
		t.Errorf("A ends %s", got)
	}
	if got, want := a.Lifetime(), "36 bits of ms from 2026-01-01 last until 2028-03-06"; got != want {
		t.Errorf("A Lifetime %q, want %q", got, want)
	}
	max := time.Date(2028, 12, 31, 16, 0, 0, 0, time.UTC)
	if !b.TimeOf(b.Hi).Equal(max) || !b.TimeOf(b.Lo).Equal(max.Add(-999999999*time.Second)) {
		t.Errorf("B range %v … %v", b.TimeOf(b.Lo), b.TimeOf(b.Hi))
	}
	if got, want := b.Lifetime(), "9 digits of s from 1997-04-24 last until 2028-12-31"; got != want {
		t.Errorf("B Lifetime %q, want %q", got, want)
	}
	if c.MaxDigit != 999999 || c.Span() != 999999 || c.Lifetime() != "1000000 us from 2026-01-01 last until 2026-01-01" {
		t.Errorf("C radix %d, Lifetime %q", c.MaxDigit+1, c.Lifetime())
	}
	// Before 1970: negative units, still ordered.
	if d.MinInt() != time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC).Unix() || d.MaxInt()-d.MinInt() != 1<<31-1 {
		t.Errorf("D range %d … %d", d.MinInt(), d.MaxInt())
	}
	if d.Lifetime() != "31 bits of s from 1960-01-01 last until 2028-01-19" {
		t.Errorf("D Lifetime %q", d.Lifetime())
	}
}

// TestMemberWidths: hex = ceil(bits/4), digits = n, range = len(R−1), at the edges.
func TestMemberWidths(t *testing.T) {
	l := mustParse(t, `
package: p
id: {name: ID}
separator: "::"
fields:
  - {name: A, type: uint, bits: 1, order: desc, in: member}
  - {name: B, type: uint, bits: 4, order: desc}
  - {name: C, type: uint, bits: 5, order: desc}
  - {name: D, type: uint, bits: 64, order: desc}
  - {name: E, type: uint, digits: 1, order: desc}
  - {name: F, type: uint, digits: 19, order: desc}
  - {name: G, type: uint, min: 5, max: 14, order: desc}
  - {name: H, type: uint, min: 5, max: 15, order: desc}
  - {name: I, type: enum, values: [only], order: desc}
`)
	want := []struct{ off, width int }{{0, 1}, {3, 1}, {6, 2}, {10, 16}, {28, 1}, {31, 19}, {52, 1}, {55, 2}, {59, 1}}
	for i, f := range l.Fields {
		if f.Offset != want[i].off || f.TextWidth != want[i].width {
			t.Errorf("%s: offset %d width %d, want %d %d", f.Name, f.Offset, f.TextWidth, want[i].off, want[i].width)
		}
	}
	if l.PrefixLen != 62 || l.NumScore != 0 || l.ScoreRadix != 1 {
		t.Errorf("PrefixLen %d NumScore %d ScoreRadix %d", l.PrefixLen, l.NumScore, l.ScoreRadix)
	}
}

// goldenSchemas returns the schema of every accepted golden (examples included).
func goldenSchemas(t testing.TB) [][]byte {
	files, err := filepath.Glob("testdata/layouts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden layouts: %v", err)
	}
	var out [][]byte
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name == "schema.yaml" {
				out = append(out, f.Data)
			}
		}
	}
	return out
}
