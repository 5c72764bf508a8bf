package layout_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// decimalLayout is a decimal-score layout with one uint field of exactly the given radix.
func decimalLayout(t testing.TB, w int, radix uint64) *layout.Layout {
	t.Helper()
	return mustParse(t, fmt.Sprintf("package: p\nscore: decimal\ndecimal_places: %d\nid: {name: ID}\nfields:\n  - {name: P, type: uint, max: %d, order: desc}\n", w, radix-1))
}

// decimalText is P / 10^w written as a decimal numeral, the text a seed would send to ZADD.
func decimalText(p uint64, w int) string {
	s := fmt.Sprintf("%0*d", w+1, p)
	return s[:len(s)-w] + "." + s[len(s)-w:]
}

// theLimit is the decimal-score bound of docs/codec.md, derived independently: with
// 2^(m−1) < 10^w < 2^m, every X = fl(P / 10^w) below 2^(53−m) has ulp(X) ≤ 2^(−m) < 10^−w, so
// consecutive P map to distinct, increasing doubles; P < 2^(53−m) · 10^w keeps X there.
func theLimit(w int) uint64 {
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(w)), nil)
	m := pow.BitLen()
	return new(big.Int).Mul(new(big.Int).Lsh(big.NewInt(1), uint(53-m)), pow).Uint64()
}

// TestDecimalBound proves the decimal-score bound on samples: below ScoreLimit, fl(P / 10^w) is
// strictly increasing in P (injective and order-preserving), equals what ParseFloat gives for
// the decimal numeral, and POf recovers P exactly; just above the limit, consecutive P collide,
// so the bound is tight to within one binade, not arbitrary.
func TestDecimalBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 20))
	for w := 1; w <= layout.MaxDecimalPlaces; w++ {
		t.Run(strconv.Itoa(w), func(t *testing.T) {
			limit := theLimit(w)
			l := decimalLayout(t, w, limit)
			if l.ScoreLimit != limit || l.ScoreRadix != limit {
				t.Fatalf("ScoreLimit %d, ScoreRadix %d; want %d", l.ScoreLimit, l.ScoreRadix, limit)
			}
			// One more value is refused.
			if _, err := layout.Parse("t.yaml", []byte(fmt.Sprintf("package: p\nscore: decimal\ndecimal_places: %d\nid: {name: ID}\nfields:\n  - {name: P, type: uint, max: %d, order: desc}\n", w, limit))); err == nil {
				t.Fatalf("radix %d (limit + 1) accepted", limit+1)
			}

			check := func(p uint64) {
				x := l.ScoreOf(p)
				if p+1 < limit {
					if y := l.ScoreOf(p + 1); !(x < y) {
						t.Fatalf("w=%d: fl(%d/10^w) = %v is not below fl(%d/10^w) = %v", w, p, x, p+1, y)
					}
				}
				if f, err := strconv.ParseFloat(decimalText(p, w), 64); err != nil || f != x {
					t.Fatalf("w=%d: ParseFloat(%s) = %v, ScoreOf(%d) = %v", w, decimalText(p, w), f, p, x)
				}
				got, err := l.POf(x)
				if err != nil || got != p {
					t.Fatalf("w=%d: POf(ScoreOf(%d) = %v) = %d, %v", w, p, x, got, err)
				}
				// The next double up is either the next P's score or refused.
				if up := math.Nextafter(x, math.Inf(1)); p+1 >= limit || up != l.ScoreOf(p+1) {
					if q, err := l.POf(up); err == nil {
						t.Fatalf("w=%d: POf(%v), a double between P=%d and P+1, accepted as %d", w, up, p, q)
					}
				}
			}
			// Near the limit, where the doubles are sparsest.
			for p := limit - 20000; p < limit; p++ {
				check(p)
			}
			// Around every binade boundary 2^k · 10^w below the limit, where ulp doubles.
			for k := 0; uint64(1)<<k*pow10(w) < limit; k++ {
				b := uint64(1) << k * pow10(w)
				for p := b - min(b, 200); p < b+200 && p < limit; p++ {
					check(p)
				}
			}
			// Anywhere.
			for i := 0; i < 20000; i++ {
				check(rng.Uint64N(limit))
			}

			// Just above the limit, consecutive P collide: the bound cannot be raised to the next
			// binade.
			collisions := 0
			for p := limit; p < limit+100000; p++ {
				if float64(p)/l.Pow10() == float64(p+1)/l.Pow10() {
					collisions++
				}
			}
			if collisions == 0 {
				t.Fatalf("w=%d: no collision in 100000 values above the limit %d: the bound is not tight", w, limit)
			}
			t.Logf("w=%d: limit %d (%.2f bits), %d collisions in the next 100000 values", w, limit, math.Log2(float64(limit)), collisions)
		})
	}
}

func pow10(w int) uint64 {
	p := uint64(1)
	for i := 0; i < w; i++ {
		p *= 10
	}
	return p
}

// TestIntegerScoreBound: every integer P < 2^53 round-trips; 2^53 and beyond are refused, as
// are fractions, negatives, NaN and infinities.
func TestIntegerScoreBound(t *testing.T) {
	l := mustParse(t, "package: p\nid: {name: ID}\nfields:\n  - {name: P, type: uint, bits: 53, order: desc}\n")
	for _, p := range []uint64{0, 1, 1<<52 - 1, 1 << 52, 1<<53 - 2, 1<<53 - 1} {
		if got, err := l.POf(l.ScoreOf(p)); err != nil || got != p {
			t.Errorf("POf(ScoreOf(%d)) = %d, %v", p, got, err)
		}
	}
	for _, s := range []float64{1 << 53, 1<<53 + 2, math.MaxFloat64, 0.5, 1<<51 + 0.5, -1, math.Copysign(0, -1) - 1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if p, err := l.POf(s); !errors.Is(err, rankgenrt.ErrBadScore) {
			t.Errorf("POf(%v) = %d, %v; want ErrBadScore", s, p, err)
		}
	}
}

// TestSeed002DecimalCapacity: seed 002's decimal split (points, then a paid digit and nine
// digits of MAX_SECOND − ts after the point, w = 10) holds points far beyond the 400 the seed
// uses: up to 2^19 − 1 = 524287. Its published scores decode to the seed's values.
func TestSeed002DecimalCapacity(t *testing.T) {
	l := mustParse(t, `
package: seed002
score: decimal
decimal_places: 10
id: {name: Player}
fields:
  - {name: Points, type: uint, max: 524287, order: desc}
  - {name: Paid, type: bool, digits: 1, order: desc, in: score}
  - {name: Remain, type: uint, digits: 9, order: desc, in: score}
`)
	if got := l.ScoreLimit / 10_000_000_000; got != 524288 {
		t.Fatalf("points capacity %d, want 524288", got)
	}
	mustFail(t, `
package: seed002
score: decimal
decimal_places: 10
id: {name: Player}
fields:
  - {name: Points, type: uint, max: 524288, order: desc}
  - {name: Paid, type: bool, digits: 1, order: desc, in: score}
  - {name: Remain, type: uint, digits: 9, order: desc, in: score}
`, "the score needs")
	for _, c := range []struct {
		text                 string
		points, paid, remain uint64
	}{
		{"100.1290072179", 100, 1, 290072179},
		{"200.0290072179", 200, 0, 290072179},
		{"400.0290072179", 400, 0, 290072179},
		{"200.1290081199", 200, 1, 290081199},
		{"524287.1999999999", 524287, 1, 999999999},
	} {
		score, err := strconv.ParseFloat(c.text, 64)
		if err != nil {
			t.Fatal(err)
		}
		e, err := l.Decode(score, "A")
		if err != nil {
			t.Fatalf("Decode(%s): %v", c.text, err)
		}
		if e.Keys[0] != c.points || e.Keys[1] != c.paid || e.Keys[2] != c.remain {
			t.Errorf("Decode(%s) = %v", c.text, e.Keys)
		}
		back, _, err := l.Encode(e)
		if err != nil || back != score || strconv.FormatFloat(back, 'f', -1, 64) != strings.TrimRight(c.text, "0") {
			t.Errorf("Encode(Decode(%s)) = %s, %v", c.text, strconv.FormatFloat(back, 'f', -1, 64), err)
		}
	}
}
