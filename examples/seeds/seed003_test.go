package seeds_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Seed 003 ("Redis--场景篇1"): scheme one, integer scaling, in Python floats:
//
//	combined_score = raw_score * 1e13 + (MAX_TIMESTAMP - timestamp)   # MAX_TIMESTAMP = 2^31 − 1
//	parse_score: int(combined_score / 1e13)
//
// and scheme two, raw_score + (1 - timestamp / MAX_TIMESTAMP), parsed with int().

const seed003Max = 1<<31 - 1

// ---- the seed's own code, in Go (Python floats are float64) ----

func seed003Score(raw, ts int64) float64 { return float64(raw)*1e13 + float64(seed003Max-ts) }
func seed003Parse(score float64) int64   { return int64(score / 1e13) }
func seed003Fraction(raw, ts float64) float64 {
	return raw + (1 - ts/seed003Max)
}

func TestSeed003Vectors(t *testing.T) {
	l := load(t, "seed003_scaling")
	for _, v := range []struct {
		raw, ts int64
		want    float64
	}{
		{100, 1700000000, 1000000447483647},
		{899, 1700000000, 8990000447483647},
		{0, 0, 2147483647},
		{899, seed003Max, 8990000000000000},
	} {
		if got := seed003Score(v.raw, v.ts); got != v.want {
			t.Fatalf("the seed's score(%d, %d) = %v, want %v", v.raw, v.ts, got, v.want)
		}
		e := layout.Entry{ID: "m", Keys: []uint64{uint64(v.raw), sec(v.ts)}}
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		if score != v.want || member != "m" {
			t.Errorf("Encode(%d, %d) = (%v, %q), want %v", v.raw, v.ts, score, member, v.want)
		}
		checkRoundTrip(t, l, []layout.Entry{e})
		if got := seed003Parse(score); got != v.raw {
			t.Errorf("the seed's parse(%v) = %d", score, got)
		}
	}
}

// digits: 3 for raw would need 10^3 × 10^13 = 10^16 > 2^53: refused, with the numbers and the
// widest raw that fits (max: 899, the example's choice).
func TestSeed003DigitsThreeRefused(t *testing.T) {
	src := strings.Replace(string(mustRead(t, "../schemas/seed003_scaling.yaml")), "    max: 899\n", "    digits: 3\n", 1)
	_, err := layout.Parse("seed003_scaling.yaml", []byte(src))
	if err == nil {
		t.Fatal("digits: 3 accepted")
	}
	for _, want := range []string{
		"the score needs 53.2 bits (Raw 10.0 + At 43.2",
		"the radices multiply to 10000000000000000, above 9007199254740992",
		"a float64 score holds 53.0 bits exactly (2^53)",
		"e.g. Raw to max: 899",
		`"in: member"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("diagnostic %q lacks %q", err, want)
		}
	}
	l := load(t, "seed003_scaling")
	if l.ScoreRadix != 9_000_000_000_000_000 {
		t.Fatalf("ScoreRadix = %d, want 900 × 10^13", l.ScoreRadix)
	}
	if _, _, err := l.Encode(layout.Entry{ID: "m", Keys: []uint64{900, sec(0)}}); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Encode(raw 900) = %v, want ErrOutOfRange", err)
	}
}

// Above 2^53 the seed's sum rounds to even: raw 901 reads its time one second off. And after
// 2038 MAX_TIMESTAMP − ts goes negative and borrows from raw: 100 reads back as 99.
func TestSeed003Traps(t *testing.T) {
	score := seed003Score(901, 1700000000)
	if int64(score) != 9010000447483648 { // the true sum, 9010000447483647, is odd and above 2^53
		t.Fatalf("the seed's score(901, 1700000000) = %v", score)
	}
	ts := seed003Max - int64(math.Mod(score, 1e13))
	if ts != 1700000000-1 {
		t.Fatalf("the time read back = %d", ts)
	}
	after2038 := seed003Score(100, seed003Max+1)
	if got := seed003Parse(after2038); got != 99 {
		t.Fatalf("the seed's parse after 2038 = %d, want 99 (borrowed)", got)
	}
	l := load(t, "seed003_scaling")
	if _, _, err := l.Encode(layout.Entry{ID: "m", Keys: []uint64{100, sec(seed003Max + 1)}}); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Encode(after 2038) = %v, want ErrOutOfRange", err)
	}
}

// Scheme two, raw + (1 − ts/MAX), is not a decimal layout: ts/MAX is a binary fraction with no
// finite decimal form and no exact inverse, and once raw is large the seconds collide. Here:
// at raw = 10^7 some and at 10^8 most adjacent seconds share a score; at raw = 10^9 a time near 1970 rounds
// the fraction up to 1 and int() reads raw + 1.
func TestSeed003FractionSchemeCollides(t *testing.T) {
	collide := 0
	for ts := 1700000000.0; ts < 1700001000; ts++ {
		if seed003Fraction(1e8, ts) == seed003Fraction(1e8, ts+1) {
			collide++
		}
	}
	if collide < 900 {
		t.Fatalf("only %d of 1000 adjacent seconds collide at raw 10^8", collide)
	}
	t.Logf("raw 10^8: %d of 1000 adjacent seconds share a score", collide)
	if got := int64(seed003Fraction(1e9, 1)); got != 1e9+1 {
		t.Fatalf("int(raw + 1 − 1/MAX) at raw 10^9 = %d, want 10^9 + 1 (misread)", got)
	}
	// At raw 100 each second still inverts (round((1 − frac) · MAX)), but the inverse is a
	// rounding of an inexact quotient, not digits; from raw 10^7 up, seconds already collide.
	collide = 0
	for ts := 1700000000.0; ts < 1700001000; ts++ {
		if seed003Fraction(1e7, ts) == seed003Fraction(1e7, ts+1) {
			collide++
		}
	}
	if collide == 0 {
		t.Fatal("no collisions at raw 10^7")
	}
	t.Logf("raw 10^7: %d of 1000 adjacent seconds share a score", collide)
}
