package seeds_test

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Seed 000 (chaunsin, "redis有序集合zset实现多字段排序"): score = primary; member = the 10-digit
// zero-padded (windowSeconds − 1) − (ts − baseTS), ":", the id.

// ---- the seed's own code, in Go (verbatim but for names) ----

const (
	seed000WindowSeconds = 3155760000
	seed000BaseTS        = int64(0)
)

var seed000InvertedWidth = len(strconv.FormatInt(seed000WindowSeconds-1, 10))

func seed000EncodeEntry(primary, ts int64, id string) (score float64, member string, err error) {
	rel := ts - seed000BaseTS
	if rel < 0 || rel >= seed000WindowSeconds {
		return 0, "", fmt.Errorf("timestamp %d out of 100y window", ts)
	}
	inverted := (seed000WindowSeconds - 1) - rel
	member = fmt.Sprintf("%0*d:%s", seed000InvertedWidth, inverted, id)
	return float64(primary), member, nil
}

func seed000DecodeEntry(score float64, member string) (primary, ts int64, id string, err error) {
	primary = int64(math.Round(score))
	parts := strings.SplitN(member, ":", 2)
	if len(parts) != 2 {
		err = fmt.Errorf("invalid member format")
		return
	}
	inverted, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil {
		return
	}
	rel := (seed000WindowSeconds - 1) - inverted
	ts = seed000BaseTS + rel
	id = parts[1]
	return
}

func TestSeed000Vector(t *testing.T) {
	l := load(t, "seed000_member")
	score, member, err := seed000EncodeEntry(9876543210, 1721059200, "user123")
	if err != nil || score != 9876543210 || member != "1434700799:user123" {
		t.Fatalf("the seed's EncodeEntry = %v %q %v", score, member, err)
	}
	e := layout.Entry{ID: "user123", Keys: []uint64{9876543210, sec(1721059200)}}
	gs, gm, err := l.Encode(e)
	if err != nil || gs != score || gm != member {
		t.Fatalf("Encode = %v %q %v; the seed writes %v %q", gs, gm, err, score, member)
	}
	checkRoundTrip(t, l, []layout.Entry{e})
}

// On random entries the schema writes exactly the seed's (score, member), and each decoder
// reads the other's pairs.
func TestSeed000SameAsSeedOnRandomEntries(t *testing.T) {
	l := load(t, "seed000_member")
	r := rng(t)
	for i := 0; i < 20_000; i++ {
		primary := r.Int64N(1 << 53)
		ts := r.Int64N(seed000WindowSeconds)
		id := fmt.Sprintf("u%d", r.Uint32())
		ss, sm, err := seed000EncodeEntry(primary, ts, id)
		if err != nil {
			t.Fatal(err)
		}
		e := layout.Entry{ID: id, Keys: []uint64{uint64(primary), sec(ts)}}
		gs, gm, err := l.Encode(e)
		if err != nil || gs != ss || gm != sm {
			t.Fatalf("(%d, %d, %s): Encode = %v %q %v; the seed %v %q", primary, ts, id, gs, gm, err, ss, sm)
		}
		got, err := l.Decode(ss, sm)
		if err != nil || got.ID != id || got.Keys[0] != uint64(primary) || got.Keys[1] != sec(ts) {
			t.Fatalf("Decode of the seed's pair = %v %v", got, err)
		}
		p, ts2, id2, err := seed000DecodeEntry(gs, gm)
		if err != nil || p != primary || ts2 != ts || id2 != id {
			t.Fatalf("the seed's decode of ours = %d %d %q %v", p, ts2, id2, err)
		}
	}
}

// The seed forbids ":" in ids; with a fixed-width prefix it is harmless. The seed's decoder,
// which splits at the first ":", accepts members no encoder wrote (a short prefix reads as a
// time in 2069); rankgen refuses them with a typed error. Times outside the window are refused
// by both, rankgen's as ErrOutOfRange.
func TestSeed000MembersAndWindow(t *testing.T) {
	l := load(t, "seed000_member")
	checkRoundTrip(t, l, []layout.Entry{
		{ID: "team:red:7", Keys: []uint64{1, sec(1721059200)}},
		{ID: ":", Keys: []uint64{0, sec(0)}},
		{ID: "x", Keys: []uint64{1<<53 - 1, sec(seed000WindowSeconds - 1)}},
	})
	_, ts, id, err := seed000DecodeEntry(5, "12:user123")
	if err != nil || ts != seed000WindowSeconds-1-12 || id != "user123" {
		t.Fatalf("the seed's decoder: %d %q %v", ts, id, err)
	}
	if _, err := l.Decode(5, "12:user123"); !errors.Is(err, rankgenrt.ErrBadMember) {
		t.Fatalf("Decode(short prefix) = %v, want ErrBadMember", err)
	}
	if _, err := l.Decode(5.5, "1434700799:user123"); !errors.Is(err, rankgenrt.ErrBadScore) {
		t.Fatalf("Decode(5.5) = %v, want ErrBadScore (the seed rounds it to 6)", err)
	}
	if _, _, err := seed000EncodeEntry(1, seed000WindowSeconds, "u"); err == nil {
		t.Fatal("the seed accepted 2070")
	}
	if _, _, err := l.Encode(layout.Entry{ID: "u", Keys: []uint64{1, sec(seed000WindowSeconds)}}); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Encode(2070) = %v, want ErrOutOfRange", err)
	}
	if _, _, err := l.Encode(layout.Entry{ID: "u", Keys: []uint64{1 << 53, sec(0)}}); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Encode(primary 2^53) = %v, want ErrOutOfRange", err)
	}
}
