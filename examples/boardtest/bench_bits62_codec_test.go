package boardtest

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/duel"
)

// The duel layout written by hand, the yardstick for the generated bits62 codec: the same
// range checks, the digits packed with constant multiplies (a radix-3 enum leaves no pure
// shift-and-mask form; the power-of-two fields compile to shifts and masks) and the pattern
// reinterpreted as a float64.
const (
	handReachedMin = 1767225600 // 2026-01-01T00:00:00Z
	handReachedMax = handReachedMin + 1<<28 - 1
	handTierShift  = 28      // weight of Tier: 2^28
	handWinsWeight = 3 << 28 // weight of Wins: 3·2^28
	handPtsWeight  = 3 << 36 // weight of Points: 3·2^36
	handBound      = 3 << 60 // scoreBound
)

func handEncode(e duel.Entry) (float64, string, bool) {
	sec := e.ReachedAt.Unix()
	if e.Points >= 1<<24 || e.Tier > duel.TierGold || sec < handReachedMin || sec > handReachedMax || len(e.PlayerID) == 0 || len(e.PlayerID) > 32 {
		return 0, "", false
	}
	p := uint64(e.Points)*handPtsWeight + uint64(e.Wins)*handWinsWeight + uint64(e.Tier)<<handTierShift | uint64(handReachedMax-sec)
	return math.Float64frombits(p), e.PlayerID, true
}

func handDecode(score float64, member string) (duel.Entry, bool) {
	p := math.Float64bits(score)
	if p >= handBound || len(member) == 0 || len(member) > 32 {
		return duel.Entry{}, false
	}
	return duel.Entry{
		PlayerID:  member,
		Points:    uint32(p / handPtsWeight),
		Wins:      uint8(p / handWinsWeight & 0xff),
		Tier:      duel.Tier(p >> handTierShift % 3),
		ReachedAt: time.Unix(handReachedMax-int64(p&(1<<28-1)), 0).UTC(),
	}, true
}

func randomDuel(rng *rand.Rand) duel.Entry {
	return duel.Entry{
		PlayerID:  "player-" + string(rune('a'+rng.IntN(26))),
		Points:    uint32(rng.IntN(1 << 24)),
		Wins:      uint8(rng.IntN(256)),
		Tier:      duel.Tier(rng.IntN(3)),
		ReachedAt: time.Unix(handReachedMin+rng.Int64N(1<<28), 0).UTC(),
	}
}

// TestBits62CodecCost: the hand codec is the generated one (so the benchmark compares equals),
// and the generated Encode and Decode allocate nothing.
func TestBits62CodecCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(62, 2))
	for i := 0; i < 10000; i++ {
		e := randomDuel(rng)
		s, m, err := e.Encode()
		hs, hm, ok := handEncode(e)
		if err != nil || !ok || math.Float64bits(s) != math.Float64bits(hs) || m != hm {
			t.Fatalf("%+v: generated (%v %q %v), hand (%v %q %v)", e, s, m, err, hs, hm, ok)
		}
		d, err := duel.Decode(s, m)
		hd, ok := handDecode(s, m)
		if err != nil || !ok || d != hd || d != e {
			t.Fatalf("Decode(%v): generated %+v %v, hand %+v", s, d, err, hd)
		}
	}
	e := randomDuel(rng)
	s, m, _ := e.Encode()
	if n := testing.AllocsPerRun(1000, func() { _, _, _ = e.Encode() }); n != 0 {
		t.Errorf("Encode allocates %v times", n)
	}
	if n := testing.AllocsPerRun(1000, func() { _, _ = duel.Decode(s, m) }); n != 0 {
		t.Errorf("Decode allocates %v times", n)
	}
}

var sinkScore float64
var sinkEntry duel.Entry

// BenchmarkBits62Codec compares the generated bits62 codec with the hand-written one.
func BenchmarkBits62Codec(b *testing.B) {
	rng := rand.New(rand.NewPCG(62, 3))
	entries := make([]duel.Entry, 1024)
	scores := make([]float64, len(entries))
	for i := range entries {
		entries[i] = randomDuel(rng)
		scores[i], _, _ = entries[i].Encode()
	}
	b.Run("encode/generated", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sinkScore, _, _ = entries[i&1023].Encode()
		}
	})
	b.Run("encode/hand", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sinkScore, _, _ = handEncode(entries[i&1023])
		}
	})
	b.Run("decode/generated", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sinkEntry, _ = duel.Decode(scores[i&1023], "player-x")
		}
	})
	b.Run("decode/hand", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sinkEntry, _ = handDecode(scores[i&1023], "player-x")
		}
	})
}
