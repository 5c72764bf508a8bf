package redistraps

import (
	"math"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// R7: tostring and .. format numbers with %.14g, and so does cjson: 2^53 − 1 becomes
// 9.007199254741e+15, and ZADD of that text stores 9007199254741000. redis.call formats a number
// argument exactly, and string.format('%.17g') is exact: generated Lua uses only those.
func TestTrapLuaTostring(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapLuaTostring(t, tg.Client) })
}

func trapLuaTostring(t *testing.T, c redis.UniversalClient) {
	k := redistest.Key(t, "z")
	got := evalString(t, c, `
local n = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], tostring(n), 'tostring')
redis.call('ZADD', KEYS[1], '' .. n, 'concat')
redis.call('ZADD', KEYS[1], n, 'number')
redis.call('ZADD', KEYS[1], string.format('%.17g', n), 'format')
return table.concat({tostring(n), '' .. n, cjson.encode({n}), string.format('%.17g', n)}, ' ')`,
		[]string{k}, "9007199254740991")
	want := "9.007199254741e+15 9.007199254741e+15 [9.007199254741e+15] 9007199254740991"
	if got != want {
		t.Errorf("Lua formatting of 2^53−1: %q; want %q", got, want)
	}
	for member, want := range map[string]float64{
		"tostring": 9007199254741000, "concat": 9007199254741000,
		"number": 1<<53 - 1, "format": 1<<53 - 1,
	} {
		if got := zscore(t, c, k, member); got != want {
			t.Errorf("ZADD via %s stored %.0f; want %.0f", member, got, want)
		}
	}
}

// R8: a number returned from a script is truncated to an integer (3.9 → 3); exact values go
// back as strings made with string.format('%.17g'). {double = n} arrives as text under RESP2 and
// as a double under RESP3, so generated scripts avoid it.
func TestTrapLuaReturnTruncated(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapLuaReturnTruncated(t, tg.Client) })
}

func trapLuaReturnTruncated(t *testing.T, c redis.UniversalClient) {
	for src, want := range map[string]int64{
		"return 3.9":        3,
		"return -3.9":       -3,
		"return 0.5":        0,
		"return 2^53 - 1":   1<<53 - 1,
		"return {3.9}":      3, // inside arrays too
		"return 1e15 + 0.5": 1e15,
	} {
		v := eval(t, c, src, nil)
		if a, ok := v.([]any); ok {
			v = a[0]
		}
		if n, ok := v.(int64); !ok || n != want {
			t.Errorf("EVAL %q = %#v; want the integer %d", src, v, want)
		}
	}
	// 1e19 does not fit an int64: the reply is still an integer, never 1e19.
	if v, ok := eval(t, c, "return 1e19", nil).(int64); !ok {
		t.Errorf("EVAL return 1e19 = %#v; want an (undefined) integer", v)
	}
	s := evalString(t, c, "return string.format('%.17g', tonumber(ARGV[1]))", nil, "3.9")
	if f, err := strconv.ParseFloat(s, 64); err != nil || f != 3.9 {
		t.Errorf("string.format('%%.17g', 3.9) = %q; want text that parses to 3.9", s)
	}

	src := "return {double = tonumber(ARGV[1])}"
	v2 := eval(t, resp2(t), src, nil, "3.9")
	v3 := eval(t, c, src, nil, "3.9")
	if _, ok := v2.(string); !ok {
		t.Errorf("RESP2 {double=3.9} = %#v (%T); want text", v2, v2)
	}
	if f, ok := v3.(float64); !ok || f != 3.9 {
		t.Errorf("RESP3 {double=3.9} = %#v (%T); want the double 3.9", v3, v3)
	}
}

// R9: tonumber(redis.call('ZSCORE', …)) is exact, whatever text the version's ZSCORE reply
// uses inside Lua.
func TestTrapLuaTonumberZscore(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapLuaTonumberZscore(t, tg.Client) })
}

func trapLuaTonumberZscore(t *testing.T, c redis.UniversalClient) {
	k := redistest.Key(t, "z")
	rng := newRand(t, 5)
	scores := scoresWeProduce(rng, 5000)
	pipe := c.Pipeline()
	members := make([]any, len(scores))
	for i, s := range scores {
		members[i] = strconv.Itoa(i)
		pipe.ZAdd(ctx, k, redis.Z{Score: s, Member: members[i]})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	v := eval(t, c, `
local out = {}
for i, m in ipairs(ARGV) do
  out[i] = string.format('%.17g', tonumber(redis.call('ZSCORE', KEYS[1], m)))
end
return out`, []string{k}, members...)
	texts := v.([]any)
	for i, s := range scores {
		f, err := strconv.ParseFloat(texts[i].(string), 64)
		if err != nil || !sameBits(f, s) {
			t.Fatalf("tonumber(ZSCORE) of %v (%#x) = %q; want it exact", s, math.Float64bits(s), texts[i])
		}
	}
}

// R9: math.floor(a / b) and a % b are exact on doubles for integers below 2^53 — the digit
// arithmetic of generated Lua. Checked against uint64 arithmetic on random and adversarial pairs.
func TestTrapLuaFloorModExact(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapLuaFloorModExact(t, tg.Client) })
}

func trapLuaFloorModExact(t *testing.T, c redis.UniversalClient) {
	rng := newRand(t, 11)
	const script = `
local out = {}
for i = 1, #ARGV, 2 do
  local a, b = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  out[#out + 1] = string.format('%.17g', math.floor(a / b))
  out[#out + 1] = string.format('%.17g', a % b)
end
return out`
	const pairs, chunk = 200000, 10000
	checked := 0
	for checked < pairs {
		as, bs := make([]uint64, chunk), make([]uint64, chunk)
		args := make([]any, 0, 2*chunk)
		for i := range chunk {
			b := 1 + randomUint(rng, 53)%(1<<53-1)
			var a uint64
			switch rng.IntN(4) {
			case 0: // a just below, at or just above a multiple of b
				q := rng.Uint64N((1<<53-1)/b + 1)
				a = q*b + uint64(rng.IntN(3)) - 1
				if a >= 1<<53 || q == 0 && a > 1 {
					a = q * b
				}
			case 1: // a mixed-radix P and one of its weights
				a = randomUint(rng, 53)
				b = 1 << rng.IntN(53)
			default:
				a = randomUint(rng, 53)
			}
			as[i], bs[i] = a, b
			args = append(args, strconv.FormatUint(a, 10), strconv.FormatUint(b, 10))
		}
		out := eval(t, c, script, nil, args...).([]any)
		for i := range chunk {
			q, r := as[i]/bs[i], as[i]%bs[i]
			if out[2*i] != strconv.FormatUint(q, 10) || out[2*i+1] != strconv.FormatUint(r, 10) {
				t.Fatalf("Lua floor(%d / %d), %% = %s, %s; want %d, %d", as[i], bs[i], out[2*i], out[2*i+1], q, r)
			}
		}
		checked += chunk
	}
	t.Logf("%d pairs exact", checked)
}

// R9: the bit library is 32-bit signed with shift counts mod 32, so it cannot pack fields.
// struct.unpack('>I4I4', struct.pack('>d', x)) gives the exact halves of a double's bits;
// '>i8' goes through a double and is lossy above 2^53.
func TestTrapLuaBit32(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trapLuaBit32(t, tg.Client) })
}

func trapLuaBit32(t *testing.T, c redis.UniversalClient) {
	got := evalString(t, c, `return table.concat({
  bit.lshift(1, 32), bit.lshift(1, 31), bit.bor(2^32, 1), bit.band(2^40 + 5, 2^40 + 7), bit.tobit(2^32 + 5)
}, ' ')`, nil)
	if want := "1 -2147483648 1 5 5"; got != want {
		t.Errorf("bit library: %q; want %q (32-bit, shifts mod 32)", got, want)
	}

	rng := newRand(t, 3)
	const src = `
local hi, lo = struct.unpack('>I4I4', struct.pack('>d', tonumber(ARGV[1])))
return string.format('%.17g %.17g', hi, lo)`
	for i := range 300 {
		b := rng.Uint64N(0x7FF0000000000000)
		if i == 0 {
			b = 1 // the smallest subnormal
		}
		x := math.Float64frombits(b)
		got := evalString(t, c, src, nil, strconv.FormatFloat(x, 'g', -1, 64))
		want := strconv.FormatUint(b>>32, 10) + " " + strconv.FormatUint(b&0xFFFFFFFF, 10)
		if got != want {
			t.Fatalf("struct halves of %#x: %q; want %q", b, got, want)
		}
	}
	// '>i8' of the 8 bytes of 2^53 + 1 comes back as the double 2^53.
	got = evalString(t, c, `
return string.format('%.17g', struct.unpack('>i8', struct.pack('>I4I4', 2097152, 1)))`, nil)
	if got != "9007199254740992" {
		t.Errorf("struct.unpack('>i8', 2^53+1) = %s; want the rounded 9007199254740992", got)
	}
}
