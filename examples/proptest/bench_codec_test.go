package proptest

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

// The practical limit for the arena layout: a codec written by hand with shifts and masks
// (Points << 32 | (max − ReachedAt) << 1 | Paid), with the same checks as the generated one.
// The benchmarks run it beside the generated codec; TestHandCodecMatches keeps it honest.

const (
	handEpoch   = 1767225600 // 2026-01-01T00:00:00Z
	handTimeMax = handEpoch + 1<<31 - 1
)

var errHand = errors.New("hand: out of range")

func handEncode(e arena.Entry) (float64, string, error) {
	t := e.ReachedAt.Unix()
	if e.Points >= 1<<20 || t < handEpoch || t > handTimeMax || len(e.PlayerID) == 0 || len(e.PlayerID) > 64 {
		return 0, "", errHand
	}
	p := uint64(e.Points)<<32 | uint64(handTimeMax-t)<<1
	if e.Paid {
		p |= 1
	}
	return float64(p), e.PlayerID, nil
}

func handDecode(score float64, member string) (arena.Entry, error) {
	if math.Signbit(score) || !(score < 1<<52) || score != math.Trunc(score) || len(member) == 0 || len(member) > 64 {
		return arena.Entry{}, errHand
	}
	p := uint64(score)
	return arena.Entry{
		PlayerID:  member,
		Points:    uint32(p >> 32),
		ReachedAt: time.Unix(handTimeMax-int64(p>>1&(1<<31-1)), 0).UTC(),
		Paid:      p&1 == 1,
	}, nil
}

func TestHandCodecMatches(t *testing.T) {
	l := loadLayout(t, "arena.yaml")
	for _, e := range randomEntries[arena.Entry](t, l, 10000) {
		gs, gm, gerr := e.Encode()
		hs, hm, herr := handEncode(e)
		if gerr != nil || herr != nil || gs != hs || gm != hm {
			t.Fatalf("%+v: generated (%v %q %v), hand (%v %q %v)", e, gs, gm, gerr, hs, hm, herr)
		}
		gd, gerr := arena.Decode(gs, gm)
		hd, herr := handDecode(hs, hm)
		if gerr != nil || herr != nil || gd != hd {
			t.Fatalf("decode %v %q: generated %+v %v, hand %+v %v", gs, gm, gd, gerr, hd, herr)
		}
	}
}

func randomEntries[E any](t testing.TB, l *layout.Layout, n int) []E {
	rng := rand.New(rand.NewPCG(9, 9))
	out := make([]E, n)
	for i := range out {
		oracle.ToGenerated(l, oracle.RandomEntry(l, rng), &out[i])
	}
	return out
}

type encoded struct {
	score  float64
	member string
}

func encodeAll[E any](t testing.TB, entries []E, encode func(E) (float64, string, error)) []encoded {
	out := make([]encoded, len(entries))
	for i, e := range entries {
		s, m, err := encode(e)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = encoded{s, m}
	}
	return out
}

// TestAllocs: Encode and Decode of score-only layouts with string ids allocate nothing;
// with a member prefix (or a uint64 id to format) Encode allocates the member string once.
func TestAllocs(t *testing.T) {
	check := func(name string, got, want float64) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %v allocations per run, want %v", name, got, want)
		}
	}
	ae := randomEntries[arena.Entry](t, loadLayout(t, "arena.yaml"), 64)
	aenc := encodeAll(t, ae, arena.Entry.Encode)
	se := randomEntries[season.Entry](t, loadLayout(t, "season.yaml"), 64)
	senc := encodeAll(t, se, season.Entry.Encode)
	re := randomEntries[racing.Entry](t, loadLayout(t, "racing.yaml"), 64)
	for i := range re {
		re[i].Car = 1 << 40 // formatting an id of 100 or more allocates its text
	}
	renc := encodeAll(t, re, racing.Entry.Encode)
	i := 0
	next := func() int { i = (i + 1) % 64; return i }
	check("arena Encode", testing.AllocsPerRun(1000, func() { _, _, _ = ae[next()].Encode() }), 0)
	check("arena Decode", testing.AllocsPerRun(1000, func() { e := aenc[next()]; _, _ = arena.Decode(e.score, e.member) }), 0)
	check("season Encode", testing.AllocsPerRun(1000, func() { _, _, _ = se[next()].Encode() }), 1)
	check("season Decode", testing.AllocsPerRun(1000, func() { e := senc[next()]; _, _ = season.Decode(e.score, e.member) }), 0)
	check("racing Encode", testing.AllocsPerRun(1000, func() { _, _, _ = re[next()].Encode() }), 1)
	check("racing Decode", testing.AllocsPerRun(1000, func() { e := renc[next()]; _, _ = racing.Decode(e.score, e.member) }), 0)
}

var (
	sinkScore  float64
	sinkMember string
	sinkErr    error
	sinkArena  arena.Entry
	sinkSeason season.Entry
)

func BenchmarkEncode(b *testing.B) {
	ae := randomEntries[arena.Entry](b, loadLayout(b, "arena.yaml"), 1024)
	se := randomEntries[season.Entry](b, loadLayout(b, "season.yaml"), 1024)
	b.Run("layout=arena/impl=hand", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			sinkScore, sinkMember, sinkErr = handEncode(ae[i&1023])
			i++
		}
	})
	b.Run("layout=arena/impl=generated", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			sinkScore, sinkMember, sinkErr = ae[i&1023].Encode()
			i++
		}
	})
	b.Run("layout=season/impl=generated", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			sinkScore, sinkMember, sinkErr = se[i&1023].Encode()
			i++
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	aenc := encodeAll(b, randomEntries[arena.Entry](b, loadLayout(b, "arena.yaml"), 1024), arena.Entry.Encode)
	senc := encodeAll(b, randomEntries[season.Entry](b, loadLayout(b, "season.yaml"), 1024), season.Entry.Encode)
	b.Run("layout=arena/impl=hand", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			e := aenc[i&1023]
			sinkArena, sinkErr = handDecode(e.score, e.member)
			i++
		}
	})
	b.Run("layout=arena/impl=generated", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			e := aenc[i&1023]
			sinkArena, sinkErr = arena.Decode(e.score, e.member)
			i++
		}
	})
	b.Run("layout=season/impl=generated", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			e := senc[i&1023]
			sinkSeason, sinkErr = season.Decode(e.score, e.member)
			i++
		}
	})
}
