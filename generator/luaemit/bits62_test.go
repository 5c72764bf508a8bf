package luaemit

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

// bits62Probe runs the bits62 arithmetic of a layout's scripts (the "score" template) on cases
// sent as ARGV: "v d1 .. dk" writes the digits as a score through ZADD, reads it back with
// ZSCORE and splits it again, "b k d1 .. dk" bounds the band of digit k as the competition
// script does, "x hi lo" splits the pattern hi·2^32 + lo. One reply line per case.
const bits62Probe = `
local out = {}
for i, line in ipairs(ARGV) do
  local w = {}
  for t in string.gmatch(line, '%S+') do
    w[#w + 1] = t
  end
  local p = {}
  for j = 3, #w do
    p[#p + 1] = tonumber(w[j])
  end
  if w[1] == 'v' then
    table.insert(p, 1, tonumber(w[2]))
    local st = score_text(p)
    redis.call('ZADD', KEYS[1], st, 'm')
    local back = score_p(redis.call('ZSCORE', KEYS[1], 'm'))
    out[i] = st .. ' ' .. p_text(p) .. ' ' .. table.concat(back, ' ') .. ' ' .. table.concat(p_of(tonumber(st)), ' ')
  elseif w[1] == 'b' then
    local k = tonumber(w[2])
    p[k] = p[k] + 1
    for j = k + 1, #p do
      p[j] = 0
    end
    out[i] = score_text(p)
  else
    local x = struct.unpack('>d', struct.pack('>I4I4', tonumber(w[2]), tonumber(w[3])))
    out[i] = p_of(x) and table.concat(p_of(x), ' ') or 'nil'
  end
end
return out
`

// wideLayouts are bits62 layouts whose low digits do not fit beside the others in 2^53: each
// limb size (3, 2 and 1 bytes) and several wide digits, radices that are not powers of two.
var wideLayouts = map[string]string{
	"limb1": `
package: limb1
score: bits62
id: {name: ID, max_bytes: 16}
fields:
  - {name: Hi, type: uint, bits: 17, order: desc, update: [set]}
  - {name: Lo, type: uint, bits: 45, order: asc, update: [set]}
`,
	"limb2": `
package: limb2
score: bits62
id: {name: ID, max_bytes: 16}
fields:
  - {name: Hi, type: uint, bits: 25, order: desc, update: [set]}
  - {name: Lo, type: uint, bits: 37, order: desc, update: [set]}
`,
	"many": `
package: many
score: bits62
id: {name: ID, max_bytes: 16}
fields:
  - {name: A, type: uint, bits: 30, order: desc, update: [set]}
  - {name: B, type: uint, min: 0, max: 999999999, order: asc, update: [set]}
  - {name: C, type: bool, order: desc, update: [set]}
  - {name: D, type: enum, values: [a, b, c], order: desc, update: [set]}
`,
}

// TestBits62Arithmetic checks the scripts' exact 62-bit arithmetic against the layout's own
// numbers on a real server, for the wide layouts above, the examples' duel and random bits62
// schemas: digits to score text and back through ZADD and ZSCORE bit for bit, P in decimal,
// band bounds, and every pattern a layout cannot have written refused.
func TestBits62Arithmetic(t *testing.T) {
	c := redistest.Start(t).Client(t)
	var ls []*layout.Layout
	for name, src := range wideLayouts {
		ls = append(ls, parse(t, name+".yaml", []byte(src)))
	}
	ls = append(ls, parse(t, "duel.yaml", readFile(t, "../../examples/schemas/duel.yaml")))
	for seed := uint64(1); len(ls) < 30; seed++ {
		pkg := fmt.Sprintf("r%02d", seed)
		ls = append(ls, parse(t, pkg+".yaml", oracle.RandomBits62Schema(rand.New(rand.NewPCG(seed, 62)), pkg)))
	}
	plans := map[string]int{}
	for i, l := range ls {
		d := newData(l)
		plans[fmt.Sprintf("%s wide %d/%d", d.Plan.Limbs, len(d.Plan.Wide), len(l.ScoreFields()))]++
		var lib bytes.Buffer
		if err := tmpl.ExecuteTemplate(&lib, "score", d); err != nil {
			t.Fatal(err)
		}
		cases, check := bits62Cases(rand.New(rand.NewPCG(uint64(i), 7)), l)
		// The score codec as the part holds it, behind the bindings the runtime's head makes.
		bind := "local floor, fmt, sub = math.floor, string.format, string.sub\n"
		reply, err := c.Eval(context.Background(), bind+lib.String()+"\n"+bits62Probe, []string{redistest.Key(t, l.File)}, cases...).StringSlice()
		if err != nil {
			t.Fatalf("%s: %v", l.File, err)
		}
		for j, got := range reply {
			if err := check[j](got); err != nil {
				t.Errorf("%s (%s) case %q: %v", l.File, d.Plan.Limbs, cases[j], err)
			}
		}
	}
	t.Logf("%d layouts; plans: %v", len(ls), plans)
}

// bits62Cases draws the cases of bits62Probe for l, each with the check of its reply line.
func bits62Cases(rng *rand.Rand, l *layout.Layout) (cases []any, checks []func(string) error) {
	fs := l.ScoreFields()
	digits := func() []uint64 {
		ds := make([]uint64, len(fs))
		for i, f := range fs {
			switch rng.IntN(4) {
			case 0:
			case 1:
				ds[i] = f.Span()
			default:
				ds[i] = rng.Uint64N(f.Span() + 1)
			}
		}
		return ds
	}
	for n := 0; n < 300; n++ {
		ds := digits()
		cases = append(cases, "v "+join(ds))
		checks = append(checks, checkValue(l, ds))
		k := rng.IntN(len(fs))
		cases = append(cases, fmt.Sprintf("b %d %s", k+1, join(ds)))
		checks = append(checks, checkBand(l, ds, k))
	}
	for n := 0; n < 300; n++ {
		bits := badOrNearPattern(rng, l)
		cases = append(cases, fmt.Sprintf("x %d %d", bits>>32, bits&math.MaxUint32))
		checks = append(checks, checkSplit(l, bits))
	}
	return cases, checks
}

// badOrNearPattern draws a pattern around the layout's bound, of its top digit's span, or anywhere
// in 64 bits (negative, NaN, Inf), or a valid one.
func badOrNearPattern(rng *rand.Rand, l *layout.Layout) uint64 {
	switch rng.IntN(4) {
	case 0:
		return l.ScoreRadix - 3 + rng.Uint64N(6)
	case 1:
		return rng.Uint64()
	case 2:
		return []uint64{0, 1, 1 << 52, 0x7FF0000000000000, 0x7FF8000000000000, 1 << 63, math.MaxUint64, 1<<62 - 1, 1 << 62}[rng.IntN(9)]
	}
	return rng.Uint64N(l.ScoreRadix)
}

func pOf(l *layout.Layout, ds []uint64) uint64 {
	var p uint64
	for i, f := range l.ScoreFields() {
		p += ds[i] * f.Weight
	}
	return p
}

func checkValue(l *layout.Layout, ds []uint64) func(string) error {
	p := pOf(l, ds)
	return func(got string) error {
		w := strings.Fields(got)
		if len(w) != 2+2*len(ds) {
			return fmt.Errorf("reply %q", got)
		}
		x, err := strconv.ParseFloat(w[0], 64)
		if err != nil || math.Float64bits(x) != p {
			return fmt.Errorf("score text %s is pattern %#x, want %#x", w[0], math.Float64bits(x), p)
		}
		if w[1] != strconv.FormatUint(p, 10) {
			return fmt.Errorf("p_text %s, want %d", w[1], p)
		}
		if want := join(ds); strings.Join(w[2:2+len(ds)], " ") != want || strings.Join(w[2+len(ds):], " ") != want {
			return fmt.Errorf("split back %v, want %s twice", w[2:], want)
		}
		return nil
	}
}

func checkBand(l *layout.Layout, ds []uint64, k int) func(string) error {
	weight := l.ScoreFields()[k].Weight
	want := (pOf(l, ds)/weight + 1) * weight
	return func(got string) error {
		x, err := strconv.ParseFloat(got, 64)
		if err != nil || math.Float64bits(x) != want {
			return fmt.Errorf("band bound %s is pattern %#x, want %#x", got, math.Float64bits(x), want)
		}
		return nil
	}
}

func checkSplit(l *layout.Layout, bits uint64) func(string) error {
	want := "nil"
	var ds []uint64
	for _, f := range l.ScoreFields() {
		if d := bits / f.Weight % (f.MaxDigit + 1); d <= f.Span() {
			ds = append(ds, d)
		}
	}
	if bits < l.ScoreRadix && len(ds) == len(l.ScoreFields()) {
		want = join(ds)
	}
	return func(got string) error {
		if got != want {
			return fmt.Errorf("p_of = %s, want %s", got, want)
		}
		return nil
	}
}

func join(ds []uint64) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = strconv.FormatUint(d, 10)
	}
	return strings.Join(s, " ")
}

func parse(t *testing.T, file string, src []byte) *layout.Layout {
	t.Helper()
	l, err := layout.Parse(file, src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return l
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
