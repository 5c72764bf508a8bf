package redistraps

import (
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// R1: every integer in [−2^53, 2^53] is exact; beyond, ZADD, ZINCRBY and Lua round half to
// even without an error. So every field is range-checked before any arithmetic.
func TestTrap2p53Boundary(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trap2p53Boundary(t, tg.Client) })
}

func trap2p53Boundary(t *testing.T, c redis.UniversalClient) {
	k := redistest.Key(t, "z")

	for _, v := range []float64{1<<53 - 2, 1<<53 - 1, 1 << 53, -(1 << 53), -(1<<53 - 1)} {
		if err := c.ZAdd(ctx, k, redis.Z{Score: v, Member: "m"}).Err(); err != nil {
			t.Fatal(err)
		}
		if got := zscore(t, c, k, "m"); !sameBits(got, v) {
			t.Errorf("ZADD %.0f: ZSCORE = %.0f; want exact", v, got)
		}
	}

	// Beyond 2^53, the decimal text is rounded to the nearest double, ties to even: silently.
	for text, want := range map[string]float64{
		"9007199254740993": 1 << 53, // 2^53 + 1 → 2^53
		"9007199254740995": 1<<53 + 4,
		"9007199254740997": 1<<53 + 4,
	} {
		if err := c.Do(ctx, "ZADD", k, text, "big").Err(); err != nil {
			t.Fatalf("ZADD %s: %v; the trap is that Redis accepts it", text, err)
		}
		if got := zscore(t, c, k, "big"); got != want {
			t.Errorf("ZADD %s: ZSCORE = %.0f; want %.0f (rounded, no error)", text, got, want)
		}
	}

	// ZINCRBY past 2^53: (2^53 − 1) + 2 = 2^53 + 1 is stored as 2^53.
	c.ZAdd(ctx, k, redis.Z{Score: 1<<53 - 1, Member: "inc"})
	got, err := c.ZIncrBy(ctx, k, 2, "inc").Result()
	if err != nil {
		t.Fatalf("ZINCRBY: %v; the trap is that Redis accepts it", err)
	}
	if got != 1<<53 {
		t.Errorf("ZINCRBY 2^53−1 by 2 = %.0f; want 2^53 (silently rounded)", got)
	}

	// Lua numbers are the same doubles: tonumber("2^53+1") is 2^53, and (2^53) + 1 is 2^53.
	s := evalString(t, c, `
local n = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], n, 'lua')
return string.format('%.17g', n) .. ' ' .. string.format('%.17g', n + 1)`,
		[]string{k}, "9007199254740993")
	if s != "9007199254740992 9007199254740992" {
		t.Errorf("Lua: tonumber(2^53+1), +1 = %q; want both 9007199254740992", s)
	}
	if got := zscore(t, c, k, "lua"); got != 1<<53 {
		t.Errorf("Lua ZADD of tonumber(2^53+1) stored %.0f; want 2^53", got)
	}

	// The guard: every example layout keeps P below 2^53 (a bits62 layout, whose score is P's
	// bit pattern, below 2^62), so its largest score is exact.
	for _, name := range examples {
		l := example(t, name)
		limit := uint64(layout.MaxScore)
		if l.Score == layout.ScoreBits62 {
			limit = layout.MaxBits62
		}
		if l.ScoreRadix > limit || l.ScoreLimit > limit {
			t.Errorf("%s: ScoreRadix %d, ScoreLimit %d; want ≤ 2^53", name, l.ScoreRadix, l.ScoreLimit)
		}
		top := l.ScoreOf(l.ScoreRadix - 1)
		if p, err := l.POf(top); err != nil || p != l.ScoreRadix-1 {
			t.Errorf("%s: largest score %v decodes to %d, %v; want %d", name, top, p, err, l.ScoreRadix-1)
		}
	}
}

// R3: −0 is stored as +0 by a listpack (small set) but kept by a skiplist (large set): the
// same board would answer differently by size. go-redis writes −0 as "-0", so rankgen must never
// produce it.
func TestTrapNegativeZero(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapNegativeZero(t, tg.Client) })
}

func trapNegativeZero(t *testing.T, c redis.UniversalClient) {
	small, big := redistest.Key(t, "small"), redistest.Key(t, "big")
	negZero := math.Copysign(0, -1)

	if err := c.ZAdd(ctx, small, redis.Z{Score: negZero, Member: "a"}).Err(); err != nil {
		t.Fatal(err)
	}
	zs := make([]redis.Z, 200) // above zset-max-listpack-entries (128): a skiplist
	for i := range zs {
		zs[i] = redis.Z{Score: float64(i + 1), Member: "m" + strconv.Itoa(i)}
	}
	c.ZAdd(ctx, big, zs...)
	if err := c.ZAdd(ctx, big, redis.Z{Score: negZero, Member: "a"}).Err(); err != nil {
		t.Fatal(err)
	}
	encSmall, _ := c.ObjectEncoding(ctx, small).Result()
	encBig, _ := c.ObjectEncoding(ctx, big).Result()
	if encSmall == "skiplist" || encBig != "skiplist" {
		t.Fatalf("encodings %q, %q; want a compact one and skiplist", encSmall, encBig)
	}
	gotSmall, gotBig := zscore(t, c, small, "a"), zscore(t, c, big, "a")
	if math.Signbit(gotSmall) || !math.Signbit(gotBig) {
		t.Errorf("ZADD −0: %s answers %v (signbit %v), skiplist answers %v (signbit %v); want +0 and −0",
			encSmall, gotSmall, math.Signbit(gotSmall), gotBig, math.Signbit(gotBig))
	}
	if n, _ := c.ZCount(ctx, big, "0", "0").Result(); n != 1 {
		t.Errorf("ZCOUNT 0 0 = %d; −0 and 0 still compare equal", n)
	}

	// The guard: the lowest entry of every example encodes to +0, never −0.
	for _, name := range examples {
		l := example(t, name)
		e := layout.Entry{ID: "1", Keys: make([]uint64, len(l.Fields))}
		for i, f := range l.Fields {
			e.Keys[i] = f.Key(0)
		}
		score, _, err := l.Encode(e)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if math.Float64bits(score) != 0 {
			t.Errorf("%s: lowest entry's score has bits %#x; want +0", name, math.Float64bits(score))
		}
	}
}

var plainDecimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// scoreParser is how a server reads ZADD's score text. The two parsers servers use differ on
// hex floats and on overflow, and on nothing rankgen writes.
type scoreParser string

const (
	strtodParser    scoreParser = "strtod (hex read, overflow refused)"
	fastFloatParser scoreParser = "fast_float (hex refused, overflow stored as +inf)"
)

// probeScoreParser asks the server which parser it has: ZADD of the hex float 0x1p3 and of the
// overflowing 1e309, under members "hex" and "ovf" of k. A server that answers neither way
// fails the test: docs/redis-facts.md R2 must then learn its behaviour.
func probeScoreParser(t *testing.T, c *redis.Client, k string) scoreParser {
	t.Helper()
	hexErr := c.Do(ctx, "ZADD", k, "0x1p3", "hex").Err()
	ovfErr := c.Do(ctx, "ZADD", k, "1e309", "ovf").Err()
	switch {
	case hexErr == nil && ovfErr != nil:
		if got := zscore(t, c, k, "hex"); got != 8 {
			t.Fatalf("ZADD 0x1p3 stored %v; a strtod parser reads it as 8", got)
		}
		return strtodParser
	case hexErr != nil && ovfErr == nil:
		if got := zscore(t, c, k, "ovf"); !math.IsInf(got, 1) {
			t.Fatalf("ZADD 1e309 stored %v; a fast_float parser stores +inf", got)
		}
		return fastFloatParser
	}
	t.Fatalf("a score parser of neither known kind: ZADD 0x1p3 → %v, ZADD 1e309 → %v", hexErr, ovfErr)
	return ""
}

// R2: ZADD parses scores with strtod or with fast_float, which differ on hex floats and on
// overflow; NaN and non-numbers are refused by both. The test probes which parser the server
// has (never its version: an 8.0 pre-release reporting 7.9.224 already has fast_float), then
// asserts what that parser means for rankgen, and that rankgen's own score text — plain
// decimal, written by rankgenrt.FormatScore and by go-redis — reads back bit for bit as
// strconv.ParseFloat reads it, which both parsers do because both round correctly.
func TestTrapZADDParsing(t *testing.T) {
	c := redistest.Client(t)
	k := redistest.Key(t, "z")

	for _, text := range []string{"nan", "NaN", "-nan", "abc", ""} {
		if err := c.Do(ctx, "ZADD", k, text, "x").Err(); err == nil {
			t.Errorf("ZADD %q accepted; want an error", text)
		}
	}
	parser := probeScoreParser(t, c, k)
	t.Logf("score parser: %s", parser)
	switch parser {
	case strtodParser:
		// Foreign hex text is just another spelling of a number: it stores the double rankgen's
		// plain decimal for that number stores.
		if err := c.Do(ctx, "ZADD", k, rankgenrt.FormatScore(8), "dec").Err(); err != nil {
			t.Fatal(err)
		}
		if hex, dec := zscore(t, c, k, "hex"), zscore(t, c, k, "dec"); !sameBits(hex, dec) {
			t.Errorf("ZADD 0x1p3 stored %v, ZADD 8 stored %v; want one double", hex, dec)
		}
	case fastFloatParser:
		// Other code can store +inf by overflowing; no layout writes it, and every decoder
		// refuses it as a score it cannot have produced.
		stored := zscore(t, c, k, "ovf")
		for _, name := range examples {
			if p, err := example(t, name).POf(stored); !errors.Is(err, rankgenrt.ErrBadScore) {
				t.Errorf("%s: a stored %v decodes to P = %d, %v; want ErrBadScore", name, stored, p, err)
			}
		}
	}

	// Every score rankgen produces is written as plain decimal and read back bit for bit,
	// through RESP3 (a double) and RESP2 (text parsed by ParseFloat): sent as rankgenrt's text
	// (as board scripts receive scores) and as go-redis writes a float64 (as Best's ZADD does).
	rng := newRand(t, 7)
	scores := scoresWeProduce(rng, 20000)
	k2 := redistest.Key(t, "roundtrip")
	pipe := c.Pipeline()
	for i, s := range scores {
		text := rankgenrt.FormatScore(s)
		if !plainDecimal.MatchString(text) || text != strconv.FormatFloat(s, 'f', -1, 64) {
			t.Fatalf("score %v is written as %q: not go-redis's plain decimal", s, text)
		}
		if f, err := strconv.ParseFloat(text, 64); err != nil || !sameBits(f, s) {
			t.Fatalf("score %v is written as %q, which reads back as %v", s, text, f)
		}
		pipe.Do(ctx, "ZADD", k2, text, "t"+strconv.Itoa(i))
		pipe.ZAdd(ctx, k2, redis.Z{Score: s, Member: "f" + strconv.Itoa(i)})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	c2 := resp2(t)
	for _, cl := range []*redis.Client{c, c2} {
		zs, err := cl.ZRangeWithScores(ctx, k2, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(zs) != 2*len(scores) {
			t.Fatalf("RESP%d: %d members; want %d", cl.Options().Protocol, len(zs), 2*len(scores))
		}
		bad := 0
		for _, z := range zs {
			m := z.Member.(string)
			i, _ := strconv.Atoi(m[1:])
			if !sameBits(z.Score, scores[i]) && bad < 5 {
				bad++
				t.Errorf("RESP%d: score %v (%#x) sent as %s read back as %v (%#x)", cl.Options().Protocol,
					scores[i], math.Float64bits(scores[i]), m[:1], z.Score, math.Float64bits(z.Score))
			}
		}
	}
}

// replyStyle is how a server writes a score in a RESP2 reply.
type replyStyle string

const (
	printf17g     replyStyle = "%.17g"                         // 1e17 → "1e+17", 0.1 → "0.10000000000000001"
	shortestDigit replyStyle = "integer digits, else shortest" // 1e17 → "100000000000000000", 0.1 → "0.1"
)

// probeReplyStyle reads back the score 1e17 under member "probe" of k, whose text tells the two
// styles apart; a server that writes it another way fails the test (docs/redis-facts.md R4
// must then learn its style).
func probeReplyStyle(t *testing.T, c *redis.Client, k string) replyStyle {
	t.Helper()
	c.ZAdd(ctx, k, redis.Z{Score: 1e17, Member: "probe"})
	text, err := c.Do(ctx, "ZSCORE", k, "probe").Text()
	if err != nil {
		t.Fatal(err)
	}
	switch text {
	case "1e+17":
		return printf17g
	case "100000000000000000":
		return shortestDigit
	}
	t.Fatalf("ZSCORE of 1e17 is %q: a reply style of neither known kind", text)
	return ""
}

// R4: reply formatting differs between servers (%.17g, so 1e17 is "1e+17"; or integer digits
// and the shortest round-trip text otherwise). The test probes the server's style, asserts it
// writes every score that way, and that ParseFloat reads every reply back exactly: scores are
// compared as doubles, never as text.
func TestTrapReplyFormatting(t *testing.T) {
	c := resp2(t)
	k := redistest.Key(t, "z")
	style := probeReplyStyle(t, c, k)
	t.Logf("reply style: %s", style)

	for _, tc := range []struct {
		score   float64
		g17, sh string
	}{
		{1e17, "1e+17", "100000000000000000"},
		{0.1, "0.10000000000000001", "0.1"},
		{1<<53 - 1, "9007199254740991", "9007199254740991"},
		{1.5, "1.5", "1.5"},
	} {
		c.ZAdd(ctx, k, redis.Z{Score: tc.score, Member: "m"})
		text, err := c.Do(ctx, "ZSCORE", k, "m").Text()
		if err != nil {
			t.Fatal(err)
		}
		want := tc.sh
		if style == printf17g {
			want = tc.g17
		}
		if text != want {
			t.Errorf("ZSCORE of %v is %q; want %q, as the %s style writes it", tc.score, text, want, style)
		}
		if f, err := strconv.ParseFloat(text, 64); err != nil || !sameBits(f, tc.score) {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v exactly", text, f, err, tc.score)
		}
	}
}

// R5: non-negative doubles order exactly as their bit patterns, subnormals and +Inf included,
// through ZADD and through Lua, and ZADD GT keeps the larger pattern: a 62-bit key
// reinterpreted as a double is a valid score.
func TestTrapBitPatternOrder(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapBitPatternOrder(t, tg.Client) })
}

func trapBitPatternOrder(t *testing.T, c redis.UniversalClient) {
	k, kl := redistest.Key(t, "z"), redistest.Key(t, "lua")
	rng := newRand(t, 77)
	bits := []uint64{0, 1, 2, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000}
	for len(bits) < 3000 {
		bits = append(bits, rng.Uint64N(0x7FF0000000000001))
	}
	slices.Sort(bits)
	bits = slices.Compact(bits)

	pipe := c.Pipeline()
	for i, b := range bits {
		m := strconv.Itoa(i)
		pipe.ZAdd(ctx, k, redis.Z{Score: math.Float64frombits(b), Member: m})
		pipe.Eval(ctx, "return redis.call('ZADD', KEYS[1], tonumber(ARGV[1]), ARGV[2])", []string{kl},
			strconv.FormatFloat(math.Float64frombits(b), 'g', -1, 64), m)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{k, kl} {
		zs, err := c.ZRangeWithScores(ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(zs) != len(bits) {
			t.Fatalf("%d members; want %d", len(zs), len(bits))
		}
		for i, z := range zs {
			if z.Member != strconv.Itoa(i) || math.Float64bits(z.Score) != bits[i] {
				t.Fatalf("%s position %d: %v %#x; want member %d with bits %#x", key, i, z.Member,
					math.Float64bits(z.Score), i, bits[i])
			}
		}
	}

	// ZADD GT keeps the larger bit pattern.
	kg := redistest.Key(t, "gt")
	for range 500 {
		a, b := bits[rng.IntN(len(bits))], bits[rng.IntN(len(bits))]
		c.Del(ctx, kg)
		c.ZAdd(ctx, kg, redis.Z{Score: math.Float64frombits(a), Member: "m"})
		c.ZAddGT(ctx, kg, redis.Z{Score: math.Float64frombits(b), Member: "m"})
		if got := math.Float64bits(zscore(t, c, kg, "m")); got != max(a, b) {
			t.Fatalf("ZADD %#x then ZADD GT %#x: %#x; want %#x", a, b, got, max(a, b))
		}
	}
}
