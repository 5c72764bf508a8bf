package seeds_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Seed 002 (ld000, "让 Redis zset 支持多条件排序", 2019): five players ranked by points, then paid
// (1) before unpaid (0), then whoever got there first. Timestamps are in milliseconds.
type seed002Row struct {
	Player string
	Points int64
	Paid   bool
	TsMs   int64
}

var seed002Rows = []seed002Row{
	{"A", 100, true, 1571819021259},
	{"B", 200, false, 1571819021259},
	{"C", 200, true, 1571819021259},
	{"D", 400, false, 1571819021259},
	{"E", 200, true, 1571810001259},
}

// The seed's order, best first (its ZRANGE output read from the end): D, E, C, B, A.
var seed002Order = []string{"D", "E", "C", "B", "A"}

// ---- the seed's own code, in Go ----

// seed002MaxSecond is the seed's MAX_SECOND: 2029-01-01 00:00:00 +08:00.
const seed002MaxSecond = 1861891200

// seed002Sts is `int sts = (MAX_SECOND - (int)(ts/1000))`.
func seed002Sts(tsMs int64) int64 { return seed002MaxSecond - tsMs/1000 }

// seed002GenScore is the seed's genScore with size1 = 33, size2 = 1, size3 = 29.
func seed002GenScore(d1, d2, d3 int64) int64 {
	const size1, size2, size3 = 33, 1, 29
	maxBySize := func(n int) int64 { return 1<<n - 1 }
	return (d1&maxBySize(size1))<<(size2+size3) | (d2&maxBySize(size2))<<size3 | d3&maxBySize(size3)
}

// seed002Decimal is the seed's "直接拆分 double": points, ".", the paid digit, nine digits of sts.
func seed002Decimal(r seed002Row) string {
	return fmt.Sprintf("%d.%d%09d", r.Points, flag(r.Paid), seed002Sts(r.TsMs))
}

// seed002KeyMember is the seed's key-sort member: id, "-", paid, "-", 9999999999999 − ts.
func seed002KeyMember(r seed002Row) string {
	return fmt.Sprintf("%s-%d-%d", r.Player, flag(r.Paid), 9999999999999-r.TsMs)
}

// ---- binary segments ----

func seed002Entry(r seed002Row) layout.Entry {
	return layout.Entry{ID: r.Player, Keys: []uint64{uint64(r.Points), flag(r.Paid), sec(r.TsMs / 1000)}}
}

func TestSeed002BinaryVectors(t *testing.T) {
	l := load(t, "seed002_binary")
	want := map[string]int64{ // the values, checked against the seed's zadd lines
		"A": 108201125491, "B": 215038436979, "C": 215575307891, "D": 429786801779, "E": 215575316911,
	}
	var es []layout.Entry
	for _, r := range seed002Rows {
		seed := seed002GenScore(r.Points, int64(flag(r.Paid)), seed002Sts(r.TsMs))
		if seed != want[r.Player] {
			t.Fatalf("%s: the seed's genScore = %d, want %d", r.Player, seed, want[r.Player])
		}
		e := seed002Entry(r)
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		if score != float64(seed) || member != r.Player {
			t.Errorf("%s: Encode = (%v, %q), the seed writes (%d, %q)", r.Player, score, member, seed, r.Player)
		}
		es = append(es, e)
	}
	checkRoundTrip(t, l, es)
	if got := sortedIDs(l, es); !slices.Equal(got, seed002Order) {
		t.Errorf("Compare order %v, the seed's %v", got, seed002Order)
	}
	var redisOrder []string
	for _, p := range revOrder(encodeAll(t, l, es)) {
		redisOrder = append(redisOrder, p.Member)
	}
	if !slices.Equal(redisOrder, seed002Order) {
		t.Errorf("ZREVRANGE order %v, the seed's %v", redisOrder, seed002Order)
	}
}

// The seed gives points 33 bits, for 63 in all: above 2^23 points the float64 score rounds away
// the low bits of the time. rankgen narrows points to the seed's own bound, 23 bits, and refuses
// anything above.
func TestSeed002BinaryPointsBeyond23BitsLoseTheTime(t *testing.T) {
	sts := seed002Sts(1571819021259)
	a := seed002GenScore(1<<23, 1, sts)
	b := seed002GenScore(1<<23, 1, sts+1) // one second earlier
	if float64(a) != float64(b) {
		t.Fatalf("the seed's scores %d and %d stay distinct as float64; expected them to collide", a, b)
	}
	l := load(t, "seed002_binary")
	_, _, err := l.Encode(layout.Entry{ID: "A", Keys: []uint64{1 << 23, 1, sec(1571819021)}})
	if !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("Encode(points 2^23) = %v, want ErrOutOfRange", err)
	}
	// The largest points with the earliest and the latest time both decode exactly.
	f := l.Field("ReachedAt")
	checkRoundTrip(t, l, []layout.Entry{
		{ID: "max", Keys: []uint64{1<<23 - 1, 1, f.Lo}},
		{ID: "max", Keys: []uint64{1<<23 - 1, 0, f.Hi}},
	})
}

// ---- decimal split ----

func TestSeed002DecimalVectors(t *testing.T) {
	l := load(t, "seed002_decimal")
	want := map[string]string{ // the seed's table
		"A": "100.1290072179", "B": "200.0290072179", "C": "200.1290072179", "D": "400.0290072179", "E": "200.1290081199",
	}
	var es []layout.Entry
	for _, r := range seed002Rows {
		if got := seed002Decimal(r); got != want[r.Player] {
			t.Fatalf("%s: the seed's formula gives %s, its table %s", r.Player, got, want[r.Player])
		}
		e := seed002Entry(r)
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		exact, _ := strconv.ParseFloat(want[r.Player], 64)
		if score != exact || member != r.Player {
			t.Errorf("%s: Encode = (%v, %q), want ParseFloat(%q) = %v", r.Player, score, member, want[r.Player], exact)
		}
		// The score reads back as the seed's decimal text.
		if s := strconv.FormatFloat(score, 'f', -1, 64); s != want[r.Player] {
			t.Errorf("%s: score prints as %s, want %s", r.Player, s, want[r.Player])
		}
		es = append(es, e)
	}
	checkRoundTrip(t, l, es)
	if got := sortedIDs(l, es); !slices.Equal(got, seed002Order) {
		t.Errorf("Compare order %v, the seed's %v", got, seed002Order)
	}
}

// Ten decimal places keep a double exact only below 2^19: rankgen's bound is points ≤ 524287.
// Every score up to it decodes; a wider points field is refused; and above the bound the seed's
// decimal strings really collide.
func TestSeed002DecimalBound(t *testing.T) {
	l := load(t, "seed002_decimal")
	if l.ScoreLimit != 524288*10_000_000_000 {
		t.Fatalf("ScoreLimit = %d, want 2^19 · 10^10", l.ScoreLimit)
	}
	r := rng(t)
	f := l.Field("ReachedAt")
	for i := 0; i < 200_000; i++ {
		pts := uint64(524287) - r.Uint64N(1000)
		if i%2 == 0 {
			pts = r.Uint64N(524288)
		}
		e := layout.Entry{ID: "p", Keys: []uint64{pts, r.Uint64N(2), f.Lo + r.Uint64N(f.Span()+1)}}
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("%d.%d%09d", pts, e.Keys[1], f.Digit(e.Keys[2]))
		if exact, _ := strconv.ParseFloat(text, 64); exact != score {
			t.Fatalf("Encode = %v, ParseFloat(%s) = %v", score, text, exact)
		}
		got, err := l.Decode(score, member)
		if err != nil || !slices.Equal(got.Keys, e.Keys) {
			t.Fatalf("Decode(%v) = %v, %v; want %v", score, got, err, e.Keys)
		}
	}
	wider := strings.Replace(string(mustRead(t, "../schemas/seed002_decimal.yaml")), "max: 524287", "max: 524288", 1)
	_, err := layout.Parse("wider.yaml", []byte(wider))
	if err == nil || !strings.Contains(err.Error(), "with decimal_places: 10 the score stays exact only below 5242880000000000") {
		t.Fatalf("points up to 524288 accepted or misreported: %v", err)
	}
	// Above the bound two different rows of the seed parse to one double.
	collisions := 0
	for d := 0; d < 2000; d++ {
		a, _ := strconv.ParseFloat(fmt.Sprintf("600000.1%09d", 290072179+d), 64)
		b, _ := strconv.ParseFloat(fmt.Sprintf("600000.1%09d", 290072179+d+1), 64)
		if a == b {
			collisions++
		}
	}
	if collisions == 0 {
		t.Fatal("no collisions at points 600000: the bound would be too strict")
	}
	t.Logf("points 600000: %d of 2000 adjacent seconds collide in the seed's decimal score", collisions)
}

// ---- key sort ----

// The seed's members put the id first, so equal points tie-break by the id's bytes: the flag
// and time it carries do nothing. With the seed's five names the order happens to come out as
// meant; rename the unpaid player and it does not. The layout as meant (flag and time before
// the id) orders by what the member carries, whatever the names.
func TestSeed002KeySort(t *testing.T) {
	l := load(t, "seed002_keysort")
	members := map[string]string{"A": "1-8428180978740-A", "B": "0-8428180978740-B", "C": "1-8428180978740-C", "D": "0-8428180978740-D", "E": "1-8428189998740-E"}
	seedMembers := map[string]string{"A": "A-1-8428180978740", "B": "B-0-8428180978740", "C": "C-1-8428180978740", "D": "D-0-8428180978740", "E": "E-1-8428189998740"}
	var es []layout.Entry
	for _, r := range seed002Rows {
		if got := seed002KeyMember(r); got != seedMembers[r.Player] {
			t.Fatalf("the seed's member for %s = %s, its zadd line %s", r.Player, got, seedMembers[r.Player])
		}
		e := layout.Entry{ID: r.Player, Keys: []uint64{uint64(r.Points), flag(r.Paid), msec(r.TsMs)}}
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		if score != float64(r.Points) || member != members[r.Player] {
			t.Errorf("%s: Encode = (%v, %q), want (%d, %q)", r.Player, score, member, r.Points, members[r.Player])
		}
		es = append(es, e)
	}
	checkRoundTrip(t, l, es)

	// The seed's ZRANGE output, lowest first: A, B, C, E, D — B, C, E by name.
	var seedPairs []pair
	for _, r := range seed002Rows {
		seedPairs = append(seedPairs, pair{float64(r.Points), seed002KeyMember(r)})
	}
	if got := memberPrefixes(revOrder(seedPairs)); !slices.Equal(got, []string{"D", "E", "C", "B", "A"}) {
		t.Fatalf("the seed's order %v", got)
	}

	// Rename B (unpaid) to Z: under the seed it jumps ahead of the paid players with equal points.
	renamed := slices.Clone(seed002Rows)
	renamed[1].Player = "Z"
	seedPairs = seedPairs[:0]
	var ours []layout.Entry
	for _, r := range renamed {
		seedPairs = append(seedPairs, pair{float64(r.Points), seed002KeyMember(r)})
		ours = append(ours, layout.Entry{ID: r.Player, Keys: []uint64{uint64(r.Points), flag(r.Paid), msec(r.TsMs)}})
	}
	if got, want := memberPrefixes(revOrder(seedPairs)), []string{"D", "Z", "E", "C", "A"}; !slices.Equal(got, want) {
		t.Errorf("the seed's order after renaming B to Z = %v, want %v (ties by name)", got, want)
	}
	wantOurs := []string{"D", "E", "C", "Z", "A"} // paid first, then earlier first, whatever the names
	if got := sortedIDs(l, ours); !slices.Equal(got, wantOurs) {
		t.Errorf("Compare order after renaming = %v, want %v", got, wantOurs)
	}
	var ourOrder []string
	for _, p := range revOrder(encodeAll(t, l, ours)) {
		e, err := l.Decode(p.Score, p.Member)
		if err != nil {
			t.Fatal(err)
		}
		ourOrder = append(ourOrder, e.ID)
	}
	if !slices.Equal(ourOrder, wantOurs) {
		t.Errorf("ZREVRANGE order of rankgen's members = %v, want %v", ourOrder, wantOurs)
	}
	// Ids may contain the separator: the prefix has a fixed width.
	checkRoundTrip(t, l, []layout.Entry{{ID: "a-1-2-", Keys: []uint64{7, 1, msec(1571819021259)}}})
}

// memberPrefixes returns the id part of the seed's members (before the first "-").
func memberPrefixes(ps []pair) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i], _, _ = strings.Cut(p.Member, "-")
	}
	return out
}
