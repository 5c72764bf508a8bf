package seeds_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Seed 001 (axiaoxin, zranking): score = float64("val.deltaTs"), deltaTs = campaignEnd − now,
// zero-padded to w = len(campaignEnd − campaignStart) digits. The schema's campaign: ten days,
// 2026-05-01 to 2026-05-11 (864000 s, w = 6).

var (
	seed001Start = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).Unix()
	seed001End   = time.Date(2026, 5, 11, 0, 0, 0, 0, time.UTC).Unix()
)

// ---- the seed's own code, in Go (zranking's New, val2score, score2val) ----

type seed001ZRanking struct {
	StartTimestamp, EndTimestamp int64
	TimePadWidth                 int
}

func seed001New(startTs, endTs int64) *seed001ZRanking {
	return &seed001ZRanking{StartTimestamp: startTs, EndTimestamp: endTs, TimePadWidth: len(fmt.Sprint(endTs - startTs))}
}

// val2score with nowts passed in (the seed reads time.Now()).
func (r *seed001ZRanking) val2score(val, nowts int64) (float64, error) {
	deltaTs := r.EndTimestamp - nowts
	scoreFormat := fmt.Sprintf("%%v.%%0%dd", r.TimePadWidth)
	scoreStr := fmt.Sprintf(scoreFormat, val, deltaTs)
	return strconv.ParseFloat(scoreStr, 64)
}

func (r *seed001ZRanking) score2val(score float64) (int64, error) {
	scoreStr := fmt.Sprint(score)
	ss := strings.Split(scoreStr, ".")
	return strconv.ParseInt(ss[0], 10, 64)
}

// seed001LuaAdd is the arithmetic of zranking's update script in Lua doubles:
// val = math.floor(old score); newScore = valScore + val (valScore = val2score(delta)).
func seed001LuaAdd(old, valScore float64) float64 { return valScore + math.Floor(old) }

func seed001Entry(id string, value uint64, at int64) layout.Entry {
	return layout.Entry{ID: id, Keys: []uint64{value, sec(at)}}
}

func TestSeed001Vector(t *testing.T) {
	l := load(t, "seed001_zranking")
	z := seed001New(seed001Start, seed001End)
	if z.TimePadWidth != 6 || l.DecimalPlaces != 6 {
		t.Fatalf("w = %d, decimal_places = %d", z.TimePadWidth, l.DecimalPlaces)
	}
	at := seed001End - 12345
	seed, err := z.val2score(100, at)
	if err != nil || seed != 100.012345 {
		t.Fatalf("val2score = %v %v", seed, err)
	}
	exact, _ := strconv.ParseFloat("100.012345", 64)
	e := seed001Entry("u1", 100, at)
	score, member, err := l.Encode(e)
	if err != nil || score != exact || member != "u1" {
		t.Fatalf("Encode = %v %q %v; want %v", score, member, err, exact)
	}
	checkRoundTrip(t, l, []layout.Entry{e})
}

// On random values and times of the campaign, Encode is the seed's val2score bit for bit and
// Decode reads it back; the seed's own score2val misreads every value of a million or more
// that has a non-zero fraction, and fails outright on a zero one.
func TestSeed001SameAsSeedOnRandomEntries(t *testing.T) {
	l := load(t, "seed001_zranking")
	z := seed001New(seed001Start, seed001End)
	r := rng(t)
	misread, failed, big := 0, 0, 0
	for i := 0; i < 50_000; i++ {
		var value uint64
		switch i % 3 {
		case 0:
			value = r.Uint64N(1_000_000)
		case 1:
			value = r.Uint64N(1 << 33)
		default:
			value = 1<<33 - 1 - r.Uint64N(1000)
		}
		at := seed001Start + r.Int64N(seed001End-seed001Start+1)
		seed, err := z.val2score(int64(value), at)
		if err != nil {
			t.Fatal(err)
		}
		e := seed001Entry("u", value, at)
		score, _, err := l.Encode(e)
		if err != nil || score != seed {
			t.Fatalf("(%d, %d): Encode = %v %v; val2score %v", value, at, score, err, seed)
		}
		got, err := l.Decode(seed, "u")
		if err != nil || got.Keys[0] != value || got.Keys[1] != sec(at) {
			t.Fatalf("Decode(%v) = %v %v", seed, got, err)
		}
		if value >= 1_000_000 {
			big++
		}
		switch v, err := z.score2val(seed); {
		case err != nil:
			failed++
		case v != int64(value):
			misread++
		}
	}
	if misread == 0 {
		t.Fatal("score2val misread nothing")
	}
	t.Logf("score2val: %d misread, %d failed, of %d entries with value ≥ 10^6 (rankgen: 0)", misread, failed, big)
}

// zranking's score2val formats the score with fmt.Sprint, which switches to exponent form at a
// million: 1,000,000 reached 500,000 s before the end is 1000000.5, printed "1.0000005e+06",
// read as 1; reached at the end it is "1e+06" and does not parse at all.
func TestSeed001Score2ValReadsAMillionAsOne(t *testing.T) {
	l := load(t, "seed001_zranking")
	z := seed001New(seed001Start, seed001End)
	score, err := z.val2score(1_000_000, seed001End-500_000)
	if err != nil || score != 1000000.5 {
		t.Fatal(score, err)
	}
	if s := fmt.Sprint(score); s != "1.0000005e+06" {
		t.Fatalf("fmt.Sprint = %s", s)
	}
	if v, err := z.score2val(score); err != nil || v != 1 {
		t.Fatalf("score2val = %d %v; the seed reads 1", v, err)
	}
	if _, err := z.score2val(1e6); err == nil {
		t.Fatal("score2val(1e6) parsed")
	}
	for _, c := range []struct {
		score float64
		at    int64
	}{{1000000.5, seed001End - 500_000}, {1e6, seed001End}} {
		e, err := l.Decode(c.score, "u")
		if err != nil || e.Keys[0] != 1_000_000 || e.Keys[1] != sec(c.at) {
			t.Fatalf("Decode(%v) = %v %v", c.score, e, err)
		}
	}
}

// The seed's rule, 16 digits in all, allows a 10-digit value with w = 6; but above 2^33 the
// spacing of doubles passes 10^-6 and adjacent seconds collide. rankgen's bound is
// value ≤ 8589934591, and a schema asking for 9999999999 is refused with that bound.
func TestSeed001SixteenDigitsIsTooMany(t *testing.T) {
	z := seed001New(seed001Start, seed001End)
	collide := 0
	for d := int64(0); d < 1000; d++ {
		a, _ := z.val2score(9_999_999_999, seed001End-d)
		b, _ := z.val2score(9_999_999_999, seed001End-d-1)
		if a == b {
			collide++
		}
	}
	if collide == 0 {
		t.Fatal("no collisions at value 9999999999")
	}
	t.Logf("value 9999999999: %d of 1000 adjacent seconds share a score", collide)
	src := strings.Replace(string(mustRead(t, "../schemas/seed001_zranking.yaml")), "    max: 8589934591\n", "    max: 9999999999\n", 1)
	_, err := layout.Parse("seed001_zranking.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "with decimal_places: 6 the score stays exact only below 8589934592000000") ||
		!strings.Contains(err.Error(), "e.g. Value to max: 8589934591") {
		t.Fatalf("value up to 9999999999: %v", err)
	}
	l := load(t, "seed001_zranking")
	checkRoundTrip(t, l, []layout.Entry{seed001Entry("top", 1<<33-1, seed001Start), seed001Entry("top", 1<<33-1, seed001End)})
}

// zranking's update script adds in doubles: newScore = valScore + floor(old). The sum is
// rounded twice, and in a fraction of cases lands one ulp away from the decimal
// "val.deltaTs" — a score the layout's P / 10^6 never produces. rankgen's Decode refuses such
// a score with ErrBadScore instead of guessing; its own writes are always the exact quotient.
func TestSeed001LuaAddRoundsTwice(t *testing.T) {
	l := load(t, "seed001_zranking")
	z := seed001New(seed001Start, seed001End)
	r := rng(t)
	off, n := 0, 30_000
	for i := 0; i < n; i++ {
		old := r.Int64N(100_000)
		delta := r.Int64N(1000)
		at := seed001Start + r.Int64N(seed001End-seed001Start+1)
		oldScore, _ := z.val2score(old, seed001Start)
		valScore, _ := z.val2score(delta, at)
		got := seed001LuaAdd(oldScore, valScore)
		want, _ := z.val2score(old+delta, at)
		ours, _, err := l.Encode(seed001Entry("u", uint64(old+delta), at))
		if err != nil || ours != want {
			t.Fatalf("Encode = %v %v, want %v", ours, err, want)
		}
		if got == want {
			continue
		}
		off++
		if math.Abs(got-want) > 2*(math.Nextafter(want, math.Inf(1))-want) {
			t.Fatalf("the seed's add is off by more than an ulp: %v vs %v", got, want)
		}
		if _, err := l.Decode(got, "u"); !errors.Is(err, rankgenrt.ErrBadScore) {
			t.Fatalf("Decode(%v) (the seed's twice-rounded %v) = %v; want ErrBadScore", got, want, err)
		}
	}
	if off == 0 {
		t.Fatal("the seed's add never rounded away from the decimal")
	}
	t.Logf("the seed's Lua add: %d of %d sums are one ulp off the decimal score", off, n)
}
