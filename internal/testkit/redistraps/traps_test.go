package redistraps

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { redistest.Main(m) }

var ctx = context.Background()

// resp2 returns a RESP2 client of the shared server: its replies carry scores as text.
func resp2(t *testing.T) *redis.Client {
	return redistest.ClientWith(t, func(o *redis.Options) { o.Protocol = 2 })
}

// eval runs a Lua script and fails the test on error.
func eval(t *testing.T, c redis.Scripter, src string, keys []string, args ...any) any {
	t.Helper()
	v, err := c.Eval(ctx, src, keys, args...).Result()
	if err != nil {
		t.Fatalf("EVAL %q: %v", src, err)
	}
	return v
}

// evalString runs a script that returns a string.
func evalString(t *testing.T, c redis.Scripter, src string, keys []string, args ...any) string {
	t.Helper()
	v := eval(t, c, src, keys, args...)
	s, ok := v.(string)
	if !ok {
		t.Fatalf("EVAL %q = %#v (%T); want a string", src, v, v)
	}
	return s
}

// zscore reads a score through go-redis (which parses it with strconv.ParseFloat).
func zscore(t *testing.T, c redis.Cmdable, key, member string) float64 {
	t.Helper()
	f, err := c.ZScore(ctx, key, member).Result()
	if err != nil {
		t.Fatalf("ZSCORE %s %q: %v", key, member, err)
	}
	return f
}

// sameBits reports whether two floats are the same double, bit for bit (so −0 ≠ +0).
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// newRand returns a deterministic generator; the seed is logged so that a failure replays.
func newRand(t *testing.T, seed uint64) *rand.Rand {
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// examples are the names of every example of internal/testkit/exampleboards, periodic ones included
// (their layouts encode like any other).
var examples = func() []string {
	var out []string
	for _, ex := range append(exampleboards.All(), exampleboards.Periodic()...) {
		out = append(out, ex.Name)
	}
	return out
}()

// example parses the schema of the example named name.
func example(t *testing.T, name string) *layout.Layout {
	t.Helper()
	return exampleboards.Named(t, name)[0].Layout(t)
}

// randomUint returns a random integer below 2^bits, with the bit length itself uniformly
// random, so that small and large values are equally likely.
func randomUint(rng *rand.Rand, bits int) uint64 {
	n := 1 + rng.IntN(bits)
	if n == 64 {
		return rng.Uint64()
	}
	return rng.Uint64N(1 << n)
}

// scoresWeProduce returns n random scores of the kinds rankgen writes: integers in [0, 2^53]
// (integer layouts), P / 10^w (decimal layouts) and, for bits62 layouts, non-negative finite
// doubles from their bit patterns.
func scoresWeProduce(rng *rand.Rand, n int) []float64 {
	out := []float64{0, 1, 1 << 53, 1<<53 - 1, 0.1, math.SmallestNonzeroFloat64, math.MaxFloat64}
	for len(out) < n {
		switch rng.IntN(3) {
		case 0:
			out = append(out, float64(randomUint(rng, 53)))
		case 1:
			w := 1 + rng.IntN(9)
			out = append(out, float64(randomUint(rng, 50))/math.Pow10(w))
		default:
			out = append(out, math.Float64frombits(rng.Uint64N(0x7FF0000000000000)))
		}
	}
	return out
}
