package seeds_test

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Seed 004 (在码圈, "利用Redis.Zset来实现实时排行榜"): (score << 32) | (0x7FFFFFFF − (ts & 0x7FFFFFFF)),
// cast to float64.

// ---- the seed's own code, in Go ----

func seed004Combine(score, timestamp int64) float64 {
	combined := (score << 32) | (0x7FFFFFFF - (timestamp & 0x7FFFFFFF))
	return float64(combined)
}

func seed004Separate(combined float64) (int64, int64) {
	val := int64(combined)
	score := val >> 32
	timestamp := 0x7FFFFFFF - (val & 0x7FFFFFFF)
	return score, timestamp
}

func TestSeed004Vectors(t *testing.T) {
	l := load(t, "seed004_shift")
	for _, v := range []struct {
		points, ts int64
		want       int64
	}{
		{100, 1000, 431644212247},
		{100, 2000, 431644211247},
		{101, 3000, 435939177543},
	} {
		if got := seed004Combine(v.points, v.ts); got != float64(v.want) {
			t.Fatalf("the seed's combine(%d, %d) = %v, want %d", v.points, v.ts, got, v.want)
		}
		e := layout.Entry{ID: "u", Keys: []uint64{uint64(v.points), sec(v.ts)}}
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		if score != float64(v.want) || member != "u" {
			t.Errorf("Encode(%d, %d) = (%v, %q), want (%d, \"u\")", v.points, v.ts, score, member, v.want)
		}
		checkRoundTrip(t, l, []layout.Entry{e})
		if p, ts := seed004Separate(score); p != v.points || ts != v.ts {
			t.Errorf("the seed's separate(%v) = %d, %d", score, p, ts)
		}
	}
}

// The seed prints combinedA = 429496729602147482647: the decimal digits of 100 << 32 written
// with six zeros appended, then 2147482647 pasted after them. The true value is 431644212247;
// the printed one does not even fit an int64.
func TestSeed004PrintedValuesAreWrong(t *testing.T) {
	printed := map[string]int64{ // the seed's comment → what its formula computes
		"429496729602147482647": 431644212247, // A: 100, ts 1000
		"429496729602147481647": 431644211247, // B: 100, ts 2000
		"433791696898147480647": 435939177543, // C: 101, ts 3000
		"386547056642147482647": 388694539287, // X before: 90, ts 1000
		"429496729602147478647": 431644208247, // X after: 100, ts 5000
	}
	inputs := map[string][2]int64{
		"429496729602147482647": {100, 1000}, "429496729602147481647": {100, 2000}, "433791696898147480647": {101, 3000},
		"386547056642147482647": {90, 1000}, "429496729602147478647": {100, 5000},
	}
	maxInt64 := big.NewInt(math.MaxInt64)
	for text, truth := range printed {
		in := inputs[text]
		if got := int64(seed004Combine(in[0], in[1])); got != truth {
			t.Fatalf("combine%v = %d, want %d", in, got, truth)
		}
		n, _ := new(big.Int).SetString(text, 10)
		if n.Cmp(maxInt64) <= 0 {
			t.Errorf("printed %s fits an int64", text)
		}
	}
	// The seed's comment "100 << 32 = 429496729600000000" is 10^6 times too large.
	if 100<<32 != 429496729600 {
		t.Fatal("100 << 32")
	}
}

// As the seed means it (a 32-bit score over a 32-bit time slot) the layout needs 64 bits: rankgen
// refuses it, says how many bits it needs and has, and names both ways out.
func TestSeed004AsMeantIsRefused(t *testing.T) {
	_, err := parseFile(t, "seed004_as_meant.yaml")
	if err == nil {
		t.Fatal("the 64-bit layout was accepted")
	}
	var diags layout.Diagnostics
	if !errors.As(err, &diags) || len(diags) != 1 {
		t.Fatalf("error %T %v, want one layout.Diagnostic", err, err)
	}
	want := `seed004_as_meant.yaml:12:5: the score needs 64.0 bits (Points 32.0 + At 32.0; the radices multiply to 18446744073709551616, above 9007199254740992) but a float64 score holds 53.0 bits exactly (2^53); narrow a field (e.g. Points to bits: 21, fewer bits or digits, or a tighter min/max), or move the last fields to the member with "in: member"`
	if err.Error() != want {
		t.Errorf("diagnostic:\n got %s\nwant %s", err, want)
	}
	// Way out 1 (the example schema): Points narrowed to bits: 21 — loaded by TestSeed004Vectors.
	// Way out 2: the time in the member: the same fields without "in: score" on At.
	src := strings.Replace(string(mustRead(t, "testdata/seed004_as_meant.yaml")), "    in: score\n", "", 2)
	l, err := layout.Parse("member.yaml", []byte(src))
	if err != nil {
		t.Fatalf("without in: score: %v", err)
	}
	if at := l.Field("At"); at.Place != layout.InMember || !at.Hex || at.TextWidth != 8 {
		t.Fatalf("At placed %v hex %t width %d; want the member, 8 hex digits", at.Place, at.Hex, at.TextWidth)
	}
	score, member, err := l.Encode(layout.Entry{ID: "u", Keys: []uint64{math.MaxUint32, sec(1000)}})
	if err != nil || score != math.MaxUint32 || member != "7ffffc17:u" {
		t.Fatalf("Encode = %v %q %v; want 4294967295 \"7ffffc17:u\"", score, member, err)
	}
}

// With a score above 2^21 the seed's int64 passes 2^53 and float64 rounds away the time's low
// bits: two players a second apart get one score, and separate reads a time nobody wrote.
func TestSeed004ScoreBeyond21BitsLosesTheTime(t *testing.T) {
	const points = 1 << 22
	a, b := seed004Combine(points, 1000), seed004Combine(points, 1001)
	if a != b {
		t.Fatalf("combine(2^22, 1000) = %v and combine(2^22, 1001) = %v differ; expected a collision", a, b)
	}
	if _, ts := seed004Separate(b); ts == 1001 {
		t.Fatal("separate recovered the time")
	}
	l := load(t, "seed004_shift")
	_, _, err := l.Encode(layout.Entry{ID: "u", Keys: []uint64{points, sec(1000)}})
	if !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Encode(points 2^22) = %v, want ErrOutOfRange", err)
	}
}

// ts & 0x7FFFFFFF wraps one second after 2038-01-19T03:14:07Z: the seed then stores the time
// as 1970 and ranks the latecomer before everyone with equal points. rankgen refuses the time.
func TestSeed004WrapsAfter2038(t *testing.T) {
	late := time.Date(2038, 1, 19, 3, 14, 8, 0, time.UTC).Unix() // 2^31
	if late != 1<<31 {
		t.Fatal(late)
	}
	wrapped := seed004Combine(100, late)
	early := seed004Combine(100, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
	if _, ts := seed004Separate(wrapped); ts != 0 {
		t.Fatalf("the seed reads back %d", ts)
	}
	if wrapped <= early {
		t.Fatal("the wrapped time does not rank first")
	}
	l := load(t, "seed004_shift")
	_, _, err := l.Encode(layout.Entry{ID: "u", Keys: []uint64{100, sec(late)}})
	var re *rankgenrt.RangeError
	if !errors.Is(err, rankgenrt.ErrOutOfRange) || !errors.As(err, &re) || re.Field != "At" {
		t.Fatalf("Encode(2038-01-19T03:14:08Z) = %v, want an ErrOutOfRange on At", err)
	}
	if _, _, err := l.Encode(layout.Entry{ID: "u", Keys: []uint64{100, sec(late - 1)}}); err != nil {
		t.Fatalf("the last second of the range: %v", err)
	}
}
